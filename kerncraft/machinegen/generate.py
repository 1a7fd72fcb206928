"""Measure this host and write a Kerncraft-format machine file for it.

Why measure instead of copying CPUID
------------------------------------
A machine file feeds every model: cache sizes drive the layer conditions,
bandwidths per level and core count drive ECM transfer times and the
Roofline ceilings. CPUID tells the cache geometry of the *chip*; in a VM or
on a shared LLC one core can get much less. So the generator first sweeps
the working-set size of one streaming kernel on one core and finds the
bandwidth plateaus (:func:`kerncraft.measure.streams.find_plateaus`); the
working set measured for each level lies two thirds up its plateau. Then it
measures the five benchmark kernels per level on 1..n cores.

What is measured and what is assumed is said in comments of the file.

Structure (and testing)
-----------------------
:func:`collect_host_data` does the measuring through a :class:`Probes`
bundle of functions (topology, clock, bandwidth ...); tests inject fast
fakes. :func:`~kerncraft.machinegen.render.render_machine_file` turns
the collected :class:`HostData` into YAML text, without measuring anything.

Measuring on a shared machine
-----------------------------
Before measuring, the load is checked (:mod:`kerncraft.measure.hostload`): a
busy machine is reported and, with ``GenerationPlan.strict``, refused; the
numbers go into the file header. During the run the load is sampled again
between the phases (clock, sweep, each level's table, the re-checks;
:class:`~kerncraft.measure.hostload.LoadWatch`): a phase in which other processes
took a noticeable share of the CPUs is warned about at once, and the file lists
the load of every phase. Where allowed, the measurement runs at
real-time priority. Every bandwidth point is run until two runs agree within
5 % (at most ``max_tries`` runs; the best of the agreeing two counts); points
that never agree are listed in the file. The one-core L1 and memory points are
measured again at the end of the run and the faster pass counts
(:func:`_second_pass`);
a multi-core memory point whose kernel gains much less from the added cores than
the others is measured again (:func:`_recheck_saturation`).
"""
from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from kerncraft.measure.clock import ClockCalibration, FmaThroughput
from kerncraft.measure.hostload import CpuSample, LoadReport, LoadWatch
from kerncraft.machinegen.host_data import HostData
from kerncraft.machinegen.render import cacheline as _cacheline
from kerncraft.machinegen.render import render_machine_file
from kerncraft.measure.march import CompilerFlags, choose_compiler_flags, full_width_512
from kerncraft.measure.streams import KERNELS, find_plateaus, sweep_sizes
from kerncraft.measure.topology import HostTopology, flops_per_cycle
from kerncraft.measure.uarch import Microarchitecture
from kerncraft.machinegen.upstream_fit import DEFAULT_UPSTREAM, Upstream, derive_upstream
from kerncraft.machinegen.working_sets import LevelChoice, choose_working_sets, level_names as _level_names
from kerncraft.errors import KerncraftError
from kerncraft.units import format_machine_size as _size

__all__ = ["GenerationPlan", "Probes", "LevelChoice", "Upstream", "HostData", "PointResult",
           "host_probes", "choose_working_sets", "derive_upstream", "collect_host_data",
           "render_machine_file", "generate_machine_file", "stderr_progress", "AGREEMENT"]

KiB, MiB = 1024, 1024 * 1024
BandwidthFn = Callable[[str, int, int], float]      # kernel, bytes per core, cores -> B/s
Progress = Callable[[str], None]
#: Two runs of a bandwidth point agree when they differ by at most this share of the larger.
AGREEMENT = 0.05
#: Rounds over the kernels for the multi-core memory points (see _measure_memory).
SATURATION_TRIES = 6
#: A kernel whose multi-core memory speed-up is below this share of the best kernel's
#: is measured again (:func:`_recheck_saturation`).
SATURATION_SHARE = 0.8


