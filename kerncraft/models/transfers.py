"""Data-transfer times between memory levels (the data part of ECM).

From a :class:`~kerncraft.cache.traffic.TrafficResult` (cache lines per unit of
work on each link L1<->L2, L2<->L3, ..., Llast<->MEM) and the machine's upstream
throughputs, compute the cycles each link needs per unit of work:

* a cache level with a fixed ``upstream throughput`` of B bytes/cycle:
  half-duplex links serialize loads and stores, ``T = (loads + stores) * CL / B``;
  full-duplex links move both at once, ``T = max(loads, stores) * CL / B``;
* main memory (``full socket memory bandwidth``): the measured bandwidth of
  the benchmark kernel whose stream mix matches the kernel's, scaled to count
  write-allocate bytes when the caches write-allocate, ``T = bytes / (bw / clock)``.
  Which measurement: the ECM model takes the *saturated* bandwidth of
  ``saturated_domains`` NUMA domains
  (:func:`kerncraft.machine.bandwidth.saturated_bandwidth`), the Roofline model the
  bandwidth measured on ``cores`` cores
  (:func:`kerncraft.machine.bandwidth.select_bandwidth`).

Non-temporal stores (``traffic.nontemporal``) reach memory without a write-allocate
read, so a streamed copy moves 1 line read + 1 line written, the read/write balance
of the *update* benchmark, not that of copy (2 read, with the allocate, + 1 written).
The benchmarks of a machine file ran with ordinary stores, so the stream mix that
picks one is the write-allocating mix with the same reads and writes at memory
(:func:`nontemporal_stream_mix`): each streamed write-only array pairs with a
read-only one into one read+write stream (copy -> update, triad -> daxpy).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from kerncraft.cache.traffic import TrafficResult, transfer_volumes
from kerncraft.errors import KerncraftError
from kerncraft.machine.bandwidth import BandwidthChoice, saturated_bandwidth, select_bandwidth
from kerncraft.machine.model import MachineModel
from kerncraft.models.nontemporal import NontemporalChoice


@dataclass(frozen=True)
class LinkTime:
    """Cycles per unit of work on the link between ``upper`` and ``lower``."""

    upper: str
    lower: str
    loads: float          # cache lines per unit of work, towards the core
    stores: float         # cache lines per unit of work, towards memory
    bytes: float          # total bytes per unit of work
    bytes_per_cycle: float
    duplex: str
    cycles: float
    bandwidth_choice: BandwidthChoice | None = None

    @property
    def name(self) -> str:
        """ECM notation name, e.g. 'T_L1L2' or 'T_L3MEM'."""
        return f"T_{self.upper}{self.lower}"

    def to_dict(self) -> dict:
        data = {"link": f"{self.upper}-{self.lower}", "name": self.name,
                "loads_cl": self.loads, "stores_cl": self.stores, "bytes": self.bytes,
                "bytes_per_cycle": self.bytes_per_cycle, "duplex": self.duplex,
                "cycles_per_cl": self.cycles}
        if self.bandwidth_choice is not None:
            data["benchmark_kernel"] = self.bandwidth_choice.kernel
            data["measured_bandwidth"] = self.bandwidth_choice.bandwidth
        return data


def kernel_stream_mix(kernel) -> tuple[int, int, int]:
    """Nominal (read-only, write-only, read+write) array streams of a kernel.

    Each non-scalar array is one stream, classified by whether the innermost
    loop body reads it, writes it, or both; this is the mix that selects the
    matching benchmark kernel (copy, triad, update, ...).
    """
    reads, writes = set(), set()
    for access in kernel.accesses:
        array = kernel.arrays.get(access.array)
        if array is None or array.is_scalar:
            continue
        (reads if access.kind == "read" else writes).add(access.array)
    both = reads & writes
    return len(reads - both), len(writes - both), len(both)


def nontemporal_stream_mix(mix: tuple[int, int, int], streamed_writes: int
                          ) -> tuple[int, int, int]:
    """The nominal mix whose write-allocating traffic at memory equals that of ``mix``
    with ``streamed_writes`` write-only arrays stored non-temporally (module doc).

    >>> nontemporal_stream_mix((1, 1, 0), 1), nontemporal_stream_mix((3, 1, 0), 1)
    ((0, 0, 1), (2, 0, 1))
    """
    reads, writes, read_writes = mix
    paired = min(streamed_writes, reads, writes)
    return reads - paired, writes - paired, read_writes + paired


def streamed_write_only(kernel, traffic: TrafficResult) -> int:
    """How many write-only arrays of ``kernel`` the traffic stores non-temporally."""
    if traffic.nontemporal is None:
        return 0
    read = {a.array for a in kernel.accesses if a.kind == "read"}
    return sum(1 for name in traffic.nontemporal.arrays if name not in read)


def _writes_allocate(machine: MachineModel) -> bool:
    return any(lvl.geometry.write_allocate for lvl in machine.cache_levels)


def link_times(kernel, machine: MachineModel, traffic: TrafficResult,
               cores: int = 1, saturated_domains: int | None = None) -> tuple[LinkTime, ...]:
    """Cycles per unit of work on every link below L1 (see module doc).

    ``saturated_domains``: take the memory bandwidth saturated over that many NUMA
    domains (ECM) instead of the one measured on ``cores`` cores (Roofline).
    """
    cl = traffic.cacheline_size
    times = []
    for link in transfer_volumes(traffic):
        level = machine.level(link.lower)
        upstream = level.upstream_throughput
        if upstream is None:
            raise KerncraftError(f"machine file gives no upstream throughput for {level.name}")
        choice = None
        if upstream.bytes_per_cycle is not None:
            bpc = upstream.bytes_per_cycle
            duplex = upstream.duplex or "half-duplex"
            volume = link.total if duplex == "half-duplex" else max(link.loads, link.stores)
        else:
            choice = _memory_bandwidth(kernel, machine, link.lower, cores, saturated_domains,
                                       streamed_write_only(kernel, traffic))
            bpc = choice.traffic_bandwidth(_writes_allocate(machine)) / machine.clock
            duplex = upstream.duplex or "half-duplex"
            volume = link.total
        cycles = volume * cl / bpc if volume else 0.0
        times.append(LinkTime(upper=link.upper, lower=link.lower, loads=link.loads,
                              stores=link.stores, bytes=link.total * cl, bytes_per_cycle=bpc,
                              duplex=duplex, cycles=cycles, bandwidth_choice=choice))
    return tuple(times)


def _memory_bandwidth(kernel, machine: MachineModel, level: str, cores: int,
                      saturated_domains: int | None, streamed_writes: int = 0
                      ) -> BandwidthChoice:
    reads, writes, read_writes = nontemporal_stream_mix(kernel_stream_mix(kernel),
                                                        streamed_writes)
    if reads + writes + read_writes == 0:
        reads = 1  # a kernel without array streams: any (load) bandwidth will do
    if saturated_domains is not None:
        return saturated_bandwidth(machine, level, reads, writes, read_writes,
                                   numa_domains=saturated_domains)
    return select_bandwidth(machine, level, reads, writes, read_writes, cores=cores)


TrafficPredictor = Callable[..., TrafficResult]


def predict_traffic(kernel, machine: MachineModel, predictor: str = "LC",
                    cores: int = 1, notes: bool = True, check: bool = True,
                    nontemporal: NontemporalChoice | None = None) -> TrafficResult:
    """Run the chosen data-traffic predictor ('LC' or 'SIM') on a bound kernel.

    More cores than the machine has is an error (a share of a cache per core is
    undefined beyond that, and the ECM scaling table would get a row per core).
    ``nontemporal``: the arrays whose stores bypass the caches, and why
    (:func:`kerncraft.models.nontemporal.nontemporal_choice`).
    """
    from kerncraft.kernel.binding import check_bound_kernel

    check_core_count(machine, cores)
    if check:       # False: the caller checked this kernel already (ECM scaling rows)
        check_bound_kernel(kernel)
    streamed = nontemporal.arrays if nontemporal is not None else ()
    if predictor == "LC":
        from kerncraft.cache.layer_conditions import predict_traffic_lc
        traffic = predict_traffic_lc(kernel, machine, cores=cores, notes=notes,
                                     nontemporal=streamed)
    elif predictor == "SIM":
        from kerncraft.cache.sim_predictor import predict_traffic_sim
        traffic = predict_traffic_sim(kernel, machine, cores=cores, nontemporal=streamed)
    else:
        raise KerncraftError(f"unknown cache predictor {predictor!r} (choose LC or SIM)")
    return with_nontemporal(traffic, nontemporal, notes)


def with_nontemporal(traffic: TrafficResult, nontemporal: NontemporalChoice | None,
                     notes: bool = True) -> TrafficResult:
    """``traffic`` with the reason (and, with ``notes``, the caveats) of the streamed
    stores; also what a point plan applies (:mod:`kerncraft.models.point_plan`)."""
    if nontemporal is None:
        return traffic
    traffic = traffic.with_nontemporal_reason(nontemporal.reason)
    if nontemporal.notes and notes:
        traffic = dataclasses.replace(traffic, notes=traffic.notes + nontemporal.notes)
    return traffic


def check_core_count(machine: MachineModel, cores: int) -> None:
    """Refuse more cores than the machine file describes (all its sockets)."""
    total = machine.sockets * machine.cores_per_socket
    if cores > total:
        raise KerncraftError(f"{cores} cores requested, but the machine file describes "
                             f"{machine.sockets} socket(s) of {machine.cores_per_socket} cores "
                             f"({total} cores)")
