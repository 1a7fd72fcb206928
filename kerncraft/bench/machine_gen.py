"""Measure this host and write a Kerncraft-format machine file for it.

Why measure instead of copying CPUID
------------------------------------
A machine file feeds every model: cache sizes drive the layer conditions,
bandwidths per level and core count drive ECM transfer times and the
Roofline ceilings. CPUID tells the cache geometry of the *chip*; in a VM or
on a shared LLC one core can get much less. So the generator first sweeps
the working-set size of one streaming kernel on one core and finds the
bandwidth plateaus (:func:`kerncraft.bench.streams.find_plateaus`); the
working set measured for each level lies two thirds up its plateau. Then it
measures the five benchmark kernels per level on 1..n cores.

What is measured and what is assumed is said in comments of the file.

Structure (and testing)
-----------------------
:func:`collect_host_data` does the measuring through a :class:`Probes`
bundle of functions (topology, clock, bandwidth ...); tests inject fast
fakes. :func:`render_machine_file` turns the collected :class:`HostData`
into YAML text, without measuring anything.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import sys
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import kerncraft
from kerncraft.bench.clock import ClockCalibration, FmaThroughput
from kerncraft.bench.streams import KERNELS, Plateau, find_plateaus, sweep_sizes
from kerncraft.bench.topology import (CacheInfo, HostTopology, flops_per_cycle, incore_ports,
                                      transparent_hugepage)

__all__ = ["GenerationPlan", "Probes", "LevelChoice", "Upstream", "HostData", "host_probes",
           "choose_working_sets", "derive_upstream", "collect_host_data",
           "render_machine_file", "generate_machine_file", "stderr_progress"]

KiB, MiB = 1024, 1024 * 1024
BandwidthFn = Callable[[str, int, int], float]      # kernel, bytes per core, cores -> B/s
Progress = Callable[[str], None]


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
    repeats: int = 2                      # runs per point (best counts)
    sweep_repeats: int = 1
    retries: int = 2                      # extra runs when more cores look slower

    @classmethod
    def quick(cls) -> "GenerationPlan":
        return cls(per_octave=2, duration=0.05, repeats=1, sweep_max=None)


@dataclass(frozen=True)
class Probes:
    """The measuring functions the generator uses (replaceable in tests)."""

    topology: Callable[[], HostTopology]
    clock: Callable[[], ClockCalibration]
    bandwidth: Callable[[str, int, int, float, int], float]   # kernel, size, cores, s, repeats
    avx512_clock: Callable[[], ClockCalibration | None] = lambda: None
    fma: Callable[[ClockCalibration], FmaThroughput | None] = lambda clock: None
    backend: str = "builtin"


def host_probes(use_likwid: bool = True, backend: str = "auto") -> Probes:
    """Probes that measure this host for real (likwid-bench if installed and allowed)."""
    from kerncraft.bench import clock as clk
    from kerncraft.bench import streams, topology

    if backend == "auto":
        backend = "likwid" if use_likwid and streams.likwid_bench_available() else "builtin"

    def bandwidth(kernel: str, size: int, cores: int, duration: float, repeats: int) -> float:
        return streams.measure_bandwidth(kernel, size, cores, backend=backend,  # type: ignore
                                         duration=duration, repeats=repeats).bandwidth

    def avx512() -> ClockCalibration | None:
        if "avx512f" not in topology.cpu_flags():
            return None
        return clk.calibrate_clock(repetitions=3, kind="avx512")

    def fma(calibration: ClockCalibration) -> FmaThroughput | None:
        if "avx512f" not in topology.cpu_flags():
            return None
        return clk.measure_fma_throughput(calibration)

    return Probes(topology=lambda: topology.detect_topology(use_likwid=use_likwid),
                  clock=lambda: clk.calibrate_clock(), bandwidth=bandwidth,
                  avx512_clock=avx512, fma=fma,
                  backend="likwid-bench" if backend == "likwid" else "builtin")


@dataclass(frozen=True)
class LevelChoice:
    """Working set used to measure one memory level, per core count."""

    level: str
    shared: bool                           # total working set split over the cores
    total_single: int                      # bytes for one core
    source: str                            # 'plateau' or 'cpuid'
    plateau: Plateau | None = None

    def size_per_core(self, cores: int) -> int:
        return self.total_single // cores if self.shared else self.total_single


@dataclass(frozen=True)
class Upstream:
    """Upstream throughput of a cache level in B/cy and where it came from."""

    bytes_per_cycle: float
    duplex: str
    derived: bool
    note: str


@dataclass(frozen=True)
class HostData:
    """Everything measured or detected, ready to be rendered."""

    topology: HostTopology
    clock: ClockCalibration
    backend: str
    sweep_kernel: str
    sweep: tuple[tuple[int, float], ...]
    plateaus: tuple[Plateau, ...]
    choices: tuple[LevelChoice, ...]
    cores: tuple[int, ...]
    results: Mapping[str, Mapping[str, tuple[float, ...]]]   # level -> kernel -> B/s per cores
    upstream: Mapping[str, Upstream]
    avx512_clock: ClockCalibration | None = None
    fma: FmaThroughput | None = None
    fma_units: int | None = None           # override given by the user
    notes: tuple[str, ...] = field(default_factory=tuple)


# ---------------------------------------------------------------- working sets

def _level_names(caches: Sequence[CacheInfo]) -> list[str]:
    return [c.name for c in caches] + ["MEM"]


def choose_working_sets(caches: Sequence[CacheInfo], plateaus: Sequence[Plateau],
                        largest: int) -> tuple[tuple[LevelChoice, ...], tuple[str, ...]]:
    """Pick a working set per level from the sweep's plateaus (CPUID as fallback).

    Cache level k takes, among the plateaus not used by a smaller level, the
    one overlapping most (in log size) with (half the CPUID size of level
    k-1, CPUID size of level k]; the size two thirds up it, capped at 3/4 of the
    CPUID size, is the working set. Main memory gets the last plateau beyond
    the last cache. A level without a plateau falls back to half its CPUID
    size (memory: ``largest``). Returns the choices and notes on what was found.
    """
    notes: list[str] = []
    choices: list[LevelChoice] = []
    start = 0                      # plateaus before this index belong to smaller levels
    previous = 0
    for cache in caches:
        low, high = max(1, previous // 2), cache.size

        def overlap(p: Plateau) -> float:
            top, bottom = min(p.last, high), max(p.first, low)
            return math.log2(top / bottom) if top >= bottom else -1.0

        candidates = [i for i in range(start, len(plateaus)) if overlap(plateaus[i]) >= 0]
        shared = len(cache.shared_cpus) > 1
        if candidates:
            best = max(candidates, key=lambda i: (overlap(plateaus[i]), plateaus[i].points))
            start = best + 1
            plateau = plateaus[best]
            size = min(plateau.upper_third, cache.size * 3 // 4)
            choices.append(LevelChoice(cache.name, shared, size, "plateau", plateau))
            step = plateau.step_after
            notes.append(f"{cache.name}: plateau {_size(plateau.first)} .. {_size(plateau.last)} "
                         f"at {plateau.bandwidth / 1e9:.1f} GB/s; step at ~"
                         f"{_size(step) if step else '?'} (CPUID size {_size(cache.size)})")
        else:
            choices.append(LevelChoice(cache.name, shared, cache.size // 2, "cpuid"))
            notes.append(f"{cache.name}: no plateau found; working set = half the CPUID size")
        previous = cache.size
    last_cache = caches[-1].size if caches else 0
    rest = [p for p in plateaus[start:] if p.last > last_cache // 2]
    if rest:
        mem = rest[-1]
        choices.append(LevelChoice("MEM", True, max(mem.upper_third, mem.first * 2), "plateau", mem))
        notes.append(f"MEM: plateau from {_size(mem.first)} at {mem.bandwidth / 1e9:.1f} GB/s")
        for p in rest[:-1]:
            why = ("below the CPUID size of the last-level cache: one core gets less of a "
                   "shared LLC than CPUID says" if p.first < last_cache else "not assigned")
            notes.append(f"extra plateau {_size(p.first)} .. {_size(p.last)} at "
                         f"{p.bandwidth / 1e9:.1f} GB/s ({why})")
    else:
        choices.append(LevelChoice("MEM", True, largest, "cpuid"))
        notes.append("MEM: no plateau beyond the last cache; using the largest swept size")
    return tuple(choices), tuple(notes)


# ---------------------------------------------------------------- upstream throughputs

_ASSUMED_UPSTREAM = {"L2": (64.0, "half-duplex"), "L3": (16.0, "full-duplex")}


def derive_upstream(results: Mapping[str, Mapping[str, tuple[float, ...]]], clock_hz: float,
                    cacheline: int, load_bytes_per_cycle: float,
                    levels: Sequence[str]) -> dict[str, Upstream]:
    """Upstream B/cy of L2, L3 ... from single-core load bandwidths (non-overlapping ECM).

    With no overlap of in-core and transfer times, the time per cache line
    of the load kernel in level k is T_k = T_nOL + sum of the transfers
    above it, so the transfer from level k is T_k - T_(k-1), with T_L1
    replaced by T_nOL = cacheline / load_bytes_per_cycle (the load ports'
    peak, since in L1 the kernel measures the add units and clock, not the
    ports). A derivation that is not positive or exceeds twice the assumed
    figure falls back to the assumption (marked as such).
    """
    upstream: dict[str, Upstream] = {}
    t_prev = cacheline / load_bytes_per_cycle
    for level in levels[1:]:
        if level == "MEM":
            break
        assumed, duplex = _ASSUMED_UPSTREAM.get(level, (16.0, "full-duplex"))
        load = results.get(level, {}).get("load", ())
        if load and load[0] > 0:
            t_level = cacheline / (load[0] / clock_hz)
            delta = t_level - t_prev
            if delta > 0 and cacheline / delta <= 2 * assumed:
                upstream[level] = Upstream(
                    cacheline / delta, duplex, True,
                    f"derived: 1-core load {load[0] / 1e9:.1f} GB/s = {t_level:.2f} cy/CL, "
                    f"minus {t_prev:.2f} cy/CL above")
                t_prev = t_level
                continue
            t_prev = t_level
        upstream[level] = Upstream(assumed, duplex, False,
                                   "assumed (Skylake-SP-like figure; derivation implausible)")
    return upstream


# ---------------------------------------------------------------- collecting

def collect_host_data(plan: GenerationPlan, probes: Probes,
                      progress: Progress = stderr_progress, fma_units: int | None = None
                      ) -> HostData:
    """Detect, calibrate, sweep and measure; report each step through ``progress``."""
    topo = probes.topology()
    progress(f"host: {topo.model_name} ({topo.uarch.name}, {topo.uarch.core}); "
             f"{topo.sockets} socket(s) x {topo.cores_per_socket} cores x "
             f"{topo.threads_per_core} threads; caches "
             + ", ".join(f"{c.name} {_size(c.size)}" for c in topo.caches))
    clock = probes.clock()
    progress(f"clock: {clock.core_hz / 1e9:.3f} GHz (spread {100 * clock.spread:.1f} %)")
    avx512 = probes.avx512_clock()
    if avx512 is not None:
        progress(f"AVX-512 clock: {avx512.core_hz / 1e9:.3f} GHz")
    fma = probes.fma(clock)
    if fma is not None:
        progress(f"FMA: {fma.fma_per_scalar_cycle:.2f} per scalar cycle -> {fma.fma_units} "
                 f"unit(s), {fma.fma_clock_hz / 1e9:.2f} GHz under FMA load")
    llc = max((c.size for c in topo.caches), default=32 * MiB)
    largest = plan.sweep_max or max(256 * MiB, 8 * llc)
    sizes = sweep_sizes(plan.sweep_min, largest, plan.per_octave)
    sweep = []
    for n, size in enumerate(sizes, 1):
        bw = probes.bandwidth(plan.sweep_kernel, size, 1, plan.duration, plan.sweep_repeats)
        sweep.append((size, bw))
        progress(f"sweep {n}/{len(sizes)}: {plan.sweep_kernel} {_size(size)}: "
                 f"{bw / 1e9:.1f} GB/s")
    plateaus = find_plateaus([s for s, _ in sweep], [b for _, b in sweep])
    choices, notes = choose_working_sets(topo.caches, plateaus, largest)
    for note in notes:
        progress(note)
    max_cores = min(plan.max_cores or topo.cores_per_socket, len(topo.core_cpus))
    cores = tuple(range(1, max_cores + 1))
    results: dict[str, dict[str, tuple[float, ...]]] = {}
    total, done = len(choices) * len(plan.kernels) * len(cores), 0
    for choice in choices:
        results[choice.level] = {}
        for kernel in plan.kernels:
            values: list[float] = []
            for n in cores:
                done += 1
                values.append(_measure_point(probes, plan, choice, kernel, n, values, progress,
                                             f"[{done}/{total}]"))
            results[choice.level][kernel] = tuple(values)
    vector_bytes = flops_per_cycle(topo.flags).vector_bits // 8
    upstream = derive_upstream(results, clock.core_hz, _cacheline(topo), 2 * vector_bytes,
                               _level_names(topo.caches))
    return HostData(topo, clock, probes.backend, plan.sweep_kernel, tuple(sweep), plateaus,
                    choices, cores, results, upstream, avx512, fma, fma_units, notes)


def _measure_point(probes: Probes, plan: GenerationPlan, choice: LevelChoice, kernel: str,
                   cores: int, fewer: Sequence[float], progress: Progress, tag: str) -> float:
    """One table entry; retried (best kept) if more cores look slower than fewer.

    Why: with other processes on the machine, a multi-core run sometimes never
    gets all its cores at once. Bandwidth does not fall when cores are added
    (it saturates), so a drop of more than 20 % means interference.
    """
    size = choice.size_per_core(cores)
    best = 0.0
    for attempt in range(1 + plan.retries):
        best = max(best, probes.bandwidth(kernel, size, cores, plan.duration, plan.repeats))
        if not fewer or best >= 0.8 * max(fewer):
            break
        progress(f"{tag} {choice.level} {kernel} {cores} core(s): {best / 1e9:.2f} GB/s is below "
                 f"{max(fewer) / 1e9:.2f} GB/s on fewer cores; measuring again")
    progress(f"{tag} {choice.level} {kernel} {cores} core(s), {_size(size)}/core: "
             f"{best / 1e9:.2f} GB/s")
    return best


def _cacheline(topo: HostTopology) -> int:
    return topo.caches[0].line_size if topo.caches else 64


# ---------------------------------------------------------------- rendering helpers

def _size(nbytes: float) -> str:
    """Binary-prefixed size as machine files write it ('48.00 kB' = 48 x 1024 B)."""
    for factor, unit in ((1024**3, "GB"), (1024**2, "MB"), (1024, "kB")):
        if nbytes >= factor:
            return f"{nbytes / factor:.2f} {unit}"
    return f"{nbytes:.0f} B"


def _bw(value: float) -> str:
    return f"{value / 1e9:.2f} GB/s"


def _flow(items: Sequence[str], indent: int, width: int = 96) -> str:
    """A YAML flow list wrapped to ``width`` columns (continuation lines indented)."""
    lines, current = [], "["
    for n, item in enumerate(items):
        piece = item + ("," if n < len(items) - 1 else "]")
        if len(current) + len(piece) + 1 > width - indent and current != "[":
            lines.append(current)
            current = " " * (indent + 2) + piece
        else:
            current = f"{current}{' ' if current != '[' else ''}{piece}"
    lines.append(current if items else "[]")
    return "\n".join(lines)


# ---------------------------------------------------------------- rendering

def render_machine_file(data: HostData, command: str | None = None,
                        date: str | None = None) -> str:
    """The machine file text for ``data`` (comments say measured / detected / assumed)."""
    parts = [_render_header(data, command, date), _render_core(data),
             _render_hierarchy(data), _render_benchmarks(data)]
    return "\n".join(parts).rstrip() + "\n"


def _q(text: str) -> str:
    """A YAML-safe scalar: JSON's double-quoted strings are valid YAML."""
    return json.dumps(text)


