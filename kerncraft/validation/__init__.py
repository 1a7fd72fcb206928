"""``kerncraft-validate``: ECM and Roofline predictions against measurements on this
host, kernel x memory level.

:mod:`~kerncraft.validation.sizes` chooses one problem size per memory level,
:mod:`~kerncraft.validation.campaign` predicts and measures every point and builds the
tables, :mod:`~kerncraft.validation.notes` says why a point is far off.
"""
