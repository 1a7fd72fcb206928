"""Time the cache-simulation predictor (-P SIM) on 3D stencils at N=500 on CSX.

Run: ``python benchmarks/bench_cache_sim.py [N] [CORES]``. Prints wall-clock
and CPU seconds per kernel and the resulting per-unit traffic on each link,
so a regression in speed or in the steady-state numbers is visible at a
glance. (CPU time is the better figure on a busy machine.)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import kerncraft
from kerncraft.cache.sim_predictor import predict_traffic_sim
from kerncraft.cache.traffic import transfer_volumes

KERNELS = Path(__file__).resolve().parent.parent / "kernels"


def bench(name: str, size: int, machine, cores: int) -> float:
    path = KERNELS / f"{name}.c"
    kernel = kerncraft.parse_kernel(path.read_text(), str(path))
    bound = kernel.bind({"L": size, "M": size, "N": size})
    wall, cpu = time.perf_counter(), time.process_time()
    result = predict_traffic_sim(bound, machine, cores=cores)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    links = ", ".join(f"{t.upper}<->{t.lower} {t.loads:.2f}+{t.stores:.2f}"
                      for t in transfer_volumes(result))
    print(f"{name:8s} N={size} cores={cores}: {wall:6.2f} s wall {cpu:6.2f} s CPU   "
          f"CL/unit (loads+stores): {links}")
    for note in result.notes:
        print(f"    {note}")
    return wall


def main(argv: list[str]) -> None:
    size = int(argv[1]) if len(argv) > 1 else 500
    cores = int(argv[2]) if len(argv) > 2 else 1
    machine = kerncraft.load_machine("CSX")
    for name in ("3d-7pt", "3d-27pt"):
        bench(name, size, machine, cores)


if __name__ == "__main__":
    main(sys.argv)
