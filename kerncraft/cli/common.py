"""What the console scripts share: argument types and the shell around ``run``."""
from __future__ import annotations

import argparse
import sys
from typing import Callable

from kerncraft.errors import KerncraftError, error_lines

__all__ = ["positive_int", "run_reporting_errors"]


def positive_int(value: str) -> int:
    """argparse type: an integer of at least 1."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


def jobs_count(value: str) -> int | None:
    """argparse type of ``-j``: a positive integer, or ``auto`` (None: the runner decides)."""
    if value.strip().lower() == "auto":
        return None
    return positive_int(value)


def run_reporting_errors(program: str, run: Callable[[], int],
                         interrupted: str = "interrupted") -> int:
    """``run()``'s exit code; a user's error is one line (plus its notes) on stderr,
    an interrupt exit code 130, a closed pipe (``| head``) a quiet 1, an I/O error of
    no particular file (the output on a full disk under ``> file``) one line and 1."""
    try:
        return run()
    except KerncraftError as exc:
        print(error_lines(program, exc), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{program}: {interrupted}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except OSError as exc:
        if exc.filename is not None:    # a file of the run's own: its traceback says more
            raise
        print(f"{program}: I/O error: {exc.strerror or exc}", file=sys.stderr)
        return 1