def stderr_progress(message: str) -> None:
    """Default progress reporter: one line on stderr, flushed at once."""
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class GenerationPlan:
    """How much to measure. :meth:`quick` for a first look, the default for a real file."""

    kernels: tuple[str, ...] = tuple(KERNELS)
    sweep_kernel: str = "load"
    sweep_min: int = 8 * KiB
    sweep_max: int | None = None          # default: max(256 MiB, 8 x last-level cache)
    per_octave: int = 3
    max_cores: int | None = None          # default: all cores of one socket
    duration: float = 0.1                 # seconds of measuring per point and run
    repeats: int = 1                      # runs inside one try (the best counts)
    sweep_repeats: int = 1
    max_tries: int = 5                    # tries per point until two agree within 5 %
    strict: bool = False                  # refuse to measure on a busy machine

    @classmethod
    def quick(cls) -> "GenerationPlan":
        return cls(per_octave=2, duration=0.05, max_tries=3)


@dataclass(frozen=True)
class Probes:
    """The measuring functions the generator uses (replaceable in tests)."""

    topology: Callable[[], HostTopology]
    clock: Callable[[], ClockCalibration]
    bandwidth: Callable[[str, int, int, float, int], float]   # kernel, size, cores, s, repeats
    avx512_clock: Callable[[], ClockCalibration | None] = lambda: None
    fma: Callable[[ClockCalibration], FmaThroughput | None] = lambda clock: None
    backend: str = "builtin"
    compilers: Callable[[Microarchitecture], tuple[CompilerFlags, ...]] = choose_compiler_flags
    load: Callable[[int], LoadReport | None] = lambda cores: None
    priority: Callable[[], str | None] = lambda: None      # try real-time priority
    thp: Callable[[], str | None] = lambda: None          # transparent hugepage mode
    cpu_sample: Callable[[], CpuSample | None] = lambda: None   # load between phases


def host_probes(use_likwid: bool = True, backend: str = "auto",
                realtime: bool = True) -> Probes:
    """Probes that measure this host for real (likwid-bench if installed and allowed)."""
    from kerncraft.measure import clock as clk
    from kerncraft.measure import hostload
    from kerncraft.measure import streams
    from kerncraft.measure import topology
    if backend == "auto":
        backend = "likwid" if use_likwid and streams.likwid_bench_available() else "builtin"

    def bandwidth(kernel: str, size: int, cores: int, duration: float, repeats: int) -> float:
        return streams.measure_bandwidth(kernel, size, cores, backend=backend,  # type: ignore
                                         duration=duration, repeats=repeats).bandwidth

    def avx512() -> ClockCalibration | None:
        # Only Intel cores lower their clock for AVX-512 (licence levels). On AMD the
        # vpaddq zmm chain would not even measure the clock: Zen 5 adds 512-bit integers
        # with a latency of 2 cycles (it gave half the scalar clock on the Zen 5 host).
        flags = topology.cpu_flags()
        if "avx512f" not in flags or "GenuineIntel" != topology.cpu_vendor():
            return None
        return clk.calibrate_clock(repetitions=3, kind="avx512")

    def fma(calibration: ClockCalibration) -> FmaThroughput | None:
        if "avx512f" not in topology.cpu_flags():
            return None
        return clk.measure_fma_throughput(calibration)

    return Probes(topology=lambda: topology.detect_topology(use_likwid=use_likwid),
                  clock=lambda: clk.calibrate_clock(), bandwidth=bandwidth,
                  avx512_clock=avx512, fma=fma,
                  backend="likwid-bench" if backend == "likwid" else "builtin",
                  load=lambda cores: hostload.check_load(cores),
                  priority=hostload.try_realtime if realtime else lambda: None,
                  thp=topology.transparent_hugepage, cpu_sample=hostload.cpu_sample)


@dataclass(frozen=True)
class PointResult:
    """One bandwidth point: the value used and whether two runs agreed."""

    value: float
    stable: bool
    samples: tuple[float, ...]


# ---------------------------------------------------------------- collecting

