"""Memoisation on disk (not CPU caches: those are :mod:`kerncraft.cache`).

Finished reports per ``-D`` point, whole ``kerncraft-incore`` outputs and the host and
tool stamps that key them (:mod:`~kerncraft.memo.reports`); in-core analyses of compiled
loops (:mod:`~kerncraft.memo.incore_analyses`). Both keep their entries in the store of
:mod:`kerncraft.diskstore`. Importing this package is cheap (the warm path needs it).
"""
