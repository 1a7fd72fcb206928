"""``kerncraft-validate``: ECM and Roofline predictions against measurements on this
host, kernel x memory level.

:mod:`~kerncraft.validation.sizes` chooses one problem size per memory level,
:mod:`~kerncraft.validation.campaign` predicts and measures every point and builds the
tables, :mod:`~kerncraft.validation.notes` says why a point is far off.

The replay corpus (``--record``, ``--replay``): :mod:`~kerncraft.validation.corpus`
writes and reads a recorded run, :mod:`~kerncraft.validation.hostinfo` describes the
host it ran on, :mod:`~kerncraft.validation.record` keeps a live run as a recording,
:mod:`~kerncraft.validation.replay` predicts the recorded points again and compares the
errors with the recorded ones.
"""
