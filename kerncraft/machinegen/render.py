"""Render collected host data as a Kerncraft machine file (YAML text with comments).

Split from :mod:`kerncraft.machinegen.generate` (which measures): rendering
measures nothing, so tests feed it fake :class:`~kerncraft.machinegen.host_data.HostData`.
Every value carries a comment saying whether it was measured here, detected
(CPUID, sysfs, procfs, likwid-topology), probed (the compiler was asked) or
assumed, and for assumptions where the assumption comes from.
"""
from __future__ import annotations

import datetime as _dt
import json
from dataclasses import replace
from typing import Sequence

from kerncraft.machinegen.capacities import Capacity, effective_capacity, fill_lines
from kerncraft.machinegen.host_data import HostData
from kerncraft.machinegen.osaca_ports import osaca_ecm_ports
from kerncraft.measure.march import full_width_512
from kerncraft.measure.streams import KERNELS
from kerncraft.measure.topology import CacheInfo, HostTopology, flops_per_cycle, incore_ports
from kerncraft.units import format_machine_size as size_text
from kerncraft.version import __version__

#: The ``kerncraft version`` a machine file gets: the Kerncraft file format it follows, not
#: our package version. Kerncraft 0.8.18 refuses a file unless MIN_SUPPORTED_VERSION
#: ("0.8.3.dev0") <= the value <= its own version ("0.8.18"), compared as LooseVersions
#: (kerncraft/machinemodel.py, MachineModel.__init__); our loader ignores the value.
KERNCRAFT_FILE_FORMAT = "0.8.18"

__all__ = ["render_machine_file", "KERNCRAFT_FILE_FORMAT"]


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


def _q(text: str) -> str:
    """A YAML-safe scalar: JSON's double-quoted strings are valid YAML."""
    return json.dumps(text)


def cacheline(topo: HostTopology) -> int:
    return topo.caches[0].line_size if topo.caches else 64


def render_machine_file(data: HostData, command: str | None = None,
                        date: str | None = None) -> str:
    """The machine file text for ``data`` (comments say measured / detected / assumed)."""
    parts = [_render_header(data, command, date), _render_core(data),
             _render_hierarchy(data), _render_benchmarks(data)]
    return "\n".join(parts).rstrip() + "\n"


# ---------------------------------------------------------------- header

def _render_header(data: HostData, command: str | None, date: str | None) -> str:
    topo, clock = data.topology, data.clock
    when = date or _dt.date.today().isoformat()
    lines = [
        f"# Machine file of this host, written by kerncraft-machine (kerncraft "
        f"{__version__}) on {when}.",
        f"# Command: {command or 'kerncraft-machine'}",
        f"# Host: {topo.model_name}; {topo.uarch.name} ({topo.uarch.core} core), CPUID family "
        f"{topo.family} model {topo.model} stepping {topo.stepping}"
        + ("; virtual machine" if topo.hypervisor else ""),
        *_identification_lines(topo.uarch),
        "#",
        "# Legend: [measured] measured here by kerncraft-machine; [detected] read from CPUID,",
        "# sysfs, procfs or likwid-topology; [probed] the installed compiler was asked;",
        "# [assumed] not measurable here, a stated assumption.",
        "# Units as in every machine file: sizes binary ('48.00 kB' = 48 x 1024 B), rates decimal.",
        "#",
    ]
    lines += _conditions(data)
    lines += _clock_lines(data)
    lines.append(f"# Bandwidths [measured] with the {data.backend} benchmarks; size sweep of "
                 f"'{data.sweep_kernel}' on one core (size: GB/s):")
    sweep = [f"{size_text(s)}: {b / 1e9:.1f}" for s, b in data.sweep]
    for i in range(0, len(sweep), 6):
        lines.append("#   " + "; ".join(sweep[i:i + 6]))
    lines.append("# Plateaus found, working sets chosen, L1 passes that differ:")
    lines.extend(f"#   {note}" for note in data.notes)
    lines.extend(f"# Note: {note}" for note in data.topology.notes)
    return "\n".join(lines) + "\n"


