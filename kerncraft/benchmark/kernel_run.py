"""``-p Benchmark``: run the kernel and measure cy/CL, cy/It, It/s and FLOP/s.

The program comes from :mod:`kerncraft.benchmark.program` (the generated nest in
a repetition loop, warm-up, OpenMP on the outermost loop for ``-c N``),
compiled with the machine file's compiler and flags like the code the in-core
model analyses. It is run pinned (one thread per core, the last ``N`` cores
this process may use) by :func:`kerncraft.measure.timing.measure`, which grows
the repetition count until one run lasts ``min_time`` and keeps the fastest
of ``repeats`` runs.

Backends
--------
``timing``
    Used where hardware counters cannot be read (virtual machines; probed by
    :func:`kerncraft.measure.likwid.probe_likwid`). Cycles are seconds times
    the core clock *calibrated on the pinned CPU* by
    :func:`kerncraft.measure.clock.calibrate_clock` (not the machine file's
    clock, not the TSC); a machine-file clock more than 5 % away from it is
    reported. Caveat: code that lowers the core clock (AVX-512 licences on
    Intel server cores) is converted with the scalar clock, so its cycle
    count comes out too high by the ratio of the two clocks.
``likwid``
    likwid-perfctr with the marker API around the timed phase. Cycles are
    ``CPU_CLK_UNHALTED_CORE`` of the region (slowest thread); if the machine
    file has ``performance counter metrics``, their events are measured too
    (as many runs as the counters need) and give measured per-level data
    volumes next to the traffic the cache predictor (``-P``) expects.

Units: cache lines of work = innermost iterations / iterations per cache
line (:func:`kerncraft.cache.traffic.iterations_per_cacheline`), so
``cy/CL = seconds x clock / cache lines``, for ``-c N`` the wall time of all
threads together (the quantity ECM's scaling table predicts).
"""
from __future__ import annotations

import functools
import shutil
from typing import TYPE_CHECKING, Sequence

from kerncraft.benchmark.counters import (INTEL_FIXED, CounterEvent, Runner,  # noqa: F401
                                      count_with_likwid, event_sets, evaluate_metrics,
                                      likwid_event_string, likwid_measurement, parse_metric)
from kerncraft.errors import KerncraftError, ToolError
from kerncraft.models.results import BenchmarkResult, LevelVolume

if TYPE_CHECKING:
    from kerncraft.benchmark.program import BenchmarkProgram
    from kerncraft.kernel.model import KernelModel
    from kerncraft.machine.model import MachineModel

__all__ = ["BenchmarkResult", "LevelVolume", "CounterEvent", "run_benchmark",
           "choose_cpus", "parse_metric", "event_sets", "likwid_event_string",
           "evaluate_metrics", "likwid_measurement", "CLOCK_TOLERANCE"]

# The counter half (likwid-perfctr event sets and metrics) is kerncraft/benchmark/counters.py,
# the result types are in kerncraft/models/results.py (importable from here as
# before), the report text in kerncraft/report/text.py; the -p Benchmark entry of the
# model table (environment settings, --unit) is kerncraft/runner/table.py.

#: Relative difference between machine-file clock and calibrated clock that is reported.
CLOCK_TOLERANCE = 0.05


# ---------------------------------------------------------------- CPUs and backend

def choose_cpus(cores: int) -> tuple[int, ...]:
    """One CPU per core for ``cores`` threads: the last usable cores (CPU 0 gets
    most interrupts); KerncraftError if there are fewer."""
    from kerncraft.measure.topology import core_cpus

    usable = sorted(core_cpus())
    if cores > len(usable):
        raise KerncraftError(f"-c {cores}: this process may only use {len(usable)} core(s) "
                             f"(CPUs {', '.join(map(str, usable))})")
    return tuple(usable[-cores:])


@functools.lru_cache(maxsize=4)
def _probe(cpu: int):
    from kerncraft.measure.likwid import probe_likwid
    return probe_likwid(cpu)


def _select_backend(backend: str, cpu: int) -> tuple[str, str]:
    if backend not in ("auto", "timing", "likwid"):
        raise KerncraftError(f"unknown benchmark backend {backend!r} (auto, timing, likwid)")
    if backend == "timing":
        return "timing", "timing backend requested"
    probe = _probe(cpu)
    if probe.perfctr:
        return "likwid", probe.reason
    if backend == "likwid":
        raise ToolError(f"the likwid backend cannot be used: {probe.reason}")
    return "timing", probe.reason

# ---------------------------------------------------------------- the benchmark

def _checked_setup(kernel: KernelModel, machine: MachineModel, cores: int,
                   cpus: Sequence[int] | None,
                   compiler: str | None, flags: str | Sequence[str] | None
                   ) -> tuple[int, tuple[int, ...], tuple[tuple[str, tuple[str, ...]], ...]]:
    """(iterations per repetition, CPUs, (compiler, flags) choices), every check done
    before anything is compiled: the machine file is one of this host's kind (an aarch64
    file on x86 is one clear error), the first compiler's flags' instructions exist on
    this CPU (kerncraft/benchmark/hostcheck.py), the constants are bound and the cores
    exist. The later choices are the machine file's fallbacks if a build fails."""
    from kerncraft.benchmark.hostcheck import check_cpu_features, check_machine_isa
    from kerncraft.measure.timing import require_x86_64_linux
    from kerncraft.compilation.compiler import compiler_choices, kernel_flags

    check_machine_isa(machine)
    require_x86_64_linux("the benchmark mode")
    count = kernel.iteration_count()
    if not count.is_number or count.free_symbols:
        raise KerncraftError("the benchmark needs every constant bound (-D)")
    per_repetition = int(count)
    if per_repetition <= 0:
        raise KerncraftError("the loop nest runs no iteration with these -D values")
    cpus = tuple(cpus) if cpus is not None else choose_cpus(cores)
    if len(cpus) != cores:
        raise KerncraftError(f"{cores} core(s) need as many CPUs, got {list(cpus)}")
    choices = tuple((name, kernel_flags(kernel, name, chosen))
                    for name, chosen in compiler_choices(machine, compiler, flags))
    check_cpu_features(*choices[0])
    return per_repetition, cpus, choices


