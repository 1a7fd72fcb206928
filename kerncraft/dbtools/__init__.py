"""Tools for the port-model databases (``kerncraft-incore bench`` and ``--db-check``).

:mod:`~kerncraft.dbtools.microbench` times one instruction form's latency and
throughput (loop bodies in :mod:`~kerncraft.dbtools.microbench_forms`),
:mod:`~kerncraft.dbtools.form_check` and :mod:`~kerncraft.dbtools.pair_check` measure
the forms and form pairs the bundled kernels compile to and list where a database
differs, :mod:`~kerncraft.dbtools.coverage` lists what a database lacks for them.
"""
