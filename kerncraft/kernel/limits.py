"""Bounds on kernel nesting, and room on the Python stack for long expressions.

pycparser parses by recursive descent, and the analysis of an expression walks
its tree, so deeply nested input used to end in a RecursionError traceback.

* Brackets (``( [ {``) may nest at most :data:`MAX_NESTING` levels;
  :func:`check_nesting` reports the first bracket beyond that, located.
* Long flat expressions are legitimate (a generated ``z0[i] + z1[i] + ...`` of
  10,000 terms): the analysis of left-associated operator chains is iterative
  (:mod:`kerncraft.kernel.body`), and :func:`deep_recursion` gives parsing and
  analysis a recursion limit of :data:`RECURSION_LIMIT` frames (Python 3.11 does
  not use the C stack for Python-to-Python calls, so this is safe).
* Whatever still exceeds that (thousands of chained unary operators or ``?:``) is
  a :class:`~kerncraft.errors.KernelError` located at the longest statement
  (:func:`too_deep_error`), never a traceback.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Iterator

from kerncraft.errors import KernelError, SourceLocation

__all__ = ["MAX_NESTING", "RECURSION_LIMIT", "check_nesting", "deep_recursion",
           "too_deep_error"]

MAX_NESTING = 64
RECURSION_LIMIT = 100_000

_lock = threading.Lock()
_active = 0
_saved_limit = 0


def check_nesting(text: str, filename: str | None) -> None:
    """Reject brackets nested deeper than MAX_NESTING (``text`` is comment-free)."""
    depth = 0
    for line_no, line in enumerate(text.split("\n"), start=1):
        for col, ch in enumerate(line, start=1):
            if ch in "([{":
                depth += 1
                if depth > MAX_NESTING:
                    raise KernelError(f"brackets nested more than {MAX_NESTING} levels deep",
                                      SourceLocation(filename, line_no, col))
            elif ch in ")]}":
                depth = max(0, depth - 1)


@contextmanager
def deep_recursion() -> Iterator[None]:
    """Raise the recursion limit to RECURSION_LIMIT while the block runs.

    Nested uses (and threads) share one raise; the last one out restores the
    limit it found.
    """
    global _active, _saved_limit
    with _lock:
        if _active == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0:
                sys.setrecursionlimit(_saved_limit)


def too_deep_error(text: str, filename: str | None) -> KernelError:
    """The error for a kernel whose expressions exceed even the raised limit,
    located at the start of its longest statement."""
    best_line, best_length, start, line_no = 1, -1, 1, 1
    length = 0
    for ch in text:
        if ch == ";":
            if length > best_length:
                best_line, best_length = start, length
            length, start = 0, None
        elif ch == "\n":
            line_no += 1
        elif not ch.isspace():
            if start is None:
                start = line_no
            length += 1
    if length > best_length:
        best_line = start or line_no
    return KernelError("expression nested too deeply to analyse (chains of unary operators "
                       "or '?:' thousands deep); split it into several statements",
                       SourceLocation(filename, best_line))