def _render_header(data: HostData, command: str | None, date: str | None) -> str:
    topo, clock = data.topology, data.clock
    when = date or _dt.date.today().isoformat()
    lines = [
        f"# Machine file of this host, written by kerncraft-machine (kerncraft "
        f"{kerncraft.__version__}) on {when}.",
        f"# Command: {command or 'kerncraft-machine'}",
        f"# Host: {topo.model_name}; {topo.uarch.name} ({topo.uarch.core} core), CPUID family "
        f"{topo.family} model {topo.model} stepping {topo.stepping}"
        + ("; virtual machine" if topo.hypervisor else ""),
        "#",
        "# Legend: [measured] measured here by kerncraft-machine; [detected] read from CPUID,",
        "# sysfs, procfs or likwid-topology; [assumed] not measurable here, a stated assumption.",
        "# Units as in every machine file: sizes binary ('48.00 kB' = 48 x 1024 B), rates decimal.",
        "#",
        f"# Clock [measured]: {clock.method}.",
        "#   samples " + ", ".join(f"{s / 1e9:.3f}" for s in clock.samples) + " GHz "
        f"(spread {100 * clock.spread:.1f} %)",
    ]
    for label, value in (("TSC", clock.tsc_hz), ("/proc/cpuinfo 'cpu MHz'", clock.cpuinfo_hz),
                         ("nominal (model name)", clock.nominal_hz)):
        if value:
            lines.append(f"#   {label}: {value / 1e9:.3f} GHz")
    if data.avx512_clock is not None:
        lines.append(f"#   while AVX-512 code runs [measured, vpaddq zmm chain]: "
                     f"{data.avx512_clock.core_hz / 1e9:.3f} GHz")
    if data.fma is not None:
        lines.append(f"#   FMA-heavy AVX-512 code [measured]: {data.fma.fma_per_second / 1e9:.2f} G "
                     f"FMA/s = {data.fma.fma_per_scalar_cycle:.2f} per scalar cycle -> "
                     f"{data.fma.fma_units} FMA units at about {data.fma.fma_clock_hz / 1e9:.2f} GHz")
    lines.append(f"# Bandwidths [measured] with the {data.backend} benchmarks; size sweep of "
                 f"'{data.sweep_kernel}' on one core (size: GB/s):")
    sweep = [f"{_size(s)}: {b / 1e9:.1f}" for s, b in data.sweep]
    for i in range(0, len(sweep), 6):
        lines.append("#   " + "; ".join(sweep[i:i + 6]))
    lines.append("# Plateaus found and working sets chosen:")
    lines.extend(f"#   {note}" for note in data.notes)
    lines.extend(f"# Note: {note}" for note in data.topology.notes)
    return "\n".join(lines) + "\n"


