"""Measurement on the host: benchmark mode, clock calibration, timing backend, likwid,
streams, machine files, validation, instruction-form microbenchmarks.

Why this package: the benchmark mode and the machine-file generator need
measurements on the host, and the hosts it runs on often have no readable
hardware counters (virtual machines). Everything here therefore works from
*time*: the core clock is calibrated with a dependent add chain
(:mod:`~kerncraft.bench.clock`), benchmark programs report seconds and
repetitions through a two-line protocol (:mod:`~kerncraft.bench.timing`),
likwid is used where it works (:mod:`~kerncraft.bench.likwid`), streaming
bandwidths come from likwid-bench or built-in kernels
(:mod:`~kerncraft.bench.streams`), topology from sysfs or likwid-topology
(:mod:`~kerncraft.bench.topology`), and :mod:`~kerncraft.bench.machine_gen`
(CLI ``kerncraft-machine``, :mod:`~kerncraft.cli.machine`) writes a Kerncraft
machine file for the host. ``-p Benchmark`` is :mod:`~kerncraft.bench.benchmark`
(hardware counters: :mod:`~kerncraft.bench.counters`), ``kerncraft-validate``
compares measurements with the models (:mod:`~kerncraft.bench.validate`), and
``kerncraft-incore bench`` times instruction forms (:mod:`~kerncraft.bench.microbench`).

Submodules are imported on demand; importing this package is cheap.
"""
from __future__ import annotations

__all__ = ["benchmark", "counters", "clock", "timing", "likwid", "streams", "topology",
           "machine_gen", "validate", "microbench"]
