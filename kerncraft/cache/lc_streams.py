"""Streams, positions and reuse vectors: the geometry behind layer conditions.

The layer-condition predictor (:mod:`kerncraft.cache.layer_conditions`) needs,
for every array reference of the innermost loop body, *where* in the
iteration space it touches data relative to the other references of the same
array, and *how long ago* (in innermost iterations) that data was touched
before. This module derives both once, symbolically, from a
:class:`~kerncraft.kernel.model.KernelModel`.

Vocabulary (see ``docs/layer-conditions.md`` for the full method)
-----------------------------------------------------------------
* Iteration-space coefficients ``c[k]``: how many elements the linear index
  moves when loop ``k`` advances by one *iteration* (coefficient of the loop
  index times the loop step). References to the same array with the same
  coefficients form a **reference group**; they differ by a constant element
  offset only, so one of them re-touches what another touched before.
* **Position** of a reference: its offset written as a combination of the
  coefficients, ``offset = sum_k p[k] * c[k]`` (e.g. ``a[j-1][i]`` in a j,i
  nest is one j-iteration behind: ``p = (-1, 0)``). Positions are vectors of
  exact rationals in loop order; comparing them lexicographically orders the
  references in time, provided inner loops run longer than the stencil radius
  (the usual case; checked per point by the predictor).
* **Reuse vector** of a reference: the iteration distance (as a vector) to the
  last time its data was touched - by the group member just ahead of it
  (group reuse), or by itself one iteration of an outer loop earlier when that
  loop does not move it (self-temporal reuse, ``y[i]`` under an outer ``j``),
  or moves it by less than a cache line while the inner loop strides over whole
  lines (self-spatial reuse, ``a[i][j]`` with inner ``i``).
* **Duration** of a vector: ``sum_k v[k] * P[k]`` innermost iterations, where
  ``P[k]`` is the product of the trip counts of the loops inside ``k``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, Mapping, Sequence

import sympy

from kerncraft.kernel.model import Access, KernelModel, Loop

Vector = tuple[Fraction, ...]
"""An iteration-space vector in loop order (outermost first)."""

ReuseKind = Literal["compulsory", "group", "self-temporal", "self-spatial"]
GroupKind = Literal["stream", "invariant", "irregular"]

PROBE_BASE = 1000
"""Constants get values near this when an ordering must be decided numerically
(e.g. which of ``N`` and ``M`` is the larger stride): layer conditions are
about large grids, and a fixed, documented probe keeps the analysis
deterministic."""


def lex_positive(v: Vector) -> bool:
    """True if the first non-zero entry of ``v`` is positive."""
    for x in v:
        if x:
            return x > 0
    return False


@dataclass(frozen=True)
class ReuseStep:
    """From window ``vector`` on, only ``miss_fraction`` of the lines are new.

    Temporal and group reuse have fraction 0; self-spatial reuse across an
    outer loop leaves the fraction of lines that loop shifts in.
    """

    vector: Vector
    kind: ReuseKind
    miss_fraction: Fraction
    source: str | None = None        # label of the reference that touched the data first


@dataclass(frozen=True)
class StreamPoint:
    """One distinct data reference (array, coefficients, offset) of the loop body.

    A read and a write of the same element (``a[i] = s*a[i]``) are one point
    with ``reads`` and ``writes`` both set: the line is fetched once.
    ``steps`` lists its reuses by increasing window with decreasing miss
    fraction; none means every line is a compulsory miss.
    """

    label: str
    group: int
    offset: sympy.Expr
    position: Vector
    reads: bool
    writes: bool
    steps: tuple[ReuseStep, ...]

    @property
    def kind_label(self) -> str:
        return "rw" if self.reads and self.writes else ("w" if self.writes else "r")

    @property
    def reuse(self) -> Vector | None:
        """Shortest reuse window (None: never reused)."""
        return self.steps[0].vector if self.steps else None

    def miss_fraction(self, window: Vector | None) -> Fraction:
        """Share of this reference's lines that are new when ``window`` is kept."""
        frac = Fraction(1)
        if window is None:
            return frac
        for step in self.steps:
            if step.vector <= window:
                frac = min(frac, step.miss_fraction)
        return frac