def _render_core(data: HostData) -> str:
    topo, uarch = data.topology, data.topology.uarch
    measured_units = data.fma.fma_units if data.fma is not None else None
    units = data.fma_units or measured_units or uarch.fma_units
    flops = flops_per_cycle(topo.flags, units)
    if data.fma_units:
        how = "[given] FMA units given on the command line"
    elif measured_units:
        how = (f"[measured] {measured_units} FMA unit(s): "
               f"{data.fma.fma_per_scalar_cycle:.2f} FMA per scalar cycle measured")
    else:
        how = "[assumed] FMA units not measured"
    lines = [f"kerncraft version: {kerncraft.__version__}",
             f"model name: {_q(topo.model_name)}   # [detected]",
             f"model type: {_q(f'{uarch.name} ({uarch.core} core)')}   # [detected] CPUID "
             f"family/model" + (" + likwid-topology" if topo.cpu_type else ""),
             f"clock: {data.clock.core_hz / 1e9:.2f} GHz   # [measured] calibrated core clock "
             f"(nominal {(data.clock.nominal_hz or 0) / 1e9:.2f} GHz)",
             "", f"sockets: {topo.sockets}   # [detected]",
             f"cores per socket: {topo.cores_per_socket}",
             f"threads per core: {topo.threads_per_core}",
             f"NUMA domains per socket: {max(1, topo.numa_domains // topo.sockets)}",
             f"cores per NUMA domain: {topo.cores_per_numa_domain}"]
    thp = transparent_hugepage()
    if thp:
        lines.append(f"transparent hugepage: {thp}   # [detected]")
    lines += ["", "in-core model: !!omap"]
    if uarch.incore_model:
        note = f"   # {uarch.incore_note}" if uarch.incore_note else ""
        lines.append(f"  - kerncraft: {uarch.incore_model}{note}")
    if uarch.osaca:
        lines.append(f"  - OSACA: {uarch.osaca}")
    if uarch.llvm_mca:
        lines.append(f"  - LLVM-MCA: {_q(uarch.llvm_mca)}")
    if len(lines) and lines[-1] == "in-core model: !!omap":
        lines[-1] = "in-core model: {}"
    lines += [f"isa: {'x86' if 'sse2' in topo.flags else 'aarch64'}", "",
              f"# {how}; peak = {flops.fma_units} x {flops.vector_bits}-bit units x "
              f"{flops.vector_bits // 64} DP lanes x 2 (FMA)",
              "FLOPs per cycle:",
              "  DP: {" + ", ".join(f"{k}: {v}" for k, v in flops.dp.items()) + "}",
              "  SP: {" + ", ".join(f"{k}: {v}" for k, v in flops.sp.items()) + "}", "",
              "# [assumed] the host compiler with native code generation; -ffreestanding keeps",
              "# gcc from turning loops into library calls.",
              "compiler: !!omap",
              "  - gcc: -O3 -march=native -mprefer-vector-width=512 -ffreestanding",
              "  - clang: -O3 -march=native -mprefer-vector-width=512 -ffreestanding"]
    ports = incore_ports(uarch.incore_model)
    if ports is not None:
        overlapping, non_overlapping = ports
        lines += ["", "# [assumed] ECM split of the in-core time as in the in-core database: "
                      "load-data ports do not", "# overlap with cache transfers, all others do.",
                  "non-overlapping model:", "  ports:",
                  f"    kerncraft: [{', '.join(_q(p) for p in non_overlapping)}]",
                  "overlapping model:", "  ports:",
                  f"    kerncraft: [{', '.join(_q(p) for p in overlapping)}]"]
    return "\n".join(lines) + "\n"


