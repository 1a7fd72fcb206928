"""Typed, frozen results of the models.

Every model computes one of these; the text of a report
(:mod:`kerncraft.report.text`) and the JSON (:mod:`kerncraft.report.json`,
schema in ``docs/json.md``) are produced from them. Units are part of the
names or documented per field: times are core cycles per cache line of work
(``cy/CL``, one unit of work = ``iterations_per_cacheline`` innermost
iterations), traffic is cache lines or bytes per unit of work, bandwidths are
B/s, and a field ending in ``_in_unit`` (or ``prediction``, ``performance``)
is in the result's ``unit`` (``cy/CL``, ``cy/It``, ``It/s`` or ``FLOP/s``).

The data-traffic result is :class:`kerncraft.cache.traffic.TrafficResult` and
the measurement of ``-p Benchmark`` is :class:`BenchmarkResult` (made by
:func:`kerncraft.benchmark.kernel_run.run_benchmark`).

>>> from kerncraft.models.results import ScalingRow
>>> row = ScalingRow(cores=2, cycles_per_cl=10.4, value=10.4, memory_bound=True)
>>> row.to_dict()
{'cores': 2, 'cycles_per_cl': 10.4, 'value': 10.4, 'memory_bound': True}
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kerncraft.cache.traffic import TrafficResult
from kerncraft.models.ecm_compose import ECMPrediction

if TYPE_CHECKING:  # pragma: no cover
    from kerncraft.cache.layer_conditions import LayerConditionAnalysis, LCPoint
    from kerncraft.models.incore_prediction import InCorePrediction
    from kerncraft.models.memory_term import MemoryTerm
    from kerncraft.models.transfers import LinkTime

__all__ = ["ECMCPUResult", "ECMDataResult", "ScalingRow", "ECMResult", "RooflineLevel",
           "RooflineResult", "LCResult", "TrafficResult", "BenchmarkResult"]


@dataclass(frozen=True)
class ECMCPUResult:
    """``-p ECMCPU``: the in-core times of the compiled loop per cache line of work.

    ``t_ol`` / ``t_nol`` are cy/CL; ``t_ol_in_unit`` / ``t_nol_in_unit`` the same
    in ``unit``. ``prediction`` holds the details (block selection, port
    analysis, line splits) for the verbose report.

    >>> import kerncraft

    >>> result = kerncraft.analyze("kernels/copy.c", "CSX", model="ECMCPU",
    ...                            defines={"N": 10**7})
    >>> result.t_ol, result.t_nol
    (2.0, 1.0)
    """

    unit: str
    t_ol: float
    t_nol: float
    t_ol_in_unit: float
    t_nol_in_unit: float
    prediction: "InCorePrediction"

    @property
    def iterations_per_cacheline(self) -> float:
        """Innermost iterations in one unit of work."""
        return self.prediction.iterations_per_cacheline

    def to_dict(self) -> dict[str, Any]:
        """JSON view (``docs/json.md``, model ``ECMCPU``)."""
        return {"unit": self.unit, **self.prediction.to_dict()}


@dataclass(frozen=True)
class ECMDataResult:
    """``-p ECMData``: the transfer time of every link below L1.

    ``links`` carry cache lines, bytes and cy/CL per unit of work; ``values``
    are the link times in ``unit``, in the same order.

    >>> import kerncraft

    >>> result = kerncraft.analyze("kernels/copy.c", "CSX", model="ECMData",
    ...                            defines={"N": 10**7})
    >>> [link.name for link in result.links]
    ['T_L1L2', 'T_L2L3', 'T_L3MEM']
    """

    predictor: str
    cores: int
    unit: str
    iterations_per_cacheline: float
    links: tuple["LinkTime", ...]
    values: tuple[float, ...]
    traffic: TrafficResult

    def value(self, name: str) -> float:
        """The time of link ``name`` (``T_L3MEM``, ...) in ``unit``."""
        return dict(zip((link.name for link in self.links), self.values))[name]

    def to_dict(self) -> dict[str, Any]:
        """JSON view (``docs/json.md``, model ``ECMData``)."""
        return {"predictor": self.predictor, "cores": self.cores, "unit": self.unit,
                "iterations_per_cacheline": self.iterations_per_cacheline,
                "links": [link.to_dict() for link in self.links],
                "values": {link.name: v for link, v in zip(self.links, self.values)},
                "traffic": self.traffic.to_dict()}


@dataclass(frozen=True)
class ScalingRow:
    """One row of the ECM scaling table: ``cores`` active cores, the time per cache
    line of work of the whole group (cy/CL) and the same in the result's unit."""

    cores: int
    cycles_per_cl: float
    value: float
    memory_bound: bool

    def to_dict(self) -> dict[str, Any]:
        return {"cores": self.cores, "cycles_per_cl": self.cycles_per_cl,
                "value": self.value, "memory_bound": self.memory_bound}


