"""``-p Benchmark``: run the kernel and measure cy/CL, cy/It, It/s and FLOP/s.

The program comes from :mod:`kerncraft.bench.program` (the generated nest in
a repetition loop, warm-up, OpenMP on the outermost loop for ``-c N``),
compiled with the machine file's compiler and flags like the code the in-core
model analyses. It is run pinned (one thread per core, the last ``N`` cores
this process may use) by :func:`kerncraft.bench.timing.measure`, which grows
the repetition count until one run lasts ``min_time`` and keeps the fastest
of ``repeats`` runs.

Backends
--------
``timing``
    Used where hardware counters cannot be read (virtual machines; probed by
    :func:`kerncraft.bench.likwid.probe_likwid`). Cycles are seconds times
    the core clock *calibrated on the pinned CPU* by
    :func:`kerncraft.bench.clock.calibrate_clock` (not the machine file's
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

import ast
import functools
import math
import os
import re
import shutil
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from kerncraft.errors import KerncraftError, ToolError
from kerncraft.models.registry import ModelReport

__all__ = ["BenchmarkResult", "LevelVolume", "CounterEvent", "run_benchmark", "benchmark_model",
           "choose_cpus", "parse_metric", "event_sets", "likwid_event_string",
           "evaluate_metrics", "likwid_measurement", "CLOCK_TOLERANCE"]

#: Relative difference between machine-file clock and calibrated clock that is reported.
CLOCK_TOLERANCE = 0.05
#: Fixed counters of Intel cores, added to every likwid event set.
INTEL_FIXED = (("INSTR_RETIRED_ANY", "FIXC0"), ("CPU_CLK_UNHALTED_CORE", "FIXC1"),
               ("CPU_CLK_UNHALTED_REF", "FIXC2"))


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
        return {"backend": self.backend, "backend_reason": self.backend_reason,
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
                "volumes": [v.to_dict() for v in self.volumes], "notes": list(self.notes)}


# ---------------------------------------------------------------- CPUs and backend

def choose_cpus(cores: int) -> tuple[int, ...]:
    """One CPU per core for ``cores`` threads: the last usable cores (CPU 0 gets
    most interrupts); KerncraftError if there are fewer."""
    from kerncraft.bench.topology import core_cpus

    usable = sorted(core_cpus())
    if cores > len(usable):
        raise KerncraftError(f"-c {cores}: this process may only use {len(usable)} core(s) "
                             f"(CPUs {', '.join(map(str, usable))})")
    return tuple(usable[-cores:])


@functools.lru_cache(maxsize=4)
def _probe(cpu: int):
    from kerncraft.bench.likwid import probe_likwid
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


# ---------------------------------------------------------------- counter metrics

_EVENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z][A-Za-z0-9]*(?:\[[^\]]*\][A-Za-z0-9]*)?"
                    r"(?::[A-Za-z0-9_]+(?:=[0-9A-Za-z]+)?)*")


@dataclass(frozen=True)
class CounterEvent:
    """One event of a metric expression: ``NAME:COUNTER[:OPTION=VALUE...]``, where
    COUNTER may be a set such as ``PMC[0-3]`` or ``MBOX0C[01]``."""

    name: str
    candidates: tuple[str, ...]
    options: tuple[str, ...] = ()


def _expand_counter(spec: str) -> tuple[str, ...]:
    match = re.fullmatch(r"([A-Za-z0-9]*)\[([^\]]*)\]([A-Za-z0-9]*)", spec)
    if match is None:
        return (spec,)
    prefix, chars, suffix = match.groups()
    values: list[str] = []
    for part in re.finditer(r"(\w)-(\w)|(\w)", chars):
        if part.group(3):
            values.append(part.group(3))
        else:
            values.extend(chr(c) for c in range(ord(part.group(1)), ord(part.group(2)) + 1))
    return tuple(f"{prefix}{v}{suffix}" for v in values)


def parse_metric(expression: str) -> tuple[str, tuple[CounterEvent, ...]]:
    """(template, events): the expression with every event replaced by ``{k}``."""
    events: list[CounterEvent] = []

    def replace(match: re.Match) -> str:
        name, counter, *options = match.group(0).split(":")
        event = CounterEvent(name, _expand_counter(counter), tuple(options))
        if event not in events:
            events.append(event)
        return "{" + str(events.index(event)) + "}"

    return _EVENT.sub(replace, expression), tuple(events)


def event_sets(metrics: Mapping[str, Mapping[str, str]],
               fixed: Sequence[tuple[str, str]] = ()) -> list[dict[CounterEvent, str]]:
    """Assign a counter to every event of ``metrics`` ({level: {metric: expression}}),
    first fit, opening another set (another run) when no candidate is free."""
    sets: list[dict[CounterEvent, str]] = []
    reserved = {register for _, register in fixed}
    for level_metrics in metrics.values():
        for expression in level_metrics.values():
            for event in parse_metric(str(expression))[1]:
                if any(event in s for s in sets):
                    continue
                for assignment in sets:
                    free = [c for c in event.candidates
                            if c not in assignment.values() and c not in reserved]
                    if free:
                        assignment[event] = free[0]
                        break
                else:
                    free = [c for c in event.candidates if c not in reserved]
                    if not free:
                        raise KerncraftError(f"performance counter metric event {event.name} "
                                             "has no usable counter")
                    sets.append({event: free[0]})
    return sets or [{}]


def likwid_event_string(assignment: Mapping[CounterEvent, str],
                        fixed: Sequence[tuple[str, str]] = ()) -> str:
    parts = [f"{name}:{register}" for name, register in fixed]
    parts += [":".join((e.name, register, *e.options)) for e, register in assignment.items()]
    return ",".join(parts)


def _safe_eval(expression: str) -> float:
    tree = ast.parse(expression.strip() or "0", mode="eval")
    allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Add, ast.Sub,
               ast.Mult, ast.Div, ast.USub, ast.UAdd)
    for node in ast.walk(tree):
        if not isinstance(node, allowed) or (isinstance(node, ast.Constant) and
                                             not isinstance(node.value, (int, float))):
            raise KerncraftError(f"unsupported performance counter metric: {expression!r}")
    return float(eval(compile(tree, "<metric>", "eval"), {"__builtins__": {}}))  # noqa: S307


def evaluate_metrics(metrics: Mapping[str, Mapping[str, str]],
                     measured: Sequence[tuple[Mapping[CounterEvent, str],
                                              Mapping[tuple[str, str], tuple[float, ...]]]]
                     ) -> dict[str, dict[str, float]]:
    """{level: {metric: value}} summed over threads (NaN where an event is missing)."""
    totals: dict[CounterEvent, float] = {}
    for assignment, values in measured:
        for event, register in assignment.items():
            per_thread = values.get((event.name, register))
            if per_thread is not None:
                totals[event] = sum(v for v in per_thread if not math.isnan(v))
    result: dict[str, dict[str, float]] = {}
    for level, level_metrics in metrics.items():
        for metric, expression in level_metrics.items():
            template, events = parse_metric(str(expression))
            if any(e not in totals for e in events):
                value = math.nan
            else:
                value = _safe_eval(template.format(*(repr(totals[e]) for e in events)))
            result.setdefault(level, {})[metric] = value
    return result


def _predicted_volume(traffic, level: str, metric: str) -> float | None:
    """Lines per CL of work the predictor expects for a machine-file metric.

    Machine-file convention: ``loads``/``stores`` of a level are the lines it
    serves to / takes from the level above (for L1: load and store
    *instructions*, not predicted here), ``misses`` the lines it takes in,
    ``evicts`` the lines it writes back.
    """
    from kerncraft.cache.traffic import transfer_volumes

    names = list(traffic.level_names)
    links = {link.lower: link for link in transfer_volumes(traffic)}
    if metric in ("loads", "stores"):
        link = links.get(level)
        return None if link is None else getattr(link, metric)
    if level in names and metric in ("misses", "evicts"):
        lvl = traffic.level(level)
        return lvl.misses if metric == "misses" else lvl.evictions
    return None


Runner = Callable[[Sequence[str], Mapping[str, str] | None], str]


def _run_likwid(argv: Sequence[str], env: Mapping[str, str] | None) -> str:
    from kerncraft.bench.timing import run_pinned
    return run_pinned(argv, None, timeout=600, env=env)


def likwid_measurement(executable: str, args: Sequence[str], cpus: Sequence[int],
                       metrics: Mapping[str, Mapping[str, str]], *, intel: bool = True,
                       env: Mapping[str, str] | None = None, runner: Runner | None = None,
                       perfctr: str = "likwid-perfctr"):
    """Run the marker-instrumented program under likwid-perfctr once per event set.

    Returns (cycles of the slowest thread or None, RDTSC seconds, {level: {metric:
    value}}). ``runner(argv, env) -> stdout`` can be replaced in tests.
    """
    from kerncraft.bench.likwid import parse_perfctr_output
    from kerncraft.bench.program import MARKER_REGION

    runner = runner or _run_likwid
    fixed = INTEL_FIXED if intel else ()
    measured = []
    cycles = seconds = None
    for assignment in event_sets(metrics, fixed):
        argv = [perfctr, "-C", ",".join(map(str, cpus)), "-m", "-O", "-g",
                likwid_event_string(assignment, fixed), str(executable), *args]
        region = parse_perfctr_output(runner(argv, env)).region(MARKER_REGION)
        measured.append((assignment, region.by_register))
        if cycles is None and "CPU_CLK_UNHALTED_CORE" in region.counters:
            cycles = max(region.counters["CPU_CLK_UNHALTED_CORE"])
        if seconds is None and region.runtime:
            seconds = max(region.runtime)
    return cycles, seconds, evaluate_metrics(metrics, measured)


# ---------------------------------------------------------------- the benchmark

def _checked_setup(kernel, machine, cores: int, cpus: Sequence[int] | None,
                   compiler: str | None, flags: str | Sequence[str] | None
                   ) -> tuple[int, tuple[int, ...], str, tuple[str, ...]]:
    """(iterations per repetition, CPUs, compiler, flags), every check done before
    anything is compiled: the machine file is one of this host's kind (an aarch64 file
    on x86 is one clear error), the flags' instructions exist on this CPU
    (kerncraft/bench/hostcheck.py), the constants are bound and the cores exist."""
    from kerncraft.bench.hostcheck import check_cpu_features, check_machine_isa
    from kerncraft.bench.timing import require_x86_64_linux
    from kerncraft.build.compiler import select_compiler

    check_machine_isa(machine)
    require_x86_64_linux("the benchmark mode")
    count = kernel.iteration_count()
    if not getattr(count, "is_number", True) or count.free_symbols:
        raise KerncraftError("the benchmark needs every constant bound (-D)")
    per_repetition = int(count)
    if per_repetition <= 0:
        raise KerncraftError("the loop nest runs no iteration with these -D values")
    cpus = tuple(cpus) if cpus is not None else choose_cpus(cores)
    if len(cpus) != cores:
        raise KerncraftError(f"{cores} core(s) need as many CPUs, got {list(cpus)}")
    name, chosen = select_compiler(machine, compiler, flags)
    check_cpu_features(name, chosen)
    return per_repetition, cpus, name, chosen


def run_benchmark(kernel, machine, *, cores: int = 1, compiler: str | None = None,
                  flags: str | Sequence[str] | None = None, min_time: float = 0.2,
                  repeats: int = 3, repetitions: int = 1, backend: str = "auto",
                  cpus: Sequence[int] | None = None, clock=None, predictor: str = "LC",
                  runner: Runner | None = None) -> BenchmarkResult:
    """Build, run and measure the benchmark of a bound ``kernel`` (module doc).

    ``repetitions`` is the first count tried (with ``min_time=0`` the only one);
    ``clock`` a :class:`~kerncraft.bench.clock.ClockCalibration` to use instead of
    calibrating on the first pinned CPU.
    """
    from kerncraft.bench.clock import calibrate_clock_cached
    from kerncraft.bench.program import build_benchmark, openmp_environment
    from kerncraft.bench.timing import measure
    from kerncraft.cache.traffic import iterations_per_cacheline
    from kerncraft.build.codegen import program_arguments

    per_repetition, cpus, name, chosen = _checked_setup(kernel, machine, cores, cpus,
                                                        compiler, flags)
    chosen_backend, reason = _select_backend(backend, cpus[0])
    program = build_benchmark(kernel, compiler=name, flags=chosen, threads=cores)
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
    notes: list[str] = []
    volumes: tuple[LevelVolume, ...] = ()
    if chosen_backend == "likwid":
        counted = _likwid_counts(kernel, machine, compiler=name, flags=chosen, cpus=cpus,
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


def _code_block_notes(kernel, machine, program, iterations_per_cl: float,
                      measured_cy_per_cl: float) -> list[str]:
    """Where the measured loop sits (kerncraft/bench/loopsite.py), for in-core
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
    from kerncraft.bench.loopsite import loop_site_note, measured_loop_site
    try:
        site = measured_loop_site(program, kernel, block)
    except (ToolError, AssemblyError) as exc:
        return [f"code layout of the measured loop unknown: {exc}"]
    note = loop_site_note(site, iterations_per_cl, measured_cy_per_cl, arch)
    return [note] if note else []


