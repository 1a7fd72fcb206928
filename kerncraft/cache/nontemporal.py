"""Non-temporal stores in both traffic predictors: they bypass the cache hierarchy.

A non-temporal (streaming) store (x86 ``movnt*``, AArch64 ``stnp``/``stnt1*``) is
collected in one of the core's write-combining buffers and written to memory as
a whole line: no write-allocate fill, no line in any cache, no write-back.
Kerncraft's traffic model (seed 004, Sect. 4.5) treats every write as a read
(the write-allocate) plus an entry in an "evict list" that costs one more line
transfer at each level; a non-temporal store removes both at every level, and
its line is written to memory once. Both predictors therefore see the kernel
*without* the non-temporal stores (reads of the same array stay: an update
``a[i] = s * a[i]`` still loads ``a`` through the caches) and count the stored
lines apart (:class:`~kerncraft.cache.traffic.NontemporalStores`):

* LC (:func:`nontemporal_line_rate`): per reference group of the stored array,
  its new lines per iteration, once for members that write the same line within
  an iteration (``a[i]``, ``a[i+1]``: one write-combined line) and once more for
  every member whose data another loop level revisits (``a[j][i]``, ``a[j+1][i]``:
  the line is written twice, one row apart);
* SIM (:class:`WriteCombining`): the stores are taken out of the simulated
  access stream and replayed through ``WRITE_COMBINING_BUFFERS`` line buffers
  (least recently used replaced); every store that finds no buffer holding its
  line is one line written to memory.
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Collection, Iterable, Iterator, Mapping

import sympy

__all__ = ["WRITE_COMBINING_BUFFERS", "WriteCombining", "nontemporal_line_rate",
           "split_nontemporal", "without_streamed_stores"]

WRITE_COMBINING_BUFFERS = 8
"""Write-combining buffers of one core as SIM models them: cores have about ten
(Intel's line fill buffers double as them); only a line revisited after this many
other streamed lines is written twice, so the exact number rarely matters."""


def split_nontemporal(kernel, arrays: Collection[str]):
    """(``kernel`` without the innermost-loop stores to ``arrays``, ``kernel`` with only
    those stores); the rest of the kernel (loops, arrays, outer statements) is kept."""
    chosen = set(arrays)

    def streamed(access) -> bool:
        return access.kind == "write" and access.array in chosen

    streaming = tuple(a for a in kernel.accesses if streamed(a))
    cached = tuple(a for a in kernel.accesses if not streamed(a))
    return (dataclasses.replace(kernel, accesses=cached),
            dataclasses.replace(kernel, accesses=streaming))


def without_streamed_stores(kernel, arrays: Collection[str], cacheline_size: int):
    """(``kernel`` without the stores to ``arrays``, the lines per innermost iteration
    those stores write to memory): what the LC predictor analyses."""
    if not arrays:
        return kernel, sympy.Integer(0)
    cached, streaming = split_nontemporal(kernel, arrays)
    return cached, nontemporal_line_rate(streaming, cacheline_size)


def nontemporal_line_rate(streaming_kernel, cacheline_size: int) -> sympy.Expr:
    """Lines per innermost iteration that the non-temporal stores of
    ``streaming_kernel`` (its only accesses) write to memory (module doc)."""
    from kerncraft.cache.lc_streams import analyze_streams

    if not streaming_kernel.accesses:
        return sympy.Integer(0)
    streams = analyze_streams(streaming_kernel, cacheline_size, repeated=False)
    total = sympy.Integer(0)
    for group in streams.groups:
        if group.kind == "invariant":        # the same element: a new line when an outer
            total += group.amortized_lines   # loop moves it, as for a cached store
        elif group.kind == "irregular":
            total += 1
        else:
            separate = 1 + sum(1 for gap in group.gaps
                               if not _same_line(gap, group.stride_bytes, cacheline_size))
            total += group.rate / cacheline_size * separate
    return sympy.expand(total)


def _same_line(gap: tuple[Fraction, ...], stride_bytes: sympy.Expr, cl: int) -> bool:
    """Two members ``gap`` apart write one line within an iteration (write-combined)."""
    if not gap or any(gap[:-1]):
        return False
    distance = sympy.sympify(stride_bytes) * sympy.Rational(abs(gap[-1].numerator),
                                                            gap[-1].denominator)
    return bool(distance.is_number and distance < cl)


class WriteCombining:
    """Takes the non-temporal stores out of SIM's access stream and counts the lines
    they write to memory (module doc). Lines are counted only while ``counting``."""

    def __init__(self, line_ranges: Iterable[tuple[int, int]],
                 buffers: int = WRITE_COMBINING_BUFFERS):
        self.ranges = tuple(line_ranges)
        self.buffers = buffers
        self.held: dict[int, None] = {}      # insertion order = LRU order
        self.counting = False
        self.lines = 0

    @classmethod
    def for_arrays(cls, layout: Mapping, arrays: Collection[str], cl: int) -> "WriteCombining":
        """The buffers for the stores to ``arrays`` in a simulated ``layout``
        (:func:`kerncraft.cache.addresses.layout_arrays`: array -> base, size)."""
        return cls((layout[name].base // cl, (layout[name].base + layout[name].size_bytes - 1)
                    // cl) for name in arrays if name in layout)

    def filter(self, chunks: Iterator[tuple[list[int], int, bool]]
               ) -> Iterator[tuple[list[int], int, bool]]:
        """The chunks of :meth:`~kerncraft.cache.addresses.UnitGenerator.chunks` without
        the non-temporal stores (writes are negative line numbers), which go to the
        buffers instead."""
        for seq, iterations, sweep_end in chunks:
            kept = []
            for access in seq:
                if access < 0 and self._streamed(-access):
                    self.store(-access)
                else:
                    kept.append(access)
            yield kept, iterations, sweep_end

    def _streamed(self, line: int) -> bool:
        return any(lo <= line <= hi for lo, hi in self.ranges)

    def store(self, line: int) -> None:
        """One non-temporal store to ``line``."""
        held = self.held
        if line in held:
            del held[line]
        else:
            if self.counting:
                self.lines += 1
            if len(held) >= self.buffers:
                del held[next(iter(held))]
        held[line] = None
