"""``kerncraft-validate``: ECM and Roofline against measurement, kernel x memory level.

For every kernel and level (L1, L2, L3, MEM) a size is chosen from the machine
file and checked with the layer conditions (:mod:`kerncraft.validation.sizes`);
then the point is predicted (ECM, and RooflineASM or RooflineFLOP, layer
conditions, ``cores`` cores) and measured (``-p Benchmark``'s
:func:`~kerncraft.benchmark.kernel_run.run_benchmark`, or an injected function). The
relative error is ``(predicted - measured) / measured`` of cy/CL; a point whose
ECM error exceeds 30 % carries notes (:mod:`kerncraft.validation.notes`).

JSON document (``--json``)
--------------------------
``machine`` (path), ``machine_model_name``, ``host_model_name`` (``/proc/cpuinfo``,
null if unknown), ``cores``, ``roofline_model``, ``incore_model``, ``levels``, ``targets`` ({level:
target working set in bytes}), ``wall_seconds``, ``points``, ``skipped`` and
``summary``.

Every entry of ``points``: ``kernel``, ``level``, ``defines`` ({constant: value}),
``working_set_bytes``, ``target_bytes``, ``model_level`` (level the layer
conditions serve the data from), ``size_matched`` (``model_level == level``),
``measured_cy_per_cl``, ``ecm_cy_per_cl``, ``ecm_error``, ``roofline_cy_per_cl``,
``roofline_error`` (errors as fractions, 0.1 = +10 %), ``notes`` (list, non-empty
exactly when ``|ecm_error| > 0.3``), ``ecm`` (``T_OL``, ``T_nOL``,
``contributions``, ``predictions``, ``T_OL_source``), ``measurement``
(``backend``, ``clock_hz``: the mean of the core clock calibrated just before and
after the point, which converts its seconds to cycles, ``seconds``, ``notes``,
``rounds``: cy/CL of every round with ``--rounds`` > 1, the fastest of which is
``measured_cy_per_cl``).

``skipped``: ``kernel``, ``level`` (null: the whole kernel), ``reason``.

``summary``: {``ECM``|``Roofline``: {``points``, ``median_abs_error``,
``within_10_percent`` (share of points, 0..1), ``levels``: [{``level``, ``points``,
``median_abs_error``, ``worst_error``, ``worst_kernel``}]}}.
"""
from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TextIO

from kerncraft.validation.notes import (explain, fact_notes, report_notes,
                                             with_inherited_notes)
from kerncraft.validation.sizes import LEVELS, SizeChoice, choose_size, level_targets
from kerncraft.cache.traffic import iterations_per_cacheline
from kerncraft.errors import KerncraftError, KernelError
from kerncraft.userfiles import decode_text, display_name
from kerncraft.resources import bundled_dir
from kerncraft.models.compare import predicted_cycles, relative_error

__all__ = ["DEFAULT_KERNELS", "QUICK_KERNELS", "KERNEL_DIR", "RunOptions", "PointMeasurement",
           "Prediction", "ValidationPoint", "LevelSummary", "ModelSummary", "Skipped",
           "ValidationResult", "resolve_kernel", "benchmark_measure", "predict", "make_point",
           "best_of_rounds",
           "summarize", "run_validation", "host_model_name", "LEVELS"]

DEFAULT_KERNELS = ("copy", "add", "update", "daxpy", "triad", "striad", "sum_reduction",
                   "scalar_product", "kahan-dot", "2d-5pt", "gs-2d-5pt", "3d-7pt", "3d-27pt",
                   "matvec")
#: --quick: one kernel per kind (1D store streams, a reduction with a latency chain,
#: 2D and 3D stencils, matvec with its row restarts).
QUICK_KERNELS = ("copy", "triad", "sum_reduction", "2d-5pt", "3d-7pt", "matvec")
KERNEL_DIR = bundled_dir("kernels")
WITHIN = 0.10


@dataclass(frozen=True)
class RunOptions:
    cores: int = 1
    min_time: float = 0.2
    repeats: int = 3
    roofline: str = "RooflineASM"       # or 'RooflineFLOP'
    rounds: int = 1                     # passes over all points; the fastest pass counts
    incore_model: str = "kerncraft"     # or 'kerncraft-sim' (the cycle-level simulation)


@dataclass(frozen=True)
class PointMeasurement:
    """The measurement of one validation point (one timing run:
    :class:`kerncraft.measure.timing.Measurement`)."""

    cycles_per_cl: float
    backend: str
    clock_hz: float | None = None
    seconds: float | None = None
    notes: tuple[str, ...] = ()
    rounds: tuple[float, ...] = ()      # cy/CL of every round (with --rounds > 1)


#: Rounds of one point further apart than this are reported as unsteady.
ROUND_SPREAD = 0.10


