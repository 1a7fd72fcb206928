"""Time the cache simulation (``-P SIM``) in-process: the issue's case and a few others.

Run (pinned to one core; the host is shared, so the load is printed)::

    taskset -c 1 python benchmarks/bench_sim_speed.py [--repeat 5] [--cli]
    taskset -c 1 python benchmarks/bench_sim_speed.py --tree /path/to/other/checkout

Each case runs ``--repeat`` times in one process after the imports; printed are
the median and the fastest wall time (CPU time in brackets: less sensitive to
other processes). ``--tree`` puts another checkout first on ``sys.path`` (e.g.
the code before a change, for before/after numbers); ``--cli`` also times whole
``kerncraft -p ECM -P SIM`` processes (report cache off).

Cases:

* ``ECMData 2d-5pt``: ``kerncraft.analyze(2d-5pt, CSX, model="ECMData",
  defines={"N": 1000, "M": 1002}, cache_predictor="SIM")`` - the issue's case
  (one simulation, one core: the whole 14 MB L3);
* ``ECM shares 2d-5pt``: the three simulations the ECM scaling table of that
  kernel needs on CSX (1, 2 and 10 cores: L3 shares of 14, 7 and 1.4 MB);
* ``3d-7pt``/``3d-27pt`` N=500 on CSX (``benchmarks/bench_cache_sim.py``), a
  memory-sized ``copy``, ``matvec_trans`` (strided: never sampled);
* ``sweep 2d-5pt``: ``kerncraft.sweep`` of ECMData over N = 200 .. 1000.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cases():
    import kerncraft
    from kerncraft.api import load_kernel
    from kerncraft.cache.sim_predictor import predict_traffic_sim

    csx = kerncraft.load_machine("CSX")

    def kernel(name):
        return load_kernel(str(ROOT / "kernels" / f"{name}.c"))

    def traffic(name, defines, cores=1):
        bound = kernel(name).bind(defines)
        return lambda: predict_traffic_sim(bound, csx, cores=cores)

    k2d = kernel("2d-5pt")
    shares = [traffic("2d-5pt", {"N": 1000, "M": 1001}, cores) for cores in (1, 2, 10)]
    cube = {"L": 500, "M": 500, "N": 500}
    return {
        "ECMData 2d-5pt N=1000 M=1002": lambda: kerncraft.analyze(
            k2d, csx, model="ECMData", defines={"N": 1000, "M": 1002}, cache_predictor="SIM"),
        "ECM shares 2d-5pt (1, 2, 10 cores)": lambda: [f() for f in shares],
        "3d-7pt N=500": traffic("3d-7pt", cube),
        "3d-27pt N=500": traffic("3d-27pt", cube),
        "copy N=1e7": traffic("copy", {"N": 10 ** 7}),
        "matvec_trans N=2000 M=392": traffic("matvec_trans", {"N": 2000, "M": 392}),
        "sweep 2d-5pt N=200..1000 (5 points)": lambda: list(kerncraft.sweep(
            k2d, csx, model="ECMData", defines={"N": range(200, 1001, 200), "M": 1002},
            cache_predictor="SIM")),
    }


def _time(fn, repeat: int) -> tuple[list[float], list[float]]:
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return walls, cpus


def _cli(repeat: int, tree: str | None) -> None:
    """Whole ``kerncraft`` processes (the command's entry point, from ``tree`` if given)."""
    env = dict(os.environ, KERNCRAFT_NO_REPORT_CACHE="1")
    if tree:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [tree, env.get("PYTHONPATH")]))
    args = ["-p", "ECM", "-P", "SIM", "-m", "CSX", str(ROOT / "kernels" / "2d-5pt.c"),
            "-D", "N", "1000", "-D", "M", "1001"]
    argv = [sys.executable, "-c", "import sys; from kerncraft.cli.kerncraft import main; "
            "sys.exit(main())", *args]
    walls = []
    for _ in range(repeat):
        w = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - w)
    print(f"{'CLI: kerncraft -p ECM -P SIM -m CSX 2d-5pt N=1000 M=1001':48s} "
          f"median {statistics.median(walls):6.3f} s  min {min(walls):6.3f} s")


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tree", help="a checkout to import kerncraft from instead")
    ap.add_argument("--cli", action="store_true", help="also time whole CLI processes")
    ap.add_argument("--only", help="only cases whose name contains this")
    args = ap.parse_args(argv)
    if args.tree:
        sys.path.insert(0, args.tree)
    import kerncraft

    print(f"kerncraft from {Path(kerncraft.__file__).parent}; CPUs {sorted(os.sched_getaffinity(0))}"
          f", load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, fn in _cases().items():
        if args.only and args.only not in name:
            continue
        walls, cpus = _time(fn, args.repeat)
        print(f"{name:48s} median {statistics.median(walls):6.3f} s  min {min(walls):6.3f} s"
              f"  (CPU median {statistics.median(cpus):6.3f} s)", flush=True)
    if args.cli:
        _cli(args.repeat, args.tree)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main(sys.argv[1:])