@dataclass(frozen=True)
class ECMResult:
    """``-p ECM``: the full Execution-Cache-Memory model of one kernel on one machine.

    ``ecm`` holds the single-core composition in cy/CL (T_OL, T_nOL, the link
    contributions and T_L1 ... T_MEM); ``predictions_in_unit`` the same
    predictions in ``unit``. ``saturated_memory_cycles`` is T_L3MEM at the
    saturated bandwidth of one NUMA domain (cy/CL), ``memory_term`` which bandwidth the
    single-core T_L3MEM uses (models/memory_term.py), ``saturation_cores`` the
    core count n_s at which the memory interface saturates (None: no memory
    traffic). ``prediction`` is the scaling-table row for ``cores``, in ``unit``.

    >>> import kerncraft

    >>> result = kerncraft.analyze("kernels/copy.c", "CSX", defines={"N": 10**7})
    >>> round(result.t_mem, 2), result.saturation_cores
    (20.76, 3)
    """

    predictor: str
    unit: str
    cores: int
    ecm: ECMPrediction
    predictions_in_unit: tuple[float, ...]
    saturation_cores: int | None
    saturated_memory_cycles: float
    memory_term: "MemoryTerm"
    scaling: tuple[ScalingRow, ...]
    prediction: float
    numa_domain_cores: int
    socket_cores: int
    incore: "InCorePrediction"
    links: tuple["LinkTime", ...]
    traffic: TrafficResult

    @property
    def t_ol(self) -> float:
        """Overlapping in-core time, cy/CL."""
        return self.ecm.t_ol

    @property
    def t_nol(self) -> float:
        """Non-overlapping in-core time, cy/CL."""
        return self.ecm.t_nol

    @property
    def t_mem(self) -> float:
        """Single-core prediction with the data in memory, cy/CL."""
        return self.ecm.memory_time

    @property
    def predictions(self) -> dict[str, float]:
        """Single-core prediction per data location (``L1`` ... ``MEM``), cy/CL."""
        return dict(zip(self.ecm.levels, self.ecm.predictions))

    @property
    def prediction_cy_per_cl(self) -> float:
        """The prediction for ``cores`` cores in cy/CL."""
        return self.row(self.cores).cycles_per_cl

    def row(self, cores: int) -> ScalingRow:
        """The scaling-table row of ``cores`` active cores."""
        for row in self.scaling:
            if row.cores == cores:
                return row
        raise KeyError(cores)

    def to_dict(self) -> dict[str, Any]:
        """JSON view (``docs/json.md``, model ``ECM``)."""
        return {"predictor": self.predictor, "unit": self.unit, "cores": self.cores,
                **self.ecm.to_dict(),
                "predictions_in_unit": dict(zip(self.ecm.levels, self.predictions_in_unit)),
                "saturation_cores": self.saturation_cores,
                "saturated_T_L3MEM": self.saturated_memory_cycles,
                "memory_term": self.memory_term.to_dict(),
                "scaling": [row.to_dict() for row in self.scaling],
                "prediction": self.prediction,
                "incore": self.incore.to_dict(), "links": [link.to_dict() for link in self.links],
                "traffic": self.traffic.to_dict()}


@dataclass(frozen=True)
class RooflineLevel:
    """One memory level of a Roofline result, per unit of work."""

    level: str
    bytes: float                  # per unit of work
    bandwidth: float              # B/s as used (write-allocate corrected below L1)
    benchmark_kernel: str
    cycles: float                 # cy/CL
    arithmetic_intensity: float   # FLOP/B

    def to_dict(self) -> dict:
        return {"level": self.level, "bytes": self.bytes, "bandwidth": self.bandwidth,
                "benchmark_kernel": self.benchmark_kernel, "cycles_per_cl": self.cycles,
                "arithmetic_intensity": self.arithmetic_intensity}


