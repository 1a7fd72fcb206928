"""Running the models: the one table of models, the ``-D`` points of a run, finished
points read back from :mod:`kerncraft.memo.reports`, parallel workers, printing.

Used by :mod:`kerncraft.api` and :mod:`kerncraft.cli`. Importing this package is cheap
(the command line's warm path prints stored points through it).
"""
