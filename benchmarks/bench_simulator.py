"""Wall time of the cycle-level simulator (kerncraft/incore/cycle_sim.py) on a
200-instruction loop body (issue 11: under 0.5 s).

    python benchmarks/bench_simulator.py [--repeat 5]

The main loop is generated: 25 blocks of 8 instructions (two loads, a memory-source
add, an FMA chain, a multiply, a store, a pointer add, a compare), SKX database.
Prints the static analysis time, the time of one simulation run and of the full
``simulate`` (the run plus the three bottleneck variants), best of ``--repeat``;
then the full ``simulate`` of three harder 200-instruction bodies: one FMA chain
(800 cy per iteration), 200 independent vdivpd (divider, 1600 cy) and 100
load-add-store pairs (ports).
"""
from __future__ import annotations

import argparse
import time

from kerncraft.incore.analysis import analyze, load_model
from kerncraft.incore.cycle_sim import build_program, run_simulation
from kerncraft.incore.bottleneck_sim import config_for, simulate
from kerncraft.incore.x86.parser import parse_x86


def loop_text(blocks: int = 25) -> str:
    """A straight-line body of ``8 * blocks`` instructions."""
    out = []
    for b in range(blocks):
        r0, r1, r2 = (b * 3) % 16, (b * 3 + 1) % 16, (b * 3 + 2) % 16
        off = 32 * b
        out += [f"vmovupd {off}(%rsi), %ymm{r0}",
                f"vmovupd {off}(%rdx), %ymm{r1}",
                f"vaddpd {off}(%rcx), %ymm{r0}, %ymm{r2}",
                f"vfmadd231pd %ymm{r1}, %ymm{r2}, %ymm{r0}",
                f"vmulpd %ymm15, %ymm{r0}, %ymm{r1}",
                f"vmovupd %ymm{r1}, {off}(%rdi)",
                "addq $8, %rax",
                "cmpq %rax, %r8"]
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    model = load_model("SKX")
    body = [ln.instruction for ln in parse_x86(loop_text()) if ln.instruction]
    best = {"analyze": 1e9, "one run": 1e9, "simulate (4 runs)": 1e9}
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        analysis = analyze(body, model)
        t1 = time.perf_counter()
        prog = build_program(analysis.graph, analysis.costs, analysis.fused_uops, model)
        run = run_simulation(prog, config_for(model))
        t2 = time.perf_counter()
        result = simulate(analysis, model)
        t3 = time.perf_counter()
        for key, dt in zip(best, (t1 - t0, t2 - t1, t3 - t2)):
            best[key] = min(best[key], dt)
    print(f"{len(body)} instructions, {run.iterations} iterations simulated: "
          f"{run.cycles_per_iteration:.2f} cy/it simulated, static {analysis.prediction:.2f}, "
          f"binding {result.binding.resource}")
    for key, dt in best.items():
        print(f"  {key:18s} {dt:.3f} s")
    hard = {
        "FMA chain": "".join("vfmadd231pd %ymm1, %ymm2, %ymm0\n" for _ in range(200)),
        "200 vdivpd": "".join(f"vdivpd %ymm1, %ymm2, %ymm{3 + i % 10}\n" for i in range(200)),
        "load-add-store": "".join(f"vaddpd {32 * i}(%rsi), %ymm{i % 8}, %ymm{i % 8}\n"
                                  f"vmovupd %ymm{i % 8}, {32 * i}(%rdi)\n" for i in range(100)),
    }
    for name, text in hard.items():
        analysis = analyze([ln.instruction for ln in parse_x86(text) if ln.instruction], model)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = simulate(analysis, model)
            times.append(time.perf_counter() - t0)
        print(f"  {name:18s} {min(times):.3f} s  ({result.run.iterations} iterations, "
              f"{result.cycles_per_iteration:.0f} cy/it simulated, static "
              f"{analysis.prediction:.0f}, binding {result.binding.resource})")


if __name__ == "__main__":
    main()
