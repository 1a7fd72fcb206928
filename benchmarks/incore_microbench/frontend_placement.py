#!/usr/bin/env python3
"""Front end: the same loop at other code addresses.

A loop of ``k`` NOPs (4 or 6 bytes each) plus ``decq``/``jnz`` (one fused uop), for
k = 6..16, placed at each multiple of 8 B into a 64-B code block (``.p2align 6`` and NOP
padding before the loop label, executed once), timed with the project's clock-calibrated
harness (:mod:`kerncraft.dbtools.microbench`, pinned). NOPs take dispatch slots but no
execution port, so any time above max(1, uops / dispatch width) is the front end's.

Usage::

    python benchmarks/incore_microbench/frontend_placement.py [--cpu 1] [--nop-bytes 4]

Results (Zen 5 host): ``RESULTS-zen5.md`` beside this script, section "Front end: loop
placement".
"""
from __future__ import annotations

import argparse

from kerncraft.dbtools.microbench import build_program, calibrated_clock, loop_assembly, time_loop

NOPS = {4: "nopl 0(%rax)", 6: "nopw 0(%rax,%rax,1)"}
LOOP_CONTROL_BYTES = 5              # decq %r15 (3 B) + jnz rel8 (2 B)
OFFSETS = range(0, 64, 8)


def placed(body: list[str], offset: int) -> str:
    """The harness loop with its label ``offset`` bytes into a 64-B block."""
    pad = f"        .skip {offset}, 0x90\n" if offset else ""
    text = loop_assembly(body)
    anchor = "        .p2align 5\n.Lbench_loop:"
    if anchor not in text:
        raise RuntimeError("the microbenchmark prologue changed: no loop label to move")
    return text.replace(anchor, f"        .p2align 6\n{pad}.Lbench_loop:")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--nop-bytes", type=int, choices=sorted(NOPS), default=4)
    opts = ap.parse_args()
    hz = calibrated_clock(opts.cpu)
    print(f"core clock {hz / 1e9:.2f} GHz; cycles per iteration of k {opts.nop_bytes}-B NOPs "
          "+ decq/jnz, loop label at OFFSET B into a 64-B block\n")
    print("| k | uops | bytes | " + " | ".join(str(o) for o in OFFSETS) + " |")
    print("|---:|---:|---:|" + "---:|" * len(OFFSETS))
    for k in range(6, 17):
        body = ["        " + NOPS[opts.nop_bytes]] * k
        cycles = [time_loop(build_program(placed(body, off)), k, core_hz=hz, cpu=opts.cpu) * k
                  for off in OFFSETS]
        size = k * opts.nop_bytes + LOOP_CONTROL_BYTES
        print(f"| {k} | {k + 1} | {size} | " + " | ".join(f"{c:.2f}" for c in cycles) + " |",
              flush=True)


if __name__ == "__main__":
    main()
