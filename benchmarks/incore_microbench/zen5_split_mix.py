#!/usr/bin/env python3
"""The 3d-7pt loop body of gcc -O3 (512-bit) on Zen 5, in isolation: where its time goes.

kerncraft-validate measures 3d-7pt at 8.1 cy/CL plus about 15 cy per row in L1 on the
Zen 5 host, against 6.5-6.75 cy/CL of the ZEN5 model (7 zmm loads, 6 of them splitting a
cache line, one split zmm store). This script times the same instruction shapes through a
64 KiB buffer (rows 2400 B apart, planes 7200 B, every access 8 B past a line boundary, as
the kernel's i-1/i/i+1 accesses are), with parts removed, using the project's
clock-calibrated harness (pinned, ``chrt -f 50`` where allowed).

Usage::

    python benchmarks/incore_microbench/zen5_split_mix.py [--cpu N]

Results: ``RESULTS-zen5.md`` (section "3d-7pt body").
"""
from __future__ import annotations

import argparse

from kerncraft.dbtools.microbench import calibrated_clock, measure_body

CENTRE, STORE = 16384, 40960 + 2048   # store 2 KiB apart modulo 4 KiB (no 4K aliasing)
OFFSETS = (0, -8, 8, -2400, 2400, -7200, 7200)      # i, i-1, i+1, j-1, j+1, k-1, k+1


def kernel_body(shift: int, store: bool = True) -> list[str]:
    """gcc's body: a load, five adds with memory operands in one chain, mul, FMA, store."""
    body = [f"        vmovupd {CENTRE + shift}(%r14,%rcx), %zmm4"]
    for j, d in enumerate(OFFSETS[1:6]):
        body.append(f"        vaddpd {CENTRE + shift + d}(%r14,%rcx), "
                    f"{'%zmm4' if j == 0 else '%zmm0'}, %zmm0")
    body += ["        vmulpd %zmm10, %zmm0, %zmm0",
             f"        vfmadd231pd {CENTRE + shift + 7200}(%r14,%rcx), %zmm12, %zmm0"]
    if store:
        body.append(f"        vmovupd %zmm0, {STORE + shift}(%r14,%rcx)")
    return body


def loads_only(shift: int) -> list[str]:
    return [f"        vmovupd {CENTRE + shift + d}(%r14,%rcx), %zmm{j + 1}"
            for j, d in enumerate(OFFSETS)]


CASES = {
    "kernel body (7 split loads, split store)": lambda: kernel_body(8),
    "kernel body without the store": lambda: kernel_body(8, store=False),
    "7 split loads alone": lambda: loads_only(8),
    "split store alone": lambda: [f"        vmovupd %zmm0, {STORE + 8}(%r14,%rcx)"],
    "kernel body, centre aligned (i-1, i+1 split)": lambda: kernel_body(0),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", type=int, default=None)
    args = ap.parse_args()
    hz = calibrated_clock(args.cpu)
    print(f"core clock {hz / 1e9:.3f} GHz (calibrated)")
    for name, make in CASES.items():
        body = ["        xorl %ecx, %ecx"]
        for _ in range(8):                   # 8 iterations, the index wraps within 4 KiB
            body += make() + ["        addq $64, %rcx", "        andq $4095, %rcx"]
        cy = measure_body(body, core_hz=hz, width="zmm", cpu=args.cpu) * len(body) / 8
        print(f"{name:46s} {cy:6.2f} cy per iteration", flush=True)


if __name__ == "__main__":
    main()
