"""The three graph algorithms the in-core analysis needs, on small integer graphs.

The analysis asks for strongly connected components (loop-carried chains), one cycle
among the tight edges of a critical cycle, and an integer maximum flow (port
balancing, :mod:`kerncraft.incore.throughput`). networkx has all three, but importing
it costs 0.1-0.15 s per process, more than the whole analysis of a 50-instruction
loop; these few functions cost nothing to import. networkx stays the library for
users who want the graph (:meth:`kerncraft.incore.depgraph.DepGraph.to_networkx`).

Every function is deterministic: nodes are visited in the order they are given and
edges in the order they were added, never in the order of a set (which would change
with ``PYTHONHASHSEED`` for string nodes). Nothing recurses, so a 5,000-instruction
chain is no problem for Python's recursion limit.
"""
from __future__ import annotations

from collections import deque
from typing import Hashable, Iterable, Mapping, Sequence, TypeVar

__all__ = ["strongly_connected_components", "find_cycle", "maximum_flow"]

N = TypeVar("N", bound=Hashable)


def strongly_connected_components(nodes: Sequence[N], successors: Mapping[N, Sequence[N]]
                                  ) -> list[list[N]]:
    """The strongly connected components of a digraph (Tarjan's algorithm, iterative).

    ``successors[n]`` lists the heads of the edges leaving ``n`` (nodes without an
    entry have none). Components come in reverse topological order of the
    condensation, each with its nodes in the order they were first reached."""
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    on_stack: set[N] = set()
    stack: list[N] = []
    components: list[list[N]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(successors.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c not in index or c in on_stack), None)
            if child is not None:
                if child in index:          # on the stack: a back or cross edge inside
                    low[node] = min(low[node], index[child])
                else:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors.get(child, ()))))
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component[::-1])
    return components


def find_cycle(edges: Sequence[tuple[N, N]]) -> list[int]:
    """Indices into ``edges`` of one directed cycle, in order along it; ValueError if
    the graph has none. The search starts from the tail of the first edge."""
    out: dict[N, list[tuple[N, int]]] = {}
    for k, (u, v) in enumerate(edges):
        out.setdefault(u, []).append((v, k))
    state: dict[N, int] = {}           # 1: on the current path, 2: finished
    for start in dict.fromkeys(u for u, _ in edges):
        if start in state:
            continue
        path: list[tuple[N, int]] = []  # (node, index of the edge that reached it)
        work = [(start, iter(out.get(start, ())))]
        state[start] = 1
        while work:
            node, leaving = work[-1]
            step = next(leaving, None)
            if step is None:
                state[node] = 2
                work.pop()
                if path:
                    path.pop()
                continue
            head, k = step
            if state.get(head) == 1:    # back to a node on the path: the cycle
                cycle = [k]
                for reached, via in reversed(path):
                    if reached == head:
                        break
                    cycle.append(via)
                return cycle[::-1]
            if head not in state:
                state[head] = 1
                path.append((head, k))
                work.append((head, iter(out.get(head, ()))))
    raise ValueError("the graph has no cycle")


def maximum_flow(capacities: Iterable[tuple[int, int, int | None]], source: int, sink: int
                 ) -> tuple[int, dict[int, dict[int, int]]]:
    """Integer maximum flow (Edmonds-Karp: shortest augmenting paths by breadth-first
    search) on nodes numbered from 0. ``capacities``: edges ``(u, v, c)``, ``c`` None
    for an unbounded edge. Returns the flow value and ``flow[u][v]`` for every edge
    given (0 where nothing flows). Edges must not come in antiparallel pairs (the
    residual of one would be the other's flow) nor twice (their flows would merge)."""
    capacities = list(capacities)
    pairs = {(u, v) for u, v, _ in capacities}
    if any((v, u) in pairs for u, v in pairs):
        raise ValueError("maximum_flow: antiparallel edges")
    if len(pairs) != len(capacities):
        raise ValueError("maximum_flow: parallel edges")
    bounded = sum(c for _, _, c in capacities if c is not None)
    residual: dict[int, dict[int, int]] = {}
    for u, v, c in capacities:
        # an unbounded edge can carry at most what all bounded edges can
        residual.setdefault(u, {})[v] = residual.get(u, {}).get(v, 0) + \
            (bounded + 1 if c is None else c)
        residual.setdefault(v, {}).setdefault(u, 0)
    value = 0
    while True:
        parent = _augmenting_path(residual, source, sink)
        if parent is None:
            break
        amount, node = None, sink
        while node != source:
            prev = parent[node]
            amount = residual[prev][node] if amount is None else min(amount,
                                                                     residual[prev][node])
            node = prev
        node = sink
        while node != source:
            prev = parent[node]
            residual[prev][node] -= amount
            residual[node][prev] += amount
            node = prev
        value += amount
    flow: dict[int, dict[int, int]] = {}
    for u, v, c in capacities:
        full = bounded + 1 if c is None else c
        flow.setdefault(u, {})[v] = max(full - residual[u][v], 0)
    return value, flow


def _augmenting_path(residual: Mapping[int, Mapping[int, int]], source: int, sink: int
                     ) -> dict[int, int] | None:
    """Predecessors along a shortest path of positive residual capacity, or None."""
    parent = {source: source}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for head, room in residual.get(node, {}).items():
            if room > 0 and head not in parent:
                parent[head] = node
                if head == sink:
                    return parent
                queue.append(head)
    return None