def best_of_rounds(measurements: Sequence[PointMeasurement]) -> PointMeasurement:
    """The fastest of the rounds of one point, with every round's cy/CL kept.

    Rounds are minutes apart, so a host whose speed drifts (a VM with busy neighbours:
    memory bandwidth 34-49 GB/s within a minute on the development VM) slows some of
    them; interference only ever slows a run down, so the fastest round is the best
    estimate of the machine, and the spread says how steady the host was.
    """
    best = min(measurements, key=lambda m: m.cycles_per_cl)
    values = tuple(m.cycles_per_cl for m in measurements)
    notes = list(best.notes)
    spread = max(values) / min(values) - 1 if min(values) > 0 else 0.0
    if len(values) > 1 and spread > ROUND_SPREAD:
        notes.append(f"the {len(values)} rounds differ by {spread:.0%} "
                     f"({', '.join(f'{v:.2f}' for v in values)} cy/CL): an unsteady host; "
                     "the fastest counts")
    return PointMeasurement(best.cycles_per_cl, best.backend, best.clock_hz, best.seconds,
                       tuple(notes), values if len(values) > 1 else ())


#: measure(bound kernel, machine, options) -> PointMeasurement; tests inject a fake.
MeasureFunction = Callable[[Any, Any, RunOptions], PointMeasurement]


@dataclass(frozen=True)
class Prediction:
    ecm: float
    roofline: float
    ecm_data: Mapping[str, Any]


@dataclass(frozen=True)
class ValidationPoint:
    kernel: str
    size: SizeChoice
    measured: float
    prediction: Prediction
    measurement: PointMeasurement
    notes: tuple[str, ...]

    @property
    def level(self) -> str:
        return self.size.level

    @property
    def ecm_error(self) -> float:
        return relative_error(self.prediction.ecm, self.measured)

    @property
    def roofline_error(self) -> float:
        return relative_error(self.prediction.roofline, self.measured)

    def error(self, model: str) -> float:
        return self.ecm_error if model == "ECM" else self.roofline_error

    def to_dict(self) -> dict[str, Any]:
        data = self.prediction.ecm_data
        m = self.measurement
        return {"kernel": self.kernel, "level": self.level, "defines": dict(self.size.defines),
                "working_set_bytes": self.size.working_set, "target_bytes": self.size.target,
                "model_level": self.size.model_level, "size_matched": self.size.matched,
                "measured_cy_per_cl": self.measured, "ecm_cy_per_cl": self.prediction.ecm,
                "ecm_error": self.ecm_error, "roofline_cy_per_cl": self.prediction.roofline,
                "roofline_error": self.roofline_error, "notes": list(self.notes),
                "ecm": {"T_OL": data.get("T_OL"), "T_nOL": data.get("T_nOL"),
                        "contributions": data.get("contributions"),
                        "predictions": data.get("predictions"),
                        "T_OL_source": data.get("incore", {}).get("T_OL_source")},
                "measurement": {"backend": m.backend, "clock_hz": m.clock_hz,
                                "seconds": m.seconds, "notes": list(m.notes),
                                "rounds": list(m.rounds)}}


@dataclass(frozen=True)
class LevelSummary:
    level: str
    points: int
    median_abs_error: float
    worst_error: float          # signed, the largest in magnitude
    worst_kernel: str


@dataclass(frozen=True)
class ModelSummary:
    model: str                  # 'ECM' or 'Roofline'
    points: int
    median_abs_error: float
    within_10_percent: float    # share of points with |error| <= 10 %
    levels: tuple[LevelSummary, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"points": self.points, "median_abs_error": self.median_abs_error,
                "within_10_percent": self.within_10_percent,
                "levels": [vars(lvl).copy() for lvl in self.levels]}


@dataclass(frozen=True)
class Skipped:
    kernel: str
    level: str | None
    reason: str


@dataclass(frozen=True)
class ValidationResult:
    points: tuple[ValidationPoint, ...]
    skipped: tuple[Skipped, ...]
    summaries: tuple[ModelSummary, ...]
    targets: Mapping[str, int]
    wall_seconds: float
    options: RunOptions = field(default_factory=RunOptions)


