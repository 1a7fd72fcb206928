"""Host topology, caches, ISA and peak FLOPs, from sysfs / procfs (or likwid-topology).

Why both sources
----------------
likwid-topology is the tool Kerncraft machine files were made with, and it
names the microarchitecture ('Intel Icelake SP processor'). It is optional,
so the same facts come from Linux directly: ``/sys/devices/system/cpu``
(cache level, type, size, ways, sets, line size, which CPUs share a cache;
core and package ids) and ``/proc/cpuinfo`` (model name, family/model,
feature flags). Cache figures are what CPUID reports, which in a VM need
not be what one core really gets: :mod:`kerncraft.machinegen.generate`
checks them with a size sweep.

FLOPs per cycle
---------------
Peak FLOPs are derived from the ISA: vector width (AVX-512: 8 DP lanes,
AVX/AVX2: 4, SSE2: 2) x number of FMA (or add and multiply) units x 2 for
an FMA. The number of FMA units is not in CPUID; the assumption made is
stated in :attr:`FlopsEstimate.assumption` and can be overridden (or
measured with :func:`kerncraft.measure.clock.measure_fma_throughput`).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from kerncraft.measure.uarch import CoreCaches, Microarchitecture, identify_microarchitecture

__all__ = ["CacheInfo", "HostTopology", "FlopsEstimate", "Microarchitecture",
           "detect_topology", "cpu_flags", "cpu_vendor", "core_cpus", "flops_per_cycle",
           "identify_microarchitecture", "parse_cpu_list", "parse_cpuinfo", "parse_size", "incore_ports",
           "transparent_hugepage", "core_caches"]

_SYS_CPU = Path("/sys/devices/system/cpu")


@dataclass(frozen=True)
class CacheInfo:
    """One data/unified cache level as seen from one CPU (instances share it)."""

    level: int
    type: str                      # 'Data' or 'Unified'
    size: int                      # bytes per instance
    ways: int
    sets: int
    line_size: int
    shared_cpus: tuple[int, ...]   # CPUs sharing one instance
    instances: int                 # instances on the machine

    @property
    def name(self) -> str:
        return f"L{self.level}"


@dataclass(frozen=True)
class FlopsEstimate:
    """FLOPs per cycle per precision (keys ADD, MUL, FMA, total) and the assumption."""

    dp: Mapping[str, int]
    sp: Mapping[str, int]
    vector_bits: int
    fma_units: int
    assumption: str


@dataclass(frozen=True)
class HostTopology:
    model_name: str
    vendor: str
    family: int | None
    model: int | None
    stepping: int | None
    flags: frozenset[str]
    sockets: int
    cores_per_socket: int
    threads_per_core: int
    numa_domains: int
    cpus: tuple[int, ...]          # online CPUs we may use
    core_cpus: tuple[int, ...]     # first hardware thread of every core, in core order
    caches: tuple[CacheInfo, ...]  # data/unified levels, L1 first
    uarch: Microarchitecture
    cpu_type: str | None = None    # likwid-topology's 'CPU type' if it ran
    hypervisor: bool = False
    source: str = "sysfs"
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def cores(self) -> int:
        return self.sockets * self.cores_per_socket

    @property
    def cores_per_numa_domain(self) -> int:
        return max(1, self.cores // max(1, self.numa_domains))

    def isa_extensions(self) -> tuple[str, ...]:
        wanted = ("sse2", "avx", "avx2", "fma", "avx512f", "avx512vl", "avx512_fp16", "amx_tile",
                  "sve", "asimd")
        return tuple(x for x in wanted if x in self.flags)


# ---------------------------------------------------------------- parsing helpers

def parse_cpu_list(text: str) -> tuple[int, ...]:
    """'0-3,8,10-11' -> (0, 1, 2, 3, 8, 10, 11)."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-")
            cpus.extend(range(int(lo), int(hi) + 1))
        else:
            cpus.append(int(part))
    return tuple(cpus)


