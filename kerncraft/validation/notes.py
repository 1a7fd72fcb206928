"""Why a validation point is far off: what the ECM model does not see there.

A point whose ECM error exceeds :data:`NOTE_THRESHOLD` gets notes from two
sources, in this order:

1. the ECM report's own caveats: the layer-condition notes on near-threshold
   working sets, partial cache lines and associativity (``traffic.notes``), the
   in-core notes on chains that restart with every row and on code-block
   placement (``incore.model_notes``), and cache-line splits without a cost in
   the port-model database (``incore.line_splits``);
2. facts of the point itself: the working set within 25 % of a cache size, a
   loop-carried-dependency bound, short rows (a per-row cost of about
   :data:`ROW_OVERHEAD_CYCLES` against the row's predicted time),
   the layer conditions putting the data elsewhere than intended, and the
   memory level, where one core's bandwidth is not the saturated bandwidth ECM
   uses.

3. the kernel's own L1 point (data in L1: the in-core time alone) when it is off
   the same way by more than 15 %: that part is in-core time the model misses,
   inherited by every level (:func:`with_inherited_notes`, over all points).

If nothing applies the note is ``no known cause``: a point beyond the threshold
never goes without a note.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

__all__ = ["NOTE_THRESHOLD", "BOUNDARY_SHARE", "SHORT_INNER_LOOP", "ROW_OVERHEAD_CYCLES",
           "ROW_OVERHEAD_SHARE", "NO_KNOWN_CAUSE",
           "INHERITED_SHARE", "report_notes", "fact_notes", "explain", "inherited_note",
           "with_inherited_notes"]

#: |ECM error| above which a point must carry a note.
NOTE_THRESHOLD = 0.30
#: A working set this close (relative) to a cache size is "near a cache boundary".
BOUNDARY_SHARE = 0.25
#: Inner trip counts below this make per-row overhead (loop entry and exit, prefetch
#: restarts, partial lines) a visible share of the time; ECM counts only the loop body.
SHORT_INNER_LOOP = 64
#: Cycles a row costs beyond its loop body (loop entry and exit, a mispredicted exit
#: branch, address set-up). Order of magnitude from measurement on the Zen 5 VM of
#: 2026-11-24 (benchmarks/RESULTS-validation.md): 2d-5pt in L1 at rows of 14, 28, 75
#: and 150 cache lines ran 5.39, 4.77, 3.96, 3.73 cy/CL, a straight line of 3.55 cy/CL
#: plus 26 cy per row; 3d-7pt at rows of 6 to 37 lines: 8.1 cy/CL plus 15 cy per row;
#: a mispredicted branch alone costs 13-20 cy on current cores. Used only to say when
#: rows are short enough for it to matter.
ROW_OVERHEAD_CYCLES = 20.0
#: The per-row cost is worth a note when it would add more than this share to a row.
ROW_OVERHEAD_SHARE = 0.10
NO_KNOWN_CAUSE = "no known cause"
#: A kernel's L1 point this far off (same sign) explains part of its other points' error.
INHERITED_SHARE = 0.15

#: Layer-condition note kinds (lc_flags.py) that describe a model limitation.
_TRAFFIC_KINDS = ("near threshold", "associativity", "partial cache lines", "loop bounds:",
                  "fill share", "ordering")


def report_notes(ecm_data: Mapping[str, Any], error: float) -> list[str]:
    """Caveats the ECM report itself gives for this point (module doc, 1.); split
    accesses counted as free only explain a too optimistic prediction (``error < 0``)."""
    notes = [f"traffic: {note}" for note in ecm_data.get("traffic", {}).get("notes", ())
             if any(kind in note for kind in _TRAFFIC_KINDS)]
    incore = ecm_data.get("incore", {})
    notes += [f"in-core: {note}" for note in incore.get("model_notes", ())]
    for access in incore.get("line_splits", {}).get("accesses", ()):
        if (error < 0 and access.get("split_fraction")
                and access.get("cycles_per_split") is None):
            notes.append(f"in-core: {100 * access['split_fraction']:.0f} % of the "
                         f"{access['vector_bytes']}-B {access['kind']}s cross a cache line; "
                         "the port-model database has no cost for that (counted as 0)")
    return notes


def _boundary_notes(working_set: int, caches: Sequence[tuple[str, int]]) -> list[str]:
    notes = []
    for name, size in caches:
        if abs(working_set - size) <= BOUNDARY_SHARE * size:
            notes.append(f"working set {working_set / 1024:.0f} KiB within "
                         f"{100 * BOUNDARY_SHARE:.0f} % of the {size / 1024:.0f} KiB {name}: "
                         "the layer conditions are a step, the real cache loses reuse gradually")
    return notes


def _short_row_notes(trip_count: int | None, row_cycles: float | None) -> list[str]:
    if trip_count is None:
        return []
    if row_cycles is not None and row_cycles > 0:
        share = ROW_OVERHEAD_CYCLES / row_cycles
        if share <= ROW_OVERHEAD_SHARE:
            return []
        return [f"short rows: {trip_count} iterations per row, {row_cycles:.0f} cy in the "
                "model, which has no per-row cost (loop entry and exit, a mispredicted exit "
                f"branch); about {ROW_OVERHEAD_CYCLES:.0f} cy per row would add "
                f"{100 * share:.0f} %"]
    if trip_count < SHORT_INNER_LOOP:
        return [f"short inner loop ({trip_count} iterations per row): per-row overhead "
                "(loop entry and exit, prefetch restart) is not in the model"]
    return []


def fact_notes(*, error: float, level: str, model_level: str, working_set: int,
               caches: Sequence[tuple[str, int]], inner_trip_count: int | None,
               ecm_data: Mapping[str, Any], memory_overlaps: bool,
               row_cycles: float | None = None) -> list[str]:
    """Notes from the facts of the point (module doc, 2.). Facts that can only make
    the real kernel faster than the model (an LCD bound: out-of-order overlap) are
    given for ``error > 0``, those that only make it slower (per-row overhead) for
    ``error < 0``; the others either way. ``row_cycles``: the predicted cycles of one
    inner-loop row; without it short rows are judged by ``inner_trip_count``."""
    notes = []
    if model_level != level:
        notes.append(f"the layer conditions serve the data from {model_level}, not {level}")
    notes += _boundary_notes(working_set, caches)
    incore = ecm_data.get("incore", {})
    restarts = any("loop-carried chain" in n for n in incore.get("model_notes", ()))
    if error > 0 and incore.get("T_OL_source") == "loop-carried dependency" and not restarts:
        notes.append(f"loop-carried-dependency bound (T_OL = {incore.get('T_OL', 0):.2f} cy/CL "
                     "from the chain's latency): overlap of independent work across the "
                     "chain is not modelled")
    if error < 0:
        notes += _short_row_notes(inner_trip_count, row_cycles)
    if level == "MEM" or model_level == "MEM":
        how = "overlaps with" if memory_overlaps else "adds to"
        if ecm_data.get("memory_term", {}).get("basis") == "single-core":
            notes.append(f"memory level: T_L3MEM is the time at one core's measured bandwidth "
                         f"and {how} the in-core time as the machine file says; a kernel whose "
                         "streams differ from the benchmark's (prefetchers, row starts) is "
                         "not in the model")
        else:
            notes.append(f"memory level: T_L3MEM is the saturated bandwidth's time and {how} "
                         "the in-core time as the machine file says; one core's own bandwidth "
                         "(latency-bound streams, prefetchers) and its real overlap are not in "
                         "the model")
    return notes


def explain(error: float, *, report: Sequence[str], facts: Sequence[str]) -> tuple[str, ...]:
    """The notes of a point with ECM error ``error``: none within the threshold,
    else the report's and the fact notes, or :data:`NO_KNOWN_CAUSE`."""
    if abs(error) <= NOTE_THRESHOLD:
        return ()
    notes = tuple(dict.fromkeys([*report, *facts]))     # keep order, drop repeats
    return notes or (NO_KNOWN_CAUSE,)


