"""Measuring a loop block on this host: cycles per assembly iteration, data in L1.

The benchmark program of the block's kernel and flags
(:func:`kerncraft.benchmark.program.build_benchmark`: the nest in a repetition loop,
a warm-up phase, clock_gettime around the timed phase) runs at the two extents of
:mod:`kerncraft.validation.incore_sizes`, pinned to one CPU (``taskset``) and, where
permitted, at real-time priority (``chrt -f 50``: other processes of a shared VM do
not preempt it). One *pass* runs the short and the long extent ``runs`` times each,
alternately, and keeps the fastest run of each (interference only ever adds time):

    cycles per assembly iteration = (t_long - t_short) per repetition x core clock
                                    / (assembly iterations long - short)

so what a row or a repetition costs besides its iterations cancels. The core clock is
calibrated (:func:`kerncraft.measure.clock.calibrate_clock`, a dependent add chain:
in a VM neither the TSC nor the nominal clock is the core's). A block is measured in
``passes`` passes; the result is the fastest pass, and passes more than
``tolerance`` (5 %) apart make the block *unstable*.
"""
from __future__ import annotations

import math
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from kerncraft.errors import KerncraftError, ToolError

__all__ = ["MeasureOptions", "BlockMeasurement", "realtime_prefix", "read_load",
           "measure_extents", "build_program", "calibrated_hz"]


@dataclass(frozen=True)
class MeasureOptions:
    cpu: int
    min_time: float = 0.02          # seconds per run at the long extent
    runs: int = 3                   # runs per extent and pass, the fastest counts
    passes: int = 2
    tolerance: float = 0.05         # passes further apart: unstable
    realtime: bool = True


@dataclass(frozen=True)
class BlockMeasurement:
    """The measured cycles per assembly iteration of one block and how they came about."""

    cycles: float | None            # the fastest pass (None: no pass gave a positive time)
    passes: tuple[float, ...]
    unstable: bool
    clock_hz: float
    repetitions: int
    seconds_short: float            # fastest run per repetition, short and long extent
    seconds_long: float
    load_before: float | None
    load_after: float | None

    @property
    def spread(self) -> float:
        good = [p for p in self.passes if p > 0]
        return max(good) / min(good) - 1.0 if len(good) > 1 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"cy_per_asm_iteration": self.cycles, "passes": list(self.passes),
                "spread": round(self.spread, 4), "unstable": self.unstable,
                "clock_hz": self.clock_hz, "repetitions": self.repetitions,
                "seconds_per_repetition": [self.seconds_short, self.seconds_long],
                "load1": [self.load_before, self.load_after]}


def realtime_prefix() -> tuple[str, ...]:
    """``chrt -f 50`` when this user may use it, else nothing."""
    chrt = shutil.which("chrt")
    if chrt is None:
        return ()
    try:
        done = subprocess.run([chrt, "-f", "50", "true"], capture_output=True, timeout=10,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return (chrt, "-f", "50") if done.returncode == 0 else ()


def read_load() -> float | None:
    """The one-minute load average (None where /proc/loadavg cannot be read)."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def build_program(block, extents) -> tuple[Path, list[str], list[str]]:
    """(executable, arguments at the short extent, at the long one) of a block's
    benchmark; the two extents must give one program text (only run-time constants
    differ), else KerncraftError."""
    from kerncraft.benchmark.program import benchmark_source, build_benchmark
    from kerncraft.compilation.codegen import program_arguments
    from kerncraft.kernel.parser import parse_kernel

    kernel = parse_kernel(block.kernel_path.read_text(encoding="utf-8"),
                          filename=block.kernel_path.name)
    short, long = kernel.bind(dict(extents.short)), kernel.bind(dict(extents.long))
    if benchmark_source(short) != benchmark_source(long):
        raise KerncraftError("the two extents give different programs (a size is a literal)")
    program = build_benchmark(short, compiler=block.variant.compiler, flags=block.flags)
    return program.executable, program_arguments(short), program_arguments(long)


Runner = Callable[[Sequence[str]], float]


def _runner(cpu: int, prefix: Sequence[str]) -> Runner:
    """Runs a benchmark command pinned to ``cpu``; seconds of its timed phase per
    repetition, min(wall, CPU time) as :mod:`kerncraft.measure.timing` counts them."""
    from kerncraft.measure.timing import parse_protocol, run_pinned

    def run(argv: Sequence[str]) -> float:
        report = parse_protocol(run_pinned([*prefix, *argv], [cpu], timeout=120))
        seconds = min(report.seconds, report.cpu_seconds or report.seconds)
        return seconds / report.repetitions
    return run


def _repetitions(run: Runner, executable: str, long_args: Sequence[str], min_time: float,
                 guess: int) -> int:
    """Repetitions for which one run at the long extent lasts about ``min_time``."""
    reps = max(1, guess)
    for _ in range(8):
        seconds = run([executable, *long_args, str(reps)]) * reps
        if seconds >= 0.8 * min_time:
            break
        reps = int(math.ceil(reps * min(100.0, 1.2 * min_time / max(seconds, 1e-7))))
    return reps


def measure_extents(executable: Path, short_args: Sequence[str], long_args: Sequence[str],
                    asm_iterations_delta: float, clock_hz: float, options: MeasureOptions,
                    *, expected_cycles: float = 1.0, runner: Runner | None = None,
                    prefix: Sequence[str] = ()) -> BlockMeasurement:
    """Measure one block (module doc); ``expected_cycles`` per assembly iteration (a
    prediction) sizes the first try of the repetition count; ``runner`` replaces the
    real runs (tests)."""
    if asm_iterations_delta <= 0:
        raise KerncraftError("the long extent must run more assembly iterations")
    run = runner or _runner(options.cpu, prefix)
    exe = str(executable)
    load_before = read_load()
    guess_cycles = max(expected_cycles, 0.25) * asm_iterations_delta * 1.5 + 200.0
    reps = _repetitions(run, exe, long_args,
                        options.min_time, int(options.min_time * clock_hz / guess_cycles))
    passes, best_short, best_long = [], math.inf, math.inf
    for _ in range(options.passes):
        short = long = math.inf
        for _ in range(options.runs):
            short = min(short, run([exe, *short_args, str(reps)]))
            long = min(long, run([exe, *long_args, str(reps)]))
        best_short, best_long = min(best_short, short), min(best_long, long)
        passes.append(round((long - short) * clock_hz / asm_iterations_delta, 4))
    good = [p for p in passes if p > 0]
    unstable = len(good) < len(passes) or (max(good) > (1 + options.tolerance) * min(good)
                                           if good else True)
    return BlockMeasurement(min(good) if good else None, tuple(passes), unstable, clock_hz,
                            reps, best_short, best_long, load_before, read_load())


def calibrated_hz(cpu: int) -> float:
    """The core clock of ``cpu`` now (a short calibration: 3 x 0.05 s)."""
    from kerncraft.measure.clock import calibrate_clock

    try:
        return calibrate_clock(duration=0.05, repetitions=3, cpu=cpu).core_hz
    except ToolError as exc:
        raise KerncraftError(f"cannot calibrate the core clock: {exc}") from None
