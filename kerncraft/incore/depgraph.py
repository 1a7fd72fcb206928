"""Register/flag dependency graph of a loop body: critical path and loop-carried chains.

Graph
-----
Every instruction ``i`` is an *op* node ``(i, 'op')``. An instruction that
reads memory gets a second node ``(i, 'load')`` in front of it:

* the producers of its address registers (``DataFlow.address_sources``) feed
  the load node, and the load node feeds the op node with the load latency
  (``InstructionCost.load_latency``);
* its other register/flag sources feed the op node directly.

So a value computed just before an FMA with a memory operand is delayed only
by the FMA's own latency, while the memory operand is charged the load
latency -- the load can start as soon as its address is known, long before the
arithmetic inputs arrive (the load/arithmetic split of the thesis, Sect. 3.2.2).
Without a memory read, address registers (``lea``, stores) feed the op node.

An instruction with separate address and data results
(``DataFlow.separate_results``: the written-back base of ``stp q0, q1, [x8], #64``,
``rsp`` of ``push``/``pop``) gets a third node ``(i, 'addr')``: it reads only the
sources of those results, writes them with the instruction's ``cost.latency``
(the writeback latency of a composed AArch64 access, 0 for x86 stack-pointer
updates), and its sources that are no address registers do not feed the op
node. So the pointer chain of a post-indexed store costs the writeback latency
per iteration and never waits for the stored data, while the data still flows
into the store (and through memory to a later load).

An edge ``u -> v`` means that ``v`` reads a key (register alias root or one
status flag) last written by ``u``; its weight is the latency of the producer
(``cost.latency`` for op nodes, ``cost.load_latency`` for load -> op). A producer
with a forwarding group (``cost.bypass``, e.g. Zen 5's FADD: 2 cy to another FADD,
3 cy to anything else) has ``cost.latency_other`` on edges to consumers outside it
(:mod:`kerncraft.incore.forwarding`).
Only read-after-write edges exist: renaming removes the others. A zero idiom
(``breaks_dependency``) reads nothing, so it cuts every chain through it.
Unknown instructions (no cost) are kept as zero-latency nodes.

Memory: optionally (``store_forward_latency`` given) memory-carried
dependencies are added (:func:`kerncraft.incore.memdeps.memory_dependencies`). Addresses are tracked
symbolically -- ``base + index*scale + displacement`` as linear expressions over
the registers' values at the start of the iteration, following the loop's
integer register arithmetic (``addq $8,%rax`` moves ``(%rdx,%rax)`` by 8 per
iteration) -- so a store and a later load of the same bytes, in the same or a
later iteration (distance ``d``, searched within a reorder-buffer-sized window),
form an edge *store instruction -> instruction with the load* of weight
``latency(store instruction) + store_forward_latency`` (the forwarding replaces
the load latency; a read-modify-write store carries its ALU latency).

Edges carry a *distance*: 0 inside one iteration, 1 from the last writer of a
key in iteration ``k`` to a reader in iteration ``k+1`` that reads the key
before the body writes it (an upward-exposed use), ``d`` for a store read back
``d`` iterations later.

Critical path
-------------
The distance-0 edges form a DAG (they point forward in program order, load
before op). The critical path is the longest path in it, plus the latency of
its final instruction if that instruction produces a register/flag value
(stores and branches complete nothing that another instruction waits for in
this iteration, so they add 0).

Loop-carried dependencies
-------------------------
A dependency cycle whose back edges span ``k`` iterations in total, with total
latency ``L``, limits the loop to ``L/k`` cycles per iteration (the thesis's
doubled-kernel search only sees ``k = 1``; the register-swap loop of its
Sect. 3.2.3 needs ``k = 2``). The
LCD bound is the *maximum cycle ratio*, computed per strongly connected
component without enumerating paths: the heads of the back edges become the
nodes of a reduced graph ``H``; its edge ``a -> b`` carries the longest
distance-0 path from head ``a`` to the tail of a back edge into ``b``, plus that
back edge. Each cycle of the full graph splits at its back edges into such
segments (a back edge of distance ``d`` becomes ``d`` segments through dummy
nodes), so the maximum cycle ratio equals the maximum *mean* cycle of ``H``,
found exactly (latencies scaled to integers) by Karp's algorithm in
``O(|H| * |E_H|)``. A cycle attaining it is read off the edges that are tight
under the longest-path potentials for the weights ``w - lambda``.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping, Sequence

from kerncraft.incore.forwarding import edge_latency, passed_on
from kerncraft.incore.graph_algorithms import find_cycle, strongly_connected_components
from kerncraft.incore.model import DataFlow, DependencyChain, Instruction, InstructionCost
from kerncraft.incore.memdeps import (DEFAULT_WINDOW, Linear, MemoryAccess,  # noqa: F401
                                      MemoryDependency, memory_accesses, memory_dependencies,
                                      memory_key)

__all__ = ["Node", "DepEdge", "DepGraph", "CriticalPath", "build_graph", "critical_path",
           "loop_carried", "max_cycle_ratio", "memory_key", "karp_max_mean_cycle",
           "edge_contributions", "Linear", "MemoryAccess", "MemoryDependency",
           "memory_accesses", "memory_dependencies", "DEFAULT_WINDOW"]

Node = tuple[int, str]          # (instruction index, 'load' | 'op' | 'addr')
_KIND_ORDER = {"load": 0, "op": 1, "addr": 2}


def _order(node: Node) -> tuple[int, int]:
    return node[0], _KIND_ORDER[node[1]]


@dataclass(frozen=True)
class DepEdge:
    src: Node
    dst: Node
    weight: float
    distance: int                 # 0 = same iteration, d = d iterations later
    keys: frozenset[str]          # registers / flags / 'mem' carrying the value


@dataclass(frozen=True)
class DepGraph:
    """Dependency graph of one loop body (see module docstring)."""

    size: int                                   # number of instructions
    nodes: tuple[Node, ...]                     # in program order
    edges: tuple[DepEdge, ...]
    completion: Mapping[Node, float] = field(default_factory=dict)   # sink latency
    memory: tuple["MemoryDependency", ...] = ()  # the store -> load edges among ``edges``

    def to_networkx(self) -> "networkx.MultiDiGraph":  # noqa: F821
        """The graph as a networkx MultiDiGraph (for users; the analysis needs none)."""
        import networkx as nx

        g = nx.MultiDiGraph()
        g.add_nodes_from(self.nodes)
        for e in self.edges:
            g.add_edge(e.src, e.dst, weight=e.weight, distance=e.distance,
                       keys=tuple(sorted(e.keys)))
        return g


@dataclass(frozen=True)
class CriticalPath:
    length: float
    nodes: tuple[Node, ...]
    instructions: tuple[int, ...]
    contributions: Mapping[int, float]           # instruction -> cycles on the path
    edges: tuple[DepEdge, ...] = ()


class _Builder:
    """Walks the body once, connecting every register/flag read to the key's last writer."""

    def __init__(self, flows: Sequence[DataFlow], costs: Sequence[InstructionCost | None]):
        self.flows, self.costs = flows, costs
        self.nodes: list[Node] = []
        self.edges: dict[tuple[Node, Node, int], tuple[float, set[str]]] = {}
        self.last_writer: dict[str, tuple[Node, float]] = {}
        self.exposed: list[tuple[str, Node]] = []     # reads before any write in the body
        self.completion: dict[Node, float] = {}

    def latency_of(self, node: Node) -> float:
        cost = self.costs[node[0]]
        if cost is None:
            return 0.0
        return float(cost.load_latency if node[1] == "load" else cost.latency)

    def add(self, src: Node, dst: Node, distance: int, key: str, weight: float) -> None:
        old, keys = self.edges.get((src, dst, distance), (weight, set()))
        keys.add(key)
        self.edges[(src, dst, distance)] = (max(old, weight), keys)

    def read(self, key: str, dst: Node) -> None:
        if key in self.last_writer:
            src, weight = self.last_writer[key]
            self.add(src, dst, 0, key, edge_latency(self.costs, src, dst, weight))
        else:
            self.exposed.append((key, dst))

    def instruction(self, i: int) -> None:
        flow, cost = self.flows[i], self.costs[i]
        op: Node = (i, "op")
        if flow.memory_reads or (cost is not None and cost.has_load):
            load: Node = (i, "load")
            self.nodes.append(load)
            for key in sorted(flow.address_sources):
                self.read(key, load)
            self.add(load, op, 0, "mem", self.latency_of(load))
            data_keys = flow.sources - flow.address_sources
        else:
            data_keys = flow.sources | flow.address_sources
        self.nodes.append(op)
        separate = dict(flow.separate_results)
        if not flow.breaks_dependency:
            for key in sorted(data_keys - flow.separate_only_sources):
                self.read(key, op)
        for key in flow.destinations - separate.keys():
            self.last_writer[key] = passed_on(self.costs, i, data_keys, self.last_writer) \
                or (op, self.latency_of(op))
        self.completion[op] = self.latency_of(op) if flow.destinations - separate.keys() \
            else 0.0
        if separate:
            self.address_result(i, separate)

    def address_result(self, i: int, separate: Mapping[str, frozenset[str]]) -> None:
        """The ``(i, 'addr')`` node of the separate (address) results."""
        node: Node = (i, "addr")
        self.nodes.append(node)
        for key in sorted(frozenset().union(*separate.values())):
            self.read(key, node)
        latency = self.latency_of((i, "op"))
        for key in separate:
            self.last_writer[key] = (node, latency)
        self.completion[node] = latency

    def finish(self, memory: Sequence["MemoryDependency"] = ()) -> DepGraph:
        for key, dst in self.exposed:
            if key in self.last_writer:
                src, weight = self.last_writer[key]
                self.add(src, dst, 1, key, edge_latency(self.costs, src, dst, weight))
        for dep in memory:
            self.add((dep.store, "op"), (dep.load, "op"), dep.distance, dep.key, dep.latency)
        edges = tuple(DepEdge(s, d, w, dist, frozenset(k))
                      for (s, d, dist), (w, k) in self.edges.items())
        return DepGraph(len(self.flows), tuple(self.nodes), edges, self.completion,
                        tuple(memory))


