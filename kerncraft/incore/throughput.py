"""Throughput bound of a loop body from its micro-ops: optimal port balancing.

Problem
-------
Every micro-op ``u`` of the loop body may execute on any port of its set
``P(u)`` and keeps that port busy for ``c(u)`` cycles (a divider uop on
``'0DV'`` simply occupies the pseudo-port ``0DV`` for its non-pipelined
cycles, so the divider needs no special case). In the steady state the
scheduler may split the ``c(u)`` cycles of a uop arbitrarily among its ports
(averaged over many iterations), so the throughput bound is the smallest
possible maximum port load::

    T* = min over splits x(u, p) >= 0, sum_p x(u, p) = c(u)
         of max_p sum_u x(u, p)

Exact value (Hall-type bound)
-----------------------------
Let ``W(S)`` be the cycles of all uops whose port set lies inside the port
set ``S``. These uops must be served by ``S`` alone, so every split has some
port of ``S`` loaded with at least ``W(S)/|S|``; hence
``T* >= max_S W(S)/|S|``.

The bound is attained: a load limit ``T`` is feasible iff the network
``source -> uop (capacity c(u)) -> port in P(u) (unbounded) -> sink
(capacity T)`` carries a flow of ``sum c(u)``. By max-flow/min-cut the
maximum flow equals the minimum cut. A finite cut keeps a set ``A`` of uops on
the source side; the unbounded edges force all their ports ``N(A)`` to that
side as well, and the cut costs ``sum_{u not in A} c(u) + T*|N(A)|``. The cut
is at least ``sum c(u)`` for every ``A`` iff ``T*|N(A)| >= c(A)``. For a
fixed port set ``S = N(A)`` the worst ``A`` takes every uop inside ``S``, so
feasibility is exactly ``T >= W(S)/|S|`` for every ``S`` that is a union of
uop port sets. Other sets never matter: for an arbitrary ``S`` the union
``S'`` of the port sets lying inside ``S`` has ``W(S') = W(S)`` and
``|S'| <= |S|``. Therefore ``T* = max W(S)/|S|`` over the (usually small)
*union closure* of the distinct uop port sets, computed here in exact
rational arithmetic, and one max-flow at capacity ``T*`` both confirms the
value and yields an assignment.

Balanced assignment (for the port-pressure table)
-------------------------------------------------
Only the busiest ports are fixed by ``T*``. To also make the other columns
meaningful we take the lexicographically minimal load vector: if ``S*`` is
the largest set attaining ``T*`` (maximizers are closed under union because
``W`` is supermodular), every optimal split fills ``S*`` exactly with the
uops inside it, so uops reaching outside ``S*`` never use ``S*``. Removing
``S*`` and those uops and restricting the other port sets to the rest gives a
smaller instance of the same problem; repeating yields levels of decreasing
load, each realised by its own max flow (all its ports are saturated).

Uops are grouped by port set before the flow computation (a few dozen
distinct sets even for long loops) and each group's flow is shared among its
uops in proportion to their cycles, which keeps every column sum unchanged.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

from kerncraft.incore.graph_algorithms import maximum_flow
from kerncraft.incore.model import Uop

__all__ = ["PortBalance", "balance_ports", "fixed_split", "hall_bound", "sort_ports"]


@dataclass(frozen=True)
class PortBalance:
    """Result of port balancing.

    ``per_instruction[i]`` maps every port that instruction ``i`` *may* use to
    the cycles assigned to it (0.0 for a usable but unused port), so a report
    can tell "could run here" from "cannot run here".
    """

    throughput: float
    ports: tuple[str, ...]
    per_instruction: tuple[Mapping[str, float], ...]
    port_totals: Mapping[str, float]
    bottleneck_ports: tuple[str, ...]
    method: str                      # 'optimal' or 'fixed'


def sort_ports(ports: Iterable[str]) -> list[str]:
    """Natural port order ('0', '0DV', '1', ..., '10', '11'); unnumbered last."""

    def key(p: str) -> tuple[int, int, str]:
        m = re.match(r"(\d+)(.*)", p)
        if m:
            return (0, int(m.group(1)), m.group(2))
        return (1, 0, p)

    return sorted(set(ports), key=key)


def _to_fraction(x: float) -> Fraction:
    """Exact-enough rational for a cycle count (1/3 written as 0.333 -> 1/3)."""
    return Fraction(x).limit_denominator(1000)


def _column_order(uop_lists: Sequence[Sequence[Uop]], ports: Sequence[str]) -> tuple[str, ...]:
    extra = {p for uops in uop_lists for u in uops for p in u.ports} - set(ports)
    return tuple(ports) + tuple(sort_ports(extra))


def _effective(uops: Iterable[Uop]) -> list[Uop]:
    """Uops that load a port (ignore port-less and zero-cycle uops)."""
    return [u for u in uops if u.ports and u.cycles > 0]


def _densest(groups: Mapping[int, int]) -> tuple[int, int, int]:
    """Max of W(S)/|S| over the union closure of the group masks.

    Integer weights; returns ``(W, |S|, S)`` for the largest maximizing set
    ``S`` (the union of all maximizers, bit mask). Ratios are compared by
    cross-multiplication, so ties are detected exactly.
    """
    closure = {0}
    for mask in groups:
        closure |= {c | mask for c in closure}
    closure.discard(0)
    best_w, best_n, best_mask = -1, 1, 0
    items = list(groups.items())
    for union in closure:
        weight = sum(w for m, w in items if m & ~union == 0)
        size = bin(union).count("1")
        if weight * best_n > best_w * size:
            best_w, best_n, best_mask = weight, size, union
        elif weight * best_n == best_w * size:
            best_mask |= union
    size = bin(best_mask).count("1")
    return sum(w for m, w in items if m & ~best_mask == 0), size, best_mask


def _integer_weights(cycles: Sequence[Fraction]) -> tuple[list[int], int]:
    """Cycle counts as integers in units of 1/scale."""
    scale = math.lcm(*(c.denominator for c in cycles)) if cycles else 1
    return [int(c * scale) for c in cycles], scale


def hall_bound(uops: Iterable[Uop]) -> tuple[float, frozenset[str]]:
    """``T* = max_S W(S)/|S|`` and the largest port set attaining it.

    Returns ``(0.0, frozenset())`` when no uop loads any port.
    """
    eff = _effective(uops)
    if not eff:
        return 0.0, frozenset()
    names = sort_ports({p for u in eff for p in u.ports})
    bit = {p: 1 << k for k, p in enumerate(names)}
    weights, scale = _integer_weights([_to_fraction(u.cycles) for u in eff])
    groups: dict[int, int] = {}
    for u, w in zip(eff, weights):
        mask = sum(bit[p] for p in u.ports)
        groups[mask] = groups.get(mask, 0) + w
    weight, size, mask = _densest(groups)
    return weight / (size * scale), frozenset(p for p in names if bit[p] & mask)


def _one_flow(level_groups: Mapping[int, int], order: Sequence[int], cap: int
              ) -> dict[int, dict[int, int]]:
    """Integer max flow with ports inserted in ``order``; raises if demand is unmet.

    Nodes are small integers and edges are added in ``order``: the flow
    (:func:`kerncraft.incore.graph_algorithms.maximum_flow`) visits them in that order,
    so the same loop always gets the same of several equally optimal splits."""
    groups = list(level_groups)
    port_node = {k: len(groups) + i for i, k in enumerate(order)}
    source, sink = len(groups) + len(order), len(groups) + len(order) + 1
    edges: list[tuple[int, int, int | None]] = []
    for node, mask in enumerate(groups):
        edges.append((source, node, level_groups[mask]))
        edges.extend((node, port_node[k], None) for k in order if mask >> k & 1)
    edges.extend((port_node[k], sink, cap) for k in order)
    value, flow = maximum_flow(edges, source, sink)
    if value != sum(level_groups.values()):
        raise RuntimeError(f"port balancing: flow {value} below demand "
                           f"{sum(level_groups.values())} at capacity {cap}")
    port_of = {node: k for k, node in port_node.items()}
    return {mask: {port_of[target]: amount for target, amount in flow[node].items()}
            for node, mask in enumerate(groups)}


def _level_flow(level_groups: Mapping[int, int], level_mask: int, weight: int, size: int,
                nports: int) -> dict[int, dict[int, Fraction]]:
    """Assignment realising the load ``weight/size`` on every port of ``level_mask``.

    With group capacities ``w * size`` and port capacities ``weight`` every
    max flow is integral and exact; a flow that does not carry all cycles
    raises ``RuntimeError`` (it would mean that the Hall bound and the flow
    disagree, impossible by the theorem in the module docstring; kept as a
    guard against implementation errors).

    A single max flow picks an arbitrary vertex of the optimal polytope (an
    FMA all on port 0, say). Flows computed with the ports in every cyclic
    order all saturate the same ports, so their average is optimal too and
    spreads each group more evenly -- nicer to read, same column sums.
    Returned amounts are in the integer weight units of ``level_groups``.
    """
    scaled = {mask: w * size for mask, w in level_groups.items()}
    ports = [k for k in range(nports) if level_mask >> k & 1]
    total: dict[int, dict[int, int]] = {mask: {} for mask in scaled}
    for r in range(len(ports)):
        flow = _one_flow(scaled, ports[r:] + ports[:r], weight)
        for mask, cells in flow.items():
            for port, amount in cells.items():
                total[mask][port] = total[mask].get(port, 0) + amount
    denom = size * len(ports)
    return _symmetric({mask: {port: Fraction(a, denom) for port, a in cells.items() if a}
                       for mask, cells in total.items()}, ports)


def _symmetric(split: dict[int, dict[int, Fraction]], ports: Sequence[int]
               ) -> dict[int, dict[int, Fraction]]:
    """``split`` with every group's cycles spread evenly over interchangeable ports.

    Ports that belong to exactly the same groups (FP2 and FP3 when every uop that may
    use one may use the other) are interchangeable: all are saturated at the level's
    load, so averaging each group's amounts over them keeps every column sum and the
    optimum, and the cells no longer depend on which vertex the flow algorithm found
    (0.52 / 0.48 becomes 0.5 / 0.5)."""
    classes: dict[frozenset[int], list[int]] = {}
    for port in ports:
        classes.setdefault(frozenset(m for m in split if m >> port & 1), []).append(port)
    even: dict[int, dict[int, Fraction]] = {}
    for mask, cells in split.items():
        even[mask] = {}
        for members in classes.values():
            if not mask >> members[0] & 1:
                continue
            share = sum((cells.get(port, Fraction(0)) for port in members), Fraction(0)) \
                / len(members)
            even[mask].update({port: share for port in members if share})
    return even


def _balanced_group_loads(groups: dict[int, int], nports: int
                          ) -> tuple[dict[int, dict[int, Fraction]], Fraction, int]:
    """Lexicographically balanced split per original group mask.

    Returns ``{original mask: {port bit index: weight units}}``, ``T*`` (in
    weight units) and the bottleneck port mask.
    """
    current = {m: m for m in groups}              # original mask -> restricted mask
    assignment: dict[int, dict[int, Fraction]] = {}
    top: tuple[Fraction, int] | None = None
    while current:
        restricted: dict[int, int] = {}
        for orig, mask in current.items():
            restricted[mask] = restricted.get(mask, 0) + groups[orig]
        weight, size, level_mask = _densest(restricted)
        if top is None:
            top = (Fraction(weight, size), level_mask)
        inside = {m: w for m, w in restricted.items() if m & ~level_mask == 0}
        flows = _level_flow(inside, level_mask, weight, size, nports)
        for orig, mask in list(current.items()):
            if mask in inside:
                share = Fraction(groups[orig], inside[mask])
                assignment[orig] = {p: amt * share for p, amt in flows[mask].items()}
                del current[orig]
            else:
                current[orig] = mask & ~level_mask
    assert top is not None
    return assignment, top[0], top[1]


def balance_ports(uop_lists: Sequence[Sequence[Uop]], ports: Sequence[str] = ()
                  ) -> PortBalance:
    """Optimal (minimal maximum load) port assignment of a loop body.

    ``uop_lists[i]`` are the uops of instruction ``i``; ``ports`` fixes the
    column order (ports used by uops but missing there are appended).
    """
    columns = _column_order(uop_lists, ports)
    bit = {p: k for k, p in enumerate(columns)}
    masked = [[(sum(1 << bit[p] for p in u.ports), _to_fraction(u.cycles))
               for u in _effective(uops)] for uops in uop_lists]
    weights, scale = _integer_weights([c for row in masked for _, c in row])
    groups: dict[int, int] = {}
    rows: list[list[tuple[int, int]]] = []
    it = iter(weights)
    for row in masked:
        rows.append([(mask, next(it)) for mask, _ in row])
        for mask, w in rows[-1]:
            groups[mask] = groups.get(mask, 0) + w
    if not groups:
        return PortBalance(0.0, columns, tuple({} for _ in uop_lists),
                           {p: 0.0 for p in columns}, (), "optimal")
    assignment, t_star, top_mask = _balanced_group_loads(groups, len(columns))
    per_instruction = []
    for uops, row in zip(uop_lists, rows):
        cells = {p: Fraction(0) for u in _effective(uops) for p in u.ports}
        for mask, w in row:
            share = Fraction(w, groups[mask] * scale)
            for k, amount in assignment[mask].items():
                cells[columns[k]] += amount * share
        per_instruction.append(cells)
    return _finish(columns, per_instruction, t_star / scale,
                   tuple(p for p in columns if top_mask >> bit[p] & 1), "optimal")


def fixed_split(uop_lists: Sequence[Sequence[Uop]], ports: Sequence[str] = ()) -> PortBalance:
    """Each uop split equally over its ports (the classic OSACA/IACA-free model)."""
    columns = _column_order(uop_lists, ports)
    per_instruction = []
    for uops in uop_lists:
        cells: dict[str, Fraction] = {}
        for u in _effective(uops):
            share = _to_fraction(u.cycles) / len(u.ports)
            for p in u.ports:
                cells[p] = cells.get(p, Fraction(0)) + share
        per_instruction.append(cells)
    totals = _totals(columns, per_instruction)
    t = max(totals.values(), default=Fraction(0))
    bottleneck = tuple(p for p in columns if t > 0 and totals[p] == t)
    return _finish(columns, per_instruction, t, bottleneck, "fixed")


def _totals(columns: Sequence[str], per_instruction: Sequence[Mapping[str, Fraction]]
            ) -> dict[str, Fraction]:
    totals = {p: Fraction(0) for p in columns}
    for cells in per_instruction:
        for p, v in cells.items():
            totals[p] += v
    return totals


def _finish(columns: tuple[str, ...], per_instruction: list[dict[str, Fraction]], t: Fraction,
            bottleneck: tuple[str, ...], method: str) -> PortBalance:
    """Exact cells and sums converted to floats once, cells in column order."""
    totals = _totals(columns, per_instruction)
    return PortBalance(
        throughput=float(t), ports=columns,
        per_instruction=tuple({p: float(cells[p]) for p in columns if p in cells}
                              for cells in per_instruction),
        port_totals={p: float(v) for p, v in totals.items()},
        bottleneck_ports=bottleneck, method=method)
