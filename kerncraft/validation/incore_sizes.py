"""Problem sizes of the in-core campaign: data in L1, the innermost loop long.

Every kernel gets small fixed outer extents and one *inner* constant that sets the
length of the innermost loop (:data:`KERNEL_SIZES`; a kernel not in the table: its
innermost bound's constants are inner, every other constant the smallest value that
runs each outer loop once). The inner constant is measured at two values, a short
and a long extent (:func:`choose_extents`), both with every byte the nest touches in
the L1 budget (:func:`touched_bytes`, counted in cache lines, with the machine file's
L1 size times its whole-working-set fill). The difference of the two run times per
repetition divided by the difference of the assembly iterations is the cost of one
assembly iteration: per-row and per-repetition costs (loop entry and exit, the
remainder loop, the branch mispredicted at the end of a row, the repetition loop)
are the same at both extents and cancel. For that both extents leave the same
remainder modulo the block's iterations per assembly iteration and modulo 8 (rows
then start at the same offsets within a cache line).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from kerncraft.errors import KerncraftError

__all__ = ["KERNEL_SIZES", "LINE", "Extents", "size_plan", "touched_bytes", "l1_budget",
           "choose_extents", "smallest_outer", "plan_extents"]

LINE = 64
#: Largest inner extent tried (the nest is enumerated to count its bytes).
MAX_EXTENT = 8192
#: kernel -> (fixed constants, the inner constant). Outer extents are as small as the
#: loop bounds allow, so the bytes go to long rows; literal strides (NI, NP, NJ of the
#: column walks, M of syrk/covariance) are fixed, so both extents compile alike.
KERNEL_SIZES: Mapping[str, tuple[Mapping[str, int], str]] = {
    **{name: ({}, "N") for name in (
        "copy", "add", "update", "daxpy", "triad", "striad", "sum_reduction",
        "scalar_product", "kahan-dot", "gemver-add", "jacobi-1d")},
    "2d-5pt": ({"M": 3}, "N"), "gs-2d-5pt": ({"M": 3}, "N"),
    "3d-7pt": ({"L": 3, "M": 3}, "N"), "3d-27pt": ({"L": 3, "M": 3}, "N"),
    "3d-long-range": ({"L": 9, "M": 9}, "N"), "himeno": ({"L": 3, "M": 3}, "N"),
    "uxx": ({"L": 5, "M": 5}, "N"), "matvec": ({"M": 4}, "N"),
    "matvec_trans": ({"M": 4}, "N"),
    "gemm": ({"NI": 1, "NK": 4}, "NJ"), "gemver-outer": ({"N": 4}, "M"),
    "gemver-xt": ({"NI": 8}, "NJ"), "gemver-w": ({"N": 4}, "M"),
    "atax-tmp": ({"M": 4}, "N"), "atax-y": ({"M": 4}, "N"), "bicg": ({"N": 4}, "M"),
    "mvt-x1": ({"N": 4}, "M"), "mvt-x2": ({"NI": 8}, "NJ"), "gesummv": ({"N": 4}, "M"),
    "jacobi-2d": ({"M": 3}, "N"), "heat-3d": ({"L": 3, "M": 3}, "N"),
    "seidel-2d": ({"M": 3}, "N"), "fdtd-2d-ey": ({"M": 2}, "N"),
    "fdtd-2d-ex": ({"M": 1}, "N"), "fdtd-2d-hz": ({"M": 2}, "N"),
    "doitgen": ({"NR": 1, "NQ": 1, "NP": 8}, "NS"), "trisolv": ({"R": 2}, "N"),
    "symm": ({"R": 1, "NJ": 8}, "M"), "syrk": ({"R": 1, "M": 8}, "N"),
    "covariance": ({"M": 8}, "N"),
}


@dataclass(frozen=True)
class Extents:
    """The two sizes a block is measured at."""

    constant: str                   # the inner constant
    short: Mapping[str, int]        # every constant, short extent
    long: Mapping[str, int]         # every constant, long extent
    asm_iterations_delta: float     # assembly iterations per repetition, long - short
    rows: int                       # executions of the innermost loop per repetition
    touched_bytes: int              # at the long extent
    budget_bytes: int

    def to_dict(self) -> dict[str, Any]:
        return {"constant": self.constant, "short": dict(self.short), "long": dict(self.long),
                "asm_iterations_delta": self.asm_iterations_delta, "rows": self.rows,
                "touched_bytes": self.touched_bytes, "budget_bytes": self.budget_bytes}


def size_plan(name: str, kernel) -> tuple[dict[str, int], str]:
    """(fixed constants, inner constant) of a kernel (see the module doc)."""
    if name in KERNEL_SIZES:
        fixed, inner = KERNEL_SIZES[name]
        return dict(fixed), inner
    names = list(kernel.constant_names)
    inner = [str(s) for s in kernel.loops[-1].end.free_symbols if str(s) in names]
    if len(inner) != 1:
        raise KerncraftError(f"{name}: no single constant sets the innermost loop's length "
                             "(the campaign varies one); add the kernel to KERNEL_SIZES")
    return smallest_outer(kernel, {n: 1 for n in names if n != inner[0]}, inner[0]), inner[0]


def smallest_outer(kernel, fixed: Mapping[str, int], inner: str) -> dict[str, int]:
    """``fixed`` with every constant lowered to the smallest value that still runs the
    nest (one row where the bounds allow it): longer rows fit the same bytes. Literal
    strides stay (:func:`kerncraft.compilation.codegen.stride_constants`): they are in
    the compiled code."""
    from kerncraft.compilation.codegen import stride_constants

    chosen = dict(fixed)
    strides = stride_constants(kernel)
    for name in [n for n in chosen if n not in strides]:
        chosen[name] = next((v for v in range(1, 64)
                             if _outer_runs(kernel, {**chosen, name: v, inner: 64})),
                            chosen[name])
    return chosen


def _outer_runs(kernel, values: Mapping[str, int]) -> bool:
    try:
        bound = kernel.bind({n: values.get(n, 64) for n in kernel.constant_names})
        return int(bound.iteration_count()) > 0
    except (KerncraftError, TypeError, ValueError):
        return False


def _outer_points(bound) -> list[dict]:
    """Every combination of the outer loop indices of a bound kernel."""
    points: list[dict] = [{}]
    for loop in bound.loops[:-1]:
        grown = []
        for point in points:
            start, end = int(loop.start.subs(point)), int(loop.end.subs(point))
            grown += [{**point, loop.symbol: v} for v in range(start, end, loop.step)
                      if (loop.step > 0) == (v < end)]
        points = grown
    return points


def touched_bytes(bound) -> int:
    """Bytes of the distinct cache lines a bound kernel's nest touches (arrays start on
    a line, as the generated program allocates them)."""
    inner = bound.loops[-1]
    lines: set[tuple[str, int]] = set()
    accesses = [a for a in bound.accesses if not bound.arrays[a.array].is_scalar]
    for point in _outer_points(bound):
        start, end = int(inner.start.subs(point)), int(inner.end.subs(point))
        values = range(start, end, inner.step)
        if not values:
            continue
        for access in accesses:
            size = bound.arrays[access.array].element_size
            index = access.linear_index.subs(point)
            base = int(index.subs(inner.symbol, 0))
            stride = int(index.coeff(inner.symbol)) * size
            first, last = base * size + stride * values[0], base * size + stride * values[-1]
            if abs(stride) <= LINE:
                lo, hi = min(first, last), max(first, last) + size - 1
                lines.update((access.array, line) for line in range(lo // LINE, hi // LINE + 1))
            else:
                lines.update((access.array, (base * size + stride * v) // LINE) for v in values)
    return LINE * len(lines)


def l1_budget(machine) -> int:
    """Bytes of the first cache level a campaign working set may use: its size times the
    machine file's whole-working-set fill (0.8 when not given)."""
    level = machine.memory_hierarchy[0]
    if level.size_per_group is None:
        raise KerncraftError(f"the machine file's first level {level.name} has no size")
    return int(level.size_per_group * (level.whole_working_set_fill or 0.8))