def run_benchmark(kernel: KernelModel, machine: MachineModel, *, cores: int = 1,
                  compiler: str | None = None,
                  flags: str | Sequence[str] | None = None, min_time: float = 0.2,
                  repeats: int = 3, repetitions: int = 1, backend: str = "auto",
                  cpus: Sequence[int] | None = None, clock=None, predictor: str = "LC",
                  runner: Runner | None = None, aliasing: str = "distinct") -> BenchmarkResult:
    """Build, run and measure the benchmark of a bound ``kernel`` (module doc).

    ``repetitions`` is the first count tried (with ``min_time=0`` the only one);
    ``clock`` a :class:`~kerncraft.measure.clock.ClockCalibration` to use instead of
    calibrating on the first pinned CPU.
    """
    from kerncraft.measure.clock import calibrate_clock_cached
    from kerncraft.benchmark.hostcheck import check_cpu_features
    from kerncraft.benchmark.program import build_first_working, openmp_environment
    from kerncraft.measure.timing import measure
    from kerncraft.cache.traffic import iterations_per_cacheline
    from kerncraft.compilation.codegen import program_arguments

    per_repetition, cpus, choices = _checked_setup(kernel, machine, cores, cpus, compiler,
                                                   flags)
    chosen_backend, reason = _select_backend(backend, cpus[0])
    program, build_notes = build_first_working(kernel, choices, threads=cores,
                                               aliasing=aliasing, check=check_cpu_features)
    name, chosen = program.compiler, dict(choices)[program.compiler]
    args = program_arguments(kernel)
    executable, env_args = str(program.executable), []
    if cores > 1:       # 'env' sets the OpenMP pinning without a shell
        env_args = [f"{k}={v}" for k, v in openmp_environment(cpus).items()]
        executable = shutil.which("env") or "/usr/bin/env"
        args = [*env_args, str(program.executable), *args]
    clock = clock or calibrate_clock_cached(cpu=cpus[0])
    result = measure(executable, args, cpus=list(cpus), clock=clock, min_time=min_time,
                     repeats=repeats, repetitions=repetitions, threads=cores)
    ipc = iterations_per_cacheline(kernel, machine.cacheline_size)
    seconds, cycles = result.seconds, result.cycles_total
    clock_hz, clock_source = clock.core_hz, f"calibrated: {clock.method}"
    notes: list[str] = list(build_notes)
    volumes: tuple[LevelVolume, ...] = ()
    if chosen_backend == "likwid":
        counted = count_with_likwid(kernel, machine, compiler=name, flags=chosen, cpus=cpus,
                                    repetitions=result.repetitions, predictor=predictor,
                                    runner=runner)
        if counted.cycles and counted.seconds:
            seconds, cycles = counted.seconds, counted.cycles
            clock_hz = counted.cycles / counted.seconds
            clock_source = "core cycles counted by likwid-perfctr (CPU_CLK_UNHALTED_CORE)"
        notes += counted.notes
        volumes = counted.volumes
    deviation = machine.clock / clock_hz - 1
    if chosen_backend == "timing" and abs(deviation) > CLOCK_TOLERANCE:
        notes.append(f"the machine file's clock ({machine.clock / 1e9:.3f} GHz) differs from "
                     f"the calibrated clock by {100 * deviation:+.1f} %; cycles here are "
                     "calibrated core cycles")
    if cores > 1:
        notes.append("threads pinned with OMP_PLACES; arrays initialised by the main thread "
                     "(first touch: all pages in its NUMA domain)")
    lines = result.repetitions * per_repetition / ipc
    notes += _code_block_notes(kernel, machine, program, ipc, cycles / lines)
    return BenchmarkResult(
        backend=chosen_backend, backend_reason=reason, clock_hz=clock_hz,
        clock_source=clock_source, machine_clock_hz=machine.clock, cores=cores, cpus=cpus,
        compiler=name, flags=program.flags, repetitions=result.repetitions,
        iterations_per_repetition=per_repetition, iterations_per_cacheline=ipc,
        flops_per_iteration=kernel.total_flops, seconds=seconds, cycles=cycles,
        time_source=result.time_source, runs=result.runs, volumes=volumes,
        notes=tuple(notes))

def _code_block_notes(kernel: KernelModel, machine: MachineModel, program: BenchmarkProgram,
                      iterations_per_cl: float,
                      measured_cy_per_cl: float) -> list[str]:
    """Where the measured loop sits (kerncraft/benchmark/loopsite.py), for in-core
    databases that declare a fetch block (``code_block_bytes``); other machines: none."""
    from kerncraft.errors import AssemblyError
    from kerncraft.incore.database import load_database
    from kerncraft.models.incore_prediction import resolve_database

    try:
        arch = resolve_database(machine)
        block = load_database(arch).code_block_bytes
    except KerncraftError:
        return []                  # no database for this machine: nothing to say
    if not block:
        return []
    from kerncraft.benchmark.loopsite import loop_site_note, measured_loop_site
    try:
        site = measured_loop_site(program, kernel, block)
    except (ToolError, AssemblyError) as exc:
        return [f"code layout of the measured loop unknown: {exc}"]
    note = loop_site_note(site, iterations_per_cl, measured_cy_per_cl, arch)
    return [note] if note else []
