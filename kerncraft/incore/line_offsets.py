"""Distributions of byte offsets within a cache line, and the share of accesses that
cross a line: the arithmetic of :mod:`kerncraft.incore.linesplit` (offsets from the
kernel's indices) and :mod:`kerncraft.incore.addresssplit` (offsets from the
assembly's addresses).

A distribution is a :class:`~collections.Counter` of offsets ``0 .. line-1``; an
access of ``width`` bytes at offset ``r`` crosses a line when ``r + width > line``.

>>> combine_offsets(offset_residues(range(4), 16, 64), Counter({8: 1}), 64)
Counter({8: 1, 24: 1, 40: 1, 56: 1})
>>> uniform_split_share(8, 32, 64)
0.375
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable

__all__ = ["offset_residues", "combine_offsets", "uniform_split_share"]


def offset_residues(values: Iterable[int], scale: int, line: int) -> Counter:
    """Offsets in a line of ``scale * v`` for every ``v`` of ``values``, counted."""
    return Counter((scale * v) % line for v in values)


def combine_offsets(a: Counter, b: Counter, line: int) -> Counter:
    """Distribution of the sum of two independent offsets, modulo the line."""
    out: Counter = Counter()
    for ra, na in a.items():
        for rb, nb in b.items():
            out[(ra + rb) % line] += na * nb
    return out


def uniform_split_share(element: int, width: int, line: int) -> float:
    """Share of ``width``-byte accesses that cross a line when they start at every
    multiple of ``element`` in the line equally often (nothing known of the addresses)."""
    starts = range(0, line, element)
    return sum((s % line) + width > line for s in starts) / len(starts)