@dataclass(frozen=True)
class ReferenceGroup:
    """References to one array with equal iteration-space coefficients.

    ``rate`` is the bytes of *new cache lines* one member stream brings in per
    innermost iteration: the byte stride if it is below a line (spatial reuse
    within the line), else one whole line per iteration - strides are never
    assumed to be one. ``points`` lists the members lead first (the one that
    touches new data first); ``gaps[m]`` is the position difference between
    ``points[m]`` and ``points[m+1]``. ``self_steps`` are the reuses of the
    group by itself across outer loops (see :func:`_self_reuse`).
    """

    array: str
    element_size: int
    coefficients: tuple[sympy.Expr, ...]
    stride_bytes: sympy.Expr
    rate: sympy.Expr
    sparse: bool
    points: tuple[int, ...]
    gaps: tuple[Vector, ...]
    self_steps: tuple[ReuseStep, ...]
    written: bool
    read: bool
    kind: GroupKind
    amortized_lines: sympy.Expr = sympy.Integer(0)


@dataclass(frozen=True)
class StreamAnalysis:
    """Result of :func:`analyze_streams` (symbolic in the unbound constants)."""

    loops: tuple[Loop, ...]
    trips: tuple[sympy.Expr, ...]
    periods: tuple[sympy.Expr, ...]
    groups: tuple[ReferenceGroup, ...]
    points: tuple[StreamPoint, ...]
    cacheline_size: int
    notes: tuple[str, ...]

    def duration(self, v: Vector | None) -> sympy.Expr:
        """Innermost iterations spanned by the iteration vector ``v``."""
        if v is None:
            return sympy.Integer(0)
        return sympy.expand(sum((sympy.Rational(x.numerator, x.denominator) * p
                                 for x, p in zip(v, self.periods) if x), sympy.Integer(0)))

    def is_whole_sweep(self, v: Vector | None) -> bool:
        """True for the window of the virtual repetition loop (the whole working set)."""
        return bool(v is not None and self.loops and self.loops[0] is REPEAT_LOOP and v[0])

    def describe(self, v: Vector | None) -> str:
        """Human-readable vector, e.g. ``j+1 i-1`` (loop names with steps)."""
        if v is None:
            return "-"
        if self.is_whole_sweep(v):
            return "whole sweep"
        parts = [f"{lp.index}{'+' if x > 0 else ''}{_fmt_fraction(x)}"
                 for lp, x in zip(self.loops, v) if x]
        return " ".join(parts) or "0"


def _fmt_fraction(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


# --- trip counts ---------------------------------------------------------------
def loop_trips(loops: Sequence[Loop]) -> tuple[sympy.Expr, ...]:
    """Smooth trip counts: ``end - start`` over the step, outer indices at mid-range.

    ``Loop.trip_count`` clamps at zero and rounds with floor; both would make
    every layer condition piecewise. Layer conditions only make sense for
    loops that run, so the clamp is dropped; the floor is replaced by exact
    division (a fractional trip count is harmless in an average). A triangular
    bound depending on an outer index uses that index's mid-range value, i.e.
    the average trip count.
    """
    trips: list[sympy.Expr] = []
    mids: dict[sympy.Symbol, sympy.Expr] = {}
    for lp in loops:
        span = (lp.end - lp.start) if lp.step > 0 else (lp.start - lp.end)
        t = sympy.expand(span / abs(lp.step)).xreplace(mids)
        trips.append(sympy.expand(t))
        mids[lp.symbol] = sympy.expand(((lp.start + lp.end - lp.step) / 2).xreplace(mids))
    return tuple(trips)


def loop_periods(trips: Sequence[sympy.Expr]) -> tuple[sympy.Expr, ...]:
    """``P[k]``: innermost iterations per iteration of loop ``k`` (``P[-1] == 1``)."""
    periods = [sympy.Integer(1)] * len(trips)
    for k in range(len(trips) - 2, -1, -1):
        periods[k] = sympy.expand(periods[k + 1] * trips[k + 1])
    return tuple(periods)


# --- helpers on expressions ------------------------------------------------------
def probe_values(symbols: Sequence[sympy.Symbol]) -> dict[sympy.Symbol, int]:
    """Deterministic large, distinct values for ordering decisions (see PROBE_BASE)."""
    return {s: PROBE_BASE + 24 * n for n, s in enumerate(sorted(symbols, key=str))}


def _probe(expr: sympy.Expr, probe: Mapping[sympy.Symbol, int]) -> float:
    return float(sympy.sympify(expr).xreplace(probe))


def _quotient(a: sympy.Expr, b: sympy.Expr) -> int:
    """Nearest-integer quotient ``a / b`` (0 if it is not a plain integer).

    For numbers this rounds to nearest, so ``7 / 8`` means "one row ahead,
    one element back"; for polynomials in the constants sympy's division gives
    the same reading (``(N-1) / N -> 1`` remainder ``-1``).
    """
    if a == 0:
        return 0
    if a.is_number and b.is_number:
        return int(round(Fraction(str(sympy.nsimplify(a))) / Fraction(str(sympy.nsimplify(b)))))
    gens = sorted(a.free_symbols | b.free_symbols, key=str)
    try:
        q, _ = sympy.div(a, b, *gens)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, ValueError):
        return 0
    return int(q) if q.is_Integer else 0


