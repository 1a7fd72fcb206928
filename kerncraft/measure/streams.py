"""Streaming bandwidth benchmarks: likwid-bench if installed, else built-in C kernels.

What is measured, and how it is counted
---------------------------------------
The five kernels of Kerncraft machine files, with likwid-bench's names and
meaning (so that measured numbers mean the same as in every other machine
file; ``s`` is a scalar)::

    load    s += a[i]                 8 B/it   (1 read stream)
    copy    a[i] = b[i]              16 B/it   (1 read, 1 write)
    update  a[i] = s * a[i]          16 B/it   (a read and written)
    triad   a[i] = b[i] + c[i]*d[i]  32 B/it   (3 read, 1 write; likwid's triad,
                                               not STREAM's a = b + s*c)
    daxpy   a[i] = a[i] + s * b[i]   24 B/it   (2 read, a also written)

Bandwidth = nominal bytes per iteration x iterations / time, in decimal B/s.
Write-allocate transfers (a store miss first reads the line) are *not*
counted, exactly as likwid-bench does not count them. The working-set size
is that of all arrays of the kernel together, per core (likwid-bench's
``-W S0:<size>:<threads>`` gives the total over threads).

Why built-in kernels too
------------------------
likwid-bench is not always installed, and where it is, each invocation
costs about a second of start-up and times a single run. The built-in
program (C, ``-O3 -march=native``, vectorised with 512-bit registers where
the CPU has them; OpenMP threads pinned one per listed CPU, each with its
own first-touched arrays) repeats the kernel in timed chunks of a quarter of
the measuring time (25 ms by default) and reports the fastest chunk, which stays
reliable when other processes share the cores.
"""
from __future__ import annotations

import math
import os
import shutil
from dataclasses import dataclass
from typing import Literal, Sequence

from kerncraft.measure.likwid import parse_likwid_bench
from kerncraft.measure.timing import compile_program, parse_protocol, require_x86_64_linux, run_pinned
from kerncraft.errors import ToolError

__all__ = ["StreamKernel", "KERNELS", "BandwidthResult", "Plateau", "measure_bandwidth",
           "sweep_sizes", "find_plateaus",
           "measure_builtin", "measure_likwid_bench", "likwid_bench_available",
           "STREAMS_SOURCE", "STREAMS_FLAGS"]

Backend = Literal["auto", "likwid", "builtin"]


@dataclass(frozen=True)
class StreamKernel:
    """One benchmark kernel and its stream mix in the machine-file convention.

    'read streams' and 'write streams' include the arrays that are both read
    and written, which are counted again under 'read+write streams' (this is
    how Kerncraft machine files write it). Bytes are per iteration.
    """

    name: str
    formula: str
    arrays: int
    read_streams: int
    write_streams: int
    read_write_streams: int
    flops_per_iteration: int
    likwid_test: str            # likwid-bench test with AVX-512 (the fastest variant)
    likwid_test_avx2: str

    @property
    def read_bytes(self) -> int:
        return 8 * self.read_streams

    @property
    def write_bytes(self) -> int:
        return 8 * self.write_streams

    @property
    def read_write_bytes(self) -> int:
        return 8 * self.read_write_streams

    @property
    def bytes_per_iteration(self) -> int:
        """Nominal bytes moved per iteration (loads + stores, no write-allocate)."""
        return self.read_bytes + self.write_bytes


KERNELS: dict[str, StreamKernel] = {k.name: k for k in (
    StreamKernel("load", "s += a[i]", 1, 1, 0, 0, 0, "load_avx512", "load_avx"),
    StreamKernel("copy", "a[i] = b[i]", 2, 1, 1, 0, 0, "copy_avx512", "copy_avx"),
    StreamKernel("update", "a[i] = s * a[i]", 1, 1, 1, 1, 0, "update_avx512", "update_avx"),
    StreamKernel("triad", "a[i] = b[i] + c[i] * d[i]", 4, 3, 1, 0, 2, "triad_avx512_fma",
                 "triad_avx_fma"),
    StreamKernel("daxpy", "a[i] = a[i] + s * b[i]", 2, 2, 1, 1, 2, "daxpy_avx512_fma",
                 "daxpy_avx_fma"),
)}