def _identification_lines(uarch) -> list[str]:
    """How the core class was chosen when the CPUID table did not name it."""
    if not uarch.identification:
        return []
    head = ("# WARNING: no core class fits this CPU; the in-core model below is a generic guess "
            "(in-core figures unreliable): " if uarch.generic else
            "# Core class [derived from the ISA flags, not the CPUID model]: ")
    return [head + uarch.identification]


def _conditions(data: HostData) -> list[str]:
    """Load before and during measuring, scheduling priority, points never stable."""
    lines = []
    if data.load is not None:
        state = "BUSY" if data.load.busy else "quiet"
        lines.append(f"# Load before measuring [measured]: {state}: {data.load.summary()}")
    if data.phase_loads:
        busy = [p.phase for p in data.phase_loads if p.busy]
        lines.append("# Load during the run [measured], per phase (CPU time other processes and "
                     "the hypervisor took of our CPUs; BUSY above 10 %): "
                     + (f"BUSY during {', '.join(busy)}: figures measured then may be low"
                        if busy else "quiet throughout"))
        lines.extend(f"#   {p.summary()}" for p in data.phase_loads)
    if data.realtime:
        lines.append(f"# Scheduling: {data.realtime}")
    if data.unstable:
        lines.append(f"# Unstable points: {len(data.unstable)} bandwidth point(s) never had two "
                     "runs within 5 % of each other; the best run is used:")
        lines.extend(f"#   {u}" for u in data.unstable)
    else:
        lines.append("# Stability: every bandwidth point had two runs within 5 % of each other.")
    return lines + ["#"]


def _clock_lines(data: HostData) -> list[str]:
    clock = data.clock
    lines = [f"# Clock [measured]: {clock.method}.",
             "#   samples " + ", ".join(f"{s / 1e9:.3f}" for s in clock.samples) + " GHz "
             f"(spread {100 * clock.spread:.1f} %)"]
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
    return lines


# ---------------------------------------------------------------- core

def _render_core(data: HostData) -> str:
    topo, uarch = data.topology, data.topology.uarch
    lines = [f"kerncraft version: {KERNCRAFT_FILE_FORMAT}   # the Kerncraft machine-file "
             "format (Kerncraft 0.8.18 loads 0.8.3.dev0 to 0.8.18)",
             f"model name: {_q(topo.model_name)}   # [detected]",
             f"model type: {_q(f'{uarch.name} ({uarch.core} core)')}   # "
             + ("[derived] from the ISA flags (see the header)" if uarch.identification else
                "[detected] CPUID family/model" + (" + likwid-topology" if topo.cpu_type else "")),
             f"clock: {data.clock.core_hz / 1e9:.2f} GHz   # [measured] calibrated core clock "
             + (f"(nominal {data.clock.nominal_hz / 1e9:.2f} GHz)" if data.clock.nominal_hz
                else "(the model name states no nominal clock)"),
             "", f"sockets: {topo.sockets}   # [detected]",
             f"cores per socket: {topo.cores_per_socket}",
             f"threads per core: {topo.threads_per_core}",
             f"NUMA domains per socket: {max(1, topo.numa_domains // topo.sockets)}",
             f"cores per NUMA domain: {topo.cores_per_numa_domain}"]
    if data.thp:
        lines.append(f"transparent hugepage: {data.thp}   # [detected]")
    lines += _incore_lines(data) + _flops_lines(data) + _compiler_lines(data)
    ports = incore_ports(uarch.incore_model)
    if ports is not None:
        overlapping, non_overlapping = ports
        lines += ["", "# [assumed] ECM split of the in-core time as in the in-core database: "
                      "load-data ports do not", "# overlap with cache transfers, all others do.",
                  "non-overlapping model:", "  ports:",
                  f"    kerncraft: [{', '.join(_q(p) for p in non_overlapping)}]",
                  *_osaca_port_line(uarch.osaca, 1),
                  "overlapping model:", "  ports:",
                  f"    kerncraft: [{', '.join(_q(p) for p in overlapping)}]",
                  *_osaca_port_line(uarch.osaca, 0)]
    return "\n".join(lines) + "\n"