def resolve_kernel(name: str):
    """(label, parsed kernel) of a bundled kernel name or a path to a kernel file."""
    from kerncraft.kernel.parser import parse_kernel

    path = Path(name)
    if not path.is_file():
        path = KERNEL_DIR / f"{name}.c"
    if not path.is_file():
        bundled = sorted(p.stem for p in KERNEL_DIR.glob("*.c"))
        raise KerncraftError(f"unknown kernel {name!r}: no such file and no bundled kernel of "
                             f"that name (bundled: {', '.join(bundled)})")
    label = path.stem if path.parent == KERNEL_DIR else display_name(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KerncraftError(f"cannot read kernel file {display_name(path)}: "
                             f"{exc.strerror}") from None
    text = decode_text(data, path, KernelError).replace("\r\n", "\n")
    return label, parse_kernel(text, filename=str(path))


def host_model_name(cpuinfo: str = "/proc/cpuinfo") -> str | None:
    """This host's CPU model name (None where /proc/cpuinfo has none)."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name":
            return value.strip()
    return None


#: Clock calibration around every point (seconds per repetition, repetitions): short,
#: since it runs twice per point. Why per point: the core clock of a turbo host moves
#: with the load of its other cores; on the Zen 5 VM one calibration per run read 4.18
#: to 4.54 GHz from run to run and 4.23-4.35 GHz within 40 s, and the same 80-cy chain
#: (kahan-dot) then came out at 85 or 89 cy/CL from the same 19.6 ns per line.
POINT_CLOCK = (0.02, 3)
#: Clock change during one point above which the point says so.
CLOCK_DRIFT = 0.02


def benchmark_measure(bound, machine, options: RunOptions) -> PointMeasurement:
    """The real measurement: ``-p Benchmark`` (best of ``repeats`` runs of ``min_time``),
    cycles at the mean of the core clock calibrated just before and just after it."""
    from kerncraft.benchmark.kernel_run import choose_cpus, run_benchmark
    from kerncraft.measure.clock import calibrate_clock

    cpus = choose_cpus(options.cores)
    before = calibrate_clock(*POINT_CLOCK, cpu=cpus[0])
    result = run_benchmark(bound, machine, cores=options.cores, min_time=options.min_time,
                           repeats=options.repeats, cpus=cpus, clock=before)
    after = calibrate_clock(*POINT_CLOCK, cpu=cpus[0])
    notes = list(result.notes)
    cycles, clock_hz = result.cycles_per_cl, result.clock_hz
    if result.clock_source.startswith("calibrated"):   # converted with `before`, not counted
        clock_hz = (before.core_hz + after.core_hz) / 2
        cycles *= clock_hz / before.core_hz
        drift = after.core_hz / before.core_hz - 1
        if abs(drift) > CLOCK_DRIFT:
            notes.append(f"core clock {before.core_hz / 1e9:.2f} -> {after.core_hz / 1e9:.2f} "
                         f"GHz during the point ({drift:+.1%}); cycles at the mean")
    return PointMeasurement(cycles, result.backend, clock_hz, result.seconds, tuple(notes))


def _model_args(cores: int, incore_model: str = "kerncraft"):
    """The models' settings: the command line's defaults, layer conditions, ``cores``."""
    from kerncraft.options import AnalysisOptions
    return AnalysisOptions(cores=cores, cache_predictor="LC", incore_model=incore_model)


def predict(bound, machine, options: RunOptions) -> Prediction:
    """ECM (scaling row for ``cores``) and Roofline cy/CL of a bound kernel."""
    from kerncraft.models.ecm import compute_ecm
    from kerncraft.models.roofline import compute_roofline_asm, compute_roofline_flop

    args = _model_args(options.cores, options.incore_model)
    ecm = compute_ecm(bound, machine, args).to_dict()
    if options.roofline not in ("RooflineASM", "RooflineFLOP"):
        raise KerncraftError(f"unknown Roofline model {options.roofline!r}")
    roofline = (compute_roofline_asm if options.roofline == "RooflineASM"
                else compute_roofline_flop)(bound, machine, args).to_dict()
    ecm_cycles = predicted_cycles("ECM", ecm, options.cores)
    roofline_cycles = predicted_cycles(options.roofline, roofline, options.cores)
    if ecm_cycles is None or roofline_cycles is None:
        raise KerncraftError(f"no prediction for {options.cores} core(s)")
    return Prediction(ecm_cycles, roofline_cycles, ecm)


def _inner_trip_count(bound) -> int | None:
    count = bound.loops[-1].trip_count()
    return int(count) if getattr(count, "is_number", False) else None


def make_point(kernel: str, size: SizeChoice, bound, machine, prediction: Prediction,
               measurement: PointMeasurement) -> ValidationPoint:
    """A measured point, with notes when ECM is more than 30 % off."""
    error = relative_error(prediction.ecm, measurement.cycles_per_cl)
    caches = [(lvl.name, int(lvl.size_per_group)) for lvl in machine.cache_levels
              if lvl.size_per_group]
    trips = _inner_trip_count(bound)
    row_cycles = (prediction.ecm * trips / iterations_per_cacheline(bound, machine.cacheline_size)
                  if trips else None)
    facts = fact_notes(error=error, level=size.level, model_level=size.model_level,
                       working_set=size.working_set, caches=caches,
                       inner_trip_count=trips, ecm_data=prediction.ecm_data,
                       memory_overlaps=machine.memory_level.transfers_overlap,
                       row_cycles=row_cycles)
    notes = explain(error, report=report_notes(prediction.ecm_data, error), facts=facts)
    return ValidationPoint(kernel, size, measurement.cycles_per_cl, prediction, measurement,
                           notes)


def _level_summary(points: Sequence[ValidationPoint], model: str, level: str) -> LevelSummary:
    worst = max(points, key=lambda p: abs(p.error(model)))
    return LevelSummary(level, len(points),
                        statistics.median(abs(p.error(model)) for p in points),
                        worst.error(model), worst.kernel)


def summarize(points: Sequence[ValidationPoint], model: str) -> ModelSummary:
    """Median and worst absolute error per level, overall median, share within 10 %."""
    if not points:
        return ModelSummary(model, 0, float("nan"), float("nan"), ())
    errors = [abs(p.error(model)) for p in points]
    order = [lvl for lvl in dict.fromkeys(p.level for p in points)]
    levels = tuple(_level_summary([p for p in points if p.level == lvl], model, lvl)
                   for lvl in order)
    # a small tolerance so that exactly 10 % counts as within (float rounding)
    within = sum(e <= WITHIN + 1e-12 for e in errors) / len(errors)
    return ModelSummary(model, len(points), statistics.median(errors), within, levels)


def _label(size: SizeChoice) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(size.defines.items()))


@dataclass(frozen=True)
class _Planned:
    """A point chosen and predicted once, measured in every round."""

    label: str
    size: SizeChoice
    bound: Any
    prediction: Prediction


def _plan_point(label: str, kernel, level: str, machine, options: RunOptions) -> _Planned:
    size = choose_size(kernel, machine, level, cores=options.cores)
    bound = kernel.bind(size.defines)
    return _Planned(label, size, bound, predict(bound, machine, options))


def _measure(plan: _Planned, machine, options: RunOptions, measure: MeasureFunction,
             progress: TextIO, position: str, round_number: int = 1) -> PointMeasurement:
    which = f" (round {round_number}/{options.rounds})" if options.rounds > 1 else ""
    print(f"{position} {plan.label} {plan.size.level} {_label(plan.size)} measuring{which}",
          file=progress, flush=True)
    return measure(plan.bound, machine, options)


def _point(plan: _Planned, machine, measurements: Sequence[PointMeasurement]) -> ValidationPoint:
    return make_point(plan.label, plan.size, plan.bound, machine, plan.prediction,
                      best_of_rounds(measurements))


def run_validation(kernels: Sequence[tuple[str, Any]], machine, levels: Sequence[str] = LEVELS,
                   options: RunOptions = RunOptions(), *,
                   measure: MeasureFunction = benchmark_measure,
                   progress: TextIO | None = None,
                   on_point: Callable[[ValidationPoint], None] | None = None
                   ) -> ValidationResult:
    """Choose, predict and measure every (kernel, level); ``kernels`` are (label,
    parsed kernel); ``on_point`` sees each point as it is measured.

    A point the tools cannot handle (a KerncraftError) is skipped with its reason.
    The same error for a second kernel before any point was measured is raised
    instead: that is this host or setup (no compiler, instructions this CPU lacks),
    and every further point would fail alike.
    """
    progress = progress if progress is not None else sys.stderr
    started = time.monotonic()
    planned: list[tuple[_Planned, list[PointMeasurement]]] = []
    skipped: list[Skipped] = []
    shown: list[ValidationPoint] = []
    total = len(kernels) * len(levels)
    last = options.rounds == 1
    for number, (label, kernel, level) in enumerate(
            ((lab, k, lvl) for lab, k in kernels for lvl in levels), 1):
        position = f"[{number}/{total}]"
        try:
            plan = _plan_point(label, kernel, level, machine, options)
            measurements = [_measure(plan, machine, options, measure, progress, position)]
        except KerncraftError as exc:
            if not planned and any(s.reason == str(exc) and s.kernel != label for s in skipped):
                raise
            print(f"{position} {label} {level} skipped: {exc}", file=progress, flush=True)
            skipped.append(Skipped(label, level, str(exc)))
            continue
        planned.append((plan, measurements))
        if last and on_point:       # one round: shown as measured (L1 comes first)
            shown.append(_point(plan, machine, measurements))
            on_point(with_inherited_notes(shown)[-1])
    for round_number in range(2, options.rounds + 1):
        for number, (plan, measurements) in enumerate(planned, 1):
            measurements.append(_measure(plan, machine, options, measure, progress,
                                         f"[{number}/{len(planned)}]", round_number))
    points = with_inherited_notes([_point(plan, machine, measurements)
                                   for plan, measurements in planned])
    if not last and on_point:
        for point in points:
            on_point(point)
    summaries = (summarize(points, "ECM"), summarize(points, "Roofline"))
    return ValidationResult(tuple(points), tuple(skipped), summaries, level_targets(machine),
                            time.monotonic() - started, options)
