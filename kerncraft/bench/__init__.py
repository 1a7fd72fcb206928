"""Host benchmarks: clock calibration, timing backend, likwid, streams, machine files.

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
machine file for the host.

Submodules are imported on demand; importing this package is cheap.
"""
from __future__ import annotations

__all__ = ["clock", "timing", "likwid", "streams", "topology", "machine_gen", "cli"]
