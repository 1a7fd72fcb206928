"""The command-line layer: one module per console script, each a thin shell that
parses its options and calls the library below (nothing outside this package
sees ``argparse``).

==========================  ===============================
``kerncraft``               :mod:`kerncraft.cli.kerncraft`
``kerncraft-incore``        :mod:`kerncraft.cli.incore`
``kerncraft-machine``       :mod:`kerncraft.cli.machine`
``kerncraft-validate``      :mod:`kerncraft.cli.validate`
``kerncraft-tile``          :mod:`kerncraft.cli.tile`
``kerncraft cache``         :mod:`kerncraft.cli.cache`
==========================  ===============================

``python -m kerncraft.cli`` runs ``kerncraft``; ``python -m kerncraft.cli.incore``
(and ``.machine``, ``.validate``) the others.
"""
