"""A fixed -p Benchmark measurement for tests that must not time anything.

copy.c at N = 800: 10 repetitions x 800 iterations = 1000 cache lines of work
(8 iterations each) in 50 000 cycles -> 50 cy/CL, 6.25 cy/It.
"""
from __future__ import annotations

from kerncraft.models.results import BenchmarkResult, LevelVolume

FIXED_MEASUREMENT = BenchmarkResult(
    backend="timing", backend_reason="", clock_hz=2.5e9, clock_source="calibrated",
    machine_clock_hz=2.5e9, cores=1, cpus=(0,), compiler="gcc", flags=("-O3",),
    repetitions=10, iterations_per_repetition=800, iterations_per_cacheline=8,
    flops_per_iteration=0, seconds=2e-5, cycles=50_000.0, time_source="wall", runs=3,
    volumes=(LevelVolume("MEM", "loads", 2.1, 2.0),), notes=("fixed",))
