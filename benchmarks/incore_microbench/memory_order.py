#!/usr/bin/env python3
"""Loads and stores in grouped and interleaved orders: the evidence for ``memory_issue``.

Two sets of loops, both timed on this host with the clock-calibrated harness:

* **streams** (``--streams``): asm loops that walk three L1-resident arrays like compiled
  code (``b`` and ``c`` read, ``a`` written, 1272 elements of 16 B, the index advancing
  by the body's bytes), body = an order of ``L`` (``vmovupd`` load of ``c``), ``M``
  (``vfmadd213pd`` load-op of ``b``) and ``S`` (store to ``a``): the orders the ZEN5.yml
  comment cites (clang's 4x unrolled triad ``LLLLMMMMSSSS`` against ``LMS`` x 4, gcc's 8x
  unroll 16 loads then 8 stores against ``LMS`` x 8);
* **calibration orders** (default): the 11 orders of
  :mod:`kerncraft.dbtools.calibrate_memissue` in its own harness (what
  ``kerncraft-machine`` times), with the fitted pick.

Usage::

    python benchmarks/incore_microbench/memory_order.py [--streams] [--cpu N] [--runs R]

prints measured cycles per order, the pick of the port model's ``memory_issue`` (ZEN5 if
the host's database has none) and optimal packing (what port balancing assumes).
"""
from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from kerncraft.dbtools.calibrate_memissue import (ORDERS, default_order_measure,
                                                  fit_memory_issue, measure_order_timings)
from kerncraft.dbtools.microbench import calibrated_clock
from kerncraft.incore.analysis import load_model
from kerncraft.incore.memissue import MemoryIssue, issue_bound

STREAM_ORDERS = {"LMS x 4 (interleaved)": "LMS" * 4, "LLLLMMMMSSSS (clang 4x)": "LLLLMMMMSSSS",
                 "LLS x 4": "LLS" * 4, "8 L then 4 S": "L" * 8 + "S" * 4,
                 "16 L then 8 S (gcc 8x)": "L" * 16 + "S" * 8, "LMS x 8": "LMS" * 8}

_HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void kernel(double *a, const double *b, const double *c, long n);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
                          return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char **argv) {
    long n = atol(argv[1]), reps = atol(argv[2]);
    char *p = aligned_alloc(4096, 3 * 16384);
    double *a = (double *)p, *b = (double *)(p + 16384 + 64), *c = (double *)(p + 32768 + 128);
    for (long i = 0; i < n; i++) { a[i] = 0; b[i] = i; c[i] = 2 * i; }
    double best = 1e30;
    for (long r = 0; r < reps; r++) {
        double t0 = now();
        for (int k = 0; k < 200; k++) kernel(a, b, c, n);
        double t = (now() - t0) / 200;
        if (t < best) best = t;
    }
    printf("%.9e\n", best);
    return 0;
}
"""


def _stream_asm(order: str) -> tuple[str, int]:
    """The kernel(a, b, c, n) loop of ``order`` (n in doubles) and its bytes per pass."""
    count = {kind: 0 for kind in "LMS"}
    body = []
    for kind in order:
        k = count[kind]
        count[kind] += 1
        body.append({"L": f"vmovupd {16 * k}(%rdx,%rax), %xmm{2 + k % 12}",
                     "M": f"vfmadd213pd {16 * k}(%rsi,%rax), %xmm1, %xmm{2 + k % 12}",
                     "S": f"vmovupd %xmm{2 + k % 12}, {16 * k}(%rdi,%rax)"}[kind])
    step = 16 * max(count.values())
    lines = [".text", ".globl kernel", "kernel:", "xor %eax, %eax", "shl $3, %rcx",
             ".p2align 5", "1:", *body, f"add ${step}, %rax", "cmp %rcx, %rax", "jb 1b",
             "ret", '.section .note.GNU-stack,"",@progbits']
    return "\n".join(lines) + "\n", step


def time_stream(order: str, hz: float, cpu: int, runs: int) -> float:
    """Cycles per pass of ``order`` over 1272 elements (two lengths: start-up cancels)."""
    asm, step = _stream_asm(order)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "k.s").write_text(asm)
        (Path(tmp) / "h.c").write_text(_HARNESS)
        exe = Path(tmp) / "bench"
        subprocess.run(["gcc", "-O2", "-o", str(exe), str(Path(tmp) / "h.c"),
                        str(Path(tmp) / "k.s")], check=True)
        seconds = {}
        for n in (424, 1272):
            out = subprocess.run(["taskset", "-c", str(cpu), str(exe), str(n), str(runs)],
                                 check=True, capture_output=True, text=True).stdout
            seconds[n] = float(out)
    passes = (1272 - 424) * 8 / step
    return (seconds[1272] - seconds[424]) * hz / passes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", action="store_true",
                        help="time the three-array stream orders instead")
    parser.add_argument("--cpu", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    hz = calibrated_clock(args.cpu)
    pick = load_model("ZEN5").memory_issue
    packed = MemoryIssue(pick.loads, pick.stores, pick.loads + pick.stores, 1 << 10)
    print(f"core clock {hz / 1e9:.2f} GHz, CPU {args.cpu}; pick {pick.loads} loads, "
          f"{pick.stores} stores, {pick.total} per cycle among the {pick.window} oldest")
    if args.streams:
        print(f"{'order':28s} {'measured':>9s} {'pick':>6s} {'packed':>7s}")
        for name, order in STREAM_ORDERS.items():
            seq = order.replace("M", "L")
            cy = time_stream(order, hz, args.cpu, 20 * args.runs)
            print(f"{name:28s} {cy:9.2f} {issue_bound(seq, pick):6.2f} "
                  f"{issue_bound(seq, packed):7.2f}")
        return
    measure = default_order_measure(lambda: hz, args.cpu, False, True)
    timings = measure_order_timings(ORDERS, measure, args.runs)
    fit = fit_memory_issue(timings)
    print(f"fit: {fit.limits.loads}/{fit.limits.stores}/{fit.limits.total}, window "
          f"{fit.limits.window}: mean error {100 * fit.error:.1f} % (optimal packing "
          f"{100 * fit.unordered_error:.1f} %)")
    for t in timings:
        print(f"{t.order:26s} {t.cycles:7.3f} (spread {t.spread:.3f})  fit "
              f"{issue_bound(t.order, fit.limits):6.2f}  packed "
              f"{issue_bound(t.order, fit.unordered):6.2f}")


if __name__ == "__main__":
    main()
