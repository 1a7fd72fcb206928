#!/usr/bin/env python3
"""Consumer-dependent FP latency on AMD Zen 5: the ``bypass: fadd`` group of ``ZEN5.yml``.

A chain of dependent FADDs runs at 2 cy per instruction, but a FADD result consumed by
anything else (FMUL, FMA, FMAX, logic, shuffle, blend, vmovq to a GPR, a store) arrives
after 3 cy. FMUL/FMA results show no such difference. Each case below is one dependency
chain (every instruction reads the previous one's result through %xmm0), repeated to fill
a 96-instruction loop body and timed with the project's clock-calibrated harness
(:func:`kerncraft.dbtools.microbench.measure_body`: pinned, ``chrt -f 50`` where allowed,
minimum of 60 runs). Next to the measurement the script prints the loop-carried
dependency the static analyzer computes for the same chain with the ZEN5 database, so the
table checks the database rule (and shows what it would be without it).

Usage::

    python benchmarks/incore_microbench/zen5_forwarding.py [SUBSTRING ...] [--cpu N]

Results: ``RESULTS-zen5.md`` (section "FADD forwarding").
"""
from __future__ import annotations

import argparse

from kerncraft.dbtools.microbench import calibrated_clock, measure_body
from kerncraft.incore.analysis import analyze_text

ADD = "        vaddsd %xmm14, %xmm0, %xmm0"
SUB = "        vsubsd %xmm14, %xmm0, %xmm0"
MUL = "        vmulsd %xmm14, %xmm0, %xmm0"
FMA = "        vfmadd231sd %xmm14, %xmm15, %xmm0"
AND = "        vandpd %xmm14, %xmm0, %xmm0"
MAX = "        vmaxsd %xmm14, %xmm0, %xmm0"
PERM = "        vpermilpd $0, %xmm0, %xmm0"
BLEND = "        vblendpd $1, %xmm14, %xmm0, %xmm0"
GPR = ["        vmovq %xmm0, %rax", "        vmovq %rax, %xmm0"]   # FP -> GPR -> FP round trip
ADDZ = "        vaddpd %zmm14, %zmm0, %zmm0"
MULZ = "        vmulpd %zmm14, %zmm0, %zmm0"

# name -> one period of the chain
CASES: dict[str, list[str]] = {
    "add": [ADD],
    "add, sub": [ADD, SUB],
    "mul": [MUL],
    "fma": [FMA],
    "add, mul": [ADD, MUL],
    "add, add, add, mul": [ADD, ADD, ADD, MUL],
    "add, add, mul, mul": [ADD, ADD, MUL, MUL],
    "fma, add": [FMA, ADD],
    "fma, add, add, add": [FMA, ADD, ADD, ADD],
    "add zmm, mul zmm": [ADDZ, MULZ],
    "and": [AND],
    "add, and": [ADD, AND],
    "max": [MAX],
    "add, max": [ADD, MAX],
    "permilpd": [PERM],
    "add, permilpd": [ADD, PERM],
    "blend": [BLEND],
    "add, blend": [ADD, BLEND],
    "gpr round trip": GPR,
    "add, gpr round trip": [ADD] + GPR,
    "mul, gpr round trip": [MUL] + GPR,
    "add, mul, gpr round trip": [ADD, MUL] + GPR,
    "mul, add, gpr round trip": [MUL, ADD] + GPR,
    "add, add, gpr round trip": [ADD, ADD] + GPR,
    "add, vmovapd (eliminated)": ["        vaddpd %zmm14, %zmm0, %zmm1", "        vmovapd %zmm1, %zmm0"],
    "add, vmovapd, mul": ["        vaddpd %zmm14, %zmm0, %zmm1", "        vmovapd %zmm1, %zmm2",
                          "        vmulpd %zmm14, %zmm2, %zmm0"],
    "store -> load": ["        vmovsd %xmm0, 8192(%r14)", "        vmovsd 8192(%r14), %xmm0"],
    "add (mem) -> store -> load": ["        vaddsd 8192(%r14), %xmm14, %xmm0",
                                   "        vmovsd %xmm0, 8192(%r14)"],
}


def model_lcd(chain: list[str]) -> float:
    """Loop-carried dependency of one period of the chain with the ZEN5 database."""
    text = ".L1:\n" + "\n".join(chain) + "\n        decq %r15\n        jnz .L1\n"
    return analyze_text(text, "ZEN5").lcd


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("only", nargs="*", help="substrings of case names")
    ap.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default: the last one)")
    args = ap.parse_args()
    hz = calibrated_clock(args.cpu)
    print(f"core clock {hz / 1e9:.3f} GHz (calibrated)")
    print(f"{'chain (one period)':32s} {'measured':>9s} {'model':>6s}  cy per period")
    for name, chain in CASES.items():
        if args.only and not any(o in name for o in args.only):
            continue
        body: list[str] = []
        while len(body) + len(chain) <= 96:
            body += chain
        cy = measure_body(body, core_hz=hz, width="zmm", cpu=args.cpu) * len(chain)
        print(f"{name:32s} {cy:9.2f} {model_lcd(chain):6.2f}", flush=True)


if __name__ == "__main__":
    main()
