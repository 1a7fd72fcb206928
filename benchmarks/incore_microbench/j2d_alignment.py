#!/usr/bin/env python3
"""The OSACA thesis' 2D Jacobi benchmark shape on this host: does the in-core model
hold once it knows where the arrays really are?

The thesis measured J2D (Table 4.9) with a harness (RRZE-HPC/OSACA-Artifact-Appendix,
``benchmarks/j2d/j2d.c``) that sweeps *one* row of three-row arrays, rows of N+1
doubles, the source array shifted by one double from its 64-B allocation, for N = 1250,
1186, ..., 226, and reports the best of all sizes and runs. Every array fits in L1;
which vector accesses cross a cache line follows from the shift and the row length,
not from anything in the loop's text.

This script runs the same shape (its own C code), compiled by the host's gcc for
SSE, AVX2 and AVX-512, for the thesis' layout (shift 1, pad 1) and for others, and
compares the measured cycles per assembly iteration with ``kerncraft-incore`` under

* the default assumption (``--alignment 64``: every address register line-aligned at
  loop entry), and
* the real entry values of the loop's registers (``--register-value``), read with gdb
  at the first entry into the loop (line splits, and the 4K-aliasing notes).

Needs gcc, gdb and objdump; pinned measurement (``chrt -f 50`` where allowed).

Usage::

    python benchmarks/incore_microbench/j2d_alignment.py [--cpu 1] [--arch DB]
    python benchmarks/incore_microbench/j2d_alignment.py --placement   # code placement

Results: ``RESULTS-zen5.md`` beside this script (section "J2D as the thesis measured it").
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

KERNEL = r"""
void sweep(long M, long N, long Np, double *restrict a, double *restrict b, double c0) {
  for (long j = 1; j < M - 1; ++j)
    for (long i = 1; i < N - 1; ++i) {
      long idx = j * Np + i;
      b[idx] = c0 * (a[idx - 1] + a[idx - Np] + a[idx + Np] + a[idx + 1]);
    }
}
"""
MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void sweep(long M, long N, long Np, double *restrict a, double *restrict b, double c0);
void dummy(double *p) { if (p == 0) puts(""); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
                          return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char **argv) {
  long N = atol(argv[1]), shift = atol(argv[2]), pad = atol(argv[3]), M = 3, Np = N + pad;
  double *a = (double *)aligned_alloc(4096, (M * Np + 4096) * sizeof(double)) + shift;
  double *b = (double *)aligned_alloc(4096, (M * Np + 4096) * sizeof(double));
  for (long k = 0; k < M * Np; ++k) { a[k] = 1e-7; b[k] = 0; }
  double best = 1e30;
  for (int pass = 0; pass < 5; ++pass) {
    long rep = 1; double t = 0;
    for (;;) { double t0 = now();
      for (long r = 0; r < rep; ++r) { if (a[0] < 0) dummy(a); sweep(M, N, Np, a, b, 0.25); }
      t = now() - t0; if (t > 0.05) break; rep *= 2; }
    if (t / rep < best) best = t / rep;
  }
  printf("%.9e\n", best / (double)(N - 2));     /* seconds per lattice update */
  return 0;
}
"""

WIDTHS = {"sse": (["-O3", "-march=x86-64-v2"], 2),
          "avx2": (["-O3", "-march=native", "-mprefer-vector-width=256"], 4),
          "avx512": (["-O3", "-march=native", "-mprefer-vector-width=512"], 8)}
LAYOUTS = {"thesis (shift 1, pad 1)": (1, 1), "shift 0, pad 0": (0, 0),
           "shift 0, pad 6 (rows 64-B multiples at N=1250)": (0, 6)}
SIZES = (1250, 994, 738)
GPRS = ("rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15").split()


def build(tmp: Path, width: str) -> tuple[Path, str]:
    flags, _ = WIDTHS[width]
    kernel, main = tmp / "sweep.c", tmp / "main.c"
    kernel.write_text(KERNEL)
    main.write_text(MAIN)
    exe = tmp / f"j2d_{width}"
    # -no-pie: objdump's addresses are the run-time ones, for gdb's breakpoint
    subprocess.run(["gcc", *flags, "-no-pie", "-o", str(exe), str(kernel), str(main)],
                   check=True)
    asm = subprocess.run(["gcc", *flags, "-S", "-o", "-", str(kernel)], check=True,
                         capture_output=True, text=True).stdout
    return exe, asm


def entry_registers(exe: Path, address: int, args: list[str]) -> dict[str, int]:
    """General-purpose registers at the first arrival at ``address`` (gdb, batch mode)."""
    out = subprocess.run(["gdb", "-q", "-batch", "-ex", f"break *{address:#x}",
                          "-ex", "run " + " ".join(args), "-ex", "info registers",
                          "-ex", "kill", str(exe)],
                         check=True, capture_output=True, text=True).stdout
    if "Breakpoint 1," not in out:
        raise RuntimeError(f"gdb did not stop at {address:#x}:\n{out}")
    values = dict(re.findall(r"^(r\w+)\s+(0x[0-9a-f]+)", out, re.M))
    missing = [r for r in GPRS if r not in values]
    if missing:
        raise RuntimeError(f"gdb did not report {missing}:\n{out}")
    return {r: int(values[r], 16) for r in GPRS}


