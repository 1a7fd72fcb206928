"""``-p Benchmark``: compile the kernel as a program, run it on this host and measure
cy/CL, cy/It, It/s and FLOP/s (:mod:`~kerncraft.benchmark.kernel_run`).

The program (:mod:`~kerncraft.benchmark.program`), whether this host can run the
machine file's code (:mod:`~kerncraft.benchmark.hostcheck`), where the measured loop
sits in the executable (:mod:`~kerncraft.benchmark.loopsite`) and likwid counters
(:mod:`~kerncraft.benchmark.counters`). The measuring itself (timer, clock, likwid)
comes from :mod:`kerncraft.measure`. Importing this package is cheap.
"""