@dataclass(frozen=True)
class _LikwidCounts:
    seconds: float | None            # marker region time
    cycles: float | None             # counted core cycles
    volumes: tuple[LevelVolume, ...]
    notes: tuple[str, ...]


def _likwid_counts(kernel, machine, *, compiler: str, flags, cpus: Sequence[int],
                   repetitions: int, predictor: str, runner: Runner | None) -> _LikwidCounts:
    """Run the marker-API build of the benchmark under likwid-perfctr with the
    repetition count the timing run settled on: core cycles and, when the machine
    file has counter metrics, the data volume per level and cache line of work
    beside the predicted one."""
    from kerncraft.bench.program import build_benchmark, openmp_environment
    from kerncraft.cache.traffic import iterations_per_cacheline
    from kerncraft.build.codegen import program_arguments

    cores = len(cpus)
    marked = build_benchmark(kernel, compiler=compiler, flags=flags, threads=cores, likwid=True)
    metrics = {lvl.name: lvl.performance_counter_metrics
               for lvl in machine.memory_hierarchy if lvl.performance_counter_metrics}
    intel = "intel" in f"{machine.model_name} {machine.model_type}".lower()
    counted, region_seconds, values = likwid_measurement(
        str(marked.executable), [*program_arguments(kernel), str(repetitions)], cpus,
        metrics, intel=intel, env=openmp_environment(cpus) if cores > 1 else None,
        runner=runner)
    notes = []
    if not (counted and region_seconds):
        notes.append("likwid-perfctr gave no core-cycle count; cycles are time x "
                     "calibrated clock")
    volumes = []
    if metrics:
        from kerncraft.models.transfers import predict_traffic
        traffic = predict_traffic(kernel, machine, predictor, cores=cores)
        lines = repetitions * int(kernel.iteration_count()) / iterations_per_cacheline(
            kernel, machine.cacheline_size)
        for level, level_values in values.items():
            for metric, value in level_values.items():
                volumes.append(LevelVolume(level, metric, value / lines,
                                           _predicted_volume(traffic, level, metric)))
    else:
        notes.append("the machine file has no 'performance counter metrics': no data "
                     "volumes measured")
    return _LikwidCounts(region_seconds, counted, tuple(volumes), tuple(notes))


