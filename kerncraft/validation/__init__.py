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

The in-core campaign (``--incore``): :mod:`~kerncraft.validation.incore_campaign` runs it
(loop blocks from :mod:`~kerncraft.validation.incore_blocks`, sizes from
:mod:`~kerncraft.validation.incore_sizes`, measured by
:mod:`~kerncraft.validation.incore_measure`, predicted by
:mod:`~kerncraft.validation.incore_tools`), :mod:`~kerncraft.validation.incore_score`
scores the analyzers, :mod:`~kerncraft.validation.incore_record` keeps results and
recordings, :mod:`~kerncraft.validation.incore_replay` replays them,
:mod:`~kerncraft.validation.incore_plot` draws the picture.
"""