@dataclass(frozen=True)
class BandwidthResult:
    """Best bandwidth of one kernel at one working-set size and core count."""

    kernel: str
    size_per_core: int          # bytes of all arrays of one core
    cores: int
    bandwidth: float            # B/s, nominal bytes (no write-allocate)
    backend: str                # 'builtin' or 'likwid-bench'
    seconds: float              # time of the best chunk / run
    samples: tuple[float, ...] = ()   # bandwidth of every repetition (B/s)

    @property
    def spread(self) -> float:
        """(max - min) / max over the repetitions (0 for a single one)."""
        return 0.0 if len(self.samples) < 2 else \
            (max(self.samples) - min(self.samples)) / max(self.samples)


STREAMS_FLAGS = ("-O3", "-march=native", "-mprefer-vector-width=512", "-fopenmp",
                 "-fno-tree-loop-distribute-patterns", "-D_GNU_SOURCE")

STREAMS_SOURCE = r"""
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double wall(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC_RAW, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
#define BARRIER() __asm__ volatile("" ::: "memory")
#define A(p) ((double *)__builtin_assume_aligned((p), 64))

/* Every kernel runs `sweeps` passes over n elements (n a multiple of 64). */
static double k_load(double **v, long n, long sweeps, double s) {
    double acc[64] __attribute__((aligned(64)));
    for (int j = 0; j < 64; ++j) acc[j] = 0.0;
    const double *a = A(v[0]);
    for (long r = 0; r < sweeps; ++r) {
        for (long i = 0; i < n; i += 64) {
            #pragma omp simd aligned(a : 64)
            for (int j = 0; j < 64; ++j) acc[j] += a[i + j];  /* 8 vector accumulators */
        }
        BARRIER();
    }
    double sum = s;
    for (int j = 0; j < 64; ++j) sum += acc[j];
    return sum;
}
static double k_copy(double **v, long n, long sweeps, double s) {
    double *a = A(v[0]); const double *b = A(v[1]);
    for (long r = 0; r < sweeps; ++r) {
        #pragma omp simd aligned(a, b : 64)
        for (long i = 0; i < n; ++i) a[i] = b[i];
        BARRIER();
    }
    return a[n / 2] + s;
}
static double k_update(double **v, long n, long sweeps, double s) {
    double *a = A(v[0]);
    for (long r = 0; r < sweeps; ++r) {
        #pragma omp simd aligned(a : 64)
        for (long i = 0; i < n; ++i) a[i] = s * a[i];
        BARRIER();
    }
    return a[n / 2];
}
static double k_triad(double **v, long n, long sweeps, double s) {
    double *a = A(v[0]); const double *b = A(v[1]), *c = A(v[2]), *d = A(v[3]);
    for (long r = 0; r < sweeps; ++r) {
        #pragma omp simd aligned(a, b, c, d : 64)
        for (long i = 0; i < n; ++i) a[i] = b[i] + c[i] * d[i];
        BARRIER();
    }
    return a[n / 2] + s;
}
static double k_daxpy(double **v, long n, long sweeps, double s) {
    double *a = A(v[0]); const double *b = A(v[1]);
    for (long r = 0; r < sweeps; ++r) {
        #pragma omp simd aligned(a, b : 64)
        for (long i = 0; i < n; ++i) a[i] = a[i] + s * b[i];
        BARRIER();
    }
    return a[n / 2];
}

typedef double (*kernel_fn)(double **, long, long, double);
static const char *NAMES[] = {"load", "copy", "update", "triad", "daxpy"};
static const int ARRAYS[] = {1, 2, 1, 4, 2};
static const kernel_fn KERNELS[] = {k_load, k_copy, k_update, k_triad, k_daxpy};

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s KERNEL BYTES_PER_THREAD THREADS CPU,CPU,.. SECONDS CHUNK\n",
                argv[0]);
        return 2;
    }
    int k = -1;
    for (int i = 0; i < 5; ++i) if (!strcmp(argv[1], NAMES[i])) k = i;
    if (k < 0) { fprintf(stderr, "unknown kernel %s\n", argv[1]); return 2; }
    long bytes = atol(argv[2]); int threads = atoi(argv[3]);
    double duration = atof(argv[5]), target = atof(argv[6]);
    int cpus[1024]; int ncpus = 0;
    for (char *tok = strtok(argv[4], ","); tok && ncpus < 1024; tok = strtok(NULL, ","))
        cpus[ncpus++] = atoi(tok);
    if (threads < 1 || ncpus < threads) { fprintf(stderr, "need one CPU per thread\n"); return 2; }
    int arrays = ARRAYS[k];
    long n = bytes / (8L * arrays); n -= n % 64; if (n < 64) n = 64;
    volatile double scale_in = 1.0; double scale = scale_in;
    long sweeps = 1, chunks = 0; int stop = 0, measuring = 0;
    double t0 = 0.0, t_start = 0.0, best = 1e30, sink = 0.0;
    #pragma omp parallel num_threads(threads) reduction(+ : sink)
    {
        int tid = omp_get_thread_num();
        cpu_set_t set; CPU_ZERO(&set); CPU_SET(cpus[tid], &set);
        sched_setaffinity(0, sizeof(set), &set);
        long stride = ((n * 8 + 4095) / 4096) * 4096 + 4096 + 256;  /* avoid 4k aliasing */
        size_t total = (size_t)stride * arrays + 64;
        char *block = NULL;
        if (posix_memalign((void **)&block, total > (4u << 20) ? (2u << 20) : 4096, total)) abort();
        if (total > (4u << 20)) madvise(block, total, MADV_HUGEPAGE);
        double *v[4];
        for (int j = 0; j < arrays; ++j) {
            v[j] = (double *)(block + (size_t)j * stride);
            for (long i = 0; i < n; ++i) v[j][i] = 1.0 + 1e-3 * (double)(i % 7);
        }
        for (;;) {
            #pragma omp barrier
            #pragma omp single
            t0 = wall();
            sink += KERNELS[k](v, n, sweeps, scale);
            #pragma omp barrier
            #pragma omp single
            {
                double t = wall() - t0;
                if (!measuring) {
                    if (t >= target || sweeps >= (1L << 40)) { measuring = 1; t_start = wall(); }
                    else {
                        double grow = 1.2 * target / (t > 1e-9 ? t : 1e-9);
                        sweeps = (long)((double)sweeps * (grow < 2 ? 2 : grow > 100 ? 100 : grow));
                    }
                } else {
                    ++chunks;
                    if (t < best) best = t;
                    if (wall() - t_start >= duration && chunks >= 3) stop = 1;
                }
            }
            if (stop) break;
        }
        free(block);
    }
    printf("KERNCRAFT_TIME %.9e\nKERNCRAFT_REPETITIONS %ld\nKERNCRAFT_CHUNKS %ld\n"
           "KERNCRAFT_ELEMENTS %ld\nKERNCRAFT_THREADS %d\nKERNCRAFT_CHECKSUM %g\n",
           best, sweeps, chunks, n, threads, sink);
    return 0;
}
"""