@dataclass(frozen=True)
class RooflineResult:
    """``-p RooflineFLOP`` or ``-p RooflineASM``: the largest of the memory-level
    times and the compute ceiling.

    ``levels`` (cy/CL and B/s per level), ``level_performance`` the level
    times in ``unit``; ``compute_cycles_per_cl`` the compute ceiling (arithmetic
    peak for RooflineFLOP, the in-core prediction for RooflineASM);
    ``cycles_per_cl`` the prediction in cy/CL and ``performance`` in ``unit``.
    ``precision``, ``peak_flops_per_cycle`` and ``arithmetic_intensity`` (FLOP/B)
    are set for RooflineFLOP, ``incore`` for RooflineASM.

    >>> import kerncraft

    >>> result = kerncraft.analyze("kernels/triad.c", "CSX", model="RooflineFLOP",
    ...                            defines={"N": 10**7})
    >>> result.bottleneck
    'MEM'
    """

    model: str
    predictor: str
    cores: int
    unit: str
    levels: tuple[RooflineLevel, ...]
    level_performance: tuple[float, ...]
    compute_cycles_per_cl: float
    compute_performance: float | None      # None: no compute ceiling (a kernel without FLOPs)
    bottleneck: str
    cycles_per_cl: float
    performance: float
    traffic: TrafficResult
    clock_hz: float
    precision: str | None = None
    peak_flops_per_cycle: float | None = None
    arithmetic_intensity: float | None = None
    incore: "InCorePrediction | None" = None

    def to_dict(self) -> dict[str, Any]:
        """JSON view (``docs/json.md``, models ``RooflineFLOP`` and ``RooflineASM``)."""
        levels = [lvl.to_dict() for lvl in self.levels]
        if self.model == "RooflineASM":
            return {"predictor": self.predictor, "cores": self.cores, "unit": self.unit,
                    "incore_cycles_per_cl": self.compute_cycles_per_cl, "levels": levels,
                    "bottleneck": self.bottleneck, "cycles_per_cl": self.cycles_per_cl,
                    "performance": self.performance, "incore": self.incore.to_dict(),
                    "traffic": self.traffic.to_dict()}
        return {"predictor": self.predictor, "cores": self.cores, "unit": self.unit,
                "precision": self.precision, "peak_flops_per_cycle": self.peak_flops_per_cycle,
                "compute_cycles_per_cl": self.compute_cycles_per_cl, "levels": levels,
                "bottleneck": self.bottleneck,
                "arithmetic_intensity": self.arithmetic_intensity,
                "cycles_per_cl": self.cycles_per_cl, "performance": self.performance,
                "traffic": self.traffic.to_dict()}


@dataclass(frozen=True)
class LCResult:
    """``-p LC``: the layer conditions of every cache level at one point.

    ``analysis`` is the symbolic analysis (shared by all points of a sweep),
    ``point`` its evaluation at ``point.bindings``; ``traffic`` the resulting
    cache lines per unit of work.

    >>> import kerncraft

    >>> result = kerncraft.analyze("kernels/2d-5pt.c", "CSX", model="LC",
    ...                            defines={"N": 1000, "M": 1000})
    >>> result.holding
    {'L1': 1, 'L2': 2, 'L3': 2}
    """

    analysis: "LayerConditionAnalysis"
    point: "LCPoint"

    @property
    def traffic(self) -> TrafficResult:
        return self.point.traffic

    @property
    def holding(self) -> dict[str, int]:
        """Level -> index of the layer condition that holds."""
        return dict(self.point.holding)

    def to_dict(self) -> dict[str, Any]:
        """JSON view (``docs/json.md``, model ``LC``)."""
        analysis, point = self.analysis, self.point
        u = analysis.unit_of_work
        levels = []
        for cap in analysis.capacities:
            conds = []
            for cond in analysis.conditions[cap.name]:
                misses, stores, evicts = point.condition_values(cap, cond.index, u)
                conds.append({
                    "index": cond.index, "window": cond.window,
                    "threshold": cond.threshold_text,
                    "inequality": None if cond.index == 0 else cond.inequality_text,
                    "footprint": cond.footprint_text,
                    "footprint_bytes": point.footprints[cond.index],
                    "fits": point.footprints[cond.index] <= cap.usable,
                    "hits": list(cond.hits), "misses": list(cond.miss_accesses),
                    "miss_lines": misses, "store_lines": stores, "eviction_lines": evicts,
                })
            levels.append({"level": cap.name, "usable_bytes": cap.usable, "size_bytes": cap.size,
                           "fill_factor": cap.fill, "role": cap.role,
                           "holds": point.holding[cap.name], "conditions": conds})
        return {"cores": analysis.cores, "unit_of_work_iterations": u,
                "levels": levels, "traffic": point.traffic.to_dict()}


