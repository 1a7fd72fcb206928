"""Per-point notes of the layer-condition predictor: what a step function misses.

A layer condition is a step: the reuse is either fully kept or fully lost, the
cache is an ideal pool of bytes, and rows are whole numbers of lines. Real
caches (and the cache simulator) deviate in three ways that the LC predictor
does not model but *reports* for every -D point, with numbers:

* **near threshold** - a footprint within +-20 % of the usable size: in
  reality reuse fades gradually (LRU order, set conflicts), and with the 1/2
  fill rule a condition that "fails" may still fit the full cache;
* **partial cache lines** - short inner loops whose rows are not contiguous in
  memory touch ``ceil(row/cl) + 1`` lines per row in the worst alignment;
* **associativity** - references whose addresses differ by multiples of
  ``sets * cl_size`` land in one set; more such lines than ways evict each
  other regardless of the cache size (e.g. large power-of-two rows).

Also reported: which condition holds at each level (so the traffic can be
traced back to it) and when short loops make the lexicographic ordering of
reuse windows questionable.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Mapping, Protocol, Sequence

from kerncraft.cache.lc_hierarchy import LevelCapacity

if TYPE_CHECKING:   # the notes of a point need neither sympy nor the stream analysis
    import sympy

    from kerncraft.cache.lc_streams import StreamAnalysis, Vector

NEAR_THRESHOLD = 0.20
"""Relative distance of a footprint to the usable size that triggers a note."""

SHORT_ROW_LINES = 16
"""Rows shorter than this many lines get a partial-cache-line note."""


def flag_expressions(streams: StreamAnalysis, kernel) -> dict[str, list[sympy.Expr]]:
    """Expressions the notes need per point (compiled together with the rates)."""
    import sympy

    n = len(streams.loops)
    strides, pitches = [], []
    for g in streams.groups:
        strides.append(g.stride_bytes)
        pitch = sympy.Abs(g.coefficients[-2]) * g.element_size if n >= 2 and g.coefficients \
            else sympy.Integer(0)
        pitches.append(pitch)
    offsets = [p.offset * streams.groups[p.group].element_size for p in streams.points]
    return {"trips": list(streams.trips), "strides": strides, "pitches": pitches,
            "offsets": offsets,
            "arrays": [size for _, size in array_bytes_expressions(kernel)]}


def array_bytes_expressions(kernel) -> list[tuple[str, sympy.Expr]]:
    """Total bytes of every non-scalar array, in declaration order."""
    return [(name, arr.total_bytes()) for name, arr in kernel.arrays.items() if not arr.is_scalar]


class _Regime(Protocol):
    """A rung of the ladder as the notes read it (``layer_conditions.Regime``)."""

    @property
    def window(self) -> Vector | None: ...
    @property
    def hits(self) -> tuple[str, ...]: ...
    @property
    def misses(self) -> tuple[str, ...]: ...


class _Condition(Protocol):
    """A rung seen from one level (``layer_conditions.LayerCondition``)."""

    @property
    def window(self) -> str: ...
    @property
    def threshold_text(self) -> str: ...


class ConditionLadder(Protocol):
    """What the notes read of the symbolic analysis, a
    :class:`~kerncraft.cache.layer_conditions.LayerConditionAnalysis`: that module
    calls :func:`point_notes` for every point, so this one does not import it."""

    @property
    def array_names(self) -> Sequence[str]:
        """The non-scalar arrays in declaration order (:func:`array_bytes_expressions`)."""
    @property
    def layout(self) -> tuple[int, int]:
        """(page size, stagger) of :func:`kerncraft.cache.addresses.layout_arrays`."""
    @property
    def capacities(self) -> Sequence[LevelCapacity]: ...
    @property
    def streams(self) -> StreamAnalysis: ...
    @property
    def regimes(self) -> Sequence[_Regime]: ...
    @property
    def conditions(self) -> Mapping[str, Sequence[_Condition]]: ...

    def limit(self, cap: LevelCapacity, regime: int) -> float:
        """Bytes condition ``regime`` may fill in level ``cap``."""


def point_notes(analysis: ConditionLadder, vals: Sequence[float], aux: Mapping[str, slice],
                foot: Sequence[float], holding: Mapping[str, int]) -> list[str]:
    """All notes for one point, most important first: ``vals`` are the analysis's
    compiled expressions at the point, ``aux`` where each kind of them is in ``vals``
    (the keys of :func:`flag_expressions` and ``thresholds``), ``foot`` the footprint
    of each regime and ``holding`` the condition that holds per level."""
    notes = [_capacity_note(analysis)]
    notes += _holding_notes(analysis, foot, holding)
    notes += _near_threshold_notes(analysis, foot, holding)
    notes += _ordering_notes(vals[aux["thresholds"]])
    notes += _partial_line_notes(analysis.streams, vals[aux["trips"]], vals[aux["strides"]],
                                 vals[aux["pitches"]])
    notes += _associativity_notes(analysis, vals[aux["offsets"]], vals[aux["arrays"]],
                                  holding)
    notes += _strided_set_notes(analysis, vals[aux["strides"]])
    notes += list(analysis.streams.notes)
    return notes


def _capacity_note(analysis) -> str:
    return "LC capacities: " + "; ".join(c.describe() for c in analysis.capacities)


def format_bytes(x: float) -> str:
    """A byte count as the notes (and the LC report) write it: B, kB or MB (binary)."""
    if x >= 1 << 20:
        return f"{x / (1 << 20):.2f} MB"
    if x >= 1024:
        return f"{x / 1024:.2f} kB"
    return f"{x:.0f} B"


def _holding_notes(analysis, foot, holding) -> list[str]:
    out = []
    last = len(analysis.regimes) - 1
    for cap in analysis.capacities:
        r = holding[cap.name]
        reg = analysis.regimes[r]
        text = f"{cap.name}: layer condition {r} of {last} holds"
        if reg.window is not None:
            cond = analysis.conditions[cap.name][r]
            text += (f" (reuse window {cond.window} = {cond.threshold_text} it, "
                     f"footprint {format_bytes(foot[r])} <= "
                     f"{format_bytes(analysis.limit(cap, r))})")
        else:
            text += " (no reuse window fits)" if last else " (no reuse in this kernel)"
        text += f"; kept: {', '.join(reg.hits) or '-'}; missed: {', '.join(reg.misses) or '-'}"
        if r < last:
            text += f"; next condition needs {format_bytes(foot[r + 1])}"
        out.append(text)
    return out


def _near_threshold_notes(analysis, foot, holding) -> list[str]:
    out = []
    for cap in analysis.capacities:
        r = holding[cap.name]
        c = analysis.limit(cap, r)
        if r > 0 and foot[r] >= (1 - NEAR_THRESHOLD) * c:
            out.append(f"{cap.name}: near threshold - condition {r} fills "
                       f"{100 * foot[r] / c:.0f}% of the usable {format_bytes(c)}; "
                       "reuse may already be partly lost (traffic between this and the "
                       "next-lower condition)")
        if r + 1 < len(foot):
            need, c = foot[r + 1], analysis.limit(cap, r + 1)
            if need <= (1 + NEAR_THRESHOLD) * c:
                out.append(f"{cap.name}: near threshold - condition {r + 1} needs "
                           f"{format_bytes(need)}, within {100 * NEAR_THRESHOLD:.0f}% of the "
                           f"usable {format_bytes(c)}; "
                           "partial reuse likely (traffic between conditions "
                           f"{r} and {r + 1})")
            elif need <= cap.usable / cap.fill and c < cap.usable / cap.fill:
                full = cap.usable / cap.fill
                out.append(f"{cap.name}: condition {r + 1} needs {format_bytes(need)}: more "
                           f"than the {c / full:.2g} fill share but within the full "
                           f"{format_bytes(full)};"
                           " an ideal LRU cache (and the simulator) may still keep that reuse")
    return out


def _ordering_notes(values: Sequence[float]) -> list[str]:
    """Reuse windows are ordered assuming inner loops longer than stencil radii
    (``values``: the windows' durations at the point)."""
    bad = any(v <= 0 for v in values) or any(b < a for a, b in zip(values, values[1:]))
    if bad:
        return ["short loops: some reuse windows are not longer than lower-ranked ones "
                f"(windows {', '.join(f'{v:g}' for v in values)} it); the lexicographic "
                "ordering of layer conditions is approximate here"]
    return []


BOUNDARY_NOTE_THRESHOLD = 0.02
"""Relative extra traffic from loop bounds narrower than the rows that gets a note."""


def _partial_line_notes(streams: StreamAnalysis, trips, strides, pitches) -> list[str]:
    """Rows whose lines are not fully covered by the inner loop's iterations.

    Layer conditions count one stream as ``stride`` bytes per iteration. If
    the loop bounds skip a few elements of every row (``i = 1 .. N-2`` of N)
    and the rows are contiguous, the skipped elements share lines with the
    swept ones: the real traffic is ``pitch / (trips * stride)`` times higher.
    If rows are *not* contiguous and short, each row touches up to
    ``ceil(row / cl) + 1`` lines in the worst alignment.
    """
    if len(streams.loops) < 2 or not trips:
        return []
    cl = streams.cacheline_size
    inner = trips[-1]
    found: dict[tuple, list[str]] = {}          # (kind, row, pitch) -> arrays
    for g, stride, pitch in zip(streams.groups, strides, pitches):
        if g.kind != "stream" or g.sparse or stride <= 0 or pitch <= 0:
            continue
        row = inner * stride
        gap = pitch - row
        if row <= 0 or gap <= 0:
            continue
        if gap < cl and pitch / row - 1 > BOUNDARY_NOTE_THRESHOLD:
            key = ("bounds", row, pitch)
        elif gap >= cl and row < SHORT_ROW_LINES * cl:
            key = ("partial", row, pitch)
        else:
            continue
        names = found.setdefault(key, [])
        if g.array not in names:
            names.append(g.array)
    out = []
    for (kind, row, pitch), names in found.items():
        arrays = ", ".join(names)
        if kind == "bounds":
            out.append(f"loop bounds: the inner loop sweeps {row:.0f} B of each {pitch:.0f} B "
                       f"row of {arrays}; the skipped elements share cache lines, so each such "
                       f"stream moves about +{100 * (pitch / row - 1):.1f}% more lines than "
                       "counted (not modeled)")
        else:
            ideal = row / cl
            worst = math.ceil(row / cl) + 1
            out.append(f"partial cache lines: rows of {arrays} are {row:.0f} B "
                       f"({ideal:.2f} lines) but not contiguous (pitch {pitch:.0f} B); in the "
                       f"worst alignment a row touches {worst} lines, up to "
                       f"+{100 * (worst / ideal - 1):.0f}% traffic not modeled")
    return out


def _associativity_notes(analysis, offsets, array_sizes, holding) -> list[str]:
    """Lines of different references that share one set at the loop center.

    Two layouts are checked: the simulator's (arrays on their own pages,
    staggered by a few lines so that equal-sized arrays do not alias) and
    plain page alignment, which is what large heap allocations get on real
    systems. Aliasing inside an array (rows or planes whose pitch is a
    multiple of ``sets * cl_size``) shows up in both.
    """
    streams = analysis.streams
    layouts = {"simulator": _array_bases(analysis, array_sizes, stagger=True),
               "page-aligned": _array_bases(analysis, array_sizes, stagger=False)}
    out = []
    for cap in analysis.capacities:
        if holding[cap.name] == 0 or cap.role == "victim-target":
            continue                     # nothing kept: conflicts cannot lose reuse
        for name, bases in layouts.items():
            addrs = [(bases.get(streams.groups[p.group].array, 0.0) + off, p.label)
                     for p, off in zip(streams.points, offsets)
                     if streams.groups[p.group].kind == "stream"]
            worst = _largest_set_cluster(addrs, cap.sets, cap.cl_size)
            if len(worst) > cap.ways:
                where = ("also in the simulator's array layout" if name == "simulator" else
                         "if the arrays are page aligned (large heap allocations); the "
                         "simulator staggers arrays and may not show it")
                out.append(f"{cap.name}: associativity - {len(worst)} references map to one "
                           f"set ({cap.sets} sets x {cap.cl_size} B, {cap.ways} ways): "
                           f"{', '.join(worst[:8])}{', ...' if len(worst) > 8 else ''}; "
                           f"conflict misses likely ({where}), LC underestimates the traffic")
                break
    return out


def _largest_set_cluster(addrs, sets: int, cl: int) -> list[str]:
    """Labels of the most distinct lines whose addresses fall into one set."""
    span = sets * cl
    lines: dict[int, str] = {}
    for addr, label in addrs:
        lines.setdefault(int(addr // cl), label)
    pos = [((ln * cl) % span, label) for ln, label in lines.items()]
    worst: list[str] = []
    for x, _ in pos:
        group = [lab for y, lab in pos if (y - x) % span < cl]
        if len(group) > len(worst):
            worst = group
    return worst


def _array_bases(analysis, array_sizes, stagger: bool) -> dict[str, float]:
    """Array base addresses: declaration order, each on its own pages.

    With ``stagger`` array ``k`` is shifted by ``k * STAGGER`` bytes as in
    :func:`kerncraft.cache.addresses.layout_arrays`.
    """
    PAGE_SIZE, STAGGER = analysis.layout    # noqa: N806 (the constants of addresses.py)
    bases, cursor = {}, 0
    for k, (name, nbytes) in enumerate(zip(analysis.array_names, array_sizes)):
        start = -(-cursor // PAGE_SIZE) * PAGE_SIZE + ((k * STAGGER) % PAGE_SIZE if stagger else 0)
        bases[name] = float(start)
        cursor = start + int(nbytes) + PAGE_SIZE
    return bases


def _strided_set_notes(analysis, strides) -> list[str]:
    """Strided streams that only ever visit a fraction of a level's sets.

    A stream advancing ``d`` lines per iteration visits ``sets / gcd(d, sets)``
    sets. With a common factor it crowds its lines into those sets (losing
    its own reuse earlier than the size suggests) while data mapped to the
    other sets lives longer than the layer condition assumes.
    """
    out = []
    cl = analysis.streams.cacheline_size
    for g, stride in zip(analysis.streams.groups, strides):
        if g.kind != "stream" or not g.sparse or stride % cl:
            continue
        lines = int(stride // cl)
        for cap in analysis.capacities:
            if cap.role == "victim-target":
                continue
            used = cap.sets // math.gcd(lines, cap.sets)
            if used < cap.sets:
                out.append(f"{cap.name}: associativity - {g.array} strides {lines} lines per "
                           f"iteration and visits only {used} of {cap.sets} sets; its reuse is "
                           "lost earlier and other data survives longer than the layer "
                           "condition assumes")
    return out
