"""Cache-line address streams of a bound kernel, generated unit of work by unit.

Memory layout (:func:`layout_arrays`)
-------------------------------------
Arrays are placed like a program that heap-allocates each one: in declaration
order, starting at a 64-bit address (``BASE_ADDRESS``), each array on its own
pages (at least one guard page apart, so halo accesses just outside an array
never touch its neighbour) and 64-byte aligned. On top of the page alignment
array *k* is shifted by ``k * STAGGER`` bytes (modulo the page size). Without
that shift, equally sized arrays whose size is a multiple of the set stride
would map ``a[i]`` and ``b[i]`` to the same set in every cache - an artefact
of the simulator's idealised layout, not of the kernel. Aliasing *inside* an
array that the kernel's own leading dimensions cause (e.g. rows of 8 KiB in a
2D stencil) is real and kept.

Iteration order
---------------
The loop nest is walked in program order. The walk starts at a fraction
(``start``, default one half) of the outermost loop's range, i.e. in the middle
of the iteration space, away from the boundaries, and wraps around to the
beginning when it reaches the end, as if the kernel were called repeatedly
(that is also what makes data that fits in a cache reach a steady state).
A *sweep* ends each time the walk reaches the end of the domain and wraps.

Accesses become streams
-----------------------
Within one innermost-loop row every access is an arithmetic progression of
addresses. Accesses of the same array and kind whose loop coefficients agree
and whose constant offsets lie within a cache line of each other (e.g.
``a[j][i-1], a[j][i], a[j][i+1]``) are merged into one *stream*: per unit of
work it touches one contiguous range of lines. A unit of work emits, for each
read stream in source order, the lines it touches that the stream has not
touched in the previous unit of the same row, then the same for the write
streams (reads before writes, as in an assignment). Strided streams (more than
a line between consecutive iterations) emit the lines of every iteration.
Accesses of statements outside the innermost loop (``outer_accesses``) are
emitted once per row, with the row's last unit. L1 "hits" therefore count
repeated *line* touches, not element accesses; the traffic below L1 is
unaffected by the collapsing.

:meth:`UnitGenerator.units` yields one unit at a time (the readable
definition); :meth:`UnitGenerator.chunks` yields the same accesses for many
units at once (:mod:`kerncraft.cache.line_chunks`), in the encoding of
:meth:`kerncraft.cache.cache_sim.CacheSimulator.feed` (the SIM predictor's
path; both are checked to agree in ``tests/test_cache_sim.py``).

Reuse span
----------
:func:`reuse_span` bounds, for rectangular nests that walk every array
monotonically, how many iterations a cache line stays in use within a sweep;
the SIM predictor uses it to end its warm-up as soon as the longest reuse has
been simulated once (see :mod:`kerncraft.cache.sim_predictor`).
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from operator import mul
from typing import Callable, Iterator, Mapping

import sympy

from kerncraft.errors import DefineError, KernelError, KerncraftError, SourceLocation

BASE_ADDRESS = 0x7F00_0000_0000
PAGE_SIZE = 4096
ALIGNMENT = 64
STAGGER = 7 * 64      # a prime number of lines: distinct L1/L2 sets for up to 64 arrays


@dataclass(frozen=True)
class ArrayLayout:
    """Where one array lives in the simulated address space."""

    name: str
    base: int            # byte address of element 0
    element_size: int
    size_bytes: int


@dataclass(frozen=True)
class Stream:
    """Merged accesses: bytes ``base + e*(sum(coeffs[k]*v_k) + lo) .. (+hi) + e-1``."""

    array: str
    kind: str                    # 'read' or 'write'
    element_size: int
    base: int
    coeffs: tuple[int, ...]      # elements per unit of each loop index, outermost first
    lo: int                      # smallest constant element offset of the group
    hi: int                      # largest constant element offset of the group


def _bind_map(kernel) -> dict[sympy.Symbol, int]:
    values = dict(kernel.bindings or {})
    return {c.symbol: int(values[c.name]) for c in kernel.constants if c.name in values}


def _to_int(expr, what: str, binds: Mapping) -> int:
    value = sympy.sympify(expr).subs(binds)
    if value.free_symbols:
        names = ", ".join(sorted(str(s) for s in value.free_symbols))
        raise DefineError(f"{what}: no value for {names}; bind it with -D")
    return int(value)


def layout_arrays(kernel, base: int = BASE_ADDRESS) -> dict[str, ArrayLayout]:
    """Assign base addresses to the non-scalar arrays (see module doc)."""
    binds = _bind_map(kernel)
    out: dict[str, ArrayLayout] = {}
    cursor = base
    for k, arr in enumerate(a for a in kernel.arrays.values() if not a.is_scalar):
        size = _to_int(arr.total_bytes(), f"size of array {arr.name}", binds)
        start = -(-cursor // PAGE_SIZE) * PAGE_SIZE + (k * STAGGER) % PAGE_SIZE
        out[arr.name] = ArrayLayout(arr.name, start, arr.element_size, size)
        cursor = start + size + PAGE_SIZE
    return out


@functools.lru_cache(maxsize=4096)
def _affine_form(expr, loop_syms: tuple) -> tuple[tuple, object] | None:
    """Coefficients of the loop indices and the constant of ``expr`` (still in the
    kernel's constants); None if it is not affine. Cached: a ``-D`` sweep binds the same
    indices again and again, only the substitution of the values below is new."""
    expr = sympy.expand(sympy.sympify(expr))
    try:
        poly = sympy.Poly(expr, *loop_syms) if loop_syms else None
    except sympy.PolynomialError:
        return None
    if poly is not None and poly.total_degree() > 1:
        return None
    return tuple(expr.coeff(s) for s in loop_syms), expr.subs({s: 0 for s in loop_syms})


def _affine(expr, loop_syms, binds, acc) -> tuple[tuple[int, ...], int]:
    """Integer coefficients of the loop indices and the constant of ``expr``."""
    loc = SourceLocation(None, acc.line, acc.col)
    form = _affine_form(sympy.sympify(expr), tuple(loop_syms))
    if form is None:
        bound = sympy.expand(sympy.sympify(expr).subs(binds))
        raise KernelError(f"cache simulation needs affine indices, {acc.array}: {bound}", loc)
    values = [sympy.sympify(c).subs(binds) for c in (*form[0], form[1])]
    extra = set().union(*(v.free_symbols for v in values))
    if extra:
        names = ", ".join(sorted(str(s) for s in extra))
        raise DefineError(f"index of {acc.array}: no value for {names}; bind it with -D", loc)
    if not all(v.is_integer for v in values):
        bound = sympy.expand(sympy.sympify(expr).subs(binds))
        raise KernelError(f"cache simulation needs integer index coefficients, {acc.array}: "
                          f"{bound}", loc)
    return tuple(int(v) for v in values[:-1]), int(values[-1])


def build_streams(kernel, layout: Mapping[str, ArrayLayout], cl_size: int,
                  accesses=None) -> tuple[Stream, ...]:
    """Group array accesses (default: the innermost body's) into streams, reads first."""
    binds = _bind_map(kernel)
    syms = [lp.symbol for lp in kernel.loops]
    groups: dict[tuple, list[int]] = {}
    for acc in (kernel.accesses if accesses is None else accesses):
        arr = kernel.arrays.get(acc.array)
        if arr is None or arr.is_scalar:
            continue
        coeffs, const = _affine(acc.linear_index, syms, binds, acc)
        groups.setdefault((acc.kind != "read", acc.array, coeffs), []).append(const)
    streams: list[Stream] = []
    for (is_write, name, coeffs), offsets in sorted(groups.items(), key=lambda kv: kv[0][0]):
        lay = layout[name]
        offsets = sorted(set(offsets))
        lo = prev = offsets[0]
        for off in offsets[1:] + [None]:
            if off is None or (off - prev) * lay.element_size > cl_size:
                streams.append(Stream(name, "write" if is_write else "read", lay.element_size,
                                      lay.base, coeffs, lo, prev))
                lo = off
            prev = off
    return tuple(streams)


def _bound_fn(expr, outer_syms, binds) -> Callable[..., int]:
    expr = sympy.sympify(expr).subs(binds)
    extra = expr.free_symbols - set(outer_syms)
    if extra:
        names = ", ".join(sorted(str(s) for s in extra))
        raise DefineError(f"loop bound {expr}: no value for {names}; bind it with -D")
    if not expr.free_symbols:
        value = int(expr)
        return lambda *args: value
    fn = sympy.lambdify(outer_syms, expr, modules="math")
    return lambda *args: int(fn(*args))


@dataclass(frozen=True)
class Row:
    """A run of innermost iterations: ``first, first+step, ...`` (``count`` of them)."""

    outer: tuple[int, ...]
    first: int
    step: int
    count: int
    sweep_end: bool = False      # True for the last row of a sweep


class LoopWalker:
    """Walk the (bound) loop nest row by row, starting mid-domain and wrapping around."""

    def __init__(self, kernel, units_align: int = 1, start: float = 0.5):
        if not kernel.loops:
            raise KernelError("cache simulation needs at least one loop")
        if not 0.0 <= start < 1.0:
            raise KerncraftError(f"start fraction must be in [0, 1), got {start}")
        binds = _bind_map(kernel)
        self.loops = kernel.loops
        syms = [lp.symbol for lp in self.loops]
        self._bounds = [(_bound_fn(lp.start, syms[:k], binds), _bound_fn(lp.end, syms[:k], binds))
                        for k, lp in enumerate(self.loops)]
        self.align = max(1, units_align)
        self.start = start

    def _range(self, k: int, outer: tuple[int, ...]) -> range:
        lo, hi = self._bounds[k]
        return range(lo(*outer), hi(*outer), self.loops[k].step)

    def _rows(self, k: int, outer: tuple[int, ...]) -> Iterator[Row]:
        """All rows below loop ``k`` for fixed outer values (full inner ranges)."""
        if k == len(self.loops) - 1:
            r = self._range(k, outer)
            if len(r):
                yield Row(outer, r.start, r.step, len(r))
            return
        for v in self._range(k, outer):
            yield from self._rows(k + 1, outer + (v,))

    def rows(self) -> Iterator[Row]:
        """Endless rows: start position to domain end, then whole sweeps from the start.

        ``Row.sweep_end`` marks the last row of the domain, after which the
        walk wraps around to the domain's first row.
        """
        outer_range = self._range(0, ())
        split = int(len(outer_range) * self.start)
        if len(self.loops) == 1:       # keep units aligned to the loop start
            split = split // self.align * self.align
        lo = split
        while True:
            pending: Row | None = None
            for row in self._part_rows(outer_range, lo, len(outer_range)):
                if pending is not None:
                    yield pending
                pending = row
            if pending is not None:
                yield dataclasses.replace(pending, sweep_end=True)
            elif lo == 0:
                raise KerncraftError("the loop nest executes no iterations with these sizes")
            lo = 0

    def _part_rows(self, outer_range: range, lo: int, hi: int) -> Iterator[Row]:
        if lo >= hi:
            return
        if len(self.loops) == 1:
            step = outer_range.step
            yield Row((), outer_range[lo], step, hi - lo)
            return
        for v in outer_range[lo:hi]:
            yield from self._rows(1, (v,))


def _stream_constants(streams: tuple[Stream, ...]) -> list[tuple]:
    """Per stream: (is_write, byte address at all indices 0, bytes per unit of each outer
    index, bytes per unit of the innermost index, width - 1)."""
    out = []
    for st in streams:
        e = st.element_size
        out.append((st.kind == "write", st.base + e * st.lo, tuple(e * c for c in st.coeffs[:-1]),
                    e * st.coeffs[-1], e * (st.hi - st.lo) + e - 1))
    return out


class UnitGenerator:
    """Produce ``(reads, writes, iterations, sweep_end)`` per unit of work."""

    def __init__(self, kernel, cl_size: int, iterations_per_unit: int, start: float = 0.5,
                 layout: Mapping[str, ArrayLayout] | None = None):
        self.cl = cl_size
        self.unit = iterations_per_unit
        self.layout = dict(layout) if layout is not None else layout_arrays(kernel)
        self.streams = build_streams(kernel, self.layout, cl_size)
        self.outer_streams = build_streams(kernel, self.layout, cl_size,
                                           getattr(kernel, "outer_accesses", ()))
        self.walker = LoopWalker(kernel, iterations_per_unit, start)
        self._constants: dict[int, tuple] = {}      # id(streams) -> (streams, constants)

    def row_streams(self, row: Row, streams: tuple[Stream, ...]) -> list[tuple]:
        """Per stream: ``(is_write, first byte, width - 1, bytes per iteration, strided)``
        for this row."""
        pre = self._constants.get(id(streams))
        if pre is None or pre[0] is not streams:
            pre = self._constants[id(streams)] = (streams, _stream_constants(streams))
        outer, first, step, cl = row.outer, row.first, row.step, self.cl
        return [(w, c + sum(map(mul, per_loop, outer)) + g * first, ext, g * step,
                 abs(g * step) - ext - 1 >= cl) for w, c, per_loop, g, ext in pre[1]]

    def units(self) -> Iterator[tuple[list[int], list[int], int, bool]]:
        """Endless per-unit line lists (see module doc for order and de-duplication)."""
        cl, unit = self.cl, self.unit
        for row in self.walker.rows():
            info = self.row_streams(row, self.streams)
            outer = self.row_streams(row, self.outer_streams)
            nstreams = len(info)
            last = [None] * nstreams           # line range edge touched in previous unit
            for t0 in range(0, row.count, unit):
                n = min(unit, row.count - t0)
                reads: list[int] = []
                writes: list[int] = []
                for k in range(nstreams):
                    is_write, a, ext, d, strided = info[k]
                    out = writes if is_write else reads
                    if strided:
                        for t in range(t0, t0 + n):
                            lo = a + d * t
                            out.extend(range(lo // cl, (lo + ext) // cl + 1))
                        continue
                    if d >= 0:
                        lo_line = (a + d * t0) // cl
                        hi_line = (a + d * (t0 + n - 1) + ext) // cl
                        prev = last[k]
                        if d and prev is not None and lo_line <= prev:
                            lo_line = prev + 1
                        last[k] = hi_line
                        out.extend(range(lo_line, hi_line + 1))
                    else:
                        hi_line = (a + d * t0 + ext) // cl
                        lo_line = (a + d * (t0 + n - 1)) // cl
                        prev = last[k]
                        if prev is not None and hi_line >= prev:
                            hi_line = prev - 1
                        last[k] = lo_line
                        out.extend(range(hi_line, lo_line - 1, -1))
                row_end = t0 + unit >= row.count
                if row_end:
                    for is_write, a, ext, _, _ in outer:
                        (writes if is_write else reads).extend(range(a // cl, (a + ext) // cl + 1))
                yield reads, writes, n, row.sweep_end and row_end

    # --- whole rows at a time (the SIM predictor's path) ---------------------------------
    def chunks(self, max_units: int = 256, lines=None) -> Iterator[tuple[list[int], int, bool]]:
        """Endless ``(accesses, iterations, sweep_end)`` of consecutive units of work.

        ``accesses`` is the concatenation of what :meth:`units` yields for the
        same units, in the same order, encoded for :meth:`CacheSimulator.feed`:
        reads as positive line numbers, writes negated. A chunk holds whole
        rows (a long row is split after ``max_units`` units) and ends at the
        latest after ``max_units`` units or at a sweep end (``sweep_end``).
        Rows are computed all units at once and repeated rows are moved copies
        of an earlier one (:mod:`kerncraft.cache.line_chunks`), which makes
        this many times faster than :meth:`units`; ``lines`` (a
        :class:`~kerncraft.cache.line_chunks.LineClass`) keeps only its lines (set
        sampling, same module).
        """
        from kerncraft.cache.line_chunks import line_chunks

        return line_chunks(self, max_units, lines)


@dataclass(frozen=True)
class ReuseSpan:
    """Bounds of a monotone walk (see :func:`reuse_span`).

    ``span``: within one sweep, every cache line is touched only during an
    interval of at most ``span`` innermost iterations. ``sweep_lines``: a
    lower bound on the distinct lines one sweep touches.
    """

    span: int
    sweep_lines: int


def reuse_span(kernel, cl_size: int, layout: Mapping[str, ArrayLayout] | None = None,
               streams: tuple[Stream, ...] | None = None) -> ReuseSpan | None:
    """Bound how long a cache line stays in use, for walks that move monotonically.

    Applies when the loop nest is rectangular (constant bounds) and, for every
    array, all accesses share one coefficient vector ``c`` along which the
    walk is *strictly monotone*: the element index ``f = c . (loop indices)``
    changes by at least ``delta >= 1`` elements (always in the same
    direction) from one innermost iteration to the next, row and plane
    changes included. Then an access ``f + o`` touches a given line only while
    ``f`` lies in a window of ``o_max - o_min + elements per line - 1``
    elements, i.e. during at most that many / ``delta`` iterations: the
    stencil's longest reuse (e.g. two planes for a 3D 7-point stencil) is
    bounded without any layer-condition reasoning. Accesses of one array whose
    element ranges over the whole sweep cannot share a line (``a[0][..]`` and
    ``a[3][..]`` of a 4D array) are bounded separately. Returns ``None`` when
    the conditions do not hold (triangular nests, several coefficient vectors
    per array, accesses outside the innermost loop, non-monotone walks such
    as column sweeps or ``x[j]`` under an inner ``i``). ``layout``/``streams``: those of
    a :class:`UnitGenerator` for this kernel, if at hand.
    """
    binds = _bind_map(kernel)
    loops = kernel.loops
    if not loops or getattr(kernel, "outer_accesses", ()):
        return None
    firsts, trips, steps = [], [], []
    for lp in loops:
        lo, hi = (sympy.sympify(e).subs(binds) for e in (lp.start, lp.end))
        if lo.free_symbols or hi.free_symbols:
            return None
        r = range(int(lo), int(hi), lp.step)
        count = len(r[:1 << 62])   # len() of a longer range overflows; a slice never does
        if not count:
            return None
        firsts.append(r.start)
        trips.append(count)
        steps.append(lp.step)
    layout = dict(layout) if layout is not None else layout_arrays(kernel)
    if streams is None:
        streams = build_streams(kernel, layout, cl_size)
    by_array: dict[str, list[Stream]] = {}
    for st in streams:
        by_array.setdefault(st.array, []).append(st)
    n = len(loops)
    total = 1
    for t in trips:
        total *= t
    span = lines = 0
    for group in by_array.values():
        coeffs = {st.coeffs for st in group}
        if len(coeffs) != 1:
            return None
        c = group[0].coeffs
        g = [ck * sk for ck, sk in zip(c, steps)]
        deltas = [g[-1]] if trips[-1] > 1 else []
        for k in range(n - 1):
            if trips[k] > 1:
                deltas.append(g[k] - sum(g[m] * (trips[m] - 1) for m in range(k + 1, n)))
        if not deltas or not (all(x >= 1 for x in deltas) or all(x <= -1 for x in deltas)):
            return None
        step = min(abs(x) for x in deltas)
        per_line = max(1, -(-cl_size // group[0].element_size))
        f_first = sum(ck * x for ck, x in zip(c, firsts))
        f_last = sum(ck * (x + s * (t - 1)) for ck, x, s, t in zip(c, firsts, steps, trips))
        f_lo, f_hi = min(f_first, f_last), max(f_first, f_last)
        # clusters of streams whose element ranges (plus a line) overlap
        ranges = sorted((f_lo + st.lo - per_line, f_hi + st.hi + per_line, st.lo, st.hi)
                        for st in group)
        clusters: list[list[int]] = []
        for lo, hi, o_lo, o_hi in ranges:
            if clusters and lo <= clusters[-1][1]:
                cl_ = clusters[-1]
                cl_[1], cl_[2], cl_[3] = max(cl_[1], hi), min(cl_[2], o_lo), max(cl_[3], o_hi)
            else:
                clusters.append([lo, hi, o_lo, o_hi])
        for _, _, o_lo, o_hi in clusters:
            span = max(span, (o_hi - o_lo + per_line - 1) // step + 1)
            lines += total // per_line
    return ReuseSpan(span, lines)