def access_label(acc: Access) -> str:
    """Source-like text of an access, e.g. ``a[j-1][i]``."""
    return acc.array + "".join(f"[{str(i).replace(' ', '')}]" for i in acc.indices)


# --- main analysis ------------------------------------------------------------------
@dataclass(frozen=True)
class _RawRef:
    array: str
    coeffs: tuple[sympy.Expr, ...]
    offset: sympy.Expr
    access: Access


REPEAT_LOOP = Loop(index="repeat", symbol=sympy.Symbol("_lc_repeat", integer=True),
                   start=sympy.Integer(0), end=sympy.Integer(1), step=1)
"""Virtual outermost loop: the kernel is run repeatedly (benchmark, ECM steady state)."""


def analyze_streams(kernel: KernelModel, cacheline_size: int,
                    repeated: bool = True) -> StreamAnalysis:
    """Group the innermost-loop references and derive positions and reuse vectors.

    With ``repeated`` a virtual outermost loop (:data:`REPEAT_LOOP`) models the
    kernel being called again and again, as in a benchmark and in the steady
    state ECM describes: every reference then also re-touches its data one
    whole sweep later, so data that fits into a level as a whole stays there.
    """
    loops = ((REPEAT_LOOP,) if repeated else ()) + tuple(kernel.loops)
    trips = loop_trips(loops)
    periods = loop_periods(trips)
    consts = [c.symbol for c in kernel.unbound_constants()]
    probe = probe_values(consts)
    notes: list[str] = []
    raw, irregular = _collect_references(kernel, loops, notes)
    buckets: dict[tuple, list[_RawRef]] = {}
    for ref in raw:
        buckets.setdefault((ref.array, ref.coeffs), []).append(ref)
    groups: list[ReferenceGroup] = []
    points: list[StreamPoint] = []
    for (array, coeffs), refs in buckets.items():
        s = kernel.arrays[array].element_size
        for sub in _split_by_residual(refs, coeffs, probe):
            _build_group(array, s, coeffs, sub, periods, probe, cacheline_size,
                         groups, points, notes)
    for acc in irregular:
        _build_irregular(kernel, acc, cacheline_size, groups, points)
    return StreamAnalysis(loops, trips, periods, tuple(groups), tuple(points),
                          cacheline_size, tuple(notes))