def collect_host_data(plan: GenerationPlan, probes: Probes,
                      progress: Progress = stderr_progress, fma_units: int | None = None
                      ) -> HostData:
    """Check the load, detect, calibrate, sweep and measure; report each step through
    ``progress``. KerncraftError if the machine is busy and ``plan.strict``."""
    topo = probes.topology()
    progress(f"host: {topo.model_name} ({topo.uarch.name}, {topo.uarch.core}); "
             f"{topo.sockets} socket(s) x {topo.cores_per_socket} cores x "
             f"{topo.threads_per_core} threads; caches "
             + ", ".join(f"{c.name} {_size(c.size)}" for c in topo.caches))
    if topo.uarch.identification:
        progress(("warning: no core class fits this CPU: " if topo.uarch.generic
                  else "core class: ") + topo.uarch.identification)
    load, realtime = _check_conditions(plan, probes, topo, progress)
    watch = LoadWatch(probes.cpu_sample, progress)
    clock, avx512, fma = _calibrate(probes, progress)
    watch.phase("clock and FMA")
    compilers = probes.compilers(_measured_width(topo, fma))
    unstable: list[str] = []
    llc = max((c.size for c in topo.caches), default=32 * MiB)
    largest = plan.sweep_max or max(256 * MiB, 8 * llc)
    sweep = _sweep(plan, probes, largest, progress, unstable)
    watch.phase("size sweep")
    plateaus = find_plateaus([s for s, _ in sweep], [b for _, b in sweep])
    choices, notes = choose_working_sets(topo.caches, plateaus, largest, topo.threads_per_core)
    for note in notes:
        progress(note)
    max_cores = min(plan.max_cores or topo.cores_per_socket, len(topo.core_cpus))
    cores = tuple(range(1, max_cores + 1))
    results = _measure_levels(plan, probes, choices, cores, progress, unstable, watch.phase)
    notes = notes + _second_pass(plan, probes, choices, results, progress, unstable)
    notes = notes + _recheck_saturation(plan, probes, choices, results, progress, unstable)
    watch.phase("second pass of L1 and memory, re-checks")
    vector_bytes = flops_per_cycle(topo.flags).vector_bits // 8
    overlapping = frozenset(f.level for f in topo.uarch.overlap if f.overlaps)
    victims = frozenset({"L3"}) if topo.uarch.victim_l3 and len(topo.caches) >= 3 else frozenset()
    upstream = derive_upstream(results, clock.core_hz, _cacheline(topo), 2 * vector_bytes,
                               _level_names(topo.caches), topo.uarch.upstream or DEFAULT_UPSTREAM,
                               overlapping, victims)
    return HostData(topo, clock, probes.backend, plan.sweep_kernel, tuple(sweep), plateaus,
                    choices, cores, results, upstream, avx512, fma, fma_units, notes,
                    compilers=compilers, load=load, realtime=realtime,
                    unstable=tuple(unstable), thp=probes.thp(), phase_loads=tuple(watch.loads))


def _measured_width(topo: HostTopology, fma: FmaThroughput | None) -> Microarchitecture:
    """The core with 512-bit ops at full width where the FMA measurement proves it
    (the compiler flags then prefer 512-bit vectors, as the file's comment says)."""
    wide, _ = full_width_512(topo.uarch, fma.fma_units if fma is not None else None)
    if wide and not topo.uarch.native_512 and "avx512f" in topo.flags:
        return replace(topo.uarch, native_512=True)
    return topo.uarch


def _check_conditions(plan: GenerationPlan, probes: Probes, topo: HostTopology,
                      progress: Progress) -> tuple[LoadReport | None, str | None]:
    """Load check (warn, or refuse with ``plan.strict``) and the real-time priority attempt."""
    load = probes.load(len(topo.core_cpus))
    if load is not None and load.busy:
        message = f"the machine is busy: {load.summary()}"
        if plan.strict:
            raise KerncraftError(f"{message}; not measuring (--strict)")
        progress(f"warning: {message}; measurements may be disturbed")
    elif load is not None:
        progress(f"load: {load.summary()}")
    realtime = probes.priority()
    if realtime:
        progress(realtime)
    return load, realtime