def build_graph(flows: Sequence[DataFlow], costs: Sequence[InstructionCost | None],
                store_forward_latency: float | None = None, *,
                instructions: Sequence[Instruction] | None = None,
                window: int | None = None, isa: str = "x86") -> DepGraph:
    """Dependency graph from per-instruction data flow and costs.

    With ``store_forward_latency`` memory-carried dependencies are added as
    found by :func:`memory_dependencies` (symbolic addresses; pass the
    ``instructions`` so that integer register arithmetic such as ``addq $8,%rax``
    can be followed, and ``window`` = the reorder-buffer size in instructions).
    Without it the graph has register and flag edges only.
    """
    builder = _Builder(flows, costs)
    for i in range(len(flows)):
        builder.instruction(i)
    memory: list[MemoryDependency] = []
    if store_forward_latency is not None:
        memory = memory_dependencies(flows, costs, store_forward_latency,
                                     instructions=instructions, window=window, isa=isa)
    return builder.finish(memory)


def critical_path(graph: DepGraph) -> CriticalPath:
    """Longest dependency path through one iteration (distance-0 edges)."""
    incoming: dict[Node, list[DepEdge]] = {n: [] for n in graph.nodes}
    for e in graph.edges:
        if e.distance == 0:
            incoming[e.dst].append(e)
    dist: dict[Node, float] = {}
    best_in: dict[Node, DepEdge | None] = {}
    for node in sorted(graph.nodes, key=_order):
        dist[node], best_in[node] = 0.0, None
        # ties go to the earliest producer: the longer, more readable chain
        for e in sorted(incoming[node], key=lambda e: _order(e.src)):
            if dist[e.src] + e.weight > dist[node]:
                dist[node], best_in[node] = dist[e.src] + e.weight, e
    if not graph.nodes:
        return CriticalPath(0.0, (), (), {})
    end = max(graph.nodes, key=lambda n: (dist[n] + graph.completion.get(n, 0.0), _order(n)))
    length = dist[end] + graph.completion.get(end, 0.0)
    path_edges: list[DepEdge] = []
    node = end
    while best_in[node] is not None:
        edge = best_in[node]
        assert edge is not None
        path_edges.append(edge)
        node = edge.src
    path_edges.reverse()
    path_nodes = (node,) + tuple(e.dst for e in path_edges)
    contributions: dict[int, float] = {}
    for e in path_edges:
        contributions[e.src[0]] = contributions.get(e.src[0], 0.0) + e.weight
    contributions[end[0]] = contributions.get(end[0], 0.0) + graph.completion.get(end, 0.0)
    instructions = tuple(dict.fromkeys(n[0] for n in path_nodes))
    return CriticalPath(length, path_nodes, instructions, contributions, tuple(path_edges))


