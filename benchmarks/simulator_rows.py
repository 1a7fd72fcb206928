#!/usr/bin/env python3
"""Chains that restart with every row: static LCD bound vs the simulation with row restarts.

For each kernel point the script prints the static T_OL (the LCD bound, cy/CL) and the
simulated T_OL of ``-i kerncraft-sim`` (the chain restarts every row, the machine file's
database decides the scheduler), plus the simulation at other scheduler sizes for
comparison. The measured values of the Zen 5 host (medians of nine ``kerncraft-validate``
runs, benchmarks/RESULTS-validation.md) are printed beside where known. No measurement is
made here.

Usage::

    python benchmarks/simulator_rows.py [-m machine-files/ZEN5-VM.yml] [--schedulers 224 96]

Results: ``RESULTS-simulator.md`` (section "Rows that restart the chain").
"""
from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import kerncraft
from kerncraft.incore.analysis import load_model
from kerncraft.incore.cycle_sim import run_simulation
from kerncraft.incore.bottleneck_sim import _program, config_for
from kerncraft.incore.split_uops import with_split_uops
from kerncraft.models.incore_prediction import predict_incore
from kerncraft.models.row_overlap import row_length

ROOT = Path(__file__).resolve().parents[1]
# kernel, defines, measured cy/CL on the Zen 5 host (median of nine validation runs)
POINTS = [("matvec", {"N": 48, "M": 48}, 6.88), ("matvec", {"N": 160, "M": 160}, 10.83),
          ("matvec", {"N": 720, "M": 720}, 15.25),
          ("gs-2d-5pt", {"N": 162, "M": 20}, 72.22), ("gs-2d-5pt", {"N": 482, "M": 60}, 77.98),
          ("gs-2d-5pt", {"N": 2050, "M": 256}, 80.45)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--machine", default=str(ROOT / "machine-files/ZEN5-VM.yml"))
    ap.add_argument("--schedulers", type=int, nargs="*", default=[224],
                    help="other scheduler sizes to simulate (default: 224 = rob/2 of Zen 5)")
    args = ap.parse_args()
    machine = kerncraft.load_machine(args.machine)
    model = load_model(machine.in_core_model["kerncraft"])
    others = " | ".join(f"sched. {s}" for s in args.schedulers)
    print(f"| kernel | defines | row (asm it.) | static | simulated | {others} | measured |")
    print("|---|---|---:|---:|---:|" + "---:|" * len(args.schedulers) + "---:|")
    for name, defines, measured in POINTS:
        kernel = kerncraft.parse_kernel((ROOT / f"kernels/{name}.c").read_text(),
                                        f"{name}.c").bind(defines)
        static = predict_incore(kernel, machine, iterations_per_cacheline=8)
        sim = predict_incore(kernel, machine, iterations_per_cacheline=8,
                             incore_model="kerncraft-sim")
        rows = row_length(kernel, static.selection, static.analysis)
        scale = 8 / static.selection.iterations_per_asm_iteration
        prog = _program(with_split_uops(static.analysis, static.line_splits), model)
        alt = []
        for size in args.schedulers:
            cfg = replace(config_for(model, iterations=max(400, 6 * (rows or 1)),
                                     scheduler_size=size), row_length=rows)
            alt.append(f"{run_simulation(prog, cfg, details=False).cycles_per_iteration * scale:.2f}")
        point = " ".join(f"{k}={v}" for k, v in defines.items())
        print(f"| {name} | {point} | {rows} | {static.t_ol:.2f} | {sim.t_ol:.2f} | "
              + " | ".join(alt) + f" | {measured:.2f} |", flush=True)


if __name__ == "__main__":
    main()
