"""Measuring primitives shared by the benchmark mode, the machine-file generator, the
validation and the database tools: all work from *time*, because the hosts this runs
on often have no readable hardware counters (virtual machines).

The timer protocol of compiled programs (:mod:`~kerncraft.measure.timing`), the
calibrated core clock (:mod:`~kerncraft.measure.clock`), likwid probing and output
(:mod:`~kerncraft.measure.likwid`), streaming bandwidths
(:mod:`~kerncraft.measure.streams`), topology, caches and ISA
(:mod:`~kerncraft.measure.topology`), the CPUID table (:mod:`~kerncraft.measure.uarch`)
and the nearest core class from the ISA flags where it has no answer
(:mod:`~kerncraft.measure.coreclass`), compiler targets (:mod:`~kerncraft.measure.march`)
and the load check, before and during a run (:mod:`~kerncraft.measure.hostload`). Nothing here knows kernels or models.
Submodules are imported on demand; importing this package is cheap.
"""
