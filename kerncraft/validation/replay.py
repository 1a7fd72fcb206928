"""``kerncraft-validate --replay``: recorded points predicted again with the current code.

A recording (:mod:`kerncraft.validation.corpus`) holds measured cy/CL, the kernel
text, the -D values and the machine file of every point of one host run. Replaying
predicts each point as a live run would (ECM and the recorded Roofline variant, the
layer conditions for the level the data comes from, the notes) from the recorded
machine file, without measuring; the compiler runs only where the caches do not
already hold the compiled loop. The errors against the recorded measurements then say
what a change of the model did on every host measured so far: a fix that helps one
host and hurts another shows in :func:`compare` (per level, the median and the worst
error now and as recorded).
"""
from __future__ import annotations

import re
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence, TextIO

from kerncraft.errors import KerncraftError
from kerncraft.validation.campaign import (PointMeasurement, Prediction, RunOptions, Skipped,
                                           ValidationPoint, ValidationResult, make_point,
                                           predict, summarize)
from kerncraft.validation.corpus import RecordedPoint, Recording
from kerncraft.validation.notes import with_inherited_notes
from kerncraft.validation.sizes import SizeChoice, level_targets, source_level, working_set

__all__ = ["GUARD", "PredictFunction", "replay_recording", "compiler_difference", "LevelChange",
           "HostComparison", "compare", "changed_predictions"]

#: A host's median absolute ECM error may grow by this much (one percentage point)
#: before the corpus test fails.
GUARD = 0.01
#: A point's ECM prediction counts as changed beyond this relative difference.
CHANGED = 0.01

#: predict(bound kernel, machine, options) -> Prediction; tests inject a fake.
PredictFunction = Callable[[Any, Any, RunOptions], Prediction]


def _options(recording: Recording) -> RunOptions:
    return RunOptions(cores=recording.cores, roofline=recording.roofline,
                      incore_model=recording.incore_model)


def _measurement(point: RecordedPoint) -> PointMeasurement:
    rounds = point.rounds if len(point.rounds) > 1 else ()
    return PointMeasurement(point.measured, point.backend, point.clock_hz, point.seconds,
                            point.measurement_notes, rounds)


def _replay_point(recording: Recording, point: RecordedPoint, kernel, machine,
                  targets: Mapping[str, int], predict_point: PredictFunction
                  ) -> ValidationPoint:
    from kerncraft.models.transfers import predict_traffic

    options = _options(recording)
    bound = kernel.bind(dict(point.defines))
    model_level = source_level(predict_traffic(bound, machine, "LC", cores=options.cores))
    size = SizeChoice(point.level, dict(point.defines), working_set(bound),
                      int(point.target_bytes or targets.get(point.level, 0)), model_level,
                      model_level == point.level, 0)
    return make_point(point.kernel, size, bound, machine, predict_point(bound, machine, options),
                      _measurement(point))


def _kernel(recording: Recording, point: RecordedPoint, parsed: dict):
    from kerncraft.kernel.parser import parse_kernel

    if point.kernel_file not in parsed:
        parsed[point.kernel_file] = parse_kernel(recording.kernel_source(point),
                                                 filename=str(recording.path / point.kernel_file))
    return parsed[point.kernel_file]


def replay_recording(recording: Recording, machine=None, *,
                     predict_point: PredictFunction = predict,
                     progress: TextIO | None = None) -> ValidationResult:
    """Every recorded point predicted again (``machine``: the recorded machine file,
    loaded; None: load it); a point the tools cannot predict now is skipped with the
    reason (as in a live run)."""
    from kerncraft.machine.loader import load_machine

    progress = progress if progress is not None else sys.stderr
    started = time.monotonic()
    machine = machine if machine is not None else load_machine(recording.machine_file)
    targets = level_targets(machine)
    points: list[ValidationPoint] = []
    skipped: list[Skipped] = []
    parsed: dict = {}
    for point in recording.points:
        try:
            kernel = _kernel(recording, point, parsed)
            points.append(_replay_point(recording, point, kernel, machine, targets,
                                        predict_point))
        except KerncraftError as exc:
            print(f"{recording.name}: {point.kernel} {point.level} skipped: {exc}",
                  file=progress, flush=True)
            skipped.append(Skipped(point.kernel, point.level, str(exc)))
    points = with_inherited_notes(points)
    summaries = (summarize(points, "ECM"), summarize(points, "Roofline"))
    return ValidationResult(tuple(points), tuple(skipped), summaries, targets,
                            time.monotonic() - started, _options(recording))