# ---------------------------------------------------------------- running

def _check_kernel(kernel: str) -> StreamKernel:
    try:
        return KERNELS[kernel]
    except KeyError:
        raise ToolError(f"unknown benchmark kernel {kernel!r} "
                        f"(known: {', '.join(KERNELS)})") from None


def _bench_cpus(cores: int, cpus: Sequence[int] | None) -> list[int]:
    """One CPU per core (first hardware thread of each core), ``cores`` of them."""
    if cpus is None:
        from kerncraft.measure.topology import core_cpus
        cpus = core_cpus()
    if len(cpus) < cores:
        raise ToolError(f"asked for {cores} cores but only {len(cpus)} CPUs are usable "
                        f"({', '.join(map(str, cpus))})")
    return list(cpus)[:cores]


#: Timed chunks last this share of the measuring time, and the fastest counts: long
#: enough to be a sustained bandwidth, as likwid-bench (which times one whole run) and the
#: kernels' benchmark programs (the mean over their run) measure it, short enough that an
#: interruption spoils one chunk, not the point. Half-millisecond chunks (before) caught the
#: peak between a shared host's slow moments: on the Zen 5 VM daxpy in L1 took 1.39-1.42
#: cy/CL in 0.5-ms chunks, 1.49-1.51 in 5-ms and 50-ms chunks, 1.6-1.8 as a kernel program.
CHUNK_SHARE = 0.25