def _calibrate(probes: Probes, progress: Progress
               ) -> tuple[ClockCalibration, ClockCalibration | None, FmaThroughput | None]:
    clock = probes.clock()
    progress(f"clock: {clock.core_hz / 1e9:.3f} GHz (spread {100 * clock.spread:.1f} %)")
    avx512 = probes.avx512_clock()
    if avx512 is not None:
        progress(f"AVX-512 clock: {avx512.core_hz / 1e9:.3f} GHz")
    fma = probes.fma(clock)
    if fma is not None:
        progress(f"FMA: {fma.fma_per_scalar_cycle:.2f} per scalar cycle -> {fma.fma_units} "
                 f"unit(s), {fma.fma_clock_hz / 1e9:.2f} GHz under FMA load")
    return clock, avx512, fma


def _sweep(plan: GenerationPlan, probes: Probes, largest: int, progress: Progress,
           unstable: list[str]) -> list[tuple[int, float]]:
    """Single-core bandwidth of the sweep kernel over log-spaced working-set sizes."""
    sizes = sweep_sizes(plan.sweep_min, largest, plan.per_octave)
    sweep = []
    for n, size in enumerate(sizes, 1):
        point = _stable_bandwidth(probes, plan, plan.sweep_kernel, size, 1, plan.sweep_repeats)
        label = f"sweep {plan.sweep_kernel} {_size(size)}"
        _note_unstable(point, label, unstable)
        sweep.append((size, point.value))
        progress(f"sweep {n}/{len(sizes)}: {plan.sweep_kernel} {_size(size)}: "
                 f"{point.value / 1e9:.1f} GB/s" + ("" if point.stable else " (unstable)"))
    return sweep


def _measure_levels(plan: GenerationPlan, probes: Probes, choices: Sequence[LevelChoice],
                    cores: tuple[int, ...], progress: Progress, unstable: list[str],
                    level_done: Callable[[str], None] = lambda phase: None
                    ) -> dict[str, dict[str, tuple[float, ...]]]:
    """The five kernels per level on 1..n cores (``level_done`` after each level)."""
    results: dict[str, dict[str, tuple[float, ...]]] = {}
    total = sum(len(c.working_sets()) for c in choices) * len(plan.kernels) * len(cores)
    done = 0
    for choice in choices:
        if choice.level == "MEM" and len(cores) > 1:
            results["MEM"] = _measure_memory(plan, probes, choice, cores, progress, unstable)
            done += len(plan.kernels) * len(cores)
            level_done("MEM table")
            continue
        results[choice.level] = {}
        for kernel in plan.kernels:
            values: list[float] = []
            for n in cores:
                measured = []
                for single in choice.working_sets():
                    done += 1
                    at = replace(choice, total_single=single)
                    point = _measure_point(probes, plan, at, kernel, n, values, progress,
                                           f"[{done}/{total}]")
                    _note_unstable(point, f"{choice.level} {kernel} {n} core(s) "
                                          f"{_size(at.size_per_core(n))}/core", unstable)
                    measured.append(point.value)
                values.append(statistics.median(measured))
            results[choice.level][kernel] = tuple(values)
        level_done(f"{choice.level} table")
    return results


def _measure_memory(plan: GenerationPlan, probes: Probes, choice: LevelChoice,
                    cores: tuple[int, ...], progress: Progress, unstable: list[str]
                    ) -> dict[str, tuple[float, ...]]:
    """Memory points: one core per kernel until stable; with more cores, the kernels
    in turn, :data:`SATURATION_TRIES` rounds, and per kernel the highest value two runs
    agree on. Why in turn: the saturated bandwidth (the ECM input) comes in modes on a
    VM whose vCPUs move between core complexes (Zen 5 VM: 2 cores 60 or 120 GB/s), and a
    mode that lasts seconds would otherwise hit some kernels and not others, which the
    memory-penalty fit across kernels then mixes."""
    size_one = choice.size_per_core(1)
    values = {}
    for kernel in plan.kernels:
        point = _stable_bandwidth(probes, plan, kernel, size_one, 1, plan.repeats)
        _note_unstable(point, f"MEM {kernel} 1 core(s)", unstable)
        progress(f"[MEM] {kernel} 1 core(s), {_size(size_one)}/core: {point.value / 1e9:.2f} GB/s")
        values[kernel] = [point.value]
    for n in cores[1:]:
        size = choice.size_per_core(n)
        samples: dict[str, list[float]] = {k: [] for k in plan.kernels}
        for round_ in range(1, SATURATION_TRIES + 1):
            for kernel in plan.kernels:
                samples[kernel].append(probes.bandwidth(kernel, size, n, plan.duration,
                                                        plan.repeats))
            progress(f"[MEM] {n} cores, round {round_}/{SATURATION_TRIES}: " + ", ".join(
                f"{k} {v[-1] / 1e9:.1f}" for k, v in samples.items()) + " GB/s")
        for kernel, runs in samples.items():
            agreed = _agreeing(runs)
            point = PointResult(max(runs) if agreed is None else agreed, agreed is not None,
                                tuple(runs))
            _note_unstable(point, f"MEM {kernel} {n} core(s) {_size(size)}/core", unstable)
            values[kernel].append(point.value)
    return {k: tuple(v) for k, v in values.items()}