def _osaca_port_line(arch: str | None, which: int) -> list[str]:
    """OSACA's ports of the split (0: overlapping, 1: non-overlapping), which Kerncraft
    0.8.18's ECM reads by default (:mod:`kerncraft.machinegen.osaca_ports`)."""
    ports = osaca_ecm_ports(arch)
    return [] if ports is None else [f"    OSACA: [{', '.join(_q(p) for p in ports[which])}]"]


def _incore_lines(data: HostData) -> list[str]:
    uarch = data.topology.uarch
    entries = []
    if uarch.incore_model:
        note = f"   # {uarch.incore_note}" if uarch.incore_note else ""
        entries.append(f"  - kerncraft: {uarch.incore_model}{note}")
    if uarch.osaca:
        closest = "   # the closest model OSACA has" if uarch.osaca != uarch.code else ""
        entries.append(f"  - OSACA: {uarch.osaca}{closest}")
    if uarch.llvm_mca:
        entries.append(f"  - LLVM-MCA: {_q(uarch.llvm_mca)}")
    head = ["", "in-core model: !!omap" if entries else "in-core model: {}"]
    return head + entries + [f"isa: {'x86' if 'sse2' in data.topology.flags else 'aarch64'}"]


def _flops_lines(data: HostData) -> list[str]:
    topo, uarch = data.topology, data.topology.uarch
    measured_units = data.fma.fma_units if data.fma is not None else None
    units = data.fma_units or measured_units or uarch.fma_units
    flops = flops_per_cycle(topo.flags, units)
    if data.fma_units:
        how = "[given] FMA units given on the command line"
    elif measured_units:
        how = (f"[measured] {measured_units} FMA unit(s): "
               f"{data.fma.fma_per_scalar_cycle:.2f} FMA per scalar cycle measured")
    elif uarch.fma_units:
        how = f"[assumed] {uarch.fma_units} FMA unit(s) of {uarch.core}, at this vector width"
    else:
        how = "[assumed] FMA units not measured"
    return ["", f"# {how}; peak = {flops.fma_units} x {flops.vector_bits}-bit units x "
                f"{flops.vector_bits // 64} DP lanes x 2 (FMA)",
            "FLOPs per cycle:",
            "  DP: {" + ", ".join(f"{k}: {v}" for k, v in flops.dp.items()) + "}",
            "  SP: {" + ", ".join(f"{k}: {v}" for k, v in flops.sp.items()) + "}"]


def _compiler_lines(data: HostData) -> list[str]:
    uarch = data.topology.uarch
    measured = data.fma.fma_units if data.fma is not None else None
    full, why = full_width_512(uarch, measured)
    # the flags were chosen with the measured width (generate._measured_width)
    wide = (f"with -mprefer-vector-width=512: 512-bit ops run at full width on this core ({why})"
            if full else "no -mprefer-vector-width=512: "
            + (f"512-bit ops run in two halves on this core{_unit_note(measured)}"
               if uarch.isa_level == "x86-64-v4"
               else "no AVX-512 on this core" if uarch.isa_level else "core unknown"))
    lines = ["", "# Compiler flags for this core, the compilers asked with "
                 "'COMPILER -march=X -E -x c /dev/null':"]
    lines += [f"#   {c.compiler}: [{'probed' if c.probed else 'assumed'}] {c.note}"
              for c in data.compilers]
    lines += [f"# {wide};", "# -ffreestanding keeps gcc from turning loops into library calls.",
              "compiler: !!omap"]
    lines += [f"  - {c.compiler}: {c.flags}" for c in data.compilers]
    return lines


def _unit_note(measured: int | None) -> str:
    return (" (as the table says; the measured one 512-bit FMA per cycle fits it)"
            if measured == 1 else "")


# ---------------------------------------------------------------- memory hierarchy