def measure_builtin(kernel: str, size_per_core: int, cores: int = 1, *,
                    cpus: Sequence[int] | None = None, duration: float = 0.1,
                    repeats: int = 2, chunk: float | None = None) -> BandwidthResult:
    """Run the built-in kernel on ``cores`` pinned threads; best of ``repeats`` runs.

    ``duration`` is the measuring time per run, ``chunk`` the time one timed
    chunk of repeated sweeps aims at (the fastest chunk counts; default
    :data:`CHUNK_SHARE` of ``duration``).
    """
    chunk = duration * CHUNK_SHARE if chunk is None else chunk
    spec = _check_kernel(kernel)
    require_x86_64_linux("the built-in streaming benchmarks")
    exe = compile_program(STREAMS_SOURCE, flags=STREAMS_FLAGS)
    used = _bench_cpus(cores, cpus)
    samples, times = [], []
    for _ in range(max(1, repeats)):
        out = run_pinned([exe, kernel, str(int(size_per_core)), str(cores),
                          ",".join(map(str, used)), f"{duration:g}", f"{chunk:g}"], used,
                         env={"OMP_PROC_BIND": "false", "OMP_WAIT_POLICY": "active"},
                         timeout=120 + 20 * duration)
        report = parse_protocol(out)
        elements = int(report.extra["KERNCRAFT_ELEMENTS"])
        moved = spec.bytes_per_iteration * elements * cores * report.repetitions
        samples.append(moved / report.seconds)
        times.append(report.seconds)
    best = max(range(len(samples)), key=samples.__getitem__)
    return BandwidthResult(kernel, int(size_per_core), cores, samples[best], "builtin",
                           times[best], tuple(samples))


def likwid_bench_available() -> bool:
    return shutil.which("likwid-bench") is not None


def _likwid_test(spec: StreamKernel) -> str:
    from kerncraft.measure.topology import cpu_flags
    return spec.likwid_test if "avx512f" in cpu_flags() else spec.likwid_test_avx2


def measure_likwid_bench(kernel: str, size_per_core: int, cores: int = 1, *,
                         duration: float = 0.1, repeats: int = 2,
                         domain: str = "S0") -> BandwidthResult:
    """Run likwid-bench (``-W <domain>:<total size>:<cores>``), best of ``repeats``.

    The iteration count is chosen from a first short run so that each run
    lasts about ``duration`` seconds.
    """
    spec = _check_kernel(kernel)
    exe = shutil.which("likwid-bench")
    if exe is None:
        raise ToolError("likwid-bench is not installed (use the built-in benchmarks)")
    test = _likwid_test(spec)
    total_kb = max(1, int(size_per_core * cores / 1000))
    workgroup = f"{domain}:{total_kb}kB:{cores}"
    iterations = 10
    samples, times = [], []
    for attempt in range(max(1, repeats) + 1):
        out = run_pinned([exe, "-t", test, "-W", workgroup, "-i", str(iterations)], None,
                         timeout=120 + 20 * duration)
        result = parse_likwid_bench(out)
        if attempt == 0:      # calibration run: scale the iterations to the wanted duration
            per_iteration = result.seconds / max(1, result.iterations or iterations)
            iterations = max(10, int(math.ceil(duration / max(per_iteration, 1e-9) / cores)))
            continue
        samples.append(result.bandwidth)
        times.append(result.seconds)
    best = max(range(len(samples)), key=samples.__getitem__)
    return BandwidthResult(kernel, int(size_per_core), cores, samples[best], "likwid-bench",
                           times[best], tuple(samples))


def measure_bandwidth(kernel: str, size_per_core: int, cores: int = 1, *,
                      backend: Backend = "auto", duration: float = 0.1, repeats: int = 2,
                      cpus: Sequence[int] | None = None) -> BandwidthResult:
    """Bandwidth of ``kernel`` at ``size_per_core`` bytes per core on ``cores`` cores.

    ``backend='auto'`` uses likwid-bench when installed, else the built-in
    kernels; ``KERNCRAFT_NO_LIKWID=1`` in the environment forces the
    built-in ones.
    """
    if backend == "auto":
        disabled = os.environ.get("KERNCRAFT_NO_LIKWID", "") not in ("", "0")
        backend = "likwid" if likwid_bench_available() and not disabled else "builtin"
    if backend == "likwid":
        return measure_likwid_bench(kernel, size_per_core, cores, duration=duration,
                                    repeats=repeats)
    if backend == "builtin":
        return measure_builtin(kernel, size_per_core, cores, cpus=cpus, duration=duration,
                               repeats=repeats)
    raise ValueError(f"unknown backend {backend!r}")