def _bound(kernel, fixed: Mapping[str, int], inner: str, value: int):
    return kernel.bind({**fixed, inner: value})


def choose_extents(kernel, fixed: Mapping[str, int], inner: str, iterations_per_row: int,
                   iterations_per_asm: int, budget: int) -> Extents:
    """The short and long extent of ``inner`` for a block that does ``iterations_per_row``
    innermost iterations per assembly iteration of one row (unroll x SIMD width) and
    ``iterations_per_asm`` in all (times an outer unroll): the long one the largest that
    fits ``budget``, the short one about a third of it, both with the same remainder
    (module doc); rows of the short extent run the block at least twice, and the long
    ones at least two assembly iterations more."""
    step = iterations_per_row * 8 // math.gcd(iterations_per_row, 8)
    top = _largest_fitting(kernel, fixed, inner, budget)
    large = _bound(kernel, fixed, inner, top)
    rows = max(1, len(_outer_points(large)))
    for k in range(max(1, (2 * top // 3) // step), 0, -1):
        short = top - k * step
        if short <= 0 or k * step < 2 * iterations_per_row or not _runs(kernel, fixed, inner,
                                                                        short):
            continue
        small = _bound(kernel, fixed, inner, short)
        if int(small.iteration_count()) >= 2 * iterations_per_row * rows:
            delta = (int(large.iteration_count()) - int(small.iteration_count()))
            return Extents(inner, {**fixed, inner: short}, {**fixed, inner: top},
                           delta / iterations_per_asm, rows, touched_bytes(large), budget)
    raise KerncraftError(f"{inner} at most {top} (L1 budget {budget} B) leaves no two "
                         f"extents that both run the block of {iterations_per_row} iterations "
                         "twice")


def plan_extents(name: str, kernel, iterations_per_row: int, iterations_per_asm: int,
                 budget: int) -> Extents:
    """:func:`choose_extents` with the sizes of :func:`size_plan`, or, where those leave
    no room for the block, with the outer extents of :func:`smallest_outer`."""
    fixed, inner = size_plan(name, kernel)
    try:
        return choose_extents(kernel, fixed, inner, iterations_per_row, iterations_per_asm,
                              budget)
    except KerncraftError:
        smaller = smallest_outer(kernel, fixed, inner)
        if smaller == fixed:
            raise
        return choose_extents(kernel, smaller, inner, iterations_per_row, iterations_per_asm,
                              budget)


def _runs(kernel, fixed: Mapping[str, int], inner: str, value: int) -> bool:
    try:
        return int(_bound(kernel, fixed, inner, value).iteration_count()) > 0
    except (KerncraftError, ValueError):
        return False


_LARGEST: dict[tuple, int] = {}


def _largest_fitting(kernel, fixed: Mapping[str, int], inner: str, budget: int) -> int:
    """The largest value of ``inner`` whose nest touches at most ``budget`` bytes (once
    per kernel, sizes and budget: the blocks of one kernel share it)."""
    key = (kernel.source, kernel.filename, tuple(sorted(fixed.items())), inner, budget)
    if key in _LARGEST:
        return _LARGEST[key]
    lo, hi = 1, MAX_EXTENT
    if _runs(kernel, fixed, inner, hi) and \
            touched_bytes(_bound(kernel, fixed, inner, hi)) > budget:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _runs(kernel, fixed, inner, mid) and \
                    touched_bytes(_bound(kernel, fixed, inner, mid)) > budget:
                hi = mid
            else:
                lo = mid
    else:
        lo = hi
    _LARGEST[key] = lo
    return lo