def _second_pass(plan: GenerationPlan, probes: Probes, choices: Sequence[LevelChoice],
                 results: dict[str, dict[str, tuple[float, ...]]], progress: Progress,
                 unstable: list[str], levels: tuple[str, ...] = ("L1", "MEM")
                 ) -> tuple[str, ...]:
    """Measure the one-core points of ``levels`` again at the end of the run and keep the
    faster pass (changes ``results``); returns a note per point whose passes differ by
    more than 5 %. Why: a host can sit in a slow mode for seconds to minutes, which two
    agreeing runs in a row do not catch, and interference only ever slows a point down.
    L1 sets the measured streaming limit (T_nOL; Zen 5 VM: L1 copy 1.13 or 1.5 cy/CL);
    the one-core memory bandwidth is the memory term of the overlapping composition,
    and on a shared VM it follows the other guests' traffic (Zen 5 VM, two runs of
    kerncraft-machine 5 minutes apart: copy 36.2 and 45.9 GB/s; ECM MEM median 16.2 %
    and 6.3 % against the same measurements). ``kerncraft-validate`` keeps the fastest
    of its passes for the same reason."""
    notes = []
    for level in levels:
        choice = next((c for c in choices if c.level == level), None)
        if choice is None or level not in results:
            continue
        for i, kernel in enumerate(plan.kernels, 1):
            first = results[level][kernel]
            point = _measure_point(probes, plan, choice, kernel, 1, [], progress,
                                   f"[second pass {level} {i}/{len(plan.kernels)}]")
            _note_unstable(point, f"{level} {kernel} 1 core(s) second pass", unstable)
            if abs(point.value - first[0]) > AGREEMENT * max(point.value, first[0]):
                notes.append(f"{level} {kernel}, 1 core: passes {first[0] / 1e9:.1f} and "
                             f"{point.value / 1e9:.1f} GB/s (start and end of the run); "
                             "the faster counts")
            if point.value > first[0]:
                results[level][kernel] = (point.value, *first[1:])
    return tuple(notes)


def _recheck_saturation(plan: GenerationPlan, probes: Probes, choices: Sequence[LevelChoice],
                        results: dict[str, dict[str, tuple[float, ...]]], progress: Progress,
                        unstable: list[str]) -> tuple[str, ...]:
    """Measure a multi-core memory point again when its kernel gains much less from
    the added cores than the best kernel does (speed-up below :data:`SATURATION_SHARE`
    of the best); the higher value counts (changes ``results``). Why: all kernels share
    one memory interface, and a VM whose vCPUs move between core complexes can switch
    modes while the kernels are measured (Zen 5 VM: two-core copy and load at 1.1-1.3x
    one core, update, triad, daxpy at 2.0-2.5x in the same run), which a fit of the
    memory penalties across kernels then mixes."""
    mem = next((c for c in choices if c.level == "MEM"), None)
    table = results.get("MEM")
    if mem is None or not table:
        return ()
    notes = []
    for index in range(1, min(len(v) for v in table.values())):
        cores = index + 1
        gain = {k: v[index] / v[0] for k, v in table.items() if v[0] > 0}
        best = max(gain.values(), default=0.0)
        for kernel, g in gain.items():
            if g >= SATURATION_SHARE * best:
                continue
            before = table[kernel][index]
            size = mem.size_per_core(cores)
            point = _stable_bandwidth(probes, plan, kernel, size, cores, plan.repeats,
                                      all_tries=SATURATION_TRIES)
            _note_unstable(point, f"MEM {kernel} {cores} core(s) again", unstable)
            progress(f"[saturation check] MEM {kernel} {cores} core(s): {g:.2f}x one core "
                     f"against {best:.2f}x of the best kernel; again: {point.value / 1e9:.2f} GB/s")
            if point.value > before:
                values = list(table[kernel])
                values[index] = point.value
                table[kernel] = tuple(values)
            notes.append(f"MEM {kernel}, {cores} cores: {g:.2f}x one core against {best:.2f}x "
                         f"of the best kernel; measured again: {before / 1e9:.1f} -> "
                         f"{max(before, point.value) / 1e9:.1f} GB/s")
    return tuple(notes)