def _format(result: BenchmarkResult, unit: str) -> str:
    from kerncraft.models.ecm_data import format_value

    units = ["cy/CL", "cy/It", "It/s"] + (["FLOP/s"] if result.flops_per_iteration else [])
    where = ", ".join(map(str, result.cpus))
    lines = [f"Benchmark ({result.cores} core(s) pinned to CPU {where})",
             f"  backend: {result.backend}" + (f" ({result.backend_reason})"
                                               if result.backend_reason else ""),
             f"  clock: {result.clock_hz / 1e9:.3f} GHz, {result.clock_source}; machine "
             f"file: {result.machine_clock_hz / 1e9:.3f} GHz",
             f"  program: {result.compiler} {' '.join(result.flags)}"
             + (" -fopenmp" if result.cores > 1 else ""),
             f"  {result.repetitions} repetitions x {result.iterations_per_repetition} "
             f"iterations ({result.iterations_per_cacheline} per cache line) in "
             f"{result.seconds:.4g} s ({result.time_source} time, best of {result.runs} runs)",
             "  measured: " + "   ".join(format_value(result.value(u), u) for u in units)]
    if unit not in units:
        lines.append(f"  ({unit} undefined: the kernel has no floating-point operations)")
    if result.volumes:
        lines.append(f"  {'level':<6} {'metric':<7} {'measured':>9} {'predicted':>9}  "
                     "(cache lines per CL of work)")
        for v in result.volumes:
            predicted = "-" if v.predicted is None else f"{v.predicted:9.2f}"
            lines.append(f"  {v.level:<6} {v.metric:<7} {v.measured:9.2f} {predicted:>9}")
    lines += [f"  note: {note}" for note in result.notes]
    if unit in units:
        lines.append(f"measured performance: {format_value(result.value(unit), unit)}")
    return "\n".join(lines)