def _collect_references(kernel: KernelModel, loops: Sequence[Loop],
                        notes: list[str]) -> tuple[list[_RawRef], list[Access]]:
    """Split accesses into affine references (with coefficients) and irregular ones."""
    syms = [lp.symbol for lp in loops]
    zero = {s: 0 for s in syms}
    raw: list[_RawRef] = []
    irregular: list[Access] = []
    for acc in kernel.accesses:
        arr = kernel.arrays.get(acc.array)
        if arr is None or arr.is_scalar:
            continue        # scalars live in registers: no cache traffic
        lin = sympy.expand(acc.linear_index)
        coeffs = tuple(sympy.expand(sympy.diff(lin, s) * lp.step) for s, lp in zip(syms, loops))
        if any(c.free_symbols & set(syms) for c in coeffs):
            irregular.append(acc)
            notes.append(f"{access_label(acc)} is not affine in the loop indices; counted as "
                         "one missed cache line per iteration at every level")
            continue
        raw.append(_RawRef(acc.array, coeffs, sympy.expand(lin.xreplace(zero)), acc))
    return raw, irregular


def decompose(offset: sympy.Expr, coeffs: Sequence[sympy.Expr],
              probe: Mapping[sympy.Symbol, int]) -> tuple[list[Fraction], sympy.Expr]:
    """Write ``offset`` as ``sum p[k]*coeffs[k]``; return ``(p, unexplained residual)``.

    Coefficients are taken largest first (by magnitude at the probe point), not
    in loop order, so index orders that differ from the loop order (``a[i][j]``
    under an inner ``i``) decompose correctly. Whatever cannot be expressed
    with integer multiples is moved to the innermost loop as a fractional
    position if that is exact (``a[2*i+1]`` is half an iteration ahead of
    ``a[2*i]``), else returned as residual.
    """
    n = len(coeffs)
    pos = [Fraction(0)] * n
    order = sorted((k for k in range(n) if coeffs[k] != 0),
                   key=lambda k: (-abs(_probe(coeffs[k], probe)), k))
    rem = sympy.expand(offset)
    for k in order:
        q = _quotient(rem, coeffs[k])
        if q:
            pos[k] += q
            rem = sympy.expand(rem - q * coeffs[k])
    if rem != 0 and n and coeffs[-1] != 0:
        frac = sympy.nsimplify(rem / coeffs[-1])
        if frac.is_Rational:
            pos[-1] += Fraction(int(frac.p), int(frac.q))
            rem = sympy.Integer(0)
    return pos, rem


def _split_by_residual(refs: Sequence[_RawRef], coeffs, probe):
    """Sub-groups of references whose offsets differ by a loop-reachable amount."""
    subs: dict[sympy.Expr, list[tuple[_RawRef, Vector]]] = {}
    for ref in refs:
        pos, rem = decompose(ref.offset, coeffs, probe)
        subs.setdefault(rem, []).append((ref, tuple(pos)))
    return list(subs.values())


def _build_group(array: str, s: int, coeffs: tuple[sympy.Expr, ...], members,
                 periods, probe, cl: int,
                 groups: list[ReferenceGroup], points: list[StreamPoint],
                 notes: list[str]) -> None:
    """Create one :class:`ReferenceGroup` and its :class:`StreamPoint` s."""
    merged: dict[Vector, dict] = {}
    for ref, pos in members:
        entry = merged.setdefault(pos, {"label": access_label(ref.access), "offset": ref.offset,
                                        "reads": False, "writes": False})
        entry["reads" if ref.access.kind == "read" else "writes"] = True
    ordered = sorted(merged.items(), key=lambda kv: kv[0], reverse=True)
    gid = len(groups)
    inner = coeffs[-1] if coeffs else sympy.Integer(0)
    if inner == 0:
        _build_invariant(array, s, coeffs, ordered, periods, cl, gid, groups, points)
        return
    stride = sympy.Abs(inner) * s
    sparse = _probe(stride, probe) >= cl
    rate = sympy.Min(stride, cl) if stride.free_symbols else sympy.Integer(min(int(stride), cl))
    self_steps = _self_reuse(coeffs, s, cl, sparse)
    first = len(points)
    gaps: list[Vector] = []
    prev_pos, prev_label = None, None
    for pos, entry in ordered:
        steps = self_steps
        if prev_pos is not None:
            gap = tuple(a - b for a, b in zip(prev_pos, pos))
            gaps.append(gap)
            steps = _merge_steps(self_steps, ReuseStep(gap, "group", Fraction(0), prev_label))
        points.append(StreamPoint(entry["label"], gid, entry["offset"], pos, entry["reads"],
                                  entry["writes"], steps))
        prev_pos, prev_label = pos, entry["label"]
    groups.append(ReferenceGroup(
        array, s, coeffs, stride, rate, sparse, tuple(range(first, len(points))), tuple(gaps),
        self_steps, any(e["writes"] for _, e in ordered), any(e["reads"] for _, e in ordered),
        "stream"))
    if sparse and len(ordered) > 1:
        notes.append(f"{array}: {len(ordered)} references with a stride of {stride} B per "
                     "iteration; lines shared by neighbouring references in the same "
                     "iteration are counted once per reference (upper bound)")


