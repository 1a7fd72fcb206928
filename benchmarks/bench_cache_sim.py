"""Time the cache-simulation predictor (-P SIM) on 3D stencils at N=500 on CSX.

Run: ``python benchmarks/bench_cache_sim.py [N] [CORES] [--reference]``.
Prints wall-clock and CPU seconds per kernel and the resulting per-unit
traffic on each link, so a regression in speed or in the steady-state
numbers is visible at a glance. (CPU time is the better figure on a busy
machine.) The notes show which warm-up rule ended the warm-up (see
:mod:`kerncraft.cache.sim_predictor`).

``--reference`` runs the same prediction with the readable reference engine
(``CacheSimulator.load``/``store`` per access) instead of the generated fast
engine (``CacheSimulator.feed``): the numbers must be identical, only the
time differs.

Issue target: 3d-7pt and 3d-27pt at N=500 in seconds. Measured on the
development machine (2 vCPUs, shared), cores=1 (whole 14 MB L3), CPU s:

=========  ============================  ==========================
kernel     before (2x-capacity warm-up)  now (rule B, fast engine)
=========  ============================  ==========================
3d-7pt     4.5 - 6.2                     0.8
3d-27pt    6.8 - 8.1                     1.4
=========  ============================  ==========================

See ``benchmarks/RESULTS-traffic.md`` for the breakdown.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path

import kerncraft
from kerncraft.cache.sim_predictor import predict_traffic_sim
from kerncraft.cache.cache_sim import CacheSimulator
from kerncraft.cache.traffic import transfer_volumes

KERNELS = Path(__file__).resolve().parent.parent / "kernels"


@contextmanager
def reference_engine():
    """Route ``CacheSimulator.feed`` through the reference load()/store() methods."""
    fast = CacheSimulator.feed

    def feed(self, seq):
        load, store = self.load, self.store
        for x in seq:
            if x > 0:
                load(x)
            else:
                store(-x)
    CacheSimulator.feed = feed
    try:
        yield
    finally:
        CacheSimulator.feed = fast


def bench(name: str, size: int, machine, cores: int) -> float:
    path = KERNELS / f"{name}.c"
    kernel = kerncraft.parse_kernel(path.read_text(), str(path))
    bound = kernel.bind({"L": size, "M": size, "N": size})
    wall, cpu = time.perf_counter(), time.process_time()
    result = predict_traffic_sim(bound, machine, cores=cores)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    links = ", ".join(f"{t.upper}<->{t.lower} {t.loads:.4f}+{t.stores:.4f}"
                      for t in transfer_volumes(result))
    print(f"{name:8s} N={size} cores={cores}: {wall:6.2f} s wall {cpu:6.2f} s CPU   "
          f"CL/unit (loads+stores): {links}")
    for note in result.notes:
        print(f"    {note}")
    return wall


def main(argv: list[str]) -> None:
    reference = "--reference" in argv
    argv = [a for a in argv if a != "--reference"]
    size = int(argv[1]) if len(argv) > 1 else 500
    cores = int(argv[2]) if len(argv) > 2 else 1
    machine = kerncraft.load_machine("CSX")
    for name in ("3d-7pt", "3d-27pt"):
        if reference:
            with reference_engine():
                bench(name, size, machine, cores)
        else:
            bench(name, size, machine, cores)


if __name__ == "__main__":
    main(sys.argv)
