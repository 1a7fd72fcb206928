"""LC versus SIM for every bundled kernel on CSX, in three regimes each.

Run: ``python benchmarks/lc_vs_sim_table.py [--cli] [--cores C] [KERNEL ...]``.

For each kernel in ``kernels/*.c`` and three sizes (where the kernel's
largest reuse working set lands: whole arrays for 1D kernels, the three-row
layer for 2D stencils, the plane layer for 3D stencils, ``x``/``y`` for the
matrix-vector products) the script runs the layer-condition predictor
(``LC``: symbolic analysis of the unbound kernel + evaluation at the point,
i.e. what one cold ``-P LC`` call costs) and the cache simulator (``SIM``)
and prints, per link of :func:`kerncraft.cache.traffic.transfer_volumes`,
loads and stores in cache lines per unit of work, ``SIM - LC`` and the time
of each predictor. Rows where the two differ by more than 10 % (and more than
0.05 CL) are marked ``*``. The sizes:

* 1D: ``N = 400`` (all arrays in half of L1), ``12000`` (in half of L2),
  ``10^7`` (memory).
* 2D stencils: 3 rows of ``N`` doubles in L1 (``N=400, M=20000``), in L2
  (``N=8000, M=1000``), nowhere (``N=10^6, M=10``, three rows = 24 MB).
* 3D stencils: the plane layer in L1 (tiny ``N=M``, long ``L``), in L2
  (``N=M=100`` for the 7/27-point stencils, smaller for the wider ones) and
  nowhere (``N=M=1000``: a plane is 8 MB), plus the 14 MB-L3 case
  ``N=M=L=500`` for 3d-7pt and 3d-27pt.
* matvec / matvec_trans: the reused vector (``x`` resp. ``y``, N doubles)
  in L1 (``N=1000``), in L2 (``N=25000``: with one row of ``A`` 400 kB), nowhere
  (``N=4*10^6``).

``--cli`` also times the shell commands of the issue (cold processes, best
of 3): ``-p ECMData ... -P LC`` and ``-P SIM`` for 3d-7pt at N=M=L=500, and
the 200-point ``-p LC`` sweep. Results are recorded in
``benchmarks/RESULTS-traffic.md``.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import kerncraft
from kerncraft.cache.layer_conditions import lc_analysis
from kerncraft.cache.sim_predictor import predict_traffic_sim
from kerncraft.cache.traffic import transfer_volumes

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "kernels"

_1D = [("L1", {"N": 400}), ("L2", {"N": 12000}), ("MEM", {"N": 10_000_000})]
_2D = [("L1", {"N": 400, "M": 20000}), ("L2", {"N": 8000, "M": 1000}),
       ("MEM", {"N": 1_000_000, "M": 10})]
_3D = [("L1", {"N": 22, "M": 22, "L": 20000}), ("L2", {"N": 100, "M": 100, "L": 1000}),
       ("MEM", {"N": 1000, "M": 1000, "L": 10})]
_MV = [("L1", {"N": 1000, "M": 20000}), ("L2", {"N": 25000, "M": 800}),
       ("MEM", {"N": 4_000_000, "M": 5})]
_L3 = ("L3", {"N": 500, "M": 500, "L": 500})

SIZES = {
    **{k: _1D for k in ("add", "copy", "daxpy", "kahan-dot", "scalar_product", "striad",
                        "sum_reduction", "triad", "update")},
    "2d-5pt": _2D, "gs-2d-5pt": _2D,
    "3d-7pt": _3D + [_L3], "3d-27pt": _3D + [_L3],
    # radius-4 stencil: 9 planes of v plus u and roc must fit
    "3d-long-range": [("L1", {"N": 14, "M": 14, "L": 50000}),
                      ("L2", {"N": 60, "M": 60, "L": 3000}),
                      ("MEM", {"N": 1000, "M": 1000, "L": 16})],
    # about 9 planes (xz: 4, d1: 2, u1, xx, xy)
    "uxx": [("L1", {"N": 15, "M": 15, "L": 50000}), ("L2", {"N": 70, "M": 70, "L": 2000}),
            ("MEM", {"N": 1000, "M": 1000, "L": 10})],
    # about 16 planes (3 of p, one each of 13 coefficient/work arrays)
    "himeno": [("L1", {"N": 11, "M": 11, "L": 50000}), ("L2", {"N": 50, "M": 50, "L": 2000}),
               ("MEM", {"N": 800, "M": 800, "L": 8})],
    "matvec": _MV, "matvec_trans": _MV,
}

CLI_COMMANDS = [
    ("ECMData, LC, 3d-7pt N=M=L=500",
     "-p ECMData -m CSX kernels/3d-7pt.c -D N 500 -D M 500 -D L 500 -P LC"),
    ("ECMData, SIM, 3d-7pt N=M=L=500",
     "-p ECMData -m CSX kernels/3d-7pt.c -D N 500 -D M 500 -D L 500 -P SIM"),
    ("LC report, 200-point sweep N=10..1000, M=L=100",
     "-p LC -m CSX kernels/3d-7pt.c -D N 10-1000:200 -D M 100 -D L 100"),
]


def _timed(fn):
    wall = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - wall


def _close(lc: float, sim: float) -> bool:
    return abs(lc - sim) <= max(0.05, 0.10 * max(abs(lc), abs(sim)))


def compare(name: str, regime: str, binds: dict, machine, cores: int) -> dict:
    path = KERNELS / f"{name}.c"
    kernel = kerncraft.parse_kernel(path.read_text(), str(path))
    lc, lc_time = _timed(lambda: lc_analysis(kernel, machine, cores=cores).evaluate(binds))
    bound = kernel.bind(binds)
    sim, sim_time = _timed(lambda: predict_traffic_sim(bound, machine, cores=cores))
    links = [(t_lc.upper + "-" + t_lc.lower, t_lc.loads, t_lc.stores, t_sim.loads, t_sim.stores)
             for t_lc, t_sim in zip(transfer_volumes(lc), transfer_volumes(sim))]
    return {"kernel": name, "regime": regime, "binds": binds, "links": links,
            "lc_time": lc_time, "sim_time": sim_time,
            "differs": [link for link in links
                        if not (_close(link[1], link[3]) and _close(link[2], link[4]))]}


def print_table(rows: list[dict]) -> None:
    print("| kernel | regime | size | link | LC ld | LC st | SIM ld | SIM st "
          "| SIM-LC ld | SIM-LC st | LC s | SIM s |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        size = " ".join(f"{k}={v:g}" for k, v in sorted(row["binds"].items()))
        for pos, (link, lc_ld, lc_st, sim_ld, sim_st) in enumerate(row["links"]):
            mark = " *" if not (_close(lc_ld, sim_ld) and _close(lc_st, sim_st)) else ""
            head = (f"| {row['kernel']} | {row['regime']} | {size} " if pos == 0
                    else "| | | ")
            times = (f"| {row['lc_time']:.3f} | {row['sim_time']:.2f} |" if pos == 0
                     else "| | |")
            print(f"{head}| {link}{mark} | {lc_ld:.3f} | {lc_st:.3f} | {sim_ld:.3f} | "
                  f"{sim_st:.3f} | {sim_ld - lc_ld:+.3f} | {sim_st - lc_st:+.3f} {times}")


def time_cli(repeats: int = 3) -> None:
    exe = shutil.which("kerncraft")
    prefix = [exe] if exe else [sys.executable, "-m", "kerncraft.cli"]
    print("\n| command | best wall s | CPU s of that run |")
    print("|---|---:|---:|")
    for label, args in CLI_COMMANDS:
        best = None
        for _ in range(repeats):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall = time.perf_counter()
            subprocess.run(prefix + args.split(), cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL, env=dict(os.environ))
            wall = time.perf_counter() - wall
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            if best is None or wall < best[0]:
                best = (wall, cpu)
        print(f"| `kerncraft {args}` ({label}) | {best[0]:.2f} | {best[1]:.2f} |")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*", help="kernel names (default: all bundled)")
    parser.add_argument("--cores", type=int, default=1)
    parser.add_argument("--cli", action="store_true", help="also time the CLI commands")
    args = parser.parse_args(argv[1:])
    machine = kerncraft.load_machine("CSX")
    names = args.kernels or sorted(p.stem for p in KERNELS.glob("*.c"))
    rows = []
    for name in names:
        for regime, binds in SIZES[name]:
            rows.append(compare(name, regime, binds, machine, args.cores))
            print(f"# {name} {regime}: LC {rows[-1]['lc_time']:.3f} s, "
                  f"SIM {rows[-1]['sim_time']:.2f} s", file=sys.stderr, flush=True)
    print_table(rows)
    differing = [r for r in rows if r["differs"]]
    print(f"\n{len(rows)} cases, {len(differing)} with a link differing by more than 10 % "
          "(and 0.05 CL):")
    for r in differing:
        print(f"- {r['kernel']} {r['regime']}: " + "; ".join(
            f"{link} LC {a:.2f}/{b:.2f} SIM {c:.2f}/{d:.2f}" for link, a, b, c, d in r["differs"]))
    print(f"\ntotal time: LC {sum(r['lc_time'] for r in rows):.1f} s, "
          f"SIM {sum(r['sim_time'] for r in rows):.1f} s")
    if args.cli:
        time_cli()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
