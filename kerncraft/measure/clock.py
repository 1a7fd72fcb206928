"""Calibrate the core clock by timing a chain of dependent integer adds.

Why calibrate
-------------
Turning a measured time into core cycles needs the clock the core actually
ran at. Neither the nominal clock in the model name nor the TSC rate is that
clock: turbo raises it, power limits lower it, and in a VM the TSC frequency
(and the 'cpu MHz' of /proc/cpuinfo, which a guest kernel derives from it)
is a constant unrelated to what the core does. Without hardware counters
the only way to know is to run code with a known cycle count.

Method
------
A register-register add whose source is its own previous result (``add
%rbx,%rax``, repeated) has a latency of exactly one cycle on every x86 core
since the Pentium Pro, and no core can run such a chain faster. Immediate
forms (``add $1,%rax``) are avoided: recent cores can fold chains of small
immediate adds at rename and would appear to run faster than the clock. The
program runs the chain in short chunks (about half a millisecond) and keeps
the fastest chunk of each repetition: interrupts and preemption by other
processes only ever make a chunk slower, and a chunk that short usually
fits between two of them. ``core_hz = adds / seconds`` of that chunk.
Repetitions give a spread (how stable the clock is); the result is the
highest of them.

The same program reads the TSC at start and end, so the TSC rate is
measured too (``tsc_hz``), and :func:`measure_fma_throughput` uses the same
approach to count FMA instructions per cycle (the FLOPs-per-cycle peak).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from kerncraft.measure.timing import compile_program, default_cpu, require_x86_64_linux, run_pinned
from kerncraft.measure.topology import cpu_flags
from kerncraft.errors import ToolError

__all__ = ["ClockCalibration", "FmaThroughput", "calibrate_clock", "calibrate_clock_cached",
           "measure_fma_throughput", "cpuinfo_hz", "nominal_hz", "describe_calibration"]

_ADDS_PER_ITERATION = 200
_CHUNK_ITERATIONS = 10_000          # 2e6 adds: ~0.5 ms at 4 GHz

_SOURCE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static double now(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC_RAW, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
#define A1 "add %%rbx, %%rax\n\t"
#define A10 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1
#define A200 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10
/* 200 dependent adds per iteration: the chain is 200 cycles long, so the
   loop counter's own uops run in its shadow on other ports. */
__attribute__((noinline)) static unsigned long add_chain(long iters, unsigned long a,
                                                         unsigned long b) {
    for (long i = 0; i < iters; ++i) __asm__ volatile(A200 : "+a"(a) : "b"(b));
    return a;
}
#define F1(r) "vfmadd231pd %%zmm12, %%zmm13, %%zmm" #r "\n\t"
#define F12 F1(0) F1(1) F1(2) F1(3) F1(4) F1(5) F1(6) F1(7) F1(8) F1(9) F1(10) F1(11)
#define F120 F12 F12 F12 F12 F12 F12 F12 F12 F12 F12
/* 12 independent accumulators: enough to hide 4-cycle FMA latency on two units. */
__attribute__((noinline, target("avx512f"))) static void fma_block(long iters) {
    __asm__ volatile("vpxorq %%zmm12, %%zmm12, %%zmm12\n\tvpxorq %%zmm13, %%zmm13, %%zmm13"
                     ::: "xmm12", "xmm13");
    for (long i = 0; i < iters; ++i)
        __asm__ volatile(F120 ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                         "xmm7", "xmm8", "xmm9", "xmm10", "xmm11");
    __asm__ volatile("vzeroupper");
}
#define V1 "vpaddq %%zmm1, %%zmm0, %%zmm0\n\t"
#define V10 V1 V1 V1 V1 V1 V1 V1 V1 V1 V1
#define V200 V10 V10 V10 V10 V10 V10 V10 V10 V10 V10 V10 V10 V10 V10 V10 V10 V10 V10 V10 V10
/* Only zmm0-15 are used: leaving zmm16-31 dirty was seen to keep a Sunny Cove core
   in a throttled state (512-bit ops at a quarter of their rate) for long periods. */
/* Dependent 512-bit integer adds (1-cycle latency): the clock while AVX-512 code runs. */
__attribute__((noinline, target("avx512f"))) static void zmm_chain(long iters) {
    __asm__ volatile("vpxorq %%zmm1, %%zmm1, %%zmm1" ::: "xmm1");
    for (long i = 0; i < iters; ++i) __asm__ volatile(V200 ::: "xmm0", "xmm1");
    __asm__ volatile("vzeroupper");
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: mode iters duration reps\n"); return 2; }
    int mode = atoi(argv[1]); long iters = atol(argv[2]);
    double duration = atof(argv[3]); int reps = atoi(argv[4]);
    unsigned long sink = 0;
    double start = now(); unsigned long long tsc0 = __rdtsc();
    for (int r = 0; r < reps; ++r) {
        double best = 1e30, t_rep = now(); long chunks = 0;
        do {
            double t0 = now();
            if (mode == 0) sink += add_chain(iters, sink, 1);
            else if (mode == 1) fma_block(iters);
            else zmm_chain(iters);
            double t = now() - t0;
            if (t < best) best = t;
            ++chunks;
        } while (now() - t_rep < duration || chunks < 3);
        printf("KERNCRAFT_CLOCK_SAMPLE %ld %.9e %ld\n", iters, best, chunks);
    }
    double end = now(); unsigned long long tsc1 = __rdtsc();
    printf("KERNCRAFT_TSC_HZ %.6e\nKERNCRAFT_SINK %lu\n",
           (double)(tsc1 - tsc0) / (end - start), sink);
    return 0;
}
"""

