"""Tools for the port-model databases (``kerncraft-incore bench`` and ``--db-check``).

:mod:`~kerncraft.dbtools.microbench` times one instruction form's latency and
throughput (loop bodies in :mod:`~kerncraft.dbtools.microbench_forms`),
:mod:`~kerncraft.dbtools.form_check` and :mod:`~kerncraft.dbtools.pair_check` measure
the forms and form pairs the bundled kernels compile to and list where a database
differs, :mod:`~kerncraft.dbtools.coverage` lists what a database lacks for them.
:mod:`~kerncraft.dbtools.calibration_run` (``kerncraft-incore calibrate``) measures them
on the host and writes where a database differs as a calibration file: what is measured
and written is decided in :mod:`~kerncraft.dbtools.calibrate` and
:mod:`~kerncraft.dbtools.calibrate_forwarding`, the text in
:mod:`~kerncraft.dbtools.calibration_file`.
"""