def _version(line: str | None) -> str | None:
    """'12.2' of 'gcc (Debian 12.2.0-14) 12.2.0' (major.minor of the last version)."""
    numbers = re.findall(r"\d+\.\d+(?:\.\d+)?", line or "")
    return ".".join(numbers[-1].split(".")[:2]) if numbers else None


def compiler_difference(recording: Recording, machine) -> str | None:
    """What differs between the compiler of the recording and the one that compiles
    for the replay here (None: the same name and major.minor version). Another compiler
    may emit other loops, and the in-core prediction follows the loop."""
    from kerncraft.compilation.compiler import select_compiler
    from kerncraft.errors import ToolError
    from kerncraft.validation.hostinfo import compiler_versions

    name = recording.host.get("compiler_used")
    recorded = (recording.host.get("compilers") or {}).get(name) if name else None
    if not recorded:
        return None
    try:
        now_name = select_compiler(machine)[0]
    except ToolError as exc:
        return f"recorded with {recorded}; here: {exc}"
    now = compiler_versions([now_name])[now_name]
    if now_name == name and _version(now) == _version(recorded):
        return None
    return (f"recorded with {recorded}, compiled here with {now or now_name}: the loops, "
            "and the in-core predictions, may differ")


@dataclass(frozen=True)
class LevelChange:
    """The ECM error of one level (or ``all``) of one host, now and as recorded."""

    level: str
    points: int
    median_abs_error: float
    worst_error: float              # signed, the largest in magnitude
    worst_kernel: str
    recorded_median: float | None
    recorded_worst_error: float | None
    recorded_worst_kernel: str | None

    @property
    def change(self) -> float | None:
        """Median now minus median recorded (a fraction: 0.01 = one point)."""
        if self.recorded_median is None:
            return None
        return self.median_abs_error - self.recorded_median

    @property
    def grown(self) -> bool:
        """The median grew by more than :data:`GUARD`."""
        change = self.change
        return change is not None and change > GUARD + 1e-12

    def to_dict(self) -> dict[str, Any]:
        return {**vars(self), "change": self.change, "grown": self.grown}


@dataclass(frozen=True)
class HostComparison:
    recording: str
    host: str                       # the CPU model name as recorded
    levels: tuple[LevelChange, ...]  # the levels, then 'all'
    changed_points: int             # points whose ECM prediction moved by > CHANGED
    points: int

    def to_dict(self) -> dict[str, Any]:
        return {"recording": self.recording, "host": self.host,
                "changed_points": self.changed_points, "points": self.points,
                "levels": [lvl.to_dict() for lvl in self.levels]}


def _recorded_levels(summary: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    ecm = summary.get("ECM") or {}
    levels = {str(lvl["level"]): lvl for lvl in ecm.get("levels", ())}
    worst = max(levels.values(), key=lambda lvl: abs(lvl["worst_error"]), default=None)
    levels["all"] = {"median_abs_error": ecm.get("median_abs_error"),
                     "worst_error": worst and worst["worst_error"],
                     "worst_kernel": worst and worst["worst_kernel"]}
    return levels


def _level_change(level: str, points: Sequence[ValidationPoint],
                  recorded: Mapping[str, Any] | None) -> LevelChange:
    worst = max(points, key=lambda p: abs(p.ecm_error))
    recorded = recorded or {}
    return LevelChange(level, len(points), statistics.median(abs(p.ecm_error) for p in points),
                       worst.ecm_error, worst.kernel, recorded.get("median_abs_error"),
                       recorded.get("worst_error"), recorded.get("worst_kernel"))


def changed_predictions(recording: Recording, result: ValidationResult
                        ) -> list[tuple[ValidationPoint, float]]:
    """(point, recorded ECM cy/CL) of every point whose ECM prediction moved by more
    than :data:`CHANGED` since the recording."""
    recorded = {(p.kernel, p.level): p.recorded_ecm for p in recording.points}
    changed = []
    for point in result.points:
        before = recorded.get((point.kernel, point.level))
        if before and abs(point.prediction.ecm / before - 1) > CHANGED:
            changed.append((point, before))
    return changed


def compare(recording: Recording, result: ValidationResult) -> HostComparison:
    """Per level and overall: the median and worst ECM error now and as recorded."""
    recorded = _recorded_levels(recording.summary)
    order = list(dict.fromkeys(p.level for p in result.points))
    levels = [_level_change(lvl, [p for p in result.points if p.level == lvl], recorded.get(lvl))
              for lvl in order]
    if result.points:
        levels.append(_level_change("all", result.points, recorded["all"]))
    host = str(recording.host.get("model_name") or recording.host.get("vendor") or "unknown")
    return HostComparison(recording.name, host, tuple(levels),
                          len(changed_predictions(recording, result)), len(result.points))
