"""Which memory bandwidth the single-core ECM memory term T_L3MEM uses.

The published ECM model (seed 004, Sect. 2.3 and 5) takes the *saturated* bandwidth of
one ccNUMA domain: with the **additive** composition (Intel server cores, no level's
transfers overlap) one core's memory time is T_nOL + T_L1L2 + T_L2L3 + T_L3MEM, and a
one-core bandwidth measurement already contains the in-cache transfers the sum adds, so
using it would count them twice.

With the **overlapping** composition (AMD Zen: the in-cache transfers overlap with each
other and with the in-core work) the memory term stands alone in the maximum,
T_MEM = max(T_OL, T_L1L2, T_L2L3, T_nOL + T_L3MEM): nothing else in the sum can account
for what one core cannot reach of the saturated bandwidth. There T_L3MEM must be what
*one core* achieves, the one-core measurement of the matching benchmark kernel; the
machine file's memory penalty cycles (Kerncraft's T_penalty, fitted as one-core minus
saturated time) are then contained in it and not added again. Measured on two hosts
(docs/ecm-model.md): on a Zen 2 guest the saturated figure took the memory points' median
error from 7 % to 26 % (a file without penalty cycles); on the Zen 5 host the replay
corpus compares both (benchmarks/corpus/).

The machine file may choose either for its memory level (``ECM memory bandwidth:
saturated`` or ``single-core``, our extension); without it the composition decides.
The scaling table and the saturation core count always use the saturated bandwidth:
n cores together are limited by what the memory interface delivers.
"""
from __future__ import annotations

from dataclasses import dataclass

from kerncraft.machine.model import MachineModel

__all__ = ["MemoryTerm", "memory_term"]


@dataclass(frozen=True)
class MemoryTerm:
    """The bandwidth basis of the single-core T_L3MEM and why it was chosen."""

    basis: str            # 'saturated' or 'single-core'
    reason: str           # 'machine file', 'additive composition', 'overlapping composition'
    penalty_left_out: float = 0.0   # cy/CL of the file's penalty cycles not added (single-core)
    measured_cores: str = ""        # 'N of M' when the file's bandwidths used only N cores

    @property
    def single_core(self) -> bool:
        return self.basis == "single-core"

    def to_dict(self) -> dict:
        return {"basis": self.basis, "reason": self.reason,
                "penalty_left_out": self.penalty_left_out,
                "measured_cores": self.measured_cores or None}


def overlapping_composition(machine: MachineModel) -> bool:
    """True when an in-cache level's transfers overlap (the Zen composition)."""
    return any(level.transfers_overlap for level in machine.cache_levels)


def memory_term(machine: MachineModel) -> MemoryTerm:
    """The single-core memory term of ``machine`` (module doc).

    >>> import kerncraft
    >>> memory_term(kerncraft.load_machine("CSX"))
    MemoryTerm(basis='saturated', reason='additive composition')
    >>> memory_term(kerncraft.load_machine("ZEN2"))
    MemoryTerm(basis='single-core', reason='overlapping composition')
    """
    measured = machine.measured_cores
    cores = f"{measured.used} of {measured.of}" if measured and measured.partial else ""
    chosen = machine.memory_level.ecm_memory_bandwidth
    if chosen is not None:
        return MemoryTerm(chosen, "machine file", measured_cores=cores)
    if overlapping_composition(machine):
        return MemoryTerm("single-core", "overlapping composition", measured_cores=cores)
    return MemoryTerm("saturated", "additive composition", measured_cores=cores)