def _render_level(data: HostData, position: int, cache: CacheInfo) -> list[str]:
    topo, caches = data.topology, data.topology.caches
    victim = topo.uarch.victim_l3 and len(caches) >= 3
    nxt = caches[position + 1].name if position + 1 < len(caches) else None
    load_from, store_to, victims_to = nxt, nxt, None
    write_allocate = True
    if victim and cache.level == 2:
        load_from, victims_to = None, nxt
    if victim and cache.level == 3:
        write_allocate = False
    threads = len(cache.shared_cpus)
    geometry = [f"sets: {cache.sets}", f"ways: {cache.ways}", f"cl_size: {cache.line_size}",
                "replacement_policy: LRU", f"write_allocate: {str(write_allocate).lower()}",
                "write_back: true", f"load_from: {load_from or 'null'}"]
    if victims_to:
        geometry.append(f"victims_to: {victims_to}")
    geometry.append(f"store_to: {store_to or 'null'}")
    lines = [f"  - level: {cache.name}",
             f"    size per group: {_size(cache.size)}   # [detected] CPUID: {cache.sets} sets x "
             f"{cache.ways} ways x {cache.line_size} B",
             f"    groups: {cache.instances}",
             f"    cores per group: {max(1, threads // max(1, topo.threads_per_core))}",
             f"    threads per group: {threads}",
             "    cache per group: {" + ", ".join(geometry) + "}"]
    if victim and cache.level in (2, 3):
        lines.insert(1, "    # [assumed] victim hierarchy as on every Intel server core since "
                        "Skylake-SP: L2 misses come" if cache.level == 2 else
                        "    # [assumed] non-inclusive victim L3: filled by L2 evictions only")
        if cache.level == 2:
            lines.insert(2, "    # from memory, L2 evictions go to L3.")
    if cache.level == 1:
        ports = incore_ports(topo.uarch.incore_model)
        if ports is not None:
            lines.append("    upstream throughput: [architecture code analyzer, "
                         f"[{', '.join(_q(p) for p in ports[1])}]]   # from the in-core model")
        else:
            lines.append(f"    upstream throughput: [{2 * flops_per_cycle(topo.flags).vector_bits // 8}"
                         " B/cy, half-duplex]   # [assumed] two full-width loads per cycle")
    else:
        up = data.upstream.get(cache.name) or Upstream(16.0, "full-duplex", False, "assumed")
        mark = "measured-derived" if up.derived else "assumed"
        lines.append(f"    upstream throughput: [{up.bytes_per_cycle:.1f} B/cy, {up.duplex}]   "
                     f"# [{mark}] {up.note}")
    lines.append("    transfers overlap: false   # [assumed] Intel: no overlap")
    return lines


