"""Memory issue order: the cycles a loop body's loads and stores need in program order.

Optimal port balancing (:mod:`kerncraft.incore.throughput`) packs loads and stores into
cycles as densely as the port limits allow, whatever their order. A core whose address
units pick the *oldest* waiting memory operations does not: when a compiler groups an
unrolled body's loads first and its stores last (``L L L L M M M M S S S S``, M a
load-op), the cycles that issue the stores issue fewer loads than the load paths could
take, and the body runs slower than its port bound; the same operations interleaved
(``L M S L M S ...``) reach it.

:func:`issue_bound` models that pick: every cycle it looks at the ``window`` oldest memory
operations not yet issued and issues, oldest first, every one that still fits the
cycle's limits (``loads``, ``stores`` and ``total`` per cycle); one that does not fit is
skipped, not waited for, but it takes its place in the window. (The other reading, the
``window`` program-order positions from the oldest waiting one, fits the measurements
and the campaign exactly as well; this one is a scheduler's and is what the cycle
simulation applies to the operations whose addresses are ready.) The steady state of the
repeated body, in cycles per iteration, is the bound. Dependencies are not its concern
(the LCD is), and neither are the ports' throughputs of wide or split accesses (the port
balance is): the analysis takes the largest of all bounds.

A port model declares the limits in its header (``memory_issue``, see
``kerncraft/incore/databases/README.md``); a model without them has no such bound.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kerncraft.errors import KerncraftError

__all__ = ["MemoryIssue", "memory_issue_from_header", "access_sequence", "issue_bound"]

LOAD, STORE = "L", "S"


@dataclass(frozen=True)
class MemoryIssue:
    """Per-cycle limits of the oldest-first pick of memory operations."""

    loads: int
    stores: int
    total: int
    window: int
    source: str = ""


def memory_issue_from_header(table: Any, path: str) -> MemoryIssue | None:
    """The ``memory_issue`` header table of a database (None when absent)."""
    if table is None or isinstance(table, MemoryIssue):
        return table
    if not isinstance(table, Mapping):
        raise KerncraftError(f"{path}: memory_issue must be a mapping of loads, stores, "
                             f"total, window (and source)")
    try:
        limits = {key: int(table[key]) for key in ("loads", "stores", "total", "window")}
    except KeyError as exc:
        raise KerncraftError(f"{path}: memory_issue: {exc.args[0]!r} is missing") from None
    except (TypeError, ValueError) as exc:
        raise KerncraftError(f"{path}: memory_issue: {exc}") from None
    if min(limits.values()) < 1:
        raise KerncraftError(f"{path}: memory_issue: every limit must be at least 1, "
                             f"not {limits}")
    return MemoryIssue(**limits, source=str(table.get("source", "")))


def access_sequence(flows: Sequence[Any]) -> str:
    """The body's memory operations in program order: ``L`` per memory read, ``S`` per
    memory write (a read-modify-write gives ``LS``); ``flows`` are the instructions'
    :class:`~kerncraft.incore.model.DataFlow`."""
    return "".join(LOAD * len(f.memory_reads) + STORE * len(f.memory_writes) for f in flows)


def _issue_cycle(sequence: str, issued: list[bool], head: int, limits: MemoryIssue) -> int:
    """Issue one cycle's operations, in place: the ``window`` oldest not issued, oldest
    first, as far as the cycle's limits allow. Returns the last position issued (-1: none)."""
    loads = stores = total = seen = 0
    last = -1
    position = head
    while position < len(sequence) and seen < limits.window and total < limits.total:
        if not issued[position]:
            seen += 1
            if sequence[position] == LOAD and loads < limits.loads:
                loads += 1
                total += 1
                issued[position], last = True, position
            elif sequence[position] != LOAD and stores < limits.stores:
                stores += 1
                total += 1
                issued[position], last = True, position
        position += 1
    return last


def issue_bound(sequence: str, limits: MemoryIssue, max_iterations: int = 64) -> float:
    """Cycles per iteration of ``sequence`` (one body's ``L``/``S`` string) repeated,
    issued as the module docstring says; 0.0 for a body without memory operations.

    The pick is deterministic, and what happens after an iteration's last operation
    issued depends only on which of the next positions have issued already: when that
    state repeats, the cycles between its two occurrences divided by the iterations
    between them are the exact steady state. (Without a repeat within ``max_iterations``
    the mean of the second half is returned.)"""
    if not sequence:
        return 0.0
    size = len(sequence)
    max_iterations = max(4, min(max_iterations, 200_000 // size))   # long bodies repeat early
    ops = sequence * max_iterations
    issued = [False] * len(ops)
    seen: dict[tuple[bool, ...], tuple[int, int]] = {}
    ends: list[int] = []            # cycle in which each iteration's last operation issued
    head = cycle = frontier = 0     # frontier: past the last position issued
    while head < len(ops):
        frontier = max(frontier, _issue_cycle(ops, issued, head, limits) + 1)
        cycle += 1
        before = head
        while head < len(ops) and issued[head]:
            head += 1
        for done in range(before // size + 1, head // size + 1):
            ends.append(cycle)
            state = tuple(issued[done * size:max(frontier, head)])
            if state in seen:
                first, at = seen[state]
                return (cycle - at) / (done - first)
            seen[state] = (done, cycle)
    middle = max_iterations // 2
    return (ends[-1] - ends[middle - 1]) / (max_iterations - middle)
