"""Choose the measured bandwidth that fits a kernel's data streams.

The Roofline and ECM models need "the" bandwidth of a memory level, but a
real level delivers different bandwidths for different mixes of reads and
writes: on Cascade Lake one core streams 12.96 GB/s from memory in a pure
load kernel and 24.27 GB/s in an update kernel. Machine files therefore
carry measurements for several benchmark kernels (load, copy, update, triad,
daxpy), and we use the one whose stream mix is most like the kernel's.

What the caller passes
----------------------
The kernel's *nominal* data streams at ``level``, i.e. the arrays as the
source code uses them, split into three disjoint classes:

* ``reads``: streams that are only read (``b`` and ``c`` in ``a[i] = b[i] + c[i]``),
* ``writes``: streams that are only written (``a`` there),
* ``read_writes``: streams read and written back (``a`` in ``a[i] += b[i]``).

Do **not** add write-allocate loads: the benchmark mixes in machine files
are nominal too (copy = 1 read + 1 write), and their measured bandwidths count
only those nominal bytes, so like is compared with like. A caller whose
traffic volume *does* include write-allocate loads (e.g. from the cache
predictor) must use :meth:`BandwidthChoice.traffic_bandwidth`, which scales
the measured number to the bytes the hardware actually moved.

Distance between stream mixes
-----------------------------
A mix ``(r, w, rw)`` reads ``r + rw`` and writes ``w + rw`` streams. The
benchmark is chosen by, in this order (lexicographic minimum):

1. the difference of the *write share* ``(w + rw) / (r + w + 2 rw)``: the
   read/write balance is what changes sustained bandwidth most (bus
   turnaround, write-back buffers);
2. the difference of the number of distinct streams ``r + w + rw``
   (prefetcher and page-opening behaviour);
3. the difference of ``rw`` (in-place updates keep the line in the cache);
4. the benchmark's order in the file.

So load (1,0,0) share 0; triad (3,1,0) 1/4; daxpy (1,0,1) 1/3; copy (1,1,0)
1/2 with 2 streams; update (0,0,1) 1/2 with 1 stream: each selects itself.

Core count: :func:`select_bandwidth` (Roofline: the bandwidth ``cores`` cores
get) uses the measurement for exactly ``cores`` and ``threads_per_core``; if the
file has none, the closest available one (fewer cores on a tie), and the
explanation says so. :func:`saturated_bandwidth` (ECM: the memory interface's
saturated bandwidth) uses the highest measurement on up to one NUMA domain's
cores.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

from kerncraft.errors import MachineFileError, SourceLocation
from kerncraft.machine.model import BandwidthMeasurement, MachineModel, StreamMix
from kerncraft.units import format_quantity

__all__ = ["BandwidthChoice", "select_bandwidth", "saturated_bandwidth", "stream_classes", "mix_distance"]


@dataclass(frozen=True)
class BandwidthChoice:
    """The measured bandwidth picked for a kernel at one memory level."""

    level: str
    kernel: str                  # benchmark kernel name, e.g. 'copy'
    bandwidth: float             # B/s, counting the benchmark's nominal bytes
    cores: int                   # core count of the measurement used
    threads_per_core: int        # threads per core of the measurement used
    mix: StreamMix               # the benchmark's stream mix
    explanation: str             # one line for people (verbose output)
    requested_cores: int = 1
    exact: bool = True           # False if cores/threads had to be approximated

    def traffic_bandwidth(self, write_allocate: bool, victim: bool = False) -> float:
        """Bandwidth counting all bytes the benchmark moved on the level's link.

        The measurement counts the benchmark's nominal bytes (copy: 8 B read +
        8 B written). With write-allocate, each write-only stream was also read
        (copy moves 24 B: 14.56 GB/s * 24 / 16 = 21.84 GB/s at MEM on CSX). A
        victim cache (the level named in ``victims_to`` of the level above, e.g.
        Cascade Lake's L3) also receives every line evicted above it, clean or
        dirty, so its link carries all lines twice: copy moves 32 B per 16
        nominal B there (x 2), daxpy 32 per 24 (x 4/3). Predicted traffic counts
        bytes the same way, so like is divided by like.
        """
        mix = self.mix
        nominal = mix.read_bytes + mix.write_bytes
        if nominal == 0:
            return self.bandwidth
        both = mix.read_write_bytes
        read_only, write_only = mix.read_bytes - both, mix.write_bytes - both
        loads = read_only + both + (write_only if write_allocate else 0.0)
        stores = (read_only + write_only + both) if victim else (write_only + both)
        return self.bandwidth * (loads + stores) / nominal


def stream_classes(mix: StreamMix) -> tuple[int, int, int]:
    """(read-only, write-only, read+write) streams of a machine-file mix.

    Machine files count read+write streams also among the read and the write
    streams (update: read 1, write 1, read+write 1), hence the subtraction.
    """
    both = mix.read_write_streams
    return mix.read_streams - both, mix.write_streams - both, both


def _write_share(reads: int, writes: int, read_writes: int) -> Fraction:
    total = reads + writes + 2 * read_writes
    return Fraction(writes + read_writes, total) if total else Fraction(0)


def mix_distance(kernel: tuple[int, int, int], bench: tuple[int, int, int]
                 ) -> tuple[Fraction, int, int]:
    """Sort key of a benchmark mix for a kernel mix; smaller is more alike."""
    return (abs(_write_share(*kernel) - _write_share(*bench)),
            abs(sum(kernel) - sum(bench)),
            abs(kernel[2] - bench[2]))


def _pick_measurement(machine: MachineModel, level: str, threads_per_core: int
                      ) -> tuple[BandwidthMeasurement, str | None]:
    entries = machine.measurements_for(level)
    if not entries:
        from kerncraft.machine.checks import missing_field_error

        known = sorted({m.level for m in machine.measurements})
        raise missing_field_error(   # located at 'measurements' (or the nearest parent)
            machine.path, ("benchmarks", "measurements", level),
            f"no benchmark measurements for level {level!r} "
            f"(measured levels: {', '.join(known) or 'none'})")
    best = min(entries, key=lambda m: (abs(m.threads_per_core - threads_per_core),
                                       m.threads_per_core))
    if best.threads_per_core == threads_per_core:
        return best, None
    return best, (f"no measurement with {threads_per_core} thread(s) per core, "
                  f"used {best.threads_per_core}")


def _choose_kernel(machine: MachineModel, level: str, measurement: BandwidthMeasurement,
                   wanted: tuple[int, int, int]) -> str:
    candidates = [name for name in machine.benchmark_kernels if name in measurement.results]
    if not candidates:
        from kerncraft.machine.checks import missing_field_error

        raise missing_field_error(machine.path, ("benchmarks", "measurements", level),
                                  f"the measurements for level {level!r} name no benchmark "
                                  "kernel listed under benchmarks.kernels")
    order = {name: i for i, name in enumerate(candidates)}
    return min(candidates, key=lambda name: (
        mix_distance(wanted, stream_classes(machine.benchmark_kernels[name])), order[name]))


def _check_streams(reads: int, writes: int, read_writes: int, threads_per_core: int) -> None:
    if min(reads, writes, read_writes) < 0 or reads + writes + read_writes == 0:
        raise ValueError("stream counts must be non-negative and not all zero, got "
                         f"reads={reads}, writes={writes}, read_writes={read_writes}")
    if threads_per_core < 1:
        raise ValueError("threads_per_core must be at least 1")


def _explain(level: str, wanted: tuple[int, int, int], kernel: str, mix: StreamMix,
             bandwidth: float, cores: int, threads: int, notes: list[str]) -> str:
    text = (f"{level}: kernel streams {wanted[0]} read / {wanted[1]} write / {wanted[2]} "
            f"read+write (write share {_write_share(*wanted)}) are closest to benchmark "
            f"'{kernel}' {stream_classes(mix)}; measured {format_quantity(bandwidth, 'B/s')} on "
            f"{cores} core(s), {threads} thread(s) per core")
    return text + (" [" + "; ".join(notes) + "]" if notes else "")


_CHOICES: dict[tuple, tuple[MachineModel, "BandwidthChoice"]] = {}
_CHOICES_LIMIT = 512


def _per_machine(choose):
    """Remember a choice per machine object and arguments: the ECM scaling table asks
    the same question for every core count of every -D point (a fifth of a sweep's
    time). The entry keeps its machine, so the ``id`` in the key stays that machine's;
    errors are raised every time, never remembered."""
    @functools.wraps(choose)
    def remembered(machine: MachineModel, *args, **kwargs) -> "BandwidthChoice":
        key = (choose.__name__, id(machine), args, tuple(sorted(kwargs.items())))
        hit = _CHOICES.get(key)
        if hit is not None and hit[0] is machine:
            return hit[1]
        choice = choose(machine, *args, **kwargs)
        if len(_CHOICES) >= _CHOICES_LIMIT:
            _CHOICES.clear()
        _CHOICES[key] = (machine, choice)
        return choice
    return remembered


@_per_machine
def select_bandwidth(machine: MachineModel, level: str, reads: int, writes: int,
                     read_writes: int, cores: int = 1, threads_per_core: int = 1
                     ) -> BandwidthChoice:
    """Measured bandwidth of ``level`` for a kernel with the given streams on ``cores``.

    See the module docstring for what to pass and how the benchmark is chosen.
    Raises ValueError for impossible arguments and MachineFileError if the
    machine file has no usable measurement for ``level``.
    """
    _check_streams(reads, writes, read_writes, threads_per_core)
    if cores < 1:
        raise ValueError("cores and threads_per_core must be at least 1")
    measurement, note = _pick_measurement(machine, level, threads_per_core)
    wanted = (reads, writes, read_writes)
    kernel = _choose_kernel(machine, level, measurement, wanted)
    index = min(range(len(measurement.cores)),
                key=lambda i: (abs(measurement.cores[i] - cores), measurement.cores[i]))
    used_cores = measurement.cores[index]
    notes = [note] if note else []
    if used_cores != cores:
        notes.append(f"no measurement on {cores} core(s), used {used_cores}")
    bandwidth = measurement.results[kernel][index]
    mix = machine.benchmark_kernels[kernel]
    return BandwidthChoice(level=level, kernel=kernel, bandwidth=bandwidth, cores=used_cores,
                           threads_per_core=measurement.threads_per_core, mix=mix,
                           explanation=_explain(level, wanted, kernel, mix, bandwidth,
                                                used_cores, measurement.threads_per_core,
                                                notes),
                           requested_cores=cores, exact=not notes)


@_per_machine
def saturated_bandwidth(machine: MachineModel, level: str, reads: int, writes: int,
                        read_writes: int, numa_domains: int = 1, threads_per_core: int = 1
                        ) -> BandwidthChoice:
    """Saturated bandwidth of ``level`` for the kernel's streams (the ECM memory input).

    The ECM model's only measured input is the *saturated* bandwidth of the memory
    interface of one ccNUMA domain (seed 004, Sect. 2.3 and 5): the highest bandwidth
    of the matching benchmark kernel measured on up to ``cores per NUMA domain`` cores
    (``numa_domains`` domains: up to that many times as many cores, filled one domain
    after the other). A single core's ECM time T_L3MEM uses this, not the one-core
    bandwidth: a one-core measurement already contains the in-cache transfers that ECM
    adds on top of T_L3MEM.
    """
    _check_streams(reads, writes, read_writes, threads_per_core)
    if numa_domains < 1:
        raise ValueError("numa_domains must be at least 1")
    per_domain = machine.cores_per_numa_domain or machine.cores_per_socket
    limit = per_domain * numa_domains
    measurement, note = _pick_measurement(machine, level, threads_per_core)
    wanted = (reads, writes, read_writes)
    kernel = _choose_kernel(machine, level, measurement, wanted)
    values = measurement.results[kernel]
    inside = [i for i, n in enumerate(measurement.cores) if n <= limit]
    notes = [note] if note else []
    if not inside:
        inside = [min(range(len(measurement.cores)), key=lambda i: measurement.cores[i])]
        notes.append(f"no measurement on at most {limit} core(s), used "
                     f"{measurement.cores[inside[0]]}")
    index = max(inside, key=lambda i: (values[i], -measurement.cores[i]))
    used_cores, bandwidth = measurement.cores[index], values[index]
    mix = machine.benchmark_kernels[kernel]
    explanation = _explain(level, wanted, kernel, mix, bandwidth, used_cores,
                           measurement.threads_per_core, notes)
    explanation += (f"; saturated: the highest of {len(inside)} measurement(s) on up to "
                    f"{limit} core(s) ({numa_domains} NUMA domain(s) of {per_domain})")
    return BandwidthChoice(level=level, kernel=kernel, bandwidth=bandwidth, cores=used_cores,
                           threads_per_core=measurement.threads_per_core, mix=mix,
                           explanation=explanation, requested_cores=limit, exact=not notes)
