"""Running the models: the one table of models (:mod:`kerncraft.runner.table`), one
model at one point and the loop over the ``-D`` points of a run
(:mod:`kerncraft.runner.run`), finished points read back from
:mod:`kerncraft.memo.reports`, parallel workers, printing (:mod:`kerncraft.runner.points`).

Used by :mod:`kerncraft.api` and :mod:`kerncraft.cli`. Importing this package is cheap
(the command line's warm path prints stored points through it).
"""
