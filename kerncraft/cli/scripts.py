"""Console-script entry points of the quick commands: run ``main`` and leave at once.

When a run is over, Python's finalisation frees every object of every module one by one:
with sympy loaded that takes ~60 ms, a tenth of a first ``kerncraft`` run and more than
a repeated one. The process ends anyway, so after the exit handlers have run
(:func:`atexit._run_exitfuncs`: temporary files of this package are removed there) and
the output streams are flushed, :func:`os._exit` ends it. ``main`` itself returns
normally (the tests and ``python -m kerncraft.cli.kerncraft`` use it so); an exception
or ``SystemExit`` (argparse's usage errors) leaves the usual way.
"""
from __future__ import annotations

import atexit
import os
import sys
from typing import Callable, NoReturn

__all__ = ["kerncraft", "kerncraft_incore", "kerncraft_tile", "leave"]


def leave(code: int) -> NoReturn:
    """End the process with ``code`` without tearing the interpreter down."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            pass        # the reader went away (``| head``): nothing left to tell it
        except OSError as exc:      # e.g. a full disk under ``> file``: say so
            os.write(2, f"{os.path.basename(sys.argv[0])}: cannot write the output: "
                        f"{exc.strerror or exc}\n".encode())
            code = code or 1
    os._exit(code)


def _run(main: Callable[[], int]) -> NoReturn:
    leave(main() or 0)


def kerncraft() -> NoReturn:
    from kerncraft.cli.kerncraft import main
    _run(main)


def kerncraft_incore() -> NoReturn:
    from kerncraft.cli.incore import main
    _run(main)


def kerncraft_tile() -> NoReturn:
    from kerncraft.cli.tile import main
    _run(main)