# --------------------------------------------------------------------------- LCD

@functools.lru_cache(maxsize=4096)
def _frac(x: float) -> Fraction:
    """Exact rational of a latency (cached: the same few values recur)."""
    return Fraction(x).limit_denominator(10**6)


def karp_max_mean_cycle(n: int, edges: Sequence[tuple[int, int, int | Fraction]]
                        ) -> Fraction | None:
    """Maximum mean cycle of a graph with nodes ``0..n-1`` (Karp, exact).

    A virtual source reaches every node with a zero edge, so the graph need
    not be strongly connected. Weights may be ints or Fractions (ints are
    much faster). Returns ``None`` for an acyclic graph.
    """
    table: list[list[Any]] = [[0] * n]
    for _ in range(n):
        prev = table[-1]
        row: list[Any] = [None] * n
        for u, v, w in edges:
            if prev[u] is not None:
                cand = prev[u] + w
                if row[v] is None or cand > row[v]:
                    row[v] = cand
        table.append(row)
    best: Fraction | None = None
    for v in range(n):
        last = table[n][v]
        if last is None:
            continue
        worst: Fraction | None = None
        for k in range(n):
            dk = table[k][v]
            if dk is not None:
                val = Fraction(last - dk) / (n - k)
                if worst is None or val < worst:
                    worst = val
        if worst is not None and (best is None or worst > best):
            best = worst
    return best


