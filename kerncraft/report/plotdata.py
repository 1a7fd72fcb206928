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
* :func:`validation_plot` (:mod:`kerncraft.report.plotdata_validation`).

>>> round(flops_per_cacheline_of(_Level(192, 1 / 12)), 6)
16.0
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kerncraft.errors import KerncraftError

__all__ = ["Ceiling", "KernelPoint", "RooflinePlot", "roofline_plot", "StackedPoint",
           "ECMSweepPlot", "ecm_sweep_plot", "ScalingPlot", "scaling_plot",
           "PortPressurePlot", "port_pressure_plot", "RATE_UNITS"]

RATE_UNITS = ("It/s", "FLOP/s")


@dataclass(frozen=True)
class _Level:               # the doctest's stand-in for a RooflineLevel
    bytes: float
    arithmetic_intensity: float


def flops_per_cacheline_of(level: Any) -> float:
    """FLOPs per cache line of work, from one Roofline level (bytes x intensity)."""
    return level.bytes * level.arithmetic_intensity


# ---------------------------------------------------------------- Roofline

@dataclass(frozen=True)
class Ceiling:
    """A bandwidth ceiling: performance = intensity x ``bandwidth`` (B/s)."""

    level: str
    bandwidth: float            # B/s
    label: str                  # 'MEM 21.3 GB/s'


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
    ceilings = tuple(Ceiling(lvl.level, lvl.bandwidth, f"{lvl.level} {lvl.bandwidth / 1e9:.3g} GB/s")
                     for lvl in counted)
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
    """Performance against active cores; ``saturation`` is n_s (None: no memory traffic)."""

    title: str
    cores: tuple[int, ...]
    performance: tuple[float, ...]          # in ``unit``
    memory_bound: tuple[bool, ...]
    saturation: int | None
    unit: str                               # 'It/s' or 'FLOP/s'
    x_label: str = "active cores"

    @property
    def y_label(self) -> str:
        """'performance (GIt/s)' / 'performance (GFLOP/s)'."""
        return f"performance (G{self.unit})"


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
    return ScalingPlot(title, tuple(row.cores for row in result.scaling), values,
                       tuple(row.memory_bound for row in result.scaling),
                       result.saturation_cores, unit)


# ---------------------------------------------------------------- port pressure

@dataclass(frozen=True)
class PortPressurePlot:
    """Cycles per assembly iteration on every port; bounds as horizontal lines."""

    title: str
    ports: tuple[str, ...]
    cycles: tuple[float, ...]
    bottleneck: tuple[str, ...]             # the busiest port(s)
    bounds: tuple[tuple[str, float], ...]   # ('LCD', 1.0), ('critical path', 11.0), ...
    x_label: str = "port"
    y_label: str = "cy per assembly iteration"


def port_pressure_plot(analysis: Any, title: str = "") -> PortPressurePlot:
    """The port pressure of an in-core analysis (``kerncraft.incore.model.InCoreResult``:
    ``port_totals``, ``lcd``, ``critical_path``, ``frontend``), ports in the
    database's order."""
    ports = tuple(analysis.port_totals)
    cycles = tuple(float(analysis.port_totals[p]) for p in ports)
    if not ports:
        raise KerncraftError("nothing to plot: the loop uses no ports")
    top = max(cycles)
    bottleneck = tuple(p for p, c in zip(ports, cycles) if top > 0 and c >= top - 1e-9)
    bounds = [("LCD", float(analysis.lcd)), ("critical path", float(analysis.critical_path))]
    if analysis.frontend is not None:
        bounds.append(("front end", float(analysis.frontend)))
    return PortPressurePlot(title or f"port pressure ({analysis.arch})", ports, cycles,
                            bottleneck, tuple(bounds))