def _note_unstable(point: PointResult, label: str, unstable: list[str]) -> None:
    if not point.stable:
        unstable.append(f"{label}: runs " + ", ".join(f"{s / 1e9:.2f}" for s in point.samples)
                        + " GB/s")


def _agreeing(samples: Sequence[float]) -> float | None:
    """The largest value that another sample matches within :data:`AGREEMENT`, or None."""
    best = None
    for i, a in enumerate(samples):
        for b in samples[i + 1:]:
            high = max(a, b)
            if high > 0 and abs(a - b) <= AGREEMENT * high and (best is None or high > best):
                best = high
    return best


def _stable_bandwidth(probes: Probes, plan: GenerationPlan, kernel: str, size: int, cores: int,
                      repeats: int, floor: float = 0.0,
                      on_low: Callable[[float], None] | None = None,
                      all_tries: int = 0) -> PointResult:
    """Run a point until two runs agree within 5 % at a value of at least ``floor``
    (at most ``plan.max_tries`` runs, never fewer than two); with ``all_tries``, that
    many runs whatever they give, and the highest value two of them agree on."""
    samples: list[float] = []
    for _ in range(max(2, plan.max_tries, all_tries)):
        samples.append(probes.bandwidth(kernel, size, cores, plan.duration, repeats))
        if samples[-1] < floor and on_low is not None:
            on_low(samples[-1])
        agreed = _agreeing(samples)
        if agreed is not None and agreed >= floor and len(samples) >= all_tries:
            return PointResult(agreed, True, tuple(samples))
    agreed = _agreeing(samples)
    return PointResult(max(samples) if agreed is None else agreed, agreed is not None,
                       tuple(samples))


def _measure_point(probes: Probes, plan: GenerationPlan, choice: LevelChoice, kernel: str,
                   cores: int, fewer: Sequence[float], progress: Progress,
                   tag: str) -> PointResult:
    """One table entry, run until stable; more runs if more cores look slower than fewer.

    Why: with other processes on the machine, a multi-core run sometimes never
    gets all its cores at once. Bandwidth does not fall when cores are added
    (it saturates), so a drop of more than 20 % means interference.
    """
    size = choice.size_per_core(cores)
    floor = 0.8 * max(fewer) if fewer else 0.0

    def on_low(value: float) -> None:
        progress(f"{tag} {choice.level} {kernel} {cores} core(s): {value / 1e9:.2f} GB/s is "
                 f"below {max(fewer) / 1e9:.2f} GB/s on fewer cores; measuring again")

    point = _stable_bandwidth(probes, plan, kernel, size, cores, plan.repeats, floor, on_low)
    progress(f"{tag} {choice.level} {kernel} {cores} core(s), {_size(size)}/core: "
             f"{point.value / 1e9:.2f} GB/s" + ("" if point.stable else
                                                f" (unstable: {len(point.samples)} runs)"))
    return point


def generate_machine_file(plan: GenerationPlan | None = None, probes: Probes | None = None,
                          progress: Progress = stderr_progress, fma_units: int | None = None,
                          command: str | None = None) -> str:
    """Measure this host (or use ``probes``) and return the machine file text."""
    data = collect_host_data(plan or GenerationPlan(), probes or host_probes(), progress,
                             fma_units=fma_units)
    return render_machine_file(data, command=command)

