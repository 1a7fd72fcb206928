"""Memory penalty cycles per cache line, fitted from single- vs multi-core bandwidths.

The ECM model takes the memory transfer time at the *saturated* bandwidth of a
NUMA domain (seed 004). On Intel server cores the in-cache transfers that do not
overlap explain why one core gets less (the published model). On AMD Zen they
overlap, and one core gets much less than the saturated bandwidth because of its
own memory latency and miss concurrency; the published Zen 2 machine file carries
``penalty cycles per cacheline load/store`` for that, "fitted from triad and copy
single- vs 8-core BW". ``kerncraft-machine`` fits them the same way from its own
measurements, for every benchmark kernel ``k`` at the memory level::

    deficit_k = T_1core,k - T_sat,k - T_L1,k
              = loads_k * p_load + stores_k * p_store       (least squares, p >= 0)

with, per cache line of work (one 64-B line of each stream), ``T_1core`` the
kernel's time at its single-core memory bandwidth, ``T_sat`` at its saturated one
(the highest on up to one NUMA domain, what ECM uses), ``T_L1`` at its L1 bandwidth
(the in-core part ECM adds before the memory transfer on a machine whose memory
transfer does not overlap), and ``loads``/``stores`` the lines moved to and from
memory (write-allocate included). Pure functions; the generator supplies numbers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from kerncraft.machinegen.upstream_fit import stream_lines

__all__ = ["PenaltyPoint", "PenaltyFit", "penalty_points", "fit_penalties"]


@dataclass(frozen=True)
class PenaltyPoint:
    """One benchmark kernel's times per cache line of work (cycles)."""

    kernel: str
    loads: float          # lines loaded from memory per CL of work
    stores: float         # lines stored to memory per CL of work
    single_core: float    # at the single-core memory bandwidth
    saturated: float      # at the saturated memory bandwidth
    in_core: float        # at the single-core L1 bandwidth

    @property
    def deficit(self) -> float:
        return self.single_core - self.saturated - self.in_core


@dataclass(frozen=True)
class PenaltyFit:
    load: float           # cycles per cache line loaded from memory
    store: float          # cycles per cache line stored to memory
    points: tuple[PenaltyPoint, ...]

    def predicted(self, point: PenaltyPoint) -> float:
        """The single-core time the fitted penalties give back for ``point``."""
        return point.saturated + point.in_core + point.loads * self.load + \
            point.stores * self.store

    def worst_error(self) -> float:
        """Largest relative difference between measured and fitted single-core times."""
        return max((abs(self.predicted(p) - p.single_core) / p.single_core
                    for p in self.points), default=0.0)


def penalty_points(mixes: Mapping[str, tuple[int, int, int]],
                   memory: Mapping[str, Sequence[float]], l1: Mapping[str, Sequence[float]],
                   cores: Sequence[int], saturation_cores: int, clock_hz: float,
                   write_allocate: bool = True, line: int = 64) -> tuple[PenaltyPoint, ...]:
    """Points for every kernel measured at the memory level and in L1.

    ``mixes``: kernel -> (read streams, write streams, read+write streams) in the
    machine-file convention (read and write streams include the read+write ones);
    ``memory``/``l1``: kernel -> bandwidth in B/s per entry of ``cores`` (nominal
    bytes, no write-allocate, as the machine files count them).
    """
    points = []
    for kernel, values in memory.items():
        if kernel not in mixes or not l1.get(kernel) or 1 not in cores:
            continue
        reads, writes, _ = mixes[kernel]
        nominal = (reads + writes) * line            # bytes per CL of work
        loads, stores = stream_lines(mixes[kernel], write_allocate=write_allocate)
        single = values[list(cores).index(1)]
        saturated = max(v for n, v in zip(cores, values) if n <= saturation_cores)
        l1_single = l1[kernel][list(cores).index(1)]
        points.append(PenaltyPoint(kernel, float(loads), float(stores),
                                   nominal * clock_hz / single, nominal * clock_hz / saturated,
                                   nominal * clock_hz / l1_single))
    return tuple(points)


def fit_penalties(points: Sequence[PenaltyPoint]) -> PenaltyFit:
    """Non-negative least squares for (p_load, p_store) over the points (module doc)."""
    best = None
    for free in ((True, True), (True, False), (False, True)):
        load, store = _least_squares(points, *free)
        if load < 0 or store < 0:
            continue
        residual = sum((p.loads * load + p.stores * store - p.deficit) ** 2 for p in points)
        if best is None or residual < best[0] - 1e-12:
            best = (residual, load, store)
    load, store = (0.0, 0.0) if best is None else best[1:]
    return PenaltyFit(load, store, tuple(points))


def _least_squares(points: Sequence[PenaltyPoint], use_load: bool, use_store: bool
                   ) -> tuple[float, float]:
    """Least squares of deficit = loads * a + stores * b with the unused one at 0."""
    sll = sum(p.loads * p.loads for p in points)
    sss = sum(p.stores * p.stores for p in points)
    sls = sum(p.loads * p.stores for p in points)
    sld = sum(p.loads * p.deficit for p in points)
    ssd = sum(p.stores * p.deficit for p in points)
    if use_load and use_store:
        det = sll * sss - sls * sls
        if abs(det) < 1e-12:
            return -1.0, -1.0
        return (sld * sss - ssd * sls) / det, (sll * ssd - sls * sld) / det
    if use_load:
        return (sld / sll if sll else 0.0), 0.0
    return 0.0, (ssd / sss if sss else 0.0)
