"""Blocking advice: the block sizes for which each layer condition holds.

Spatial blocking shortens a loop so that a reuse window fits into a cache. The
layer conditions (:mod:`kerncraft.cache.layer_conditions`) already give, per
cache level, the bytes a window occupies as a formula in the kernel's constants
and the bytes the level offers (its size times the fill factor). Blocking a
constant ``N`` to ``b`` means substituting ``b`` for ``N`` in that formula: the
largest ``b`` with ``footprint(b) <= usable bytes`` is the largest block for
which the condition holds. The tile is the kernel with that extent, as
Kerncraft's ``cachetile`` modelled it (it searched the ECMData cycles instead).

Only conditions *within one sweep* are blocking conditions. The top rung,
"the whole working set fits", is reuse between repeated calls of the kernel;
a blocked code moves on to the next tile instead of sweeping the same one
again, so that rung is left out of the limits. When it holds at a proposed
block size, the prediction (which models repeated calls, as ``-p ECM`` does)
is optimistic for a blocked sweep, and the choice says so.

The footprints are substituted and compiled once (:func:`sympy.lambdify`), so
each block size costs plain arithmetic. The largest size is found by
doubling and bisection over integers, which also works for footprints with
``Min``/``Max`` (symbolic strides) that a polynomial solver would not take; the
boundary is then checked with the LC model's own evaluation, so ``-p LC`` at the
proposed size shows the condition holding.

>>> import kerncraft
>>> from kerncraft.api import load_kernel
>>> advice = tiling_advice(load_kernel("kernels/2d-5pt.c"), kerncraft.load_machine("CSX"),
...                        {"M": 10000, "N": 10000})
>>> advice.block, [(lim.level, lim.condition, lim.largest) for lim in advice.limits
...                if lim.largest is not None and not lim.always]
(('N',), [('L1', 2, 514), ('L2', 2, 16386), ('L3', 2, 245762)])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import sympy

from kerncraft.errors import DefineError, KerncraftError
from kerncraft.options import AnalysisOptions, as_options

__all__ = ["BlockLimit", "TileChoice", "TilingAdvice", "tiling_advice", "block_constants",
           "cycles_per_cl", "LARGEST_BLOCK"]

LARGEST_BLOCK = 2**31 - 1
"""Largest block size searched: loop extents of a C kernel are ``int``. A condition
that still holds there holds for every block size."""


@dataclass(frozen=True)
class BlockLimit:
    """One layer condition of one cache level, solved for the block size.

    ``largest`` is the largest block size (at least the smallest size searched) for
    which ``inequality`` holds. ``always``: it holds at every size searched (the
    footprint does not grow past the usable bytes; ``largest`` is then None, as it is
    when the condition holds at no size).
    """

    level: str
    condition: int                  # rung of the level's ladder (as -p LC numbers it)
    window: str                     # reuse window, e.g. 'j+1 i-1'
    inequality: str                 # 'footprint <= usable bytes', as -p LC prints it
    usable_bytes: float
    kept: tuple[str, ...]           # references this condition keeps in the level
    largest: int | None
    always: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "condition": self.condition, "window": self.window,
                "inequality": self.inequality, "usable_bytes": self.usable_bytes,
                "kept": list(self.kept), "largest": self.largest, "always": self.always}


@dataclass(frozen=True)
class TileChoice:
    """One proposed block size and what it gives.

    ``reasons``: the conditions it is the largest size for (``'L1 #2'``), or
    ``'no blocking'`` for the full extent given with -D. ``holding``: the condition
    that holds per level at this size (as ``-p LC`` reports it).
    ``whole_set_levels``: levels where the tile's whole working set fits, i.e. where
    the prediction counts on reuse between calls that a blocked sweep does not have.
    ``cycles_per_cl``: the model's prediction in cy/CL (None without a model).
    """

    size: int
    bindings: Mapping[str, int]
    reasons: tuple[str, ...]
    holding: Mapping[str, int]
    whole_set_levels: tuple[str, ...] = ()
    cycles_per_cl: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"size": self.size, "bindings": dict(self.bindings),
                "reasons": list(self.reasons), "holding": dict(self.holding),
                "whole_set_levels": list(self.whole_set_levels),
                "cycles_per_cl": self.cycles_per_cl}


@dataclass(frozen=True)
class TilingAdvice:
    """Blocking advice for one kernel on one machine (:func:`tiling_advice`).

    ``block`` are the constants blocked (all set to the same size), ``fixed`` the
    values of the others, ``full_size`` the blocked constants' -D value (the
    unblocked extent) if given, ``smallest`` the smallest size searched.
    ``capacities`` say which bytes each level offers (size, fill factor).
    ``best`` is the index in ``choices`` of the fastest prediction (the largest
    size among equally fast ones: fewer tiles, less halo), None without a model;
    choices whose prediction counts on the whole tile staying cached between calls
    (``whole_set_levels``) compete only if all do.
    """

    block: tuple[str, ...]
    fixed: Mapping[str, int]
    full_size: int | None
    smallest: int
    cores: int
    model: str | None
    capacities: tuple[str, ...]
    limits: tuple[BlockLimit, ...]
    choices: tuple[TileChoice, ...]
    notes: tuple[str, ...] = field(default=())

    @property
    def best(self) -> int | None:
        timed = [(c.cycles_per_cl, -(c.size or 0), i) for i, c in enumerate(self.choices)
                 if c.cycles_per_cl is not None]
        sound = [t for t in timed if not self.choices[t[2]].whole_set_levels]
        timed = sound or timed
        if not timed:
            return None
        fastest = min(t[0] for t in timed)
        # equal within rounding: prefer the larger block
        return min(t for t in timed if t[0] <= fastest * (1 + 1e-9))[2]

    def to_dict(self) -> dict[str, Any]:
        return {"block": list(self.block), "fixed": dict(self.fixed),
                "full_size": self.full_size, "smallest": self.smallest, "cores": self.cores,
                "model": self.model, "unit": "cy/CL", "capacities": list(self.capacities),
                "limits": [lim.to_dict() for lim in self.limits],
                "choices": [c.to_dict() for c in self.choices], "best": self.best,
                "notes": list(self.notes)}


def cycles_per_cl(result: Any) -> float:
    """The prediction of a model result in cy/CL: ECM's prediction for its core
    count, Roofline's bottleneck time, ECMData's sum of transfer times."""
    from kerncraft.models.results import ECMDataResult, ECMResult, RooflineResult

    if isinstance(result, ECMResult):
        return result.prediction_cy_per_cl
    if isinstance(result, RooflineResult):
        return result.cycles_per_cl
    if isinstance(result, ECMDataResult):
        return sum(link.cycles for link in result.links)
    raise KerncraftError(f"blocking advice takes ECM, ECMData or Roofline predictions, not "
                         f"{type(result).__name__}")


def block_constants(kernel, analysis, defines: Mapping[str, int],
                    block: Sequence[str] | None = None) -> tuple[str, ...]:
    """The constants to block: ``block`` if given; else the one constant without a
    -D value (Kerncraft's ``cachetile`` rule); else the constants of the innermost
    loop's bounds that some layer condition depends on."""
    names = tuple(analysis.constant_names)
    in_conditions = _condition_constants(analysis)
    if block:
        for name in block:
            if name not in names:
                raise KerncraftError(f"--block {name}: the kernel has no constant {name} "
                                     f"(constants: {', '.join(names) or 'none'})")
        chosen = tuple(dict.fromkeys(block))
    else:
        unbound = [n for n in names if n not in defines and "." not in defines]
        if len(unbound) == 1:
            chosen = (unbound[0],)
        elif unbound:
            raise DefineError(f"constants {', '.join(unbound)} have no value: give all but "
                              "the blocked ones with -D, or name the blocked ones with --block")
        else:
            chosen = _inner_extent(kernel, analysis, in_conditions)
    if not any(n in in_conditions for n in chosen):
        hint = (f"; they depend on {', '.join(sorted(in_conditions))}: block one of those "
                "with --block" if in_conditions else "")
        raise KerncraftError(f"no blockable dimension: no layer condition within a sweep "
                             f"depends on {', '.join(chosen)}{hint}")
    return chosen


def _condition_constants(analysis) -> set[str]:
    """Constants some within-sweep layer condition's footprint depends on."""
    found: set[str] = set()
    for reg in analysis.regimes[1:]:
        if not analysis.streams.is_whole_sweep(reg.window):
            found |= {s.name for s in reg.footprint.free_symbols}
    return found


def _inner_extent(kernel, analysis, in_conditions: set[str]) -> tuple[str, ...]:
    inner = kernel.loops[-1]
    bound = {s.name for s in (inner.start.free_symbols | inner.end.free_symbols)}
    chosen = tuple(n for n in analysis.constant_names if n in bound and n in in_conditions)
    if not chosen:
        raise KerncraftError(f"no blockable dimension: the extent of the innermost loop "
                             f"({inner.index}) appears in no layer condition within a sweep; "
                             "name the constant to block with --block")
    return chosen


def tiling_advice(kernel, machine, defines: Mapping[str, int] | None = None,
                  block: Sequence[str] | None = None,
                  options: AnalysisOptions | None = None,
                  predict: Callable[[Mapping[str, int]], Any] | None = None,
                  smallest: int | None = None, model: str | None = None) -> TilingAdvice:
    """Largest block sizes per layer condition and a prediction per proposed size.

    ``kernel``: a :class:`~kerncraft.kernel.model.KernelModel` (its unbound form is
    analysed); ``defines``: values of the constants (``"."``: default for all). The
    blocked constants (:func:`block_constants`) all take one size; their -D value,
    if given, is the unblocked extent and is compared as "no blocking". ``options``:
    cores and cache fill of the layer conditions. ``predict(bindings)`` returns a
    model result (ECM, ECMData or Roofline) at a complete binding, e.g. through
    :func:`kerncraft.analyze`; ``model`` is its name for the report. ``smallest``:
    no block below this size is searched or proposed (Kerncraft's
    ``--min-block-length``).
    """
    from kerncraft.models.lc import analysis_for

    options = as_options(options)
    if not machine.cache_levels:
        raise KerncraftError("the machine file has no cache levels: blocking advice needs "
                             "the cache sizes of its 'memory hierarchy'")
    unbound = kernel.unbound if kernel.unbound is not None else kernel
    if not unbound.loops:
        raise KerncraftError("the kernel has no loop to block")
    analysis = analysis_for(unbound, machine, options.cores, options.cache_fill)
    defines = dict(defines or {})
    chosen = block_constants(unbound, analysis, defines, block)
    values = {n: defines.get(n, defines.get(".")) for n in analysis.constant_names}
    fixed = {n: v for n, v in values.items() if n not in chosen and v is not None}
    missing = [n for n in analysis.constant_names if n not in chosen and n not in fixed]
    if missing:
        raise DefineError(f"constant '{missing[0]}' has no value; pass -D {missing[0]} VALUE "
                          f"(or block it with --block {missing[0]})")
    solver = _Solver(analysis, chosen, fixed)
    low = max(solver.smallest_running(), smallest or 1)
    limits = tuple(solver.limit(reg, cap, low) for cap in analysis.capacities
                   for reg in solver.regimes)
    full = [values[n] for n in chosen if values[n] is not None]
    if len(full) < len(chosen):
        full = []               # the unblocked extents are known only all together
    full_size = full[0] if full and len(set(full)) == 1 else None
    sizes: dict[int, list[str]] = {}
    for lim in limits:
        if lim.largest is None or lim.always or (full and lim.largest >= min(full)):
            continue            # never, always, or already holding without blocking
        sizes.setdefault(lim.largest, []).append(f"{lim.level} #{lim.condition}")
    choices = [solver.choice(size, tuple(why), predict) for size, why in sorted(sizes.items())]
    if full:
        choices.append(solver.choice(full_size, ("no blocking",), predict,
                                     dict(zip(chosen, full))))
    caps = tuple(cap.describe() for cap in analysis.capacities)
    return TilingAdvice(chosen, fixed, full_size, low, options.cores, model, caps, limits,
                        tuple(choices), _notes(chosen, choices))


def _notes(chosen: Sequence[str], choices: Sequence[TileChoice]) -> tuple[str, ...]:
    notes = []
    if len(chosen) > 1:
        notes.append(f"{', '.join(chosen)} are blocked together: one size for all "
                     "(square tiles)")
    flagged = [c for c in choices if c.whole_set_levels]
    name = "=".join(chosen)
    if flagged:
        at = ", ".join(f"{c.size} ({', '.join(c.whole_set_levels)})" for c in flagged)
        notes.append(f"the tile's whole working set fits a cache at {name} = {at}: the "
                     "prediction counts on reuse between repeated calls (the models treat a "
                     "kernel as called again and again); a blocked sweep moves on to the next "
                     "tile, so expect the time of the next level out")
    return tuple(notes)


class _Solver:
    """The footprints of the within-sweep conditions as functions of the block size
    (substituted and compiled once), and the LC model to check a size with."""

    def __init__(self, analysis, chosen: Sequence[str], fixed: Mapping[str, int]):
        self.analysis, self.chosen, self.fixed = analysis, tuple(chosen), dict(fixed)
        size = sympy.Dummy("b", positive=True, integer=True)
        subs = {s: size if s.name in self.chosen else sympy.Integer(self.fixed[s.name])
                for s in analysis.symbols}
        self.regimes = tuple(r for r in analysis.regimes[1:]
                             if not analysis.streams.is_whole_sweep(r.window))
        self._footprints = {r.index: _compiled(size, r.footprint.xreplace(subs))
                            for r in self.regimes}
        self._trips = [_compiled(size, sympy.sympify(t).xreplace(subs))
                       for t in analysis.streams.trips]

    def bindings(self, size: int) -> dict[str, int]:
        return {**self.fixed, **{n: size for n in self.chosen}}

    def smallest_running(self, search: int = 4096) -> int:
        """The smallest size at which every loop runs at least once (stencil halos)."""
        for size in range(1, search + 1):
            if all(trips(size) >= 1 for trips in self._trips):
                return size
        raise KerncraftError(f"no block size up to {search} lets every loop run: "
                             f"check the loop bounds in {', '.join(self.chosen)}")

    def limit(self, reg, cap, low: int) -> BlockLimit:
        """The largest size >= ``low`` at which condition ``reg`` holds in ``cap``."""
        usable = self.analysis.limit(cap, reg.index)
        fits = self._footprints[reg.index]
        largest, always = _largest(lambda size: fits(size) <= usable, low)
        if largest is not None and not always:
            largest = self._checked(reg.index, cap, usable, largest, low)
        cond = self.analysis.conditions[cap.name][reg.index]
        return BlockLimit(cap.name, reg.index, cond.window, cond.inequality_text, usable,
                          cond.hits, largest, always)

    def _checked(self, index: int, cap, usable: float, size: int, low: int) -> int | None:
        """``size`` moved to where the LC model's own arithmetic puts the boundary
        (a float rounding of the compiled footprint could put it one off)."""
        def holds(s: int) -> bool:
            return self.analysis.evaluate_point(self.bindings(s), notes=False
                                                ).footprints[index] <= usable
        for _ in range(8):
            if size >= low and not holds(size):
                size -= 1
            elif holds(size + 1):
                size += 1
            else:
                break
        return size if size >= low else None

    def choice(self, size: int | None, reasons: tuple[str, ...],
               predict: Callable[[Mapping[str, int]], Any] | None,
               bindings: Mapping[str, int] | None = None) -> TileChoice:
        bindings_given = bindings is not None
        bindings = {**self.fixed, **bindings} if bindings_given else self.bindings(size)
        point = self.analysis.evaluate_point(bindings, notes=False)
        regimes = self.analysis.regimes
        # the unblocked kernel is repeated as a whole; only a tile is not
        whole = () if bindings_given else tuple(
            level for level, r in point.holding.items()
            if r and self.analysis.streams.is_whole_sweep(regimes[r].window))
        cycles = cycles_per_cl(predict(bindings)) if predict is not None else None
        return TileChoice(size, bindings, reasons, dict(point.holding), whole, cycles)


def _compiled(size: sympy.Symbol, expr: sympy.Expr) -> Callable[[int], float]:
    """``expr`` as a float function of the block size; a size at which it cannot be
    evaluated (a division by zero at a tiny block) counts as not fitting."""
    fn = sympy.lambdify([size], expr, modules="math")

    def value(s: int) -> float:
        try:
            return float(fn(s))
        except (ZeroDivisionError, OverflowError, ValueError):
            return float("inf")
    return value


def _largest(fits: Callable[[int], bool], low: int) -> tuple[int | None, bool]:
    """Largest integer in [low, LARGEST_BLOCK] with ``fits`` (footprints grow with the
    block: doubling, then bisection); (None, False) if none, (None, True) if all."""
    if not fits(low):
        return None, False
    if fits(LARGEST_BLOCK):
        return None, True
    good, step = low, 1
    while True:
        probe = min(low + step, LARGEST_BLOCK)
        if not fits(probe):
            bad = probe
            break
        good, step = probe, step * 2
    while bad - good > 1:
        mid = (good + bad) // 2
        good, bad = (mid, bad) if fits(mid) else (good, mid)
    return good, False