# ---------------------------------------------------------------- -p Benchmark

@dataclass(frozen=True)
class LevelVolume:
    """A machine-file counter metric measured in the region, per cache line of work."""

    level: str
    metric: str                  # 'loads', 'stores', 'misses', 'evicts'
    measured: float              # counted events (cache lines) per CL of work
    predicted: float | None      # cache lines per CL of work from the cache predictor

    def to_dict(self) -> dict:
        return {"level": self.level, "metric": self.metric, "measured": self.measured,
                "predicted": self.predicted}


@dataclass(frozen=True)
class BenchmarkResult:
    """``-p Benchmark``: the kernel measured on this host. ``value`` in ``to_dict()``
    is the measurement in ``unit`` (None: FLOP/s of a kernel without FLOPs)."""

    backend: str                     # 'timing' or 'likwid'
    backend_reason: str
    clock_hz: float                  # clock the cycles are counted in
    clock_source: str
    machine_clock_hz: float
    cores: int
    cpus: tuple[int, ...]
    compiler: str
    flags: tuple[str, ...]
    repetitions: int
    iterations_per_repetition: int
    iterations_per_cacheline: int
    flops_per_iteration: int
    seconds: float                   # timed region, all repetitions
    cycles: float                    # same, in core cycles
    time_source: str
    runs: int
    volumes: tuple[LevelVolume, ...] = ()
    notes: tuple[str, ...] = ()
    unit: str = "cy/CL"              # of the value reported (--unit)

    @property
    def iterations(self) -> int:
        return self.repetitions * self.iterations_per_repetition

    @property
    def cachelines(self) -> float:
        return self.iterations / self.iterations_per_cacheline

    @property
    def cycles_per_cl(self) -> float:
        return self.cycles / self.cachelines

    @property
    def cycles_per_it(self) -> float:
        return self.cycles / self.iterations

    @property
    def iterations_per_s(self) -> float:
        return self.iterations / self.seconds

    @property
    def flops_per_s(self) -> float:
        return self.flops_per_iteration * self.iterations_per_s

    def value(self, unit: str) -> float:
        return {"cy/CL": self.cycles_per_cl, "cy/It": self.cycles_per_it,
                "It/s": self.iterations_per_s, "FLOP/s": self.flops_per_s}[unit]

    def to_dict(self) -> dict[str, Any]:
        """JSON view (``docs/json.md``, model ``Benchmark``)."""
        value = (self.value(self.unit) if self.unit != "FLOP/s" or self.flops_per_iteration
                 else None)
        return {"unit": self.unit, "backend": self.backend, "backend_reason": self.backend_reason,
                "clock_hz": self.clock_hz, "clock_source": self.clock_source,
                "machine_clock_hz": self.machine_clock_hz, "cores": self.cores,
                "cpus": list(self.cpus), "compiler": self.compiler, "flags": list(self.flags),
                "repetitions": self.repetitions,
                "iterations_per_repetition": self.iterations_per_repetition,
                "iterations_per_cacheline": self.iterations_per_cacheline,
                "cachelines": self.cachelines, "seconds": self.seconds, "cycles": self.cycles,
                "time_source": self.time_source, "runs": self.runs,
                "cycles_per_cl": self.cycles_per_cl, "cycles_per_it": self.cycles_per_it,
                "iterations_per_s": self.iterations_per_s, "flops_per_s": self.flops_per_s,
                "volumes": [v.to_dict() for v in self.volumes], "notes": list(self.notes),
                "value": value}