def _critical_cycle(n: int, edges: Sequence[tuple[int, int, int]], lam: Fraction) -> list[int]:
    """Indices into ``edges`` of one cycle whose mean weight is ``lam``.

    Longest-path potentials for the weights ``w - lam`` (scaled by the
    denominator of ``lam`` to stay in integers); every cycle made of tight
    edges has mean exactly ``lam``.
    """
    p, q = lam.numerator, lam.denominator
    shifted = [(u, v, w * q - p) for u, v, w in edges]
    pot = [0] * n
    for _ in range(n):
        changed = False
        for u, v, w in shifted:
            if pot[u] + w > pot[v]:
                pot[v] = pot[u] + w
                changed = True
        if not changed:
            break
    tight = [idx for idx, (u, v, w) in enumerate(shifted) if pot[u] + w == pot[v]]
    cycle = find_cycle([(shifted[idx][0], shifted[idx][1]) for idx in tight])
    return [tight[k] for k in cycle]


def _longest_from(start: Node, ordered: Sequence[Node], members: set[Node],
                  succ: Mapping[Node, list[tuple[DepEdge, int]]]
                  ) -> tuple[dict[Node, int], dict[Node, DepEdge]]:
    """Longest distance-0 paths from ``start`` inside one SCC (integer weights).

    ``ordered`` lists the SCC in program order, a topological order of the
    distance-0 edges.
    """
    dist: dict[Node, int] = {start: 0}
    pred: dict[Node, DepEdge] = {}
    for node in ordered[ordered.index(start):]:
        if node not in dist:
            continue
        for e, w in succ.get(node, ()):
            if e.dst in members:
                cand = dist[node] + w
                if e.dst not in dist or cand > dist[e.dst]:
                    dist[e.dst], pred[e.dst] = cand, e
    return dist, pred


