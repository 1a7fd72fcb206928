"""The SIM predictor's access stream: chunks of line accesses, whole rows at a time.

:meth:`kerncraft.cache.addresses.UnitGenerator.units` defines the accesses of
each unit of work; this module produces the same accesses for many units at
once, in the encoding of :meth:`kerncraft.cache.cache_sim.CacheSimulator.feed`
(reads as positive line numbers, writes negated).

Row segments (:func:`segment_columns`)
--------------------------------------
The lines of one stream are computed for all units of a row segment at once
(one ``range`` per unit) and the streams are interleaved unit by unit with
``zip``/``chain``, C loops instead of a Python loop per unit and stream.

Templates (:class:`RowTemplates`)
---------------------------------
Most rows of a loop nest repeat an earlier row, moved: if every stream starts
at the same offset within its cache line as in that row, each of its lines is
the earlier one plus a whole number of lines (the difference of the streams'
first lines; reads add it, writes, being negated, subtract it). A row is then
one ``map(add, ...)`` over the earlier row's list instead of being computed
again (for a 2D stencil every row after the first). Rows longer than
``ROW_TEMPLATE_UNITS`` units (1D kernels: the walk is one long row) are moved
segment by segment the same way. A generator whose rows rarely repeat
(triangular nests) stops keeping templates after a few misses. The result is
identical to computing every row (``tests/test_cache_sim_speedpath.py``).

Set sampling (:class:`LineClass`)
---------------------------------
With a class of lines, only lines ``x`` with ``x % modulus in residues`` are
kept. When ``modulus`` divides every simulated level's set count, these lines
are exactly the ones that map to the sets ``s`` with ``s % modulus in
residues`` at *every* level, so those sets see precisely the events of the
full simulation (sets never interact); see :mod:`kerncraft.cache.sim_sampling`
for the classes and how their counts are combined.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate, chain, compress
from operator import add, sub
from typing import Iterator

__all__ = ["ROW_TEMPLATE_UNITS", "Coverage", "LineClass", "RowTemplates", "flatten", "line_chunks",
           "segment_columns"]

ROW_TEMPLATE_UNITS = 2048     # rows of at most this many units are kept whole
MAX_TEMPLATES = 64            # distinct row shapes kept at once
GIVE_UP_MISSES = 32           # after this many misses, templates must hit half the time


def segment_columns(cl: int, unit: int, count: int, info: list[tuple], outer: list[tuple],
                    prev: list, u0: int, u1: int, row_end: bool) -> list[tuple[int, list]]:
    """Per stream, in output order (inner reads, outer reads, inner writes, outer writes):
    ``(stream index, lines of each unit u0 .. u1-1)``.

    ``info``/``outer`` are :meth:`UnitGenerator.row_streams` of a row of ``count``
    iterations (outer streams have index ``len(info) + j`` and only appear with the row's
    last unit, when ``row_end``); ``prev`` holds each stream's line edge of the unit
    before ``u0`` (``None`` at the row's start) and is updated.
    """
    starts = range(u0 * unit, u1 * unit, unit)
    ends = list(range(u0 * unit + unit - 1, u1 * unit, unit))
    if ends[-1] >= count:
        ends[-1] = count - 1
    nunits = u1 - u0
    reads: list = []
    writes: list = []
    for k, (is_write, a, ext, d, strided) in enumerate(info):
        sign = -1 if is_write else 1
        if strided:
            col = [[sign * x for t in range(t0, e + 1)
                    for x in range((a + d * t) // cl, (a + d * t + ext) // cl + 1)]
                   for t0, e in zip(starts, ends)]
        elif d == 0:
            lo, hi = a // cl, (a + ext) // cl
            col = [range(lo, hi + 1) if sign > 0 else range(-lo, -hi - 1, -1)] * nunits
        elif d > 0:
            top = a + ext
            stops = [(top + d * t) // cl + 1 for t in ends]     # last line + 1 per unit
            first = (a + d * starts[0]) // cl if prev[k] is None else prev[k] + 1
            prev[k] = stops[-1] - 1
            begins = [first] + stops[:-1]
            if sign > 0:
                col = list(map(range, begins, stops))
            else:
                col = list(map(range, [-b for b in begins], [-s for s in stops], [-1] * nunits))
        else:
            lows = [(a + d * t) // cl for t in ends]            # lowest line per unit
            first = (a + ext + d * starts[0]) // cl if prev[k] is None else prev[k] - 1
            prev[k] = lows[-1]
            highs = [first] + [x - 1 for x in lows[:-1]]
            if sign > 0:
                col = list(map(range, highs, [x - 1 for x in lows], [-1] * nunits))
            else:
                col = list(map(range, [-h for h in highs], [1 - x for x in lows]))
        (writes if is_write else reads).append((k, col))
    if outer and row_end:
        empty = [()] * (nunits - 1)
        for j, (is_write, a, ext, _, _) in enumerate(outer):
            lines = range(a // cl, (a + ext) // cl + 1)
            col = empty + [[-x for x in lines] if is_write else lines]
            (writes if is_write else reads).append((len(info) + j, col))
    return reads + writes


def flatten(columns: list[tuple[int, list]]) -> list[int]:
    """The accesses of :func:`segment_columns`' units, unit by unit, streams interleaved."""
    return list(chain.from_iterable(chain.from_iterable(zip(*[c for _, c in columns]))))


@dataclass(frozen=True)
class LineClass:
    """The lines ``x`` with ``x % modulus in residues`` (module doc)."""

    modulus: int
    residues: frozenset[int]

    def keeps(self, read: bool) -> frozenset[int]:
        """Residues of the encoded accesses kept: writes are negated lines."""
        return self.residues if read else frozenset(-r % self.modulus for r in self.residues)


class _Template:
    """One row (or segment) computed in full, and how to move it (module doc)."""

    __slots__ = ("bases", "seq", "bounds", "full_bounds", "stream_of", "signs", "moved_by",
                 "shift", "edges")

    def __init__(self, bases, seq, bounds, full_bounds, stream_of, signs, edges):
        self.bases = bases          # first line of every stream
        self.seq = seq
        self.bounds = bounds        # index in seq where each unit starts
        self.full_bounds = full_bounds  # the same before sampling
        self.stream_of = stream_of  # stream index of every access
        self.signs = signs          # -1 for write streams
        self.moved_by = None        # the line differences ``shift`` was made for
        self.shift = None
        self.edges = edges          # prev after the segment, relative to bases (segments)

    def move(self, bases: tuple[int, ...]) -> None:
        """Move every stream to ``bases`` (``seq`` becomes that row's accesses)."""
        delta = tuple(map(sub, bases, self.bases))
        if not any(delta):
            return
        if delta != self.moved_by:
            by_stream = [dl * sg for dl, sg in zip(delta, self.signs)]
            self.shift = [by_stream[k] for k in self.stream_of]
            self.moved_by = delta
        self.seq = list(map(add, self.seq, self.shift))
        self.bases = bases

    def only(self, lines: LineClass) -> "_Template":
        """A template of the same row keeping only the accesses to ``lines``."""
        m = lines.modulus
        keep = [lines.keeps(sg > 0) for sg in self.signs]
        mask = [x % m in keep[k] for x, k in zip(self.seq, self.stream_of)]
        kept_before = [0, *accumulate(mask)]
        return _Template(self.bases, list(compress(self.seq, mask)),
                         [kept_before[b] for b in self.bounds], self.full_bounds,
                         list(compress(self.stream_of, mask)), self.signs, self.edges)


def _template(bases, columns: list[tuple[int, list]], signs, edges) -> _Template:
    """The template of a row (segment) from its :func:`segment_columns`."""
    ids = [k for k, _ in columns]
    seq: list[int] = []
    stream_of: list[int] = []
    bounds = [0]
    for per_stream in zip(*[c for _, c in columns]):
        for k, lines in zip(ids, per_stream):
            seq.extend(lines)
            stream_of.extend([k] * len(lines))
        bounds.append(len(seq))
    return _Template(bases, seq, bounds, bounds, stream_of, signs, edges)


class RowTemplates:
    """Rows and long-row segments by moving an earlier one (module doc), also of one
    class of lines; shared by the passes over several classes."""

    def __init__(self, cl: int, unit: int):
        self.cl, self.unit = cl, unit
        self.full: dict[tuple, _Template] = {}
        self.sampled: dict[tuple, _Template] = {}
        self.hits = self.misses = 0
        self.enabled = True

    def _get(self, key: tuple, bases: tuple[int, ...], lines: LineClass | None,
             make) -> _Template:
        """The template of ``key`` moved to ``bases``, of ``lines`` only if given;
        ``make()`` gives ``(columns, signs, edges)`` of the row when it is new."""
        if lines is not None:
            skey = (lines, key, tuple([b % lines.modulus for b in bases]))
            tmpl = self.sampled.get(skey)
            if tmpl is not None:
                self.hits += 1
                tmpl.move(bases)
                return tmpl
        tmpl = self.full.get(key)
        if tmpl is not None:
            self.hits += 1
            tmpl.move(bases)
        else:
            self.misses += 1
            if self.misses > GIVE_UP_MISSES and 2 * self.hits < self.misses:
                self.enabled = False
            if len(self.full) >= MAX_TEMPLATES:
                self.full.clear()
            tmpl = self.full[key] = _template(bases, *make())
        if lines is None:
            return tmpl
        if len(self.sampled) >= 8 * MAX_TEMPLATES:
            self.sampled.clear()
        tmpl = self.sampled[skey] = tmpl.only(lines)
        return tmpl

    def row(self, count: int, info: list[tuple], outer: list[tuple],
            lines: LineClass | None = None) -> _Template:
        """The template of a whole row, moved to it (``seq``: its accesses, ``bounds``:
        where each unit starts, ``full_bounds``: the same before sampling)."""
        streams = info + outer
        firsts = [s[1] for s in streams]
        cl, unit = self.cl, self.unit

        def make():
            row_units = -(-count // unit)
            return (segment_columns(cl, unit, count, info, outer, [None] * len(info), 0,
                                    row_units, True),
                    [-1 if s[0] else 1 for s in streams], None)
        return self._get((count, tuple([a % cl for a in firsts])),
                         tuple([a // cl for a in firsts]), lines, make)

    def segment(self, count: int, info: list[tuple], outer: list[tuple], prev: list,
                u0: int, u1: int, row_end: bool, lines: LineClass | None = None
                ) -> tuple[list[int], int]:
        """Accesses of units ``u0 .. u1-1`` of a long row (``prev`` as in
        :func:`segment_columns`, updated) and their number before sampling."""
        t0 = u0 * self.unit
        firsts = [a + d * t0 for _, a, _, d, _ in info] + [s[1] for s in outer]
        bases = tuple([a // self.cl for a in firsts])
        cl, unit = self.cl, self.unit

        def make():
            after = list(prev)
            columns = segment_columns(cl, unit, count, info, outer, after, u0, u1, row_end)
            edges = [None if p is None else p - b for p, b in zip(after, bases)]
            return columns, [-1 if s[0] else 1 for s in info + outer], edges
        key = ("segment", u1 - u0, u0 == 0, count - t0 if row_end else None,
               tuple([a % cl for a in firsts]))
        tmpl = self._get(key, bases, lines, make)
        for k, e in enumerate(tmpl.edges):
            prev[k] = None if e is None else e + bases[k]
        return tmpl.seq, tmpl.full_bounds[-1]


class Coverage:
    """Accesses generated before and after sampling (``total``, ``kept``): with dense
    streams their ratio is the class's share of the lines; if not, sampling is biased."""

    def __init__(self) -> None:
        self.total = 0
        self.kept = 0


def line_chunks(gen, max_units: int = 256, lines: LineClass | None = None,
                templates: RowTemplates | bool = True, coverage: Coverage | None = None
                ) -> Iterator[tuple[list[int], int, bool]]:
    """Endless ``(accesses, iterations, sweep_end)`` of consecutive units of work of the
    :class:`~kerncraft.cache.addresses.UnitGenerator` ``gen``.

    A chunk holds whole rows (a long row is split after ``max_units`` units) and ends at
    the latest after ``max_units`` units or at a sweep end (``sweep_end``); ``lines``:
    only this class of lines (module doc); ``templates``: the templates to use (shared
    by several passes), or False to compute every row afresh (same result);
    ``coverage`` is updated with the accesses before and after sampling.
    """
    cl, unit = gen.cl, gen.unit
    if lines is not None:
        m, read_kept, write_kept = lines.modulus, lines.keeps(True), lines.keeps(False)
    tally = coverage if coverage is not None else Coverage()
    cache = templates if isinstance(templates, RowTemplates) else \
        RowTemplates(cl, unit) if templates else None
    seq: list[int] = []
    iterations = units = 0
    for row in gen.walker.rows():
        info = gen.row_streams(row, gen.streams)
        outer = gen.row_streams(row, gen.outer_streams)
        row_units = -(-row.count // unit)
        whole = None
        if cache is not None and cache.enabled and row_units <= ROW_TEMPLATE_UNITS:
            whole = cache.row(row.count, info, outer, lines)
        prev: list = [None] * len(info)
        u0 = 0
        while u0 < row_units:
            u1 = min(row_units, u0 + max(1, max_units - units))
            if whole is not None:
                bounds = whole.bounds
                seq += whole.seq[bounds[u0]:bounds[u1]]
                tally.total += whole.full_bounds[u1] - whole.full_bounds[u0]
            elif cache is not None and cache.enabled:
                part, full = cache.segment(row.count, info, outer, prev, u0, u1,
                                           u1 == row_units, lines)
                seq += part
                tally.total += full
            else:
                part = flatten(segment_columns(cl, unit, row.count, info, outer, prev, u0, u1,
                                               u1 == row_units))
                tally.total += len(part)
                seq += part if lines is None else \
                    [x for x in part if x % m in (read_kept if x > 0 else write_kept)]
            iterations += min(row.count, u1 * unit) - u0 * unit
            units += u1 - u0
            u0 = u1
            end = row.sweep_end and u0 == row_units
            if units >= max_units or end:
                tally.kept += len(seq)
                yield seq, iterations, end
                seq, iterations, units = [], 0, 0
