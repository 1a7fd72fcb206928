#!/usr/bin/env python3
"""Zen 5 L1 streaming loops: loads/stores per iteration, unrolling, code placement.

Writes a C program of inline-assembly loops to a temporary directory, compiles it with
gcc and runs it pinned to the last CPU (under ``chrt -f 50`` when allowed). Every loop
streams through 8 kB arrays (L1-resident), 21 timed trials each; printed are the
minimum, lower quartile, median and maximum in core cycles per group (one group = one
zmm load per load stream and one zmm store per store stream). ``UK nL+mS`` is a loop
unrolled K times; ``@B`` starts the loop B bytes after a 64-byte boundary. Results and
their reading: ``RESULTS-zen5.md`` (section "Streaming loops in L1")::

    python benchmarks/incore_microbench/zen5_l1_mix.py [--runs 2]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HEAD = r"""#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <x86intrin.h>
static double tick_per_cycle(void) {
  long n = 20000000, x = 0, i = 0; uint64_t t0 = __rdtsc();
  __asm__ volatile(".p2align 6\n1: addq %%rdx,%0\n addq %%rdx,%0\n addq %%rdx,%0\n addq %%rdx,%0\n addq $1, %1\n cmpq %2, %1\n jne 1b"
    : "+r"(x), "+r"(i) : "r"(n), "d"(1L) : "cc");
  return (double)(__rdtsc() - t0) / (4.0 * n);
}
static int cmp(const void *x, const void *y) { double a = *(const double *)x, b = *(const double *)y; return (a > b) - (a < b); }
#define LOOP(body, step, skip) \
  for (long r = 0; r < reps; ++r) { long i = 0; \
    __asm__ volatile(".p2align 6\n .rept " #skip "\n nop\n .endr\n1:\n" body "addq $" #step ", %0\n cmpq %1, %0\n jne 1b" \
      : "+r"(i) : "r"(n), "r"(a), "r"(b), "r"(c), "r"(d), "r"(z), "r"(e), "r"(s1), "r"(s2) : "cc", "memory", "xmm0","xmm1","xmm2","xmm3","xmm9","xmm10","xmm11","xmm12","xmm31"); }
#define T 21
#define RUN(name, body, step, per, skip) { double v[T]; for (int t = 0; t < T; ++t) { uint64_t t0 = __rdtsc(); LOOP(body, step, skip); \
  v[t] = (double)(__rdtsc() - t0) / tick / reps / (n / (double)step) / per; } qsort(v, T, sizeof v[0], cmp); \
  printf("%-34s min %.3f  q25 %.3f  median %.3f  max %.3f\n", name, v[0], v[T/4], v[T/2], v[T-1]); fflush(stdout); }
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 4096, reps = 40000000 / n * 16;
  char *base = aligned_alloc(4096, 8 * 65536);
  for (int k = 0; k < 8 * 65536; ++k) base[k] = 1;
  char *s1 = base, *s2 = base + 65536 + 64, *a = base + 2*65536 + 128, *b = base + 3*65536 + 192,
       *c = base + 4*65536 + 256, *d = base + 5*65536 + 320, *e = base + 6*65536 + 384;
  long z = 0;
  double tick = tick_per_cycle();
  printf("tsc ticks per core cycle %.3f; bytes per array %ld\n", tick, n);
/*RUNS*/
  return 0;
}
"""

ARRAYS = ["%2", "%3", "%4", "%5", "%7"]
STORES = ["%8", "%9"]


def group(loads: int, stores: int, u: int, fold: bool = True) -> list[str]:
    """One group: a first zmm load, further loads folded into vaddpd (or plain loads),
    a vmulpd for a single load, then the stores of the result."""
    off, reg = 64 * u, f"%%zmm{u}"
    lines = []
    for n in range(loads):
        if n == 0:
            lines.append(f"vmovapd {off}({ARRAYS[n]},%0), {reg}")
        elif fold:
            lines.append(f"vaddpd {off}({ARRAYS[n]},%0), {reg}, {reg}")
        else:
            lines.append(f"vmovapd {off}({ARRAYS[n]},%0), %%zmm{9 + n}")
    if loads == 1 and stores:
        lines.append(f"vmulpd %%zmm31, {reg}, {reg}")
    for n in range(stores):
        lines.append(f"vmovapd {reg if loads else '%%zmm31'}, {off}({STORES[n]},%0)")
    return lines


def cases() -> list[tuple[str, str, int, int, int]]:
    out = []
    for unroll in (1, 2, 4):
        for loads, stores in ((0, 0), (2, 0), (1, 1), (2, 1), (3, 1), (4, 1), (2, 2)):
            body = sum((group(loads, stores, u) for u in range(unroll)), [])
            out.append((f"U{unroll} {loads}L+{stores}S", body, 64 * unroll, unroll, 0))
    for loads, stores in ((0, 0), (1, 1), (2, 1), (3, 1)):
        for skip in (0, 16, 32, 40, 48, 56):
            out.append((f"U1 {loads}L+{stores}S @{skip}", group(loads, stores, 0), 64, 1, skip))
    return out


def program() -> str:
    runs = []
    for name, body, step, per, skip in cases():
        text = "\\n".join(body) + ("\\n" if body else "")
        runs.append(f'  RUN("{name}", "{text}", {step}, {per}, {skip});')
    return HEAD.replace("/*RUNS*/", "\n".join(runs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="separate processes (default 1)")
    parser.add_argument("--bytes", type=int, default=8192, help="bytes per array (default 8192)")
    args = parser.parse_args(argv)
    cpu = str(os.cpu_count() - 1)
    with tempfile.TemporaryDirectory(prefix="kc-zen5-") as tmp:
        src, exe = os.path.join(tmp, "mix.c"), os.path.join(tmp, "mix")
        with open(src, "w") as handle:
            handle.write(program())
        subprocess.run(["gcc", "-O2", "-mavx512f", src, "-o", exe], check=True)
        prefix = ["chrt", "-f", "50"] if shutil.which("chrt") and os.geteuid() == 0 else []
        for _ in range(args.runs):
            subprocess.run(prefix + ["taskset", "-c", cpu, exe, str(args.bytes)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