def _scc_chain(members: set[Node], edges: Sequence[DepEdge]
               ) -> tuple[Fraction, list[DepEdge]] | None:
    """Maximum cycle ratio of one SCC and the edges of a cycle attaining it.

    ``edges`` are the edges inside the SCC. The reduced graph has one node per
    distinct *head* of a back edge; its edge ``a -> b`` (per distance ``d`` of
    the closing back edge) is the heaviest "longest path from head a to the
    tail of a back edge into b, plus that back edge". A back edge spanning
    ``d > 1`` iterations (memory dependencies) becomes a chain of ``d``
    reduced edges through ``d - 1`` dummy nodes, so that the maximum *mean*
    cycle of the reduced graph is the maximum of latency / iterations.
    Latencies are scaled to integers for speed and exactness.
    """
    back = [e for e in edges if e.distance >= 1]
    if not back:
        return None
    scale = math.lcm(*(_frac(e.weight).denominator for e in edges))
    weight = {e: int(_frac(e.weight) * scale) for e in edges}
    succ: dict[Node, list[tuple[DepEdge, int]]] = {}
    for e in edges:
        if e.distance == 0:
            succ.setdefault(e.src, []).append((e, weight[e]))
    ordered = sorted(members, key=_order)
    heads = sorted({e.dst for e in back}, key=_order)
    index = {h: k for k, h in enumerate(heads)}
    longest = {h: _longest_from(h, ordered, members, succ) for h in heads}
    best: dict[tuple[int, int, int], tuple[int, DepEdge]] = {}
    for a, head in enumerate(heads):
        dist = longest[head][0]
        for e in back:
            if e.src in dist:
                w = dist[e.src] + weight[e]
                key = (a, index[e.dst], e.distance)
                if key not in best or w > best[key][0]:
                    best[key] = (w, e)
    reduced: list[tuple[int, int, int]] = []
    origin: list[tuple[int, int, int] | None] = []
    n = len(heads)
    for (a, b, d), (w, _) in best.items():
        chain = [a] + list(range(n, n + d - 1)) + [b]
        n += d - 1
        for k in range(d):
            reduced.append((chain[k], chain[k + 1], w if k == 0 else 0))
            origin.append((a, b, d) if k == 0 else None)
    lam = karp_max_mean_cycle(n, reduced)
    if lam is None:
        return None
    cycle_edges: list[DepEdge] = []
    for idx in _critical_cycle(n, reduced, lam):
        if origin[idx] is None:
            continue
        a, b, d = origin[idx]
        closing = best[(a, b, d)][1]
        pred = longest[heads[a]][1]
        path: list[DepEdge] = []
        node = closing.src
        while node != heads[a]:
            path.append(pred[node])
            node = pred[node].src
        cycle_edges.extend(reversed(path))
        cycle_edges.append(closing)
    return lam / scale, cycle_edges


def _chain_from_edges(lam: Fraction, cycle: list[DepEdge]) -> DependencyChain:
    first = min(range(len(cycle)), key=lambda k: _order(cycle[k].src))
    cycle = cycle[first:] + cycle[:first]          # start at the earliest instruction
    instructions = tuple(dict.fromkeys(e.src[0] for e in cycle))
    via: list[str] = []
    for e in cycle:
        for key in sorted(e.keys):
            if key not in via:
                via.append(key)
    return DependencyChain(instructions=instructions, latency=float(lam), via=tuple(via))


def loop_carried(graph: DepGraph) -> tuple[float, tuple[DependencyChain, ...],
                                           tuple[tuple[DepEdge, ...], ...]]:
    """LCD bound (cycles per iteration), one chain per cyclic SCC, and its edges.

    Chains are sorted by decreasing latency, so ``chains[0]`` is the LCD.
    """
    successors: dict[Node, list[Node]] = {}
    for e in graph.edges:
        successors.setdefault(e.src, []).append(e.dst)
    components = [set(c) for c in strongly_connected_components(graph.nodes, successors)]
    where = {node: k for k, comp in enumerate(components) for node in comp}
    inside: list[list[DepEdge]] = [[] for _ in components]
    for e in graph.edges:
        if where[e.src] == where[e.dst]:
            inside[where[e.src]].append(e)
    found: list[tuple[DependencyChain, tuple[DepEdge, ...]]] = []
    for component, edges in zip(components, inside):
        result = _scc_chain(component, edges) if edges else None
        if result is not None:
            lam, edges = result
            found.append((_chain_from_edges(lam, edges), tuple(edges)))
    found.sort(key=lambda item: (-item[0].latency, item[0].instructions))
    lcd = found[0][0].latency if found else 0.0
    return lcd, tuple(c for c, _ in found), tuple(e for _, e in found)


def max_cycle_ratio(graph: DepGraph) -> float:
    """Convenience: the LCD bound alone."""
    return loop_carried(graph)[0]


def edge_contributions(edges: Sequence[DepEdge]) -> dict[int, float]:
    """Cycles each instruction contributes along a path or cycle (by producer)."""
    out: dict[int, float] = {}
    for e in edges:
        out[e.src[0]] = out.get(e.src[0], 0.0) + e.weight
    return out