def parse_size(text: str) -> int:
    """sysfs cache sizes ('48K', '1280K', '48M') in bytes (binary prefixes)."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text)
    if not match:
        raise ValueError(f"cannot parse cache size {text!r}")
    return int(match.group(1)) * {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[match.group(2)]


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def parse_cpuinfo(text: str) -> dict[str, str]:
    """Fields of the first processor block of /proc/cpuinfo text ('cpu family' -> '25')."""
    entry: dict[str, str] = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        if ":" in line:
            key, value = line.split(":", 1)
            entry[key.strip()] = value.strip()
    return entry


def _cpuinfo_first() -> dict[str, str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    return parse_cpuinfo(text)


def host_incore_model() -> str | None:
    """The in-core database of this host's core from its CPUID signature (None if the
    core is not in the table)."""
    info = _cpuinfo_first()
    family, model, stepping = (_int(info.get(k)) for k in ("cpu family", "model", "stepping"))
    cpus = tuple(sorted(os.sched_getaffinity(0)))
    threads = _core_layout(cpus)[1]
    uarch = identify_microarchitecture(info.get("vendor_id", "unknown"), family, model,
                                       stepping, cpu_flags(), core_caches(_caches(cpus), threads))
    return uarch.incore_model


def cpu_vendor() -> str:
    """CPUID vendor of the first CPU ('GenuineIntel', 'AuthenticAMD'; 'unknown' elsewhere)."""
    return _cpuinfo_first().get("vendor_id", "unknown")


def cpu_flags() -> frozenset[str]:
    """Feature flags of the first CPU ('flags' on x86, 'Features' on Arm)."""
    info = _cpuinfo_first()
    return frozenset((info.get("flags") or info.get("Features") or "").split())


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


# ---------------------------------------------------------------- identification
# The CPUID table (Intel and AMD cores, their databases, overlap flags and compiler
# targets) lives in kerncraft.measure.uarch; Microarchitecture and
# identify_microarchitecture are re-exported here, where they have always been.


# ---------------------------------------------------------------- FLOPs

def flops_per_cycle(flags: frozenset[str], fma_units: int | None = None) -> FlopsEstimate:
    """Peak FLOPs per cycle from the ISA and the number of FMA units.

    Default: two FMA units (every AVX2/AVX-512 core of the last decade except
    some low Xeon SKUs with one 512-bit unit). ADD and MUL count one FLOP per
    lane and unit, FMA two; 'total' is the FMA peak (or ADD+MUL without FMA).
    """
    bits = 512 if "avx512f" in flags else 256 if "avx" in flags else 128
    units = 2 if fma_units is None else fma_units
    has_fma = "fma" in flags or "avx512f" in flags
    dp_lanes = bits // 64
    add = mul = units * dp_lanes
    fma = 2 * units * dp_lanes if has_fma else 0
    total = fma if has_fma else add + mul
    dp = {"ADD": add, "MUL": mul, "FMA": fma, "total": total}
    sp = {key: 2 * value for key, value in dp.items()}
    source = "given" if fma_units is not None else "assumed"
    assumption = (f"{units} {bits}-bit {'FMA' if has_fma else 'add/multiply'} unit(s) "
                  f"({source}) x {dp_lanes} DP lanes" + (" x 2 FLOPs per FMA" if has_fma else ""))
    return FlopsEstimate(dp, sp, bits, units, assumption)


# ---------------------------------------------------------------- topology

def _caches(cpus: tuple[int, ...]) -> tuple[CacheInfo, ...]:
    base = _SYS_CPU / f"cpu{cpus[0]}" / "cache"
    found = []
    for index in sorted(base.glob("index*")):
        kind = _read(index / "type")
        if kind not in ("Data", "Unified"):
            continue
        shared = parse_cpu_list(_read(index / "shared_cpu_list") or str(cpus[0]))
        level = int(_read(index / "level") or 0)
        groups = {parse_cpu_list(_read(_SYS_CPU / f"cpu{c}/cache" / index.name /
                                       "shared_cpu_list") or str(c)) for c in cpus}
        found.append(CacheInfo(
            level=level, type=kind, size=parse_size(_read(index / "size") or "0"),
            ways=int(_read(index / "ways_of_associativity") or 0),
            sets=int(_read(index / "number_of_sets") or 0),
            line_size=int(_read(index / "coherency_line_size") or 64),
            shared_cpus=shared, instances=len(groups)))
    return tuple(sorted(found, key=lambda c: c.level))


def core_caches(caches: tuple[CacheInfo, ...], threads_per_core: int) -> CoreCaches:
    """L1d size and L2 bytes per core, the cache sizes that tell core generations apart."""
    l1d = next((c for c in caches if c.level == 1 and c.type == "Data"), None)
    l2 = next((c for c in caches if c.level == 2), None)
    per_core = None
    if l2 is not None:
        per_core = l2.size // max(1, len(l2.shared_cpus) // max(1, threads_per_core))
    return CoreCaches(l1d.size if l1d else None, per_core)


def _core_layout(cpus: tuple[int, ...]) -> tuple[int, int, tuple[int, ...]]:
    """(sockets, threads per core, first CPU of each core)."""
    cores: dict[tuple[int, int], list[int]] = {}
    for cpu in cpus:
        top = _SYS_CPU / f"cpu{cpu}" / "topology"
        package = _int(_read(top / "physical_package_id")) or 0
        core = _int(_read(top / "core_id"))
        cores.setdefault((package, cpu if core is None else core), []).append(cpu)
    sockets = len({p for p, _ in cores}) or 1
    threads = max((len(v) for v in cores.values()), default=1)
    firsts = tuple(sorted(min(v) for v in cores.values()))
    return sockets, threads, firsts


def core_cpus() -> tuple[int, ...]:
    """First usable hardware thread of each core (the CPUs benchmarks pin to)."""
    usable = tuple(sorted(os.sched_getaffinity(0)))
    return _core_layout(usable)[2] or usable


def _likwid_cpu_type() -> str | None:
    exe = shutil.which("likwid-topology")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"^CPU type:\s*(.+?)\s*$", out.stdout, re.MULTILINE)
    return match.group(1) if match else None


def detect_topology(use_likwid: bool = True) -> HostTopology:
    """Read the host's topology, caches and ISA (likwid-topology adds the CPU type)."""
    info = _cpuinfo_first()
    flags = cpu_flags()
    cpus = tuple(sorted(os.sched_getaffinity(0)))
    online = parse_cpu_list(_read(_SYS_CPU / "online") or ",".join(map(str, cpus)))
    sockets, threads, firsts = _core_layout(online)
    nodes = len(list(Path("/sys/devices/system/node").glob("node[0-9]*"))) or 1
    family, model, stepping = (_int(info.get(k)) for k in ("cpu family", "model", "stepping"))
    vendor = info.get("vendor_id", "unknown")
    caches = _caches(online)
    uarch = identify_microarchitecture(vendor, family, model, stepping, flags,
                                       core_caches(caches, threads))
    cpu_type = _likwid_cpu_type() if use_likwid else None
    notes = []
    if "hypervisor" in flags:
        notes.append("running in a virtual machine: CPUID cache sizes and the TSC "
                     "need not describe what a core really gets")
    return HostTopology(
        model_name=info.get("model name", "unknown"), vendor=vendor, family=family,
        model=model, stepping=stepping, flags=flags, sockets=sockets,
        cores_per_socket=max(1, len(firsts) // sockets), threads_per_core=threads,
        numa_domains=nodes, cpus=cpus,
        core_cpus=tuple(c for c in firsts if c in cpus) or cpus, caches=caches,
        uarch=uarch, cpu_type=cpu_type, hypervisor="hypervisor" in flags,
        source="sysfs+likwid-topology" if cpu_type else "sysfs", notes=tuple(notes))


def incore_ports(database: str | None) -> tuple[list[str], list[str]] | None:
    """(overlapping, non-overlapping) ports of a bundled in-core database, following its
    ``extends`` chain (CSX.yml, ZEN3.yml, ZEN4.yml inherit their port lists)."""
    if database is None:
        return None
    folder = Path(__file__).resolve().parents[1] / "incore" / "databases"
    try:
        from ruamel.yaml import YAML
        seen: set[str] = set()
        data: dict = {}
        while database not in seen:
            seen.add(database)
            data = YAML(typ="safe").load((folder / f"{database}.yml").read_text(encoding="utf-8"))
            if "ports" in data and "load_data_ports" in data:
                break
            database = str(data.get("extends", database))
        ports, load_data = list(data["ports"]), list(data["load_data_ports"])
    except Exception:        # a missing/odd database only costs the ports blocks
        return None
    return [p for p in ports if p not in load_data], load_data


def transparent_hugepage() -> str | None:
    """The active transparent-hugepage mode ('always', 'madvise', 'never')."""
    try:
        text = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    except OSError:
        return None
    match = re.search(r"\[(\w+)\]", text)
    return match.group(1) if match else None
