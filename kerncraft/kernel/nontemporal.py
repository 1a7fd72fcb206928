"""``#pragma nontemporal``: the kernel says which arrays are stored non-temporally.

A non-temporal (streaming) store writes its cache line to memory without
fetching it first (no write-allocate) and without passing through the caches.
Compilers emit such stores on request (Intel's ``#pragma vector nontemporal``,
``-qopt-streaming-stores always``) or by their own heuristics; the traffic models
follow when told (docs/ecm-model.md, "Non-temporal stores"). Accepted forms,
anywhere in the kernel file (customarily just before the loop nest)::

    #pragma nontemporal               every array the innermost loop writes
    #pragma nontemporal a, b          only these (also ``(a, b)`` or ``a b``)
    #pragma vector nontemporal        Intel's spelling, same meaning
    #pragma vector nontemporal(a)

A named array must be declared and written in the innermost loop: anything else
is a mistake the user should hear about, not a silent no-op.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Mapping, Sequence

from kerncraft.errors import KernelError, SourceLocation
from kerncraft.kernel.model import Access, Array

__all__ = ["is_nontemporal_pragma", "mark_nontemporal"]

_PRAGMA = re.compile(r"^#\s*pragma\s+(?:vector\s+)?nontemporal\b(.*)$")
_NAME = re.compile(r"^[A-Za-z_]\w*$")


def is_nontemporal_pragma(pragma: str) -> bool:
    """True for a pragma this module understands (the kernel summary lists it apart).

    >>> is_nontemporal_pragma("#pragma vector nontemporal (a)"), is_nontemporal_pragma("#pragma omp simd")
    (True, False)
    """
    return _PRAGMA.match(pragma.strip()) is not None


def mark_nontemporal(arrays: Mapping[str, Array], accesses: Sequence[Access],
                     pragmas: Sequence[str], source: str,
                     filename: str | None) -> dict[str, Array]:
    """``arrays`` with ``nontemporal`` set for the arrays the pragmas name (module doc)."""
    written = [name for name in dict.fromkeys(a.array for a in accesses if a.kind == "write")
               if name in arrays and not arrays[name].is_scalar]
    chosen: list[str] = []
    for pragma in pragmas:
        match = _PRAGMA.match(pragma.strip())
        if match is None:
            continue
        names = [n for n in re.split(r"[\s,]+", match.group(1).strip().strip("()")) if n]
        if not names:
            chosen += written
            continue
        for name in names:
            problem = _problem(name, arrays, written)
            if problem:
                raise KernelError(f"#pragma nontemporal: {problem}",
                                  _pragma_location(source, filename))
            chosen.append(name)
    if not chosen:
        return dict(arrays)
    return {name: dataclasses.replace(arr, nontemporal=True) if name in chosen else arr
            for name, arr in arrays.items()}


def _problem(name: str, arrays: Mapping[str, Array], written: Sequence[str]) -> str:
    if not _NAME.match(name):
        return f"'{name}' is not an array name"
    if name not in arrays or arrays[name].is_scalar:
        return f"'{name}' is not a declared array"
    if name not in written:
        return f"the innermost loop does not write '{name}'"
    return ""


def _pragma_location(source: str, filename: str | None) -> SourceLocation:
    """The first line with a non-temporal pragma (pragmas are kept as text only)."""
    for number, line in enumerate(source.splitlines(), start=1):
        if _PRAGMA.match(line.strip()):
            return SourceLocation(filename, number, line.find("#") + 1)
    return SourceLocation(filename, None, None)
