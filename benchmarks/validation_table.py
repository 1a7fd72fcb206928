"""Validation table (kept for the commands in RESULTS-validation.md): now ``kerncraft-validate``.

Sizes come from the machine file (kerncraft/bench/validate_sizes.py), default
``-m HOST``; every option of ``kerncraft-validate --help`` works here too.
"""
import sys

from kerncraft.bench.validate_cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] if "-m" in sys.argv or "--machine" in sys.argv
                  else ["-m", "HOST", *sys.argv[1:]]))
