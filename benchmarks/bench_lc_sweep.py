"""Time a 200-point N sweep of the 3D 7-point stencil with the LC predictor on CSX.

Run: ``python benchmarks/bench_lc_sweep.py [POINTS] [NMIN] [NMAX]``.

What is timed (wall and CPU seconds):

1. the symbolic layer-condition analysis, done once (parse excluded);
2. ``evaluate`` at every point (TrafficResult with notes) - what ``-P LC``
   needs per point for ECM/Roofline;
3. ``predict_traffic_lc`` on bound kernels (what ECM/Roofline call per
   point; the analysis is cached by kernel source);
4. the full ``-p LC`` model per point (report text + JSON data), going
   through the cached analysis exactly as the CLI does for a -D range.

Target (issue): the whole sweep in a few seconds at most. The script also
prints where the L1/L2/L3 regimes change along the sweep, so a regression in
the numbers is visible next to a regression in speed.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import kerncraft
from kerncraft.cache.layer_conditions import lc_analysis, predict_traffic_lc
from kerncraft.runner.run import model_report

KERNELS = Path(__file__).resolve().parent.parent / "kernels"


def _timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str]) -> int:
    points = int(argv[1]) if len(argv) > 1 else 200
    nmin = int(argv[2]) if len(argv) > 2 else 10
    nmax = int(argv[3]) if len(argv) > 3 else 1000
    machine = kerncraft.load_machine("CSX")
    path = KERNELS / "3d-7pt.c"
    kernel = kerncraft.parse_kernel(path.read_text(), str(path))
    sizes = [nmin + round(k * (nmax - nmin) / max(1, points - 1)) for k in range(points)]
    binds = [{"N": n, "M": n, "L": n} for n in sizes]

    analysis, wall_a, cpu_a = _timed(lambda: lc_analysis(kernel, machine))
    results, wall_e, cpu_e = _timed(lambda: [analysis.evaluate_point(b) for b in binds])
    bound = [kernel.bind(b) for b in binds]
    _, wall_p, cpu_p = _timed(lambda: [predict_traffic_lc(k, machine) for k in bound])
    args = argparse.Namespace(cores=1)
    _, wall_m, cpu_m = _timed(lambda: [model_report("LC", kernel.bind(b), machine, args)
                                       for b in binds])

    print(f"3d-7pt on CSX, {points} points N=M=L={nmin}..{nmax}")
    print(f"  symbolic analysis (once): {wall_a:7.3f} s wall {cpu_a:7.3f} s CPU")
    print(f"  evaluate per point      : {wall_e:7.3f} s wall {cpu_e:7.3f} s CPU "
          f"({1e3 * wall_e / points:.2f} ms/point)")
    print(f"  predict_traffic_lc/point: {wall_p:7.3f} s wall {cpu_p:7.3f} s CPU "
          f"({1e3 * wall_p / points:.2f} ms/point, bound kernels, cached analysis: ECM path)")
    print(f"  -p LC model per point   : {wall_m:7.3f} s wall {cpu_m:7.3f} s CPU "
          f"({1e3 * wall_m / points:.2f} ms/point, incl. bind + report)")
    total = wall_a + wall_e
    print(f"  sweep total (analysis + evaluation): {total:.3f} s")
    previous = None
    for n, res in zip(sizes, results):
        state = tuple(res.holding.values())
        if state != previous:
            loads = ", ".join(f"{lv.level} {lv.loads:.2f}" for lv in res.traffic.levels)
            print(f"    from N={n:5d}: conditions held {dict(res.holding)}  loads/unit: {loads}")
            previous = state
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