def _geometry(data: HostData, position: int, cache: CacheInfo) -> tuple[list[str], list[str]]:
    """(cache per group entries, comment lines) of one cache level."""
    uarch, caches = data.topology.uarch, data.topology.caches
    victim = uarch.victim_l3 and len(caches) >= 3
    nxt = caches[position + 1].name if position + 1 < len(caches) else None
    load_from, store_to, victims_to, write_allocate = nxt, nxt, None, True
    comments: list[str] = []
    if victim and cache.level == 2:
        victims_to = nxt
        if uarch.l2_misses_from_l3:
            comments = ["    # [assumed] victim L3 as in the published Zen files: L2 misses "
                        "look up L3, L2 evictions fill it."]
        else:
            load_from = None
            comments = ["    # [assumed] victim hierarchy as on every Intel server core since "
                        "Skylake-SP: L2 misses come", "    # from memory, L2 evictions go to L3."]
    if victim and cache.level == 3:
        write_allocate = False
        comments = ["    # [assumed] non-inclusive victim L3: filled by L2 evictions only"]
    geometry = [f"sets: {cache.sets}", f"ways: {cache.ways}", f"cl_size: {cache.line_size}",
                "replacement_policy: LRU", f"write_allocate: {str(write_allocate).lower()}",
                "write_back: true", f"load_from: {load_from or 'null'}"]
    if victims_to:
        geometry.append(f"victims_to: {victims_to}")
    geometry.append(f"store_to: {store_to or 'null'}")
    return geometry, comments


def _overlap_line(data: HostData, level: str) -> str:
    flag = data.topology.uarch.transfers_overlap(level)
    if flag is None:
        return ("    transfers overlap: false   # [assumed] unknown core: no overlap (the "
                "conservative ECM composition)")
    return f"    transfers overlap: {str(flag.overlaps).lower()}   # [assumed] {flag.source}"


def _capacity(data: HostData, position: int, cache: CacheInfo) -> Capacity:
    """The level's size: CPUID's, or the sweep's where it ends well before (capacities.py)."""
    choice = next((c for c in data.choices if c.level == cache.name), None)
    cores = len(cache.shared_cpus) // max(1, data.topology.threads_per_core)
    return effective_capacity(cache, choice.plateau if choice is not None else None,
                              [size for size, _ in data.sweep],
                              cores > 1 or position == len(data.topology.caches) - 1)


def _render_level(data: HostData, position: int, cache: CacheInfo) -> list[str]:
    topo = data.topology
    capacity = _capacity(data, position, cache)
    size_note = (capacity.note() + f" ({cache.sets} sets; written with {capacity.sets})"
                 if capacity.measured else
                 f"[detected] CPUID: {cache.sets} sets x {cache.ways} ways x {cache.line_size} B")
    cache = replace(cache, size=capacity.size, sets=capacity.sets)
    geometry, comments = _geometry(data, position, cache)
    threads = len(cache.shared_cpus)
    lines = [f"  - level: {cache.name}", *comments,
             f"    size per group: {size_text(cache.size)}   # {size_note}",
             f"    groups: {cache.instances}",
             f"    cores per group: {max(1, threads // max(1, topo.threads_per_core))}",
             f"    threads per group: {threads}",
             "    cache per group: {" + ", ".join(geometry) + "}"]
    if cache.level == 1:
        ports = incore_ports(topo.uarch.incore_model)
        if ports is not None:
            lines.append("    upstream throughput: [architecture code analyzer, "
                         f"[{', '.join(_q(p) for p in ports[1])}]]   # from the in-core model")
        else:
            lines.append(f"    upstream throughput: [{2 * flops_per_cycle(topo.flags).vector_bits // 8}"
                         " B/cy, half-duplex]   # [assumed] two full-width loads per cycle")
    else:
        up = data.upstream.get(cache.name)
        if up is None:
            lines.append("    upstream throughput: [16.0 B/cy, full-duplex]   # [assumed]")
        else:
            mark = "measured-derived" if up.derived else "assumed"
            lines.append(f"    upstream throughput: [{up.bytes_per_cycle:.1f} B/cy, {up.duplex}]"
                         f"   # [{mark}] {up.note}")
    lines.append(_overlap_line(data, cache.name))
    if cache.level == 1:
        lines += _streaming_limit_lines(data, cache)
    lines += _fill_lines(data, cache)
    return lines