_SAMPLE = re.compile(r"^KERNCRAFT_CLOCK_SAMPLE\s+(\d+)\s+(\S+)\s+(\d+)\s*$", re.MULTILINE)
_TSC = re.compile(r"^KERNCRAFT_TSC_HZ\s+(\S+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class ClockCalibration:
    """Calibrated core clock of one CPU.

    ``core_hz`` is the best repetition; ``samples`` holds all of them and
    ``spread`` = (max - min) / max of the samples. ``tsc_hz`` is the TSC rate
    measured against CLOCK_MONOTONIC_RAW; ``cpuinfo_hz`` the 'cpu MHz' of
    /proc/cpuinfo and ``nominal_hz`` the '@ x.xxGHz' of the model name, for
    comparison (None where unknown).
    """

    core_hz: float
    tsc_hz: float | None
    method: str
    spread: float
    samples: tuple[float, ...] = ()
    cpu: int | None = None
    cpuinfo_hz: float | None = None
    nominal_hz: float | None = None


@dataclass(frozen=True)
class FmaThroughput:
    """Throughput of independent 512-bit FMAs (best chunk), see :func:`measure_fma_throughput`."""

    fma_per_second: float
    fma_per_scalar_cycle: float    # per cycle of the calibrated scalar clock
    fma_units: int                 # inferred: 2 if more than 1.1 per scalar cycle
    fma_clock_hz: float            # fma_per_second / fma_units
    spread: float
    scalar_hz: float

    @property
    def dp_flops_per_cycle(self) -> int:
        """Peak DP FLOPs per cycle implied by the units: units x 8 lanes x 2."""
        return self.fma_units * 16


def _program() -> Path:
    require_x86_64_linux("clock calibration")
    return compile_program(_SOURCE, flags=("-O2",))


def _run(mode: int, iterations: int, duration: float, repetitions: int,
         cpu: int) -> tuple[list[tuple[int, float]], float | None]:
    out = run_pinned([_program(), str(mode), str(iterations), f"{duration:.6g}",
                      str(repetitions)], [cpu], timeout=60 + 10 * duration * repetitions)
    samples = [(int(n), float(t)) for n, t, _ in _SAMPLE.findall(out)]
    if len(samples) != repetitions or any(t <= 0 for _, t in samples):
        raise ToolError(f"clock calibration program printed unexpected output:\n{out[:500]}")
    tsc = _TSC.search(out)
    return samples, (float(tsc.group(1)) if tsc else None)


_KINDS = {"scalar": (0, "dependent 'add %rbx,%rax' chain"),
          "avx512": (2, "dependent 'vpaddq %zmm1,%zmm0,%zmm0' chain")}


def calibrate_clock(duration: float = 0.1, repetitions: int = 5, cpu: int | None = None,
                    kind: str = "scalar") -> ClockCalibration:
    """Measure the core clock of ``cpu`` (default :func:`default_cpu`).

    ``kind='scalar'`` times general-purpose adds (the clock of ordinary
    code); ``kind='avx512'`` times dependent 512-bit integer adds, which
    shows the lower clock some cores switch to while AVX-512 code runs.
    Takes about ``duration x repetitions`` seconds. Raises ToolError on a
    non-x86-64 host, without gcc, or (avx512) without AVX-512.
    """
    if duration <= 0 or repetitions < 1:
        raise ValueError("duration must be positive and repetitions at least 1")
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {', '.join(_KINDS)}")
    if kind == "avx512" and "avx512f" not in cpu_flags():
        raise ToolError("this CPU has no AVX-512; cannot calibrate the AVX-512 clock")
    mode, chain = _KINDS[kind]
    cpu = default_cpu() if cpu is None else cpu
    samples, tsc = _run(mode, _CHUNK_ITERATIONS, duration, repetitions, cpu)
    rates = tuple(n * _ADDS_PER_ITERATION / t for n, t in samples)
    best = max(rates)
    return ClockCalibration(
        core_hz=best, tsc_hz=tsc,
        method=(f"{chain} on CPU {cpu}: fastest of the "
                f"{_CHUNK_ITERATIONS * _ADDS_PER_ITERATION:.0e}-add chunks within "
                f"{duration:g} s, max of {repetitions} repetitions"),
        spread=(best - min(rates)) / best, samples=rates, cpu=cpu,
        cpuinfo_hz=cpuinfo_hz(cpu), nominal_hz=nominal_hz())


@functools.lru_cache(maxsize=8)
def calibrate_clock_cached(cpu: int | None = None) -> ClockCalibration:
    """:func:`calibrate_clock` once per process and CPU (for repeated measurements)."""
    return calibrate_clock(cpu=cpu)


def measure_fma_throughput(clock: ClockCalibration, duration: float = 0.05,
                           repetitions: int = 3, cpu: int | None = None) -> FmaThroughput:
    """Count independent 512-bit FMAs per second and infer the FMA units.

    Why: the FLOPs-per-cycle peak of a machine file is usually taken from
    the number of FMA units, which differs between parts of one family (some
    Xeons have one 512-bit FMA unit, most two). Timing 12 independent FMA
    chains answers it: the clock under AVX-512 load is never higher than the
    scalar clock, so more than 1.1 FMAs per *scalar* cycle proves a second
    unit. The clock during FMA-heavy code then follows as FMAs per second /
    units (a lower bound: it assumes the units are kept busy).
    """
    if cpu is None:
        cpu = clock.cpu if clock.cpu is not None else default_cpu()
    if "avx512f" not in cpu_flags():
        raise ToolError("this CPU has no AVX-512; the FMA throughput probe needs it")
    samples, _ = _run(1, 2_000, duration, repetitions, cpu)
    rates = [n * 120 / t for n, t in samples]
    best = max(rates)
    per_cycle = best / clock.core_hz
    units = 2 if per_cycle > 1.1 else 1
    return FmaThroughput(fma_per_second=best, fma_per_scalar_cycle=per_cycle, fma_units=units,
                         fma_clock_hz=best / units, spread=(best - min(rates)) / best,
                         scalar_hz=clock.core_hz)


# ---------------------------------------------------------------- /proc/cpuinfo

def _cpuinfo_blocks() -> list[dict[str, str]]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    blocks = []
    for chunk in text.strip().split("\n\n"):
        entry = {}
        for line in chunk.splitlines():
            if ":" in line:
                key, value = line.split(":", 1)
                entry[key.strip()] = value.strip()
        blocks.append(entry)
    return blocks


def cpuinfo_hz(cpu: int | None = None) -> float | None:
    """'cpu MHz' of /proc/cpuinfo for ``cpu`` (or the first CPU), in Hz."""
    for block in _cpuinfo_blocks():
        if cpu is None or block.get("processor") == str(cpu):
            try:
                return float(block["cpu MHz"]) * 1e6
            except (KeyError, ValueError):
                return None
    return None


def nominal_hz(model_name: str | None = None) -> float | None:
    """The '@ 2.80GHz' of the model name, in Hz (None if it has none)."""
    if model_name is None:
        blocks = _cpuinfo_blocks()
        model_name = blocks[0].get("model name", "") if blocks else ""
    match = re.search(r"@\s*([\d.]+)\s*([GM])Hz", model_name)
    if not match:
        return None
    return float(match.group(1)) * (1e9 if match.group(2) == "G" else 1e6)


def describe_calibration(cal: ClockCalibration) -> str:
    """A few lines for people: clock, spread, comparison with TSC and cpuinfo."""
    ghz = ", ".join(f"{s / 1e9:.3f}" for s in cal.samples)
    lines = [f"core clock: {cal.core_hz / 1e9:.3f} GHz (CPU {cal.cpu}; spread "
             f"{100 * cal.spread:.1f} % over samples [{ghz}] GHz)",
             f"method: {cal.method}"]
    for label, value in (("TSC", cal.tsc_hz), ("/proc/cpuinfo 'cpu MHz'", cal.cpuinfo_hz),
                         ("nominal (model name)", cal.nominal_hz)):
        if value:
            lines.append(f"{label}: {value / 1e9:.3f} GHz (core clock / this = "
                         f"{cal.core_hz / value:.3f})")
    return "\n".join(lines)