def _env_number(name: str, default: float, kind=float):
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = -1
    if value < 0 or (kind is int and value < 1):
        raise KerncraftError(f"{name} must be a positive number, got {text!r}")
    return value


def benchmark_model(kernel, machine, args) -> ModelReport:
    """The model of ``-p Benchmark``. ``KERNCRAFT_BENCH_MIN_TIME`` (seconds a run must
    last, default 0.2) and ``KERNCRAFT_BENCH_REPEATS`` (runs kept, default 3) tune
    the measurement; ``KERNCRAFT_BENCH_BACKEND`` forces ``timing`` or ``likwid``."""
    unit = getattr(args, "unit", None) or "cy/CL"
    result = run_benchmark(kernel, machine, cores=getattr(args, "cores", 1),
                           compiler=getattr(args, "compiler", None),
                           flags=getattr(args, "compiler_flags", None),
                           predictor=getattr(args, "cache_predictor", "LC"),
                           min_time=_env_number("KERNCRAFT_BENCH_MIN_TIME", 0.2),
                           repeats=_env_number("KERNCRAFT_BENCH_REPEATS", 3, int),
                           backend=os.environ.get("KERNCRAFT_BENCH_BACKEND", "auto") or "auto")
    data = {"unit": unit, **result.to_dict(),
            "value": result.value(unit) if unit != "FLOP/s" or result.flops_per_iteration
            else None}
    return ModelReport("Benchmark", _format(result, unit), data)