def inherited_note(l1_error: float | None, error: float) -> str | None:
    """A note for a point of a kernel whose L1 point (data in L1: the in-core time
    alone) is off the same way by more than :data:`INHERITED_SHARE`: that part of the
    error is the in-core model's, and every level inherits it."""
    if l1_error is None or abs(l1_error) <= INHERITED_SHARE or l1_error * error <= 0:
        return None
    how = "misses" if l1_error < 0 else "over-counts"
    return (f"in-core: this kernel's L1 point (its data in L1, no transfers) is already "
            f"{100 * l1_error:+.0f} % off: part of this error is in-core time the model "
            f"{how}, which every level inherits")


def with_inherited_notes(points: Sequence[Any]) -> list[Any]:
    """``points`` (ValidationPoint) with :func:`inherited_note` added where a point
    beyond the threshold is not its kernel's L1 point; 'no known cause' gives way."""
    from dataclasses import replace

    l1 = {p.kernel: p.ecm_error for p in points if p.level == "L1"}
    out = []
    for point in points:
        note = None if point.level == "L1" else inherited_note(l1.get(point.kernel),
                                                                 point.ecm_error)
        if note is None or abs(point.ecm_error) <= NOTE_THRESHOLD:
            out.append(point)
            continue
        kept = tuple(n for n in point.notes if n != NO_KNOWN_CAUSE)
        out.append(replace(point, notes=(note,) + kept))
    return out
