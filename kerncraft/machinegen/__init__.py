"""``kerncraft-machine``: measure this host and write a Kerncraft-format machine file.

:mod:`~kerncraft.machinegen.generate` plans and runs the measurements (with the
primitives of :mod:`kerncraft.measure`), :mod:`~kerncraft.machinegen.working_sets`
chooses the sizes per memory level, :mod:`~kerncraft.machinegen.capacities` the cache
sizes written (CPUID's, or the sweep's where it ends well before),
:mod:`~kerncraft.machinegen.upstream_fit` and :mod:`~kerncraft.machinegen.penalty_fit`
derive per-level throughputs and the memory penalty, and
:mod:`~kerncraft.machinegen.render` writes the YAML text;
:mod:`~kerncraft.machinegen.incore_calibration` adds the in-core calibration beside it.
"""
