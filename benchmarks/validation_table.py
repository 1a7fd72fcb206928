"""Validation table (kept for the commands in RESULTS-validation.md): now ``kerncraft-validate``.

Sizes come from the machine file (kerncraft/validation/sizes.py); pass the machine
file of this host with ``-m`` (``machine-files/ICX-VM.yml`` and ``ZEN5-VM.yml`` describe
the development VMs of earlier sessions). Every option of ``kerncraft-validate --help``
works here too.
"""
import sys

from kerncraft.cli.validate import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
