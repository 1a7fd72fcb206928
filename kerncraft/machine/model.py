"""The machine model: typed, immutable view of a Kerncraft-format machine file.

Produced by :func:`kerncraft.machine.loader.load_machine`. All quantities are
plain floats in SI base units (bytes, Hz, B/s, B/cy, FLOP/cy); the conversion
from the strings of the YAML file ('2.5 GHz', '32 kB', '64 B/cy') happens only
in :mod:`kerncraft.units`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping

Duplex = Literal["half-duplex", "full-duplex"]


@dataclass(frozen=True)
class CacheGeometry:
    """The ``cache per group`` block of one cache level."""

    sets: int
    ways: int
    cl_size: int                     # bytes
    replacement_policy: str          # 'LRU', ...
    write_allocate: bool
    write_back: bool
    load_from: str | None            # level name; None if empty (victim hierarchy)
    store_to: str | None
    victims_to: str | None = None

    @property
    def size(self) -> int:
        """Bytes per group as implied by the geometry (sets * ways * cl_size)."""
        return self.sets * self.ways * self.cl_size


@dataclass(frozen=True)
class UpstreamThroughput:
    """Bandwidth to the next-lower level (towards registers).

    Either a fixed number of bytes per cycle (``bytes_per_cycle``), or
    derived from the in-core model's ports (``ports`` non-empty, e.g. L1's
    ``[architecture code analyzer, [2D, 3D]]``), or the measured memory bandwidth
    (``from_benchmarks`` for MEM's ``full socket memory bandwidth``).
    """

    bytes_per_cycle: float | None
    duplex: Duplex | None
    ports: tuple[str, ...] = ()
    from_benchmarks: bool = False


@dataclass(frozen=True)
class CacheLevel:
    """One level of ``memory hierarchy`` (L1, L2, L3, MEM)."""

    name: str
    size_per_group: int | None       # bytes; None for MEM
    groups: int | None
    cores_per_group: int | None
    threads_per_group: int | None
    geometry: CacheGeometry | None   # None for MEM
    upstream_throughput: UpstreamThroughput | None
    transfers_overlap: bool
    penalty_cycles_per_read_stream: float = 0.0
    performance_counter_metrics: Mapping[str, str] = field(default_factory=dict)
    # Added by the loader: extra cycles per cache line moved to/from this level
    # ('penalty cycles per cacheline load/store', given for MEM on Zen2, TX2, A64FX).
    penalty_cycles_per_cacheline_load: float = 0.0
    penalty_cycles_per_cacheline_store: float = 0.0
    # Our extension: the share of this level that the whole working set of a repeated
    # kernel may fill before the layer conditions move it to the next level (measured
    # by kerncraft-machine from the end of the level's bandwidth plateau; default in
    # kerncraft/cache/lc_hierarchy.py).
    whole_working_set_fill: float | None = None
    # Our extension, first level only: 'ports' (the published ECM: register<->L1
    # transfers cost what the load/store ports say) or 'measured' (they also take at
    # least as long as the level's measured streaming bandwidth allows; written by
    # kerncraft-machine, see kerncraft/models/l1_stream.py and docs/ecm-model.md).
    streaming_limit: str = "ports"
    # Our extension, memory level only: which bandwidth the single-core ECM memory term
    # T_L3MEM uses, 'saturated' or 'single-core'; None: by the composition (additive:
    # saturated, overlapping: single-core; kerncraft/models/memory_term.py).
    ecm_memory_bandwidth: str | None = None

    @property
    def is_memory(self) -> bool:
        return self.geometry is None


@dataclass(frozen=True)
class StreamMix:
    """Streams of one benchmark kernel (bytes per iteration and stream counts)."""

    read_streams: int
    read_bytes: float
    write_streams: int
    write_bytes: float
    read_write_streams: int
    read_write_bytes: float
    flops_per_iteration: float = 0.0
    fastest_bench_kernel: str | None = None


@dataclass(frozen=True)
class BandwidthMeasurement:
    """Measured bandwidths at one level for one threads-per-core setting."""

    level: str
    threads_per_core: int
    cores: tuple[int, ...]
    results: Mapping[str, tuple[float, ...]]     # kernel name -> B/s per entry of cores
    size_per_core: tuple[float, ...] = ()
    size_per_thread: tuple[float, ...] = ()
    threads: tuple[int, ...] = ()


@dataclass(frozen=True)
class FlopsPerCycle:
    """FLOPs per cycle for one precision (keys ADD, MUL, FMA, total)."""

    add: float
    mul: float
    fma: float
    total: float


@dataclass(frozen=True)
class MeasuredCores:
    """Our extension ``measured cores: N of M`` (top level, written by kerncraft-machine):
    the bandwidth benchmarks could use N of the M cores of a socket (pinned with taskset,
    a cgroup, ``--max-cores``, or a VM with few vCPUs). With N < M the memory bandwidths
    are those of N cores, not of a saturated socket."""

    used: int
    of: int

    @property
    def partial(self) -> bool:
        return self.used < self.of


@dataclass(frozen=True)
class MachineModel:
    path: str | None
    model_name: str
    model_type: str
    clock: float                                  # Hz
    sockets: int
    cores_per_socket: int
    threads_per_core: int
    numa_domains_per_socket: int | None
    cores_per_numa_domain: int | None
    flops_per_cycle: Mapping[str, FlopsPerCycle]  # 'DP', 'SP'
    compilers: tuple[tuple[str, str], ...]        # (compiler, flags), in file order
    in_core_model: Mapping[str, str]              # tool -> arch name, in file order
    isa: str | None
    overlapping_ports: Mapping[str, tuple[str, ...]]       # tool -> ports
    non_overlapping_ports: Mapping[str, tuple[str, ...]]   # tool -> ports
    cacheline_size: int                           # bytes
    memory_hierarchy: tuple[CacheLevel, ...]      # L1 first, MEM last
    benchmark_kernels: Mapping[str, StreamMix]
    measurements: tuple[BandwidthMeasurement, ...]
    # Added fields (all optional in the file):
    transparent_hugepage: str | None = None
    kerncraft_version: str | None = None
    measured_cores: MeasuredCores | None = None   # 'measured cores: N of M'

    def level(self, name: str) -> CacheLevel:
        for lvl in self.memory_hierarchy:
            if lvl.name == name:
                return lvl
        raise KeyError(name)

    @property
    def cache_levels(self) -> tuple[CacheLevel, ...]:
        """All levels except main memory."""
        return tuple(lvl for lvl in self.memory_hierarchy if not lvl.is_memory)

    @property
    def memory_level(self) -> CacheLevel:
        """The main-memory level (the last one of the hierarchy)."""
        return self.memory_hierarchy[-1]

    def numa_domains_filled(self, cores: int) -> int:
        """NUMA domains that ``cores`` cores occupy when filled one domain after the other."""
        per_domain = self.cores_per_numa_domain or self.cores_per_socket
        return max(1, -(-cores // per_domain))

    def measurements_for(self, level: str) -> tuple[BandwidthMeasurement, ...]:
        """Bandwidth measurements of one level, one entry per threads-per-core."""
        return tuple(m for m in self.measurements if m.level == level)

    def peak_flops_per_cycle(self, precision: str = "DP") -> float:
        """FLOPs per cycle of one core ('total' of the precision).

        Raises MachineFileError, located at the field or its nearest parent, if
        the machine file gives no usable figure for it (files with
        'INFORMATION_REQUIRED' placeholders omit the precision).
        """
        if precision not in self.flops_per_cycle:
            from kerncraft.machine.checks import missing_field_error
            raise missing_field_error(
                self.path, ("FLOPs per cycle", precision),
                f"this model needs the peak FLOPs per cycle of {precision}, which the machine "
                "file does not give (missing, or an INFORMATION_REQUIRED placeholder)")
        return self.flops_per_cycle[precision].total

    def compiler_flags(self, compiler: str) -> str:
        """Flags of a compiler listed in the file (KeyError if not listed)."""
        for name, flags in self.compilers:
            if name == compiler:
                return flags
        raise KeyError(compiler)
