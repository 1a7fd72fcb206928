"""When the loop-carried-dependency bound is pessimistic: chains that restart per row.

The LCD bound assumes one endless chain. In ``y[i] += A[i][j] * x[j]`` (``j``
innermost) the chain runs through the accumulator of ``y[i]`` and starts anew
with every ``i``: consecutive rows are independent, and out-of-order
execution overlaps the end of one row's chain with the start of the next as
far as the reorder buffer reaches. Measured on the development host (matvec,
benchmarks/RESULTS-validation.md): rows of 48 elements run at 14.0 cy/CL
against an LCD bound of 32, rows of 208 at 22.8, rows of 1024 at the bound.
A simple "rows in the ROB" formula did not fit all three, so the model keeps
the LCD bound and the report says how far it may be off: this module finds
such kernels and writes the note. Row-wise recurrences (Gauss-Seidel:
``a[j][i]`` from ``a[j][i-1]``) restart the same way: gs-2d-5pt on the Zen 5
host ran 72.7 cy/CL at rows of 160 elements (0.4 rows in the ROB) against a
chain of 80, 75.7 at 480 and 80.3 at 2048 (RESULTS-validation.md).
The cycle-level simulation (``-i kerncraft-sim``) drops the loop-carried edges
at every row start (:func:`row_length`) and reproduces these within 5 % with
Zen 5's effective 64-uop scheduler (ZEN5.yml, RESULTS-simulator.md).
"""
from __future__ import annotations

from typing import Any

from kerncraft.incore.linesplit import KernelLayout, as_layout

__all__ = ["row_overlap_note", "row_length", "MIN_ROWS_IN_ROB", "MIN_ROWS_TO_SIMULATE"]

MIN_ROWS_IN_ROB = 0.25
"""Below this share of a row in the reorder buffer no note (matvec rows of 1024 on the host:
0.14 of a row fits, and the measurement met the bound)."""


def _restart_targets(kernel: Any) -> list[str] | None:
    """Written elements whose chain starts anew with every row: elements that stay in
    a register through the innermost loop and change with an enclosing loop (``y[i]``),
    and row-wise recurrences (``a[j][i]`` written, ``a[j][i-1]`` read: the compiler
    carries the value in a register along the row and loads it afresh at the row's
    start). None if a scalar is written (its chain may run through the whole nest) or
    there is no such element. ``kernel``: a bound kernel or its
    :class:`~kerncraft.incore.linesplit.KernelLayout`."""
    layout = as_layout(kernel)
    if len(layout.ranges) < 2:
        return None
    inner = len(layout.ranges) - 1
    targets = []
    for position, acc in enumerate(layout.accesses):
        if acc.kind != "write":
            continue
        if acc.is_scalar:
            return None
        free = acc.free
        if inner in free:
            if len(free) > 1 and _row_recurrence(layout, position):
                targets.append(acc.array)
            continue
        if not free:
            return None
        targets.append(acc.array)
    return sorted(set(targets)) or None


def _row_recurrence(layout: KernelLayout, write: int) -> bool:
    """A read of the same array a constant number of elements behind ``write``, fewer
    than a row (an earlier iteration of the same row; ``a[j-1][i]`` is the row above)."""
    row = layout.inner_trips
    if row is None:
        return False
    return any(w == write and 0 < lag < row for w, _, lag in layout.lags)


MIN_ROWS_TO_SIMULATE = 0.1
"""Below this share of a row in the reorder buffer the simulation keeps one endless chain:
the overlap of row ends changes the result by less than the run-to-run spread of the
measurements (gs-2d-5pt rows of 2048 on Zen 5: 0.03 rows, simulated 79.6 against the
chain's 80 and 80.5 measured) and simulating many long rows takes seconds."""


def row_length(kernel: Any, selection: Any, analysis: Any = None) -> int | None:
    """Assembly iterations per row when the kernel's chain restarts with every row and
    the reorder buffer holds at least :data:`MIN_ROWS_TO_SIMULATE` of a row (for the
    simulation, ``-i kerncraft-sim``), else None."""
    layout = as_layout(kernel)
    if not _restart_targets(layout):
        return None
    trips = layout.inner_trips
    if trips is None:
        return None
    rows = max(1, round(trips / selection.iterations_per_asm_iteration))
    uops = sum(getattr(analysis, "fused_uops", ()) or ())
    rob = getattr(analysis, "rob_size", None)
    if analysis is not None and uops and rob and rob / (rows * uops) < MIN_ROWS_TO_SIMULATE:
        return None
    return rows


def row_overlap_note(kernel: Any, selection: Any, analysis: Any, scale: float,
                     other_bound: float) -> str | None:
    """The note for an LCD-bound prediction whose chain restarts per row, or None.

    ``scale`` converts cycles per assembly iteration into cy/CL; ``other_bound`` is
    the largest other in-core bound (port throughput, front end) in cy/CL.
    """
    layout = as_layout(kernel)
    targets = _restart_targets(layout)
    lcd = getattr(analysis, "lcd", None)
    if not targets or not lcd:
        return None
    trips = layout.inner_trips
    if trips is None:
        return None
    asm_iterations = trips / selection.iterations_per_asm_iteration
    uops = sum(getattr(analysis, "fused_uops", ()) or ())
    rob = getattr(analysis, "rob_size", None)
    if not (uops and rob and asm_iterations):
        return None
    rows = rob / (asm_iterations * uops)
    if rows < MIN_ROWS_IN_ROB:
        return None
    names = ", ".join(targets)
    return (f"the loop-carried chain restarts with every row (through {names}, "
            f"which {'changes' if len(targets) == 1 else 'change'} with the enclosing loop) and the "
            f"{rob}-entry reorder buffer holds {rows:.2g} row(s) ({asm_iterations:g} assembly "
            f"iterations x {uops} uops): out-of-order execution can overlap consecutive rows, "
            f"so the LCD bound {lcd * scale:.2f} cy/CL may be pessimistic, down to "
            f"{other_bound:.2f} cy/CL; '-i kerncraft-sim' simulates the restarts "
            f"(kerncraft/models/row_overlap.py has measurements)")
