"""``python -m kerncraft.cli``: the ``kerncraft`` command."""
import sys

from kerncraft.cli.kerncraft import main

sys.exit(main())