def _merge_steps(steps: Sequence[ReuseStep], extra: ReuseStep) -> tuple[ReuseStep, ...]:
    """Steps by increasing window, keeping only those that lower the miss fraction."""
    out: list[ReuseStep] = []
    for step in sorted([*steps, extra], key=lambda st: (st.vector, st.miss_fraction)):
        if not out or step.miss_fraction < out[-1].miss_fraction:
            out.append(step)
    return tuple(out)


def _self_reuse(coeffs: Sequence[sympy.Expr], s: int, cl: int,
                sparse: bool) -> tuple[ReuseStep, ...]:
    """Reuses of a group by itself across outer loops, innermost first.

    Temporal: an outer loop that does not move the reference re-touches the
    same elements one of its iterations later (fraction 0; the search stops
    there, as outer loops cannot do better). Spatial (only for strides of a
    line or more, where the inner loop gets no spatial reuse of its own): an
    outer loop that moves the reference by less than a line re-touches the
    same lines, a fraction ``|c| * s / cl`` of them being new.
    """
    n = len(coeffs)
    steps: list[ReuseStep] = []
    for k in range(n - 2, -1, -1):
        c = coeffs[k]
        vec = tuple(Fraction(1 if m == k else 0) for m in range(n))
        if c == 0:
            steps.append(ReuseStep(vec, "self-temporal", Fraction(0)))
            break
        if sparse and not steps and c.is_number and abs(c) * s < cl:
            steps.append(ReuseStep(vec, "self-spatial", Fraction(int(abs(c)) * s, cl)))
    return tuple(steps)


def _build_invariant(array, s, coeffs, ordered, periods, cl, gid, groups, points) -> None:
    """References that the innermost loop does not move (``x[j]`` under inner ``i``).

    They hit in L1 on every innermost iteration; the only traffic is a new
    line whenever an outer loop moves them across a line boundary, amortized
    over that loop's period and charged at every level (it is tiny).
    """
    amort = sympy.Integer(0)
    for k in range(len(coeffs) - 1, -1, -1):
        if coeffs[k] != 0:
            step = sympy.Abs(coeffs[k]) * s
            moved = sympy.Min(step, cl) if step.free_symbols else sympy.Integer(min(int(step), cl))
            amort = sympy.expand(moved / cl / periods[k]) * len(ordered)
            break
    first = len(points)
    for pos, entry in ordered:
        points.append(StreamPoint(entry["label"], gid, entry["offset"], pos, entry["reads"],
                                  entry["writes"], ()))
    groups.append(ReferenceGroup(
        array, s, coeffs, sympy.Integer(0), sympy.Integer(0), False,
        tuple(range(first, len(points))), (), (),
        any(e["writes"] for _, e in ordered), any(e["reads"] for _, e in ordered),
        "invariant", amort))


def _build_irregular(kernel: KernelModel, acc: Access, cl: int,
                     groups: list[ReferenceGroup], points: list[StreamPoint]) -> None:
    """A non-affine reference: assume a new line per iteration, never reused."""
    gid = len(groups)
    s = kernel.arrays[acc.array].element_size
    points.append(StreamPoint(access_label(acc), gid, sympy.Integer(0), (), acc.kind == "read",
                              acc.kind == "write", ()))
    groups.append(ReferenceGroup(
        acc.array, s, (), sympy.Integer(cl), sympy.Integer(cl), True, (len(points) - 1,), (),
        (), acc.kind == "write", acc.kind == "read", "irregular"))