def _streaming_limit_lines(data: HostData, cache: CacheInfo) -> list[str]:
    """'streaming limit: measured' when this file carries L1 bandwidths to take it from.

    The compiled loops of streaming kernels sustain less register<->L1 bandwidth than
    the load/store ports allow on the hosts measured so far (Zen 5, Ice Lake; see
    kerncraft/models/l1_stream.py); the benchmarks measured here run into the same
    limit, so T_nOL takes it from them.
    """
    if not data.results.get(cache.name):
        return []
    how = ("likwid-bench's hand-written loops" if data.backend == "likwid-bench"
           else "the built-in C loops, gcc -O3 -march=native, rolled like a kernel's loop")
    return [f"    streaming limit: measured   # [measured] T_nOL is at least the {cache.name} "
            f"benchmark time of the kernel's", f"    #   register<->{cache.name} bytes "
            f"({how}); 'ports' = the published ECM model (docs/ecm-model.md)"]


def _fill_lines(data: HostData, cache: CacheInfo) -> list[str]:
    choice = next((c for c in data.choices if c.level == cache.name), None)
    return fill_lines(cache.name, cache.size, choice.plateau if choice is not None else None)


def _render_hierarchy(data: HostData) -> str:
    topo = data.topology
    lines = [f"cacheline size: {cacheline(topo)} B", "memory hierarchy:"]
    for position, cache in enumerate(topo.caches):
        lines += _render_level(data, position, cache)
    cores = topo.cores_per_socket
    lines += ["  - level: MEM", "    size per group:",
              f"    cores per group: {cores}",
              f"    threads per group: {cores * topo.threads_per_core}",
              "    upstream throughput: [full socket memory bandwidth, half-duplex]   "
              "# [measured] see benchmarks",
              _overlap_line(data, "MEM")]
    lines += _penalty_lines(data)
    return "\n".join(lines) + "\n"


def _penalty_lines(data: HostData) -> list[str]:
    """'penalty cycles per cacheline load/store' fitted as kerncraft/machinegen/penalty_fit.py
    says, where the in-cache transfers overlap and the memory transfer does not (Zen):
    there the ECM composition has nothing else to explain why one core streams from
    memory slower than the saturated bandwidth (on Intel the non-overlapping in-cache
    transfers do, as published, and nothing is written)."""
    from kerncraft.machinegen.penalty_fit import fit_penalties, penalty_points
    from kerncraft.measure.streams import KERNELS

    uarch = data.topology.uarch
    flags = [uarch.transfers_overlap(c.name) for c in data.topology.caches]
    memory = uarch.transfers_overlap("MEM")
    if memory is None or memory.overlaps or not all(f is not None and f.overlaps
                                                    for f in flags):
        return []
    mixes = {k: (v.read_streams, v.write_streams, v.read_write_streams)
             for k, v in KERNELS.items()}
    first = data.topology.caches[0].name if data.topology.caches else "L1"
    clock = round(data.clock.core_hz / 1e7) * 1e7          # as the file states it
    points = penalty_points(mixes, data.results.get("MEM", {}), data.results.get(first, {}),
                            data.cores, data.topology.cores_per_numa_domain, clock)
    if not points:
        return []
    fit = fit_penalties(points)
    lines = [f"    penalty cycles per cacheline load: {fit.load:.3f}   # [measured-derived] "
             "one core's memory latency, fitted (least squares) from",
             f"    penalty cycles per cacheline store: {fit.store:.3f}   # [measured-derived] "
             "the single-core vs saturated memory bandwidths below",
             "    # per CL of work: 1 core, saturated, L1 -> fitted single-core time (cy):"]
    lines += [f"    #   {p.kernel}: {p.single_core:.2f}, {p.saturated:.2f}, {p.in_core:.2f} -> "
              f"{fit.predicted(p):.2f}" for p in points]
    return lines


# ---------------------------------------------------------------- benchmarks

