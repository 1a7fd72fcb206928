"""Hardware counters of ``-p Benchmark`` with likwid-perfctr: the machine file's
``performance counter metrics`` as event sets, the marker-region run once per set,
the metric values per level, and the data volumes beside the cache predictor's.
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from kerncraft.errors import KerncraftError
from kerncraft.models.results import LevelVolume

if TYPE_CHECKING:
    from kerncraft.kernel.model import KernelModel
    from kerncraft.machine.model import MachineModel

__all__ = ["INTEL_FIXED", "CounterEvent", "parse_metric", "event_sets", "likwid_event_string",
           "evaluate_metrics", "likwid_measurement", "Runner", "LikwidCounts",
           "count_with_likwid"]

#: Fixed counters of Intel cores, added to every likwid event set.
INTEL_FIXED = (("INSTR_RETIRED_ANY", "FIXC0"), ("CPU_CLK_UNHALTED_CORE", "FIXC1"),
               ("CPU_CLK_UNHALTED_REF", "FIXC2"))


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
    from kerncraft.measure.timing import run_pinned
    return run_pinned(argv, None, timeout=600, env=env)


def likwid_measurement(executable: str, args: Sequence[str], cpus: Sequence[int],
                       metrics: Mapping[str, Mapping[str, str]], *, intel: bool = True,
                       env: Mapping[str, str] | None = None, runner: Runner | None = None,
                       perfctr: str = "likwid-perfctr"):
    """Run the marker-instrumented program under likwid-perfctr once per event set.

    Returns (cycles of the slowest thread or None, RDTSC seconds, {level: {metric:
    value}}). ``runner(argv, env) -> stdout`` can be replaced in tests.
    """
    from kerncraft.measure.likwid import parse_perfctr_output
    from kerncraft.benchmark.program import MARKER_REGION

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


@dataclass(frozen=True)
class LikwidCounts:
    """What likwid-perfctr counted in the benchmark's marker region
    (:func:`count_with_likwid`)."""

    seconds: float | None            # marker region time
    cycles: float | None             # counted core cycles
    volumes: tuple[LevelVolume, ...]
    notes: tuple[str, ...]


def count_with_likwid(kernel: KernelModel, machine: MachineModel, *, compiler: str,
                      flags: Sequence[str], cpus: Sequence[int],
                      repetitions: int, predictor: str, runner: Runner | None) -> LikwidCounts:
    """Run the marker-API build of the benchmark under likwid-perfctr with the
    repetition count the timing run settled on: core cycles and, when the machine
    file has counter metrics, the data volume per level and cache line of work
    beside the predicted one."""
    from kerncraft.benchmark.program import build_benchmark, openmp_environment
    from kerncraft.cache.traffic import iterations_per_cacheline
    from kerncraft.compilation.codegen import program_arguments

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
    return LikwidCounts(region_seconds, counted, tuple(volumes), tuple(notes))
