"""Measuring primitives shared by the benchmark mode, the machine-file generator, the
validation and the database tools: all work from *time*, because the hosts this runs
on often have no readable hardware counters (virtual machines).

The timer protocol of compiled programs (:mod:`~kerncraft.measure.timing`), the
calibrated core clock (:mod:`~kerncraft.measure.clock`), likwid probing and output
(:mod:`~kerncraft.measure.likwid`), streaming bandwidths
(:mod:`~kerncraft.measure.streams`), topology, caches and ISA
(:mod:`~kerncraft.measure.topology`), the CPUID table (:mod:`~kerncraft.measure.uarch`),
compiler targets (:mod:`~kerncraft.measure.march`) and the load check
(:mod:`~kerncraft.measure.hostload`). Nothing here knows kernels or models.
Submodules are imported on demand; importing this package is cheap.
"""
