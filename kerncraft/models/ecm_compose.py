"""Composition of the ECM model from in-core and data-transfer times.

All times are cycles per cache line of work (cy/CL). With the in-core
contributions T_OL (overlapping: arithmetic, and the loop-carried dependency
and front-end bounds, which also overlap with data transfers) and T_nOL
(non-overlapping: the load/store data ports named in the machine file), and the
link times T_L1L2, T_L2L3, T_L3MEM, the prediction for data in level k is::

    T_k = max(T_OL, overlapping link times up to k, T_nOL + non-overlapping link times up to k)

A link is overlapping when its lower level says ``transfers overlap: true``
in the machine file; on Intel machines no link overlaps and this is the
familiar T_k = max(T_OL, T_nOL + T_L1L2 + ... ). T_L3MEM is the memory
transfer time at the *saturated* (highest measured) bandwidth of one NUMA
domain, as published (seed 004: the only measured input of the model).
Multicore scaling: the kernel saturates the memory interface at
``n_s = ceil(T_MEM / T_L3MEM)`` cores; the time for ``n`` cores is
``max(T_MEM(n) / n, T_L3MEM,sat(n))`` with the traffic of ``n`` active cores (each
gets its share of the shared caches) and the saturated bandwidth of the NUMA
domains ``n`` cores fill. Worked examples: docs/ecm-model.md.

Memory penalty (Kerncraft's ``T_penalty``): a machine file may give ``penalty
cycles per cacheline load`` / ``store`` for the memory level (the published Zen 2
file: fitted from single- vs multi-core bandwidths). They are the single core's
surcharge per cache line moved to or from memory and join the non-overlapping
sum of the memory prediction only, ``T_MEM = max(T_OL, overlapping..., T_nOL +
non-overlapping... + T_penalty)``; the saturated T_L3MEM of the scaling table
does not include them (n cores hide one core's latency).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class ECMContribution:
    name: str            # 'T_L1L2', ...
    cycles: float        # cy/CL
    overlapping: bool


@dataclass(frozen=True)
class ECMPrediction:
    """The ECM model of one kernel on one machine, single core, in cy/CL (its notation
    ``{T_OL || T_nOL | T_L1L2 | ...}``: :func:`kerncraft.report.text.ecm_notation`)."""

    t_ol: float
    t_nol: float
    contributions: tuple[ECMContribution, ...]     # T_L1L2, T_L2L3, ..., T_L3MEM
    levels: tuple[str, ...]                        # L1, L2, L3, MEM (data location)
    predictions: tuple[float, ...]                 # T_L1, T_L2, T_L3, T_MEM
    penalty: float = 0.0                           # T_penalty, in T_MEM only

    @property
    def memory_time(self) -> float:
        return self.predictions[-1]

    def to_dict(self) -> dict:
        return {"T_OL": self.t_ol, "T_nOL": self.t_nol,
                "contributions": {c.name: c.cycles for c in self.contributions},
                "T_penalty": self.penalty,
                "overlapping": [c.name for c in self.contributions if c.overlapping],
                "predictions": dict(zip(self.levels, self.predictions))}


def compose_ecm(t_ol: float, t_nol: float, contributions: Sequence[ECMContribution],
                levels: Sequence[str], penalty: float = 0.0) -> ECMPrediction:
    """Apply the ECM composition rule (module doc) for every data location;
    ``penalty`` (T_penalty) is added to the non-overlapping sum of the last one."""
    if len(levels) != len(contributions) + 1:
        raise ValueError("need one data location more than link contributions")
    predictions = []
    overlapping, serial = 0.0, t_nol
    predictions.append(max(t_ol, t_nol))
    for contribution in contributions:
        if contribution.overlapping:
            overlapping = max(overlapping, contribution.cycles)
        else:
            serial += contribution.cycles
        predictions.append(max(t_ol, overlapping, serial))
    if penalty and contributions:
        predictions[-1] = max(t_ol, overlapping, serial + penalty)
    return ECMPrediction(t_ol, t_nol, tuple(contributions), tuple(levels), tuple(predictions),
                         penalty)


@dataclass(frozen=True)
class ScalingPoint:
    cores: int
    cycles_per_cl: float          # per cache line of work of the whole group of cores
    memory_bound: bool


def saturation_cores(memory_time: float, saturated_memory_transfer: float) -> int | None:
    """n_s = ceil(T_MEM / T_L3MEM,sat); None when nothing moves to or from memory
    (the kernel then never saturates the memory interface)."""
    if saturated_memory_transfer <= 0:
        return None
    return max(1, math.ceil(memory_time / saturated_memory_transfer - 1e-9))


def scaling_table(points: Sequence[tuple[int, float, float]]) -> tuple[ScalingPoint, ...]:
    """Time per cache line for ``n`` cores: max(T_MEM(n) / n, T_L3MEM(n)).

    ``points`` holds ``(n, T_MEM(n), T_L3MEM,sat(n))``: the single-core ECM memory
    time with the traffic of ``n`` active cores (their share of shared caches),
    and the memory transfer time at the saturated bandwidth of the NUMA domains
    that ``n`` cores fill.
    """
    table = []
    for n, memory_time, transfer in points:
        compute_bound = memory_time / n
        table.append(ScalingPoint(n, max(compute_bound, transfer),
                                  transfer > 0 and transfer >= compute_bound))
    return tuple(table)