# ---------------------------------------------------------------- size sweeps

@dataclass(frozen=True)
class Plateau:
    """A run of working-set sizes with (nearly) the same bandwidth.

    ``first``/``last`` are the smallest and largest swept sizes on it; the
    step to the next plateau lies between ``last`` and the next one's
    ``first`` (:attr:`step_after` is their geometric mean).
    """

    first: int
    last: int
    bandwidth: float                     # median over the plateau's points (B/s)
    points: int
    next_first: int | None = None        # first size of the next plateau

    @property
    def middle(self) -> int:
        """Geometric middle of the plateau."""
        return int(round(math.sqrt(self.first * self.last)))

    @property
    def upper_third(self) -> int:
        """Two thirds up the plateau (log scale): large enough that loop start-up
        costs vanish, still clear of the step (the working set to measure)."""
        return int(round(self.first ** (1 / 3) * self.last ** (2 / 3)))

    @property
    def step_after(self) -> int | None:
        return None if self.next_first is None else int(round(math.sqrt(self.last * self.next_first)))


def sweep_sizes(smallest: int, largest: int, per_octave: int) -> tuple[int, ...]:
    """Log-spaced sizes from ``smallest`` to ``largest`` (multiples of 1 KiB)."""
    if smallest <= 0 or largest < smallest or per_octave < 1:
        raise ValueError("need 0 < smallest <= largest and per_octave >= 1")
    count = int(math.floor(math.log2(largest / smallest) * per_octave + 1e-9)) + 1
    sizes = (smallest * 2 ** (i / per_octave) for i in range(count))
    return tuple(dict.fromkeys(max(1024, int(round(s / 1024)) * 1024) for s in sizes))


def find_plateaus(sizes: Sequence[int], bandwidths: Sequence[float], *,
                  tolerance: float = 0.12, min_points: int = 2,
                  smooth: bool = True) -> tuple[Plateau, ...]:
    """Split a size sweep into plateaus of nearly constant bandwidth.

    With ``smooth``, a running median of three first removes single
    disturbed points. A point joins the current plateau if it is within
    ``tolerance`` of the previous point *and* within twice that of the
    plateau's median: small sizes ramp up slowly (loop start-up costs) and
    must stay one plateau, while the fall-off between two cache levels is
    steep. Groups with fewer than ``min_points`` points are transitions and
    are dropped; adjacent plateaus whose medians are within ``tolerance``
    are merged.
    """
    if len(sizes) != len(bandwidths):
        raise ValueError("sizes and bandwidths differ in length")
    values = list(bandwidths)
    if smooth and len(values) >= 3:
        values = [values[0], *(sorted(values[i - 1:i + 2])[1]
                               for i in range(1, len(values) - 1)), values[-1]]
    groups: list[list[int]] = []
    for i, bw in enumerate(values):
        if groups:
            ref = _median([values[j] for j in groups[-1]])
            prev = values[i - 1]
            if abs(bw - prev) <= tolerance * prev and abs(bw - ref) <= 2 * tolerance * ref:
                groups[-1].append(i)
                continue
        groups.append([i])
    merged: list[list[int]] = []
    for group in (g for g in groups if len(g) >= min_points):
        if merged:
            ref = _median([values[j] for j in merged[-1]])
            if abs(_median([values[j] for j in group]) - ref) <= tolerance * ref:
                merged[-1].extend(group)
                continue
        merged.append(group)
    plateaus = []
    for n, group in enumerate(merged):
        following = merged[n + 1][0] if n + 1 < len(merged) else None
        plateaus.append(Plateau(sizes[group[0]], sizes[group[-1]],
                                _median([values[j] for j in group]), len(group),
                                None if following is None else sizes[following]))
    return tuple(plateaus)


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else 0.5 * (ordered[mid - 1] + ordered[mid])