def _render_hierarchy(data: HostData) -> str:
    topo = data.topology
    lines = [f"cacheline size: {_cacheline(topo)} B", "memory hierarchy:"]
    for position, cache in enumerate(topo.caches):
        lines += _render_level(data, position, cache)
    cores = topo.cores_per_socket
    lines += ["  - level: MEM", "    size per group:",
              f"    cores per group: {cores}",
              f"    threads per group: {cores * topo.threads_per_core}",
              "    upstream throughput: [full socket memory bandwidth, half-duplex]   "
              "# [measured] see benchmarks",
              "    transfers overlap: false   # [assumed] Intel: no overlap; check with "
              "benchmarks/validation_table.py (it overlaps on the development VM)"]
    return "\n".join(lines) + "\n"


def _render_benchmarks(data: HostData) -> str:
    lines = ["# Streaming kernels in the convention of all machine files: 'read streams' and",
             "# 'write streams' include arrays read and written, counted again under",
             "# 'read+write streams'; bytes per iteration; bandwidths count these bytes only",
             "# (no write-allocate traffic), like likwid-bench.",
             "benchmarks:", "  kernels:"]
    builtin = data.backend == "builtin"
    for name in KERNELS:
        k = KERNELS[name]
        test = k.likwid_test if "avx512f" in data.topology.flags else k.likwid_test_avx2
        lines += [f"    {name}:   # {k.formula}",
                  f"      FLOPs per iteration: {k.flops_per_iteration}",
                  f"      fastest bench kernel: {test}"
                  + ("   # built-in equivalent measured" if builtin else ""),
                  f"      read streams: {{streams: {k.read_streams}, bytes: {k.read_bytes:.2f} B}}",
                  f"      read+write streams: {{streams: {k.read_write_streams}, "
                  f"bytes: {k.read_write_bytes:.2f} B}}",
                  f"      write streams: {{streams: {k.write_streams}, bytes: {k.write_bytes:.2f} B}}"]
    lines.append("  measurements:")
    cores = list(data.cores)
    for choice in data.choices:
        sizes = [choice.size_per_core(n) for n in cores]
        how = "upper third of its plateau" if choice.source == "plateau" else "from the CPUID size"
        split = ", split over the cores" if choice.shared else " per core"
        lines += [f"    {choice.level}:   # [measured] working set {_size(choice.total_single)}"
                  f"{split} ({how})",
                  "      1:", "        threads per core: 1",
                  f"        cores: {_flow([str(c) for c in cores], 16)}",
                  f"        threads: {_flow([str(c) for c in cores], 17)}",
                  f"        size per core: {_flow([_size(s) for s in sizes], 23)}",
                  f"        size per thread: {_flow([_size(s) for s in sizes], 25)}",
                  f"        total size: {_flow([_size(s * n) for s, n in zip(sizes, cores)], 20)}",
                  "        results:"]
        for kernel, values in data.results.get(choice.level, {}).items():
            lines.append(f"          {kernel}: {_flow([_bw(v) for v in values], 18 + len(kernel))}")
    return "\n".join(lines) + "\n"


def generate_machine_file(plan: GenerationPlan | None = None, probes: Probes | None = None,
                          progress: Progress = stderr_progress, fma_units: int | None = None,
                          command: str | None = None) -> str:
    """Measure this host (or use ``probes``) and return the machine file text."""
    data = collect_host_data(plan or GenerationPlan(), probes or host_probes(), progress,
                             fma_units=fma_units)
    return render_machine_file(data, command=command)