def _kernel_lines(data: HostData) -> list[str]:
    lines = []
    builtin = data.backend == "builtin"
    for name, k in KERNELS.items():
        test = k.likwid_test if "avx512f" in data.topology.flags else k.likwid_test_avx2
        lines += [f"    {name}:   # {k.formula}",
                  f"      FLOPs per iteration: {k.flops_per_iteration}",
                  f"      fastest bench kernel: {test}"
                  + ("   # built-in equivalent measured" if builtin else ""),
                  f"      read streams: {{streams: {k.read_streams}, bytes: {k.read_bytes:.2f} B}}",
                  f"      read+write streams: {{streams: {k.read_write_streams}, "
                  f"bytes: {k.read_write_bytes:.2f} B}}",
                  f"      write streams: {{streams: {k.write_streams}, bytes: {k.write_bytes:.2f} B}}"]
    return lines


def _choice_reason(choice) -> str:
    """Why this working set: the plateau's ceiling or the level's typical size."""
    if choice.source != "plateau":
        return "from the CPUID size"
    if choice.level in ("L1", "MEM") or choice.total_single >= (choice.ceiling or choice.total_single):
        return "two thirds up its plateau"
    return ("the level's typical working set: geometric mean of the per-core shares of "
            "this and the level above, as kerncraft-validate sizes kernels")


def _measured_cores_lines(data: HostData) -> list[str]:
    """'measured cores: N of M' (our extension, MachineModel.measured_cores) and why N."""
    topo = data.topology
    used, of = (max(data.cores) if data.cores else 1), topo.cores_per_socket
    if used < of:
        why = (f"this process may run on {len(topo.core_cpus)} core(s) only (CPU affinity: "
               "taskset or a cgroup)" if used == len(topo.core_cpus) else "--max-cores")
        note = [f"# ONLY {used} of the {of} cores of a socket were measured ({why}): the "
                f"bandwidths below are those of at most {used} core(s),",
                "# not of a saturated socket; a model that takes the saturated memory "
                f"bandwidth from this file gets that of {used} core(s)."]
    elif topo.hypervisor:
        note = [f"# All {of} cores (vCPUs) this virtual machine shows were measured; the host's "
                "socket may have more,", "# whose saturated memory bandwidth is not measurable "
                "from here."]
    else:
        note = [f"# All {of} cores of a socket were measured."]
    return note + [f"measured cores: {used} of {of}   # [measured] largest core count of the "
                   "bandwidth tables, of the cores per socket"]


def _render_benchmarks(data: HostData) -> str:
    lines = [*_measured_cores_lines(data),
             "# Streaming kernels in the convention of all machine files: 'read streams' and",
             "# 'write streams' include arrays read and written, counted again under",
             "# 'read+write streams'; bytes per iteration; bandwidths count these bytes only",
             "# (no write-allocate traffic), like likwid-bench.",
             "benchmarks:", "  kernels:", *_kernel_lines(data), "  measurements:"]
    cores = list(data.cores)
    for choice in data.choices:
        sizes = [choice.size_per_core(n) for n in cores]
        how = _choice_reason(choice)
        if len(choice.working_sets()) > 1:
            how += ("; median of the runs at " + ", ".join(
                size_text(t) for t in choice.working_sets()) + " for one core")
        split = ", split over the cores" if choice.shared else " per core"
        lines += [f"    {choice.level}:   # [measured] working set {size_text(choice.total_single)}"
                  f"{split} ({how})",
                  "      1:", "        threads per core: 1",
                  f"        cores: {_flow([str(c) for c in cores], 16)}",
                  f"        threads: {_flow([str(c) for c in cores], 17)}",
                  f"        size per core: {_flow([size_text(s) for s in sizes], 23)}",
                  f"        size per thread: {_flow([size_text(s) for s in sizes], 25)}",
                  f"        total size: {_flow([size_text(s * n) for s, n in zip(sizes, cores)], 20)}",
                  "        results:"]
        for kernel, values in data.results.get(choice.level, {}).items():
            lines.append(f"          {kernel}: {_flow([_bw(v) for v in values], 18 + len(kernel))}")
    return "\n".join(lines) + "\n"