def predicted(asm: str, arch: str, values: dict[str, int] | None
              ) -> tuple[float, float, str]:
    """(static prediction, simulated cycles, split shares) per assembly iteration."""
    from kerncraft.incore.analysis import analyze_text, load_model
    from kerncraft.incore.bottleneck_sim import simulate
    res = analyze_text(asm, arch, split_alignment=64, register_addresses=values)
    split = res.line_splits
    share = ", ".join(f"{r.kind} {r.fraction:.0%}" for r in split.rows) if split else "-"
    aliases = sum(n.startswith("4K aliasing") for n in res.notes)
    if aliases:
        share += f"; 4K aliasing note x{aliases}"
    return res.prediction, simulate(res, load_model(arch)).cycles_per_iteration, share


def measure(exe: Path, args: list[str], cpu: int, hz: float, per_iteration: int) -> float:
    from incore_probes import _pinned
    out = subprocess.run(_pinned([str(exe), *args], cpu, True), check=True, capture_output=True,
                         text=True).stdout
    return float(out) * hz * per_iteration


def main() -> None:
    from kerncraft.dbtools.microbench import calibrated_clock
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--arch", default=None,
                    help="in-core database (default: the one of this host's core, from CPUID)")
    ap.add_argument("--placement", action="store_true",
                    help="instead: the SSE build in the thesis layout with its loop placed at "
                         "each multiple of 8 B in a 64-B code block")
    opts = ap.parse_args()
    if opts.arch is None:
        from kerncraft.measure.topology import host_incore_model
        opts.arch = host_incore_model()
        if opts.arch is None:
            raise SystemExit("this host's core has no in-core database; pass --arch")
    hz = calibrated_clock(opts.cpu)
    print(f"core clock {hz / 1e9:.2f} GHz; cycles per assembly iteration; predictions of "
          f"kerncraft-incore --arch {opts.arch}\n")
    with tempfile.TemporaryDirectory(prefix="kc-j2d-") as name:
        if opts.placement:
            placement_sweep(Path(name), opts, hz)
        else:
            layout_table(Path(name), opts, hz)


def layout_table(tmp: Path, opts: argparse.Namespace, hz: float) -> None:
    from incore_validation import locate_loop
    from kerncraft.incore.analysis import analyze_text
    print("| width | layout | N | measured | default (64-B aligned) | err % "
          "| entry registers | err % | simulated (entry) | err % | splits, notes (entry) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    errors: dict[str, list[float]] = {"default": [], "entry": [], "simulated": []}
    for width, (_, simd) in WIDTHS.items():
        exe, asm = build(tmp, width)
        loop = analyze_text(asm, opts.arch).instructions
        site = locate_loop(exe, loop)
        if site is None:
            raise SystemExit(f"{width}: the analysed loop is not in the executable")
        per_it = simd * max(1, _unroll(loop, simd))
        default = predicted(asm, opts.arch, None)[0]
        for layout, (shift, pad) in LAYOUTS.items():
            for n in SIZES:
                args = [str(n), str(shift), str(pad)]
                entry, sim, share = predicted(asm, opts.arch,
                                              entry_registers(exe, site[0], args))
                cy = measure(exe, args, opts.cpu, hz, per_it)
                errs = {k: (v - cy) / cy * 100 for k, v in
                        (("default", default), ("entry", entry), ("simulated", sim))}
                for key, err in errs.items():
                    errors[key].append(abs(err))
                print(f"| {width} | {layout} | {n} | {cy:.2f} | {default:.2f} | "
                      f"{errs['default']:+.0f} | {entry:.2f} | {errs['entry']:+.0f} | "
                      f"{sim:.2f} | {errs['simulated']:+.0f} | {share} |", flush=True)
    for key, vals in errors.items():
        print(f"\n{key}: median |error| {statistics.median(vals):.1f} %, "
              f"worst {max(vals):.1f} % ({len(vals)} cases)", end="")
    print()


def placement_sweep(tmp: Path, opts: argparse.Namespace, hz: float) -> None:
    """The same loop at other code addresses: nop padding before its label (executed
    once per row) after aligning it to 64 B."""
    flags, simd = WIDTHS["sse"]
    build(tmp, "sse")                                   # writes sweep.c and main.c
    asm = subprocess.run(["gcc", *flags, "-S", "-o", "-", str(tmp / "sweep.c")], check=True,
                         capture_output=True, text=True).stdout
    label = re.findall(r"\tjne\t(\.L\d+)", asm)[0]   # gcc emits the innermost loop first
    for offset in range(0, 64, 8):
        pad = f"\t.skip {offset}, 0x90\n" if offset else ""
        text = asm.replace(f"\n{label}:\n", f"\n\t.p2align 6\n{pad}{label}:\n", 1)
        (tmp / "placed.s").write_text(text)
        exe = tmp / "placed"
        subprocess.run(["gcc", *flags, "-o", str(exe), str(tmp / "placed.s"),
                        str(tmp / "main.c")], check=True)
        cy = min(measure(exe, ["1250", "1", "1"], opts.cpu, hz, simd) for _ in range(3))
        print(f"loop at {offset:2d} B into a 64-B block: {cy:.2f} cy per assembly iteration",
              flush=True)


def _unroll(loop, simd: int) -> int:
    """Vectors per assembly iteration: the pointer advance over the vector size."""
    from kerncraft.incore.model import Immediate
    steps = [i.operands[0].value for i in loop
             if i.mnemonic.startswith("add") and isinstance(i.operands[0], Immediate)]
    return max(steps, default=8 * simd) // (8 * simd)


if __name__ == "__main__":
    main()
