"""Cache-line-split cycles as uops, for the cycle-level simulation.

The static bound adds the expected split cycles of a loop to the ports the database
names (:func:`kerncraft.incore.linesplit.port_cycles_with_splits`). The simulation
schedules uops, so the same cycles become one more uop on each packed vector access
of the width and kind concerned: on the database's split ports, occupying them for
``share x cost`` cycles (the expected extra time of one access). Without this the
simulation of a loop whose vectors cross cache lines comes out faster than the static
bound it should agree with (2d-5pt with 512-bit vectors on Zen 5: 2.0 against 3.75 cy).
x86 only, like the estimate itself; the front end is unaffected (the fused-uop counts
of the analysis stay as they are).
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from kerncraft.incore.model import InstructionCost, Uop
from kerncraft.incore.protocols import AnalysedLoop

if TYPE_CHECKING:
    from kerncraft.incore.linesplit import LineSplitEstimate

__all__ = ["with_split_uops"]


def with_split_uops(analysis: AnalysedLoop, estimate: LineSplitEstimate | None
                    ) -> AnalysedLoop:
    """``analysis`` with a split uop added to every packed access that may split
    (unchanged if there is no estimate or it charges nothing)."""
    if estimate is None:
        return analysis
    extra = {(r.kind, r.vector_bytes): Uop(frozenset(r.cost.ports), r.fraction * r.cost.cycles)
             for r in estimate.rows
             if r.cost is not None and r.cost.ports and r.fraction > 0}
    if not extra:
        return analysis
    from kerncraft.incore.linesplit import packed_accesses
    from kerncraft.incore.x86.semantics import dataflow
    from kerncraft.incore.x86.vectors import packed_access_bytes

    costs = list(analysis.costs)
    for i, ins in enumerate(analysis.instructions):
        if costs[i] is None:
            continue
        added = tuple(extra[a] for a in packed_accesses(ins, packed_access_bytes, dataflow)
                      if a in extra)
        if added:
            costs[i] = dataclasses.replace(costs[i], uops=costs[i].uops + added)
    # the static bound with the split cycles, as the report's throughput has them
    totals = dict(analysis.port_totals or {})
    for port, cycles in estimate.per_port.items():
        totals[port] = totals.get(port, 0.0) + cycles
    bound = max([float(analysis.prediction), *totals.values()])
    return _WithCosts(analysis, tuple(costs), bound)


class _WithCosts:
    """The analysis as the simulation sees it, with other costs (the analysis may be the
    result cache's lazy object rather than a dataclass, so it is wrapped, not copied)."""

    def __init__(self, analysis: AnalysedLoop, costs: tuple[InstructionCost | None, ...],
                 prediction: float) -> None:
        self._analysis = analysis
        self.costs = costs
        self.prediction = prediction

    def __getattr__(self, name: str) -> Any:
        # a wrapper: every attribute but the two above is the analysis's
        return getattr(self._analysis, name)
