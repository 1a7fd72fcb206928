#!/usr/bin/env python3
"""Measure the memory-dependency cases of this directory on the host; print a table.

Each ``*.s`` file here is a complete function; a small C driver (below) calls it on
L1-resident data, the harness of :mod:`kerncraft.dbtools.microbench` takes the
minimum time of many calls (pinned with taskset, ``chrt -f 50`` where allowed),
and :func:`kerncraft.measure.clock.calibrate_clock` converts seconds to core cycles.
Predictions come from ``kerncraft-incore`` (``analyze_text``) with the given
databases, with and without memory-carried dependencies.

    python tests/data/asm_memdeps/measure.py [--arch ICX --arch SKX] [--cpu 1] [--runs 3]

Not a test (it takes about a minute); the results are in benchmarks/RESULTS-memdeps.md.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: file -> (C declarations + bench() body, source iterations per bench() iteration)
CASES: dict[str, tuple[str, int]] = {
    "pi_o1_paper.s": ("double pi_o1(int n); volatile double sink;\n"
                      "void bench(long it, void *buf) { (void)buf; sink = pi_o1((int)it); }", 1),
    "gs2d5pt_gcc12_O1.s": ("void kernel(long M, long N, double s, double *a);\n"
                           "void dummy(void *p) { __asm__ volatile(\"\" :: \"r\"(p) : \"memory\"); }\n"
                           "void bench(long it, void *buf) { for (long k = 0; k < it; ++k)"
                           " kernel(6, 400, 0.25, (double *)buf); }", 4 * 398),
    "recurrence_gcc12_O1.s": ("void recurrence(long n, double s, double *a, const double *b);\n"
                              "void bench(long it, void *buf) { double *a = buf; for (long k = 0;"
                              " k < it; ++k) recurrence(1000, 0.5, a, a + 2048); }", 999),
    "recurrence_gcc12_O2_novec.s": ("void recurrence(long n, double s, double *a, const double *b);\n"
                                    "void bench(long it, void *buf) { double *a = buf; for (long k"
                                    " = 0; k < it; ++k) recurrence(1000, 0.5, a, a + 2048); }", 999),
    "recurrence_gcc12_O2.s": ("void recurrence(long n, double s, double *a, const double *b);\n"
                              "void bench(long it, void *buf) { double *a = buf; for (long k = 0;"
                              " k < it; ++k) recurrence(1000, 0.5, a, a + 2048); }", 999),
    "recurrence2_gcc12_O1.s": ("void recurrence2(long n, double s, double *a, const double *b);\n"
                               "void bench(long it, void *buf) { double *a = buf; for (long k = 0;"
                               " k < it; ++k) recurrence2(1000, 0.5, a, a + 2048); }", 998),
    "rmw_add.s": ("void rmw_add(long n, int *p, int x);\n"
                  "void bench(long it, void *buf) { rmw_add(it * 1000, (int *)buf + 64, 3); }", 1000),
    "rmw_add_moving.s": ("void rmw_add_moving(long n, int *x, int y);\n"
                         "void bench(long it, void *buf) { for (long k = 0; k < it; ++k)"
                         " rmw_add_moving(1000, (int *)buf + 64, 3); }", 1000),
    "update_gcc12_O1.s": ("void update(long n, double s, double *a);\n"
                          "void bench(long it, void *buf) { for (long k = 0; k < it; ++k)"
                          " update(1000, 1.0, (double *)buf + 8); }", 1000),
}


class _NoMemory:
    """A port model seen without store forwarding: register/flag dependencies only."""

    def __init__(self, model):
        self._model = model
        self.store_forward_latency = None

    def __getattr__(self, name):
        return getattr(self._model, name)


def predict(name: str, arch: str, memory: bool = True):
    from kerncraft.incore.analysis import analyze_text, load_model
    model = load_model(arch)
    if not memory:
        model = _NoMemory(model)
    return analyze_text((HERE / name).read_text(), arch, filename=name, model=model)


def measure(name: str, cpu: int | None, core_hz: float) -> float:
    from kerncraft.dbtools.microbench import build_program, time_loop
    driver, work = CASES[name]
    exe = build_program({name: (HERE / name).read_text()}, {"driver.c": driver},
                        flags=("-O2", "-march=native"))
    return time_loop(exe, work, core_hz=core_hz, cpu=cpu, target_seconds=0.003, repetitions=50)


def main(argv=None) -> int:
    sys.path.insert(0, str(HERE.parents[2]))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", action="append", help="databases to predict with (default ICX, SKX)")
    ap.add_argument("--cpu", type=int, default=None)
    ap.add_argument("--runs", type=int, default=3, help="measurements per case (min is kept)")
    ap.add_argument("--only", nargs="*", help="substrings of case file names")
    args = ap.parse_args(argv)
    archs = args.arch or ["ICX", "SKX"]
    from kerncraft.measure.clock import calibrate_clock
    cal = calibrate_clock(cpu=args.cpu)
    print(f"core clock {cal.core_hz / 1e9:.3f} GHz (spread {100 * cal.spread:.1f} %), "
          f"CPU {cal.cpu}")
    head = "| case | measured cy/it |"
    for a in archs:
        head += f" {a} TP / LCD / FE | {a} pred. | error | {a} without memdeps | error |"
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for name in CASES:
        if args.only and not any(o in name for o in args.only):
            continue
        cy = min(measure(name, args.cpu, cal.core_hz) for _ in range(args.runs))
        row = f"| `{name}` | {cy:.2f} |"
        for a in archs:
            r = predict(name, a)
            nomem = predict(name, a, memory=False)
            err = (r.prediction - cy) / cy
            err0 = (nomem.prediction - cy) / cy
            row += (f" {r.throughput:.2f} / {r.lcd:.2f} / {r.frontend:.2f} | {r.prediction:.2f} |"
                    f" {100 * err:+.0f} % | {nomem.prediction:.2f} | {100 * err0:+.0f} % |")
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
