"""The numbers of the pictures (``--plot``), without drawing anything.

One function per kind of picture turns a typed result into a frozen dataclass of
points, ceilings and labels with their units; :mod:`kerncraft.report.plot` draws
them with matplotlib. Like :mod:`kerncraft.report.text` this layer sits below the
models and reads the results by attribute (duck-typed), so every number here is
one of the report's numbers:

* :func:`roofline_plot` -- ``RooflineResult``: a bandwidth ceiling per level
  (FLOP/s = intensity x bandwidth), the compute ceiling, and the kernel at its
  predicted performance once per level (its arithmetic intensity there);
* :func:`ecm_sweep_plot` -- ECM / ECMData results over a ``-D`` sweep: the
  contributions per point (cy/CL) against the working-set size, cache sizes,
  measured points;
* :func:`scaling_plot` -- the ECM scaling table as performance against cores;
* :func:`port_pressure_plot` -- an in-core analysis: cycles per port, bounds;
  :func:`incore_prediction_plot` the same for the in-core part of ECMCPU, with the
  line-split cycles and the binding resource the report names (T_OL or T_nOL);
* :func:`validation_plot` (:mod:`kerncraft.report.plotdata_validation`).

Titles name the kernel, the machine and the sizes of the run
(:func:`picture_title`), so that a picture found without its command still says
what it shows.

>>> round(flops_per_cacheline_of(_Level(192, 1 / 12)), 6)
16.0
>>> picture_title("ECM scaling", "kernels/3d-7pt.c", "CSX", sizes_text([{"N": 100, "M": 50}]))
'ECM scaling: 3d-7pt.c on CSX, M=50 N=100'
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from kerncraft.errors import KerncraftError

__all__ = ["Ceiling", "KernelPoint", "RooflinePlot", "roofline_plot", "StackedPoint",
           "ECMSweepPlot", "ecm_sweep_plot", "ScalingPlot", "scaling_plot",
           "PortPressurePlot", "port_pressure_plot", "incore_prediction_plot", "RATE_UNITS",
           "picture_title", "sizes_text", "machine_name", "log_ticks"]

RATE_UNITS = ("It/s", "FLOP/s")


@dataclass(frozen=True)
class _Level:               # the doctest's stand-in for a RooflineLevel
    bytes: float
    arithmetic_intensity: float


def flops_per_cacheline_of(level: Any) -> float:
    """FLOPs per cache line of work, from one Roofline level (bytes x intensity)."""
    return level.bytes * level.arithmetic_intensity


# ---------------------------------------------------------------- titles, ticks

def picture_title(kind: str, kernel: str = "", machine: str = "", sizes: str = "") -> str:
    """'<kind>: <kernel file> on <machine>, <sizes>' (parts left out when unknown)."""
    where = Path(kernel).name if kernel else ""
    if machine:
        where = f"{where} on {machine}" if where else machine
    if sizes:
        where = f"{where}, {sizes}" if where else sizes
    return f"{kind}: {where}" if where else kind


def sizes_text(bindings: Sequence[Mapping[str, int]]) -> str:
    """The -D values of a run's points: 'M=1000 N=1000', over a sweep 'N=100..10000 (3 points)'.

    >>> sizes_text([{"N": 100, "M": 5}, {"N": 10000, "M": 5}, {"N": 1000, "M": 5}])
    'M=5 N=100..10000 (3 points)'
    """
    if not bindings:
        return ""
    parts = []
    for name in sorted({name for b in bindings for name in b}):
        values = sorted({b[name] for b in bindings if name in b})
        parts.append(f"{name}={values[0]}" if len(values) == 1
                     else f"{name}={values[0]}..{values[-1]}")
    points = f" ({len(bindings)} points)" if len(bindings) > 1 else ""
    return " ".join(parts) + points


def machine_name(machine: Any) -> str:
    """What the user called the machine: its file's name without the suffix ('CSX',
    'SkylakeSP_Gold-6148'), else the CPU model name."""
    path = getattr(machine, "path", None)
    return Path(str(path)).stem if path else str(getattr(machine, "model_name", "") or "")


def log_ticks(low: float, high: float, most: int = 7) -> tuple[float, ...]:
    """Tick values 1, 2, 5 x 10^k within [low, high] for a log axis; only 1 x 10^k when
    there would be more than ``most`` (labels of a small picture must not collide).

    >>> log_ticks(0.8, 6.0)
    (1.0, 2.0, 5.0)
    >>> log_ticks(0.7, 120.0)
    (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
    >>> log_ticks(0.7, 1200.0)
    (1.0, 10.0, 100.0, 1000.0)
    """
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    for steps in ((1, 2, 5), (1,)):
        ticks = tuple(float(f"{m}e{k}") for k in range(first, last + 1) for m in steps
                      if low <= m * 10.0 ** k <= high)
        if len(ticks) <= most:
            return ticks
    return ticks


# ---------------------------------------------------------------- Roofline

@dataclass(frozen=True)
class Ceiling:
    """A bandwidth ceiling: performance = intensity x ``bandwidth`` (B/s); ``traffic``
    is False for a level the kernel does not reach at this size (drawn, but faint)."""

    level: str
    bandwidth: float            # B/s
    label: str                  # 'MEM 21.3 GB/s'
    traffic: bool = True


@dataclass(frozen=True)
class KernelPoint:
    """The kernel as seen from one level: its intensity there and its performance."""

    level: str
    intensity: float            # FLOP/B
    performance: float          # FLOP/s (the prediction, the same for every level)
    bound: float                # FLOP/s this level alone would allow
    binding: bool               # the level that sets the prediction


@dataclass(frozen=True)
class RooflinePlot:
    """Roofline diagram: x = arithmetic intensity (FLOP/B), y = performance (FLOP/s)."""

    title: str
    ceilings: tuple[Ceiling, ...]
    compute: float | None       # FLOP/s of the compute ceiling
    compute_label: str
    points: tuple[KernelPoint, ...]
    performance: float          # FLOP/s, the prediction
    bottleneck: str             # 'MEM', 'compute (arithmetic peak)', 'in-core (...)'
    x_label: str = "arithmetic intensity (FLOP/B)"
    y_label: str = "performance (GFLOP/s)"
    y_scale: float = 1e9        # divide FLOP/s by this for the axis

    def roof_at(self, point: KernelPoint) -> float:
        """Where ``point``'s level's roof is at the kernel's intensity there (FLOP/s):
        its bandwidth bound, capped by the compute ceiling. Levels differ here even
        where their intensities agree, so their markers do not cover each other."""
        return min(point.bound, self.compute) if self.compute else point.bound


def roofline_plot(result: Any, title: str = "") -> RooflinePlot:
    """The Roofline picture of a ``RooflineResult`` (RooflineFLOP or RooflineASM).

    The prediction in FLOP/s is the FLOPs per cache line of work times the clock
    over the predicted cy/CL; every level's point sits at that height, at the
    kernel's intensity towards that level, and the binding level touches its
    ceiling. A kernel without FLOPs has no place in the diagram (an error).
    """
    counted = [lvl for lvl in result.levels if lvl.bytes > 0]
    flops = flops_per_cacheline_of(counted[0]) if counted else 0.0
    if not flops:
        raise KerncraftError("a Roofline picture needs floating-point operations (the kernel "
                             "has none); plot -p ECM instead")
    clock = result.clock_hz
    performance = flops * clock / result.cycles_per_cl
    compute = flops * clock / result.compute_cycles_per_cl if result.compute_cycles_per_cl else None
    # every level's roof, also where the kernel has no traffic at this size: the
    # picture of a small size must not look as if the machine had no memory
    ceilings = tuple(Ceiling(lvl.level, lvl.bandwidth,
                             f"{lvl.level} {lvl.bandwidth / 1e9:.3g} GB/s"
                             + ("" if lvl.bytes > 0 else " (no traffic)"), lvl.bytes > 0)
                     for lvl in result.levels if lvl.bandwidth > 0)
    points = tuple(KernelPoint(lvl.level, lvl.arithmetic_intensity, performance,
                               lvl.arithmetic_intensity * lvl.bandwidth,
                               lvl.level == result.bottleneck) for lvl in counted)
    kind = "arithmetic peak" if result.model == "RooflineFLOP" else "in-core (compiled loop)"
    compute_label = (f"{kind} {compute / 1e9:.3g} GFLOP/s" if compute is not None else kind)
    cores = f", {result.cores} cores" if result.cores > 1 else ""
    return RooflinePlot(title or f"{result.model}{cores}", ceilings, compute, compute_label,
                        points, performance, result.bottleneck)


# ---------------------------------------------------------------- ECM over a sweep

@dataclass(frozen=True)
class StackedPoint:
    """One sweep point (cy/CL): the parts that add up (stacked), the parts that overlap
    with them (levels with ``transfers overlap``, drawn as lines) and the prediction."""

    working_set: float                      # bytes
    label: str                              # 'N=1000'
    parts: tuple[tuple[str, float], ...]    # ('T_nOL', 2.0), ('T_L1L2', 4.0), ...
    t_ol: float | None                      # ECM only
    prediction: float | None                # ECM: the data-in-memory prediction
    overlapping: tuple[tuple[str, float], ...] = ()

    @property
    def total(self) -> float:
        """Height of the stack (cy/CL)."""
        return sum(cycles for _, cycles in self.parts)


@dataclass(frozen=True)
class ECMSweepPlot:
    """Contributions against the working-set size (log x), cache sizes as lines."""

    title: str
    points: tuple[StackedPoint, ...]
    capacities: tuple[tuple[str, float], ...]           # ('L1', 32768.0), ...
    measured: tuple[tuple[float, float], ...] = ()      # (working set B, cy/CL)
    x_label: str = "working set (bytes)"
    y_label: str = "time (cy/CL)"

    @property
    def part_names(self) -> tuple[str, ...]:
        """Every stacked part in stacking order (T_nOL first, then the links)."""
        return tuple(dict.fromkeys(name for p in self.points for name, _ in p.parts))

    @property
    def overlapping_names(self) -> tuple[str, ...]:
        """Every overlapping contribution (drawn as a line)."""
        return tuple(dict.fromkeys(name for p in self.points for name, _ in p.overlapping))

    @property
    def top(self) -> float:
        """The largest value drawn (cy/CL)."""
        return max([p.total for p in self.points] + [p.prediction or 0.0 for p in self.points]
                   + [c for p in self.points for _, c in p.overlapping]
                   + [p.t_ol or 0.0 for p in self.points] + [m for _, m in self.measured])


def _stacked(result: Any) -> dict[str, Any]:
    """parts, overlapping, t_ol and prediction of an ECMResult or an ECMDataResult.

    ECM: T_nOL and the serial contributions stack, overlapping ones are kept apart;
    the prediction is max(T_OL, overlapping, stack). ECMData has no composition:
    its link times stack and there is no prediction.
    """
    if hasattr(result, "ecm"):
        ecm = result.ecm
        parts = (("T_nOL", ecm.t_nol),) + tuple(
            (c.name, c.cycles) for c in ecm.contributions if not c.overlapping)
        if ecm.penalty:
            parts += (("T_penalty", ecm.penalty),)
        overlapping = tuple((c.name, c.cycles) for c in ecm.contributions if c.overlapping)
        return {"parts": parts, "overlapping": overlapping, "t_ol": ecm.t_ol,
                "prediction": ecm.predictions[-1]}
    parts = tuple((f"T_{link.upper}{link.lower}", link.cycles) for link in result.links)
    return {"parts": parts, "overlapping": (), "t_ol": None, "prediction": None}


def ecm_sweep_plot(points: Sequence[tuple[float, str, Any]],
                   capacities: Mapping[str, float],
                   measured: Sequence[tuple[float, float]] = (), title: str = "ECM") -> ECMSweepPlot:
    """The sweep picture from ``(working set bytes, point label, result)`` triples.

    ``capacities``: cache level -> size in bytes (vertical lines); ``measured``:
    (working set, cy/CL) of ``-p Benchmark`` at the same points. The points are
    sorted by working set.
    """
    if not points:
        raise KerncraftError("nothing to plot: the sweep has no points")
    sizes = [size for size, _, _ in points]
    if len(set(sizes)) < len(sizes):
        raise KerncraftError("the sweep picture puts points at their working-set size, and "
                             "several points have the same one; sweep the size constants only")
    stacked = []
    for size, label, result in sorted(points, key=lambda p: p[0]):
        stacked.append(StackedPoint(float(size), label, **_stacked(result)))
    return ECMSweepPlot(title, tuple(stacked),
                        tuple((name, float(b)) for name, b in capacities.items() if b),
                        tuple(sorted((float(x), float(y)) for x, y in measured)))


# ---------------------------------------------------------------- scaling

@dataclass(frozen=True)
class ScalingPlot:
    """Performance against active cores; ``saturation`` is n_s (None: no memory traffic
    on one core); ``numa_domain_cores`` where the next NUMA domain's memory interface
    comes in (the step of the curve); ``note`` what the report says when one core has
    no memory traffic but more cores are memory-bound."""

    title: str
    cores: tuple[int, ...]
    performance: tuple[float, ...]          # in ``unit``
    memory_bound: tuple[bool, ...]
    saturation: int | None
    unit: str                               # 'It/s' or 'FLOP/s'
    x_label: str = "active cores"
    numa_domain_cores: int | None = None
    note: str = ""

    @property
    def y_label(self) -> str:
        """'performance (GIt/s)' / 'performance (GFLOP/s)'."""
        return f"performance (G{self.unit})"

    @property
    def numa_steps(self) -> tuple[int, ...]:
        """Core counts that fill a NUMA domain, before the last row (10 on CSX: the
        11th core is the first of the second domain)."""
        n = self.numa_domain_cores
        if not n or not self.cores:
            return ()
        return tuple(range(n, max(self.cores), n))


def scaling_plot(result: Any, clock_hz: float, title: str = "ECM scaling") -> ScalingPlot:
    """The scaling table of an ``ECMResult`` as performance against cores.

    Rates are taken as the report gives them (``--unit It/s`` or ``FLOP/s``);
    for a cycle unit the table's cy/CL (per cache line of the whole group) become
    It/s = clock x iterations per cache line / cy/CL.
    """
    if result.unit in RATE_UNITS:
        values, unit = tuple(row.value for row in result.scaling), result.unit
    else:
        per_cl = result.incore.iterations_per_cacheline
        values = tuple(clock_hz * per_cl / row.cycles_per_cl for row in result.scaling)
        unit = "It/s"
    note = ""
    if result.saturation_cores is None and any(row.memory_bound for row in result.scaling):
        from kerncraft.report.text import memory_bound_cores
        note = (f"memory-bound at {memory_bound_cores(result)} cores: each core's share "
                f"of the shared {result.links[-1].upper} shrinks")
    return ScalingPlot(title, tuple(row.cores for row in result.scaling), values,
                       tuple(row.memory_bound for row in result.scaling),
                       result.saturation_cores, unit,
                       numa_domain_cores=getattr(result, "numa_domain_cores", None), note=note)


# ---------------------------------------------------------------- port pressure

@dataclass(frozen=True)
class PortPressurePlot:
    """Cycles per assembly iteration on every port (line-split cycles included, their
    part in ``split_cycles``), bounds as horizontal lines, and what binds as the report
    says: the ports in ``bottleneck`` and/or the bounds named in ``binding_bounds``
    (the loop-carried dependency of a reduction, the front end, the simulation), at
    ``binding_cycles``."""

    title: str
    ports: tuple[str, ...]
    cycles: tuple[float, ...]
    bottleneck: tuple[str, ...]             # binding ports (empty: a bound binds)
    bounds: tuple[tuple[str, float], ...]   # ('LCD', 1.0), ('critical path', 11.0), ...
    split_cycles: tuple[float, ...] = ()    # per port, the line-split part of ``cycles``
    binding_bounds: tuple[str, ...] = ()    # names of ``bounds`` that bind
    binding_cycles: float = 0.0             # cy per assembly iteration
    binding_note: str = ""                  # the report's number: 'T_nOL 5.50 cy/CL'
    x_label: str = "port"
    y_label: str = "cy per assembly iteration"

    @property
    def binding_label(self) -> str:
        """'bottleneck 2D, 3D: 2.75 cy (T_nOL 5.50 cy/CL)', 'bottleneck LCD: 16 cy'."""
        names = ", ".join(self.bottleneck + self.binding_bounds)
        note = f" ({self.binding_note})" if self.binding_note else ""
        return f"bottleneck {names}: {self.binding_cycles:.3g} cy{note}"


_BOUND_OF_SOURCE = {"loop-carried dependency": "LCD", "front end": "front end",
                    "simulation": "simulated"}
_TIE = 1e-9


def _bounds(analysis: Any, simulated: float | None = None) -> tuple[tuple[str, float], ...]:
    """LCD, critical path, front end (those the analyzer gives) and the simulation."""
    found = [(name, float(value)) for name, value in (
        ("LCD", getattr(analysis, "lcd", None)),
        ("critical path", getattr(analysis, "critical_path", None)),
        ("front end", getattr(analysis, "frontend", None)),
        ("simulated", simulated)) if value is not None]
    return tuple(found)


def _split_part(ports: Sequence[str], splits: Any) -> tuple[float, ...]:
    extra = splits.per_port if splits is not None else {}
    return tuple(float(extra.get(p, 0.0)) for p in ports)


def port_pressure_plot(analysis: Any, title: str = "") -> PortPressurePlot:
    """The port pressure of a stand-alone in-core analysis (``kerncraft-incore``;
    ``kerncraft.incore.model.InCoreResult``: ``port_totals`` with the line splits of
    ``line_splits`` in them, ``lcd``, ``critical_path``, ``frontend``), ports in the
    database's order. It binds what sets the report's prediction, max(TP, LCD, front
    end): the busiest ports, unless the LCD or the front end is longer."""
    ports = tuple(analysis.port_totals)
    cycles = tuple(float(analysis.port_totals[p]) for p in ports)
    if not ports:
        raise KerncraftError("nothing to plot: the loop uses no ports")
    top = max(cycles)
    bounds = _bounds(analysis)
    limits = {name: value for name, value in bounds if name in ("LCD", "front end")}
    binding = max([top, *limits.values()])
    bottleneck = tuple(p for p, c in zip(ports, cycles)
                       if top > 0 and top >= binding - _TIE and c >= top - _TIE)
    binding_bounds = () if bottleneck else tuple(
        name for name, value in limits.items() if value >= binding - _TIE)[:1]
    return PortPressurePlot(title or f"port pressure ({analysis.arch})", ports, cycles,
                            bottleneck, bounds,
                            _split_part(ports, getattr(analysis, "line_splits", None)),
                            binding_bounds, binding)


def incore_prediction_plot(prediction: Any, title: str = "") -> PortPressurePlot:
    """The port pressure behind an ECM / ECMCPU in-core part (``InCorePrediction``):
    the ports with the kernel's line-split cycles, and what the report names as binding,
    the larger of T_OL (busiest overlapping port, LCD, front end or simulation, as
    ``t_ol_source`` says) and T_nOL (busiest non-overlapping port); cycles per assembly
    iteration = cy/CL / ``per_cacheline``."""
    totals = prediction.port_cycles
    ports = tuple(totals)
    if not ports:
        raise KerncraftError("nothing to plot: the loop uses no ports")
    cycles = tuple(float(totals[p]) for p in ports)
    scale = prediction.per_cacheline
    t_ol, t_nol = prediction.t_ol / scale, prediction.t_nol / scale
    nol = tuple(prediction.non_overlapping_ports)

    def is_nol(port: str) -> bool:          # as models/incore_ports.split_ports
        return any(port == n or port.startswith(n + ".") for n in nol)

    binding = max(t_ol, t_nol)
    bottleneck, bounds_binding, notes = [], [], []
    if t_nol >= binding - _TIE and t_nol > 0:
        bottleneck += [p for p, c in zip(ports, cycles) if is_nol(p) and c >= t_nol - _TIE]
        notes.append(f"T_nOL {prediction.t_nol:.2f} cy/CL")
    if t_ol >= binding - _TIE:
        source = prediction.t_ol_source
        if source == "port throughput":
            bottleneck += [p for p, c in zip(ports, cycles)
                           if not is_nol(p) and c >= t_ol - _TIE]
        elif source in _BOUND_OF_SOURCE:
            bounds_binding.append(_BOUND_OF_SOURCE[source])
        notes.append(f"T_OL {prediction.t_ol:.2f} cy/CL")
    simulated = getattr(prediction, "simulated", None)
    return PortPressurePlot(title or f"port pressure ({prediction.arch})", ports, cycles,
                            tuple(p for p in ports if p in bottleneck),
                            _bounds(prediction.analysis, simulated),
                            _split_part(ports, prediction.line_splits),
                            tuple(bounds_binding), binding, ", ".join(notes))
