"""The layer conditions in the kernel's symbols, without a -D point.

Kerncraft's ``-p LC -D . 0`` prints every layer condition as an inequality in the
kernel's constants. :func:`symbolic_conditions` gives the same from a
:class:`~kerncraft.cache.layer_conditions.LayerConditionAnalysis` (which is symbolic
anyway): the footprint of each condition in bytes ``<=`` what the level may hold,
with the constants that did get a value substituted. When one symbol is left and the
footprint grows with it, the inequality is also solved for it (``32*N - 80 <= 16384``
gives ``N <= 514``), which is the question a user of ``-D . 0`` usually asks.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import sympy

from kerncraft.cache.layer_conditions import LayerConditionAnalysis

__all__ = ["SymbolicCondition", "symbolic_conditions", "largest_fitting"]


@dataclass(frozen=True)
class SymbolicCondition:
    """One layer condition of one level, in symbols.

    ``inequality`` is ``"True"`` for condition 0 (no reuse kept); ``bound`` the
    inequality solved for the one symbol left (``"N <= 514"``), else None. Traffic
    (``miss_lines``, ``store_lines``, ``eviction_lines``: cache lines per unit of
    work) is text: a number, or an expression when it depends on the constants.
    """

    level: str
    index: int
    window: str
    iterations: str
    footprint: str
    inequality: str
    bound: str | None
    hits: tuple[str, ...]
    misses: tuple[str, ...]
    miss_lines: str
    store_lines: str
    eviction_lines: str

    def to_dict(self) -> dict:
        return {"index": self.index, "window": self.window, "iterations": self.iterations,
                "footprint": self.footprint,
                "inequality": None if self.index == 0 else self.inequality,
                "bound": self.bound, "hits": list(self.hits), "misses": list(self.misses),
                "miss_lines": self.miss_lines, "store_lines": self.store_lines,
                "eviction_lines": self.eviction_lines}


def symbolic_conditions(analysis: LayerConditionAnalysis, values: Mapping[str, int]
                        ) -> dict[str, tuple[SymbolicCondition, ...]]:
    """Level -> its ladder of conditions, the constants in ``values`` substituted
    (the others stay symbols)."""
    subs = {s: values[s.name] for s in analysis.symbols if values.get(s.name)}
    out: dict[str, tuple[SymbolicCondition, ...]] = {}
    for cap in analysis.capacities:
        ladder = []
        for cond in analysis.conditions[cap.name]:
            limit = analysis.limit(cap, cond.index)
            usable = int(limit) if limit == int(limit) else round(limit, 3)
            footprint = sympy.expand(sympy.sympify(cond.footprint).subs(subs))
            if cond.index == 0:
                inequality, bound = "True", None
            else:
                inequality, bound = f"{footprint} <= {usable}", largest_fitting(footprint, limit)
            ladder.append(SymbolicCondition(
                cap.name, cond.index, cond.window,
                str(sympy.expand(sympy.sympify(cond.threshold).subs(subs))), str(footprint),
                inequality, bound, cond.hits, cond.miss_accesses,
                _lines(cond.misses, subs), _lines(cond.stores, subs),
                _lines(cond.evictions, subs)))
        out[cap.name] = tuple(ladder)
    return out


def _lines(expr, subs) -> str:
    value = sympy.sympify(expr).subs(subs)
    return f"{float(value):.2f}" if not value.free_symbols else str(sympy.expand(value))


def largest_fitting(footprint: sympy.Expr, limit: float) -> str | None:
    """``"X <= k"``: the largest positive integer k for which ``footprint <= limit``,
    when ``footprint`` is a polynomial in one symbol X that grows for every X >= 1
    (so the condition holds exactly up to k); None otherwise.

    >>> N = sympy.Symbol("N", positive=True, integer=True)
    >>> largest_fitting(32 * N - 80, 16384)      # (16384 + 80) / 32 = 514.5
    'N <= 514'
    >>> largest_fitting(16 * N**2, 16384)       # 16 N^2 <= 16384: N <= 32
    'N <= 32'
    """
    symbols = tuple(footprint.free_symbols)
    if len(symbols) != 1:
        return None
    (x,) = symbols
    try:
        poly = sympy.Poly(footprint, x)
    except sympy.PolynomialError:
        return None
    if poly.degree() < 1 or poly.LC() <= 0:
        return None
    # grows for X >= 1: no real root of the derivative at or beyond 1
    slope_roots = [r for r in sympy.Poly(poly.diff(x), x).real_roots() if r >= 1]
    if poly.degree() > 1 and slope_roots:
        return None
    bound = sympy.nsimplify(limit, rational=True)

    def fits(n: int) -> bool:
        return poly.eval(n) <= bound

    if not fits(1):
        return f"never for {x} >= 1"
    roots = [float(r) for r in sympy.Poly(poly - bound, x).real_roots()]
    k = max(1, math.floor(max(roots)))
    while not fits(k):          # the float root may sit a hair off the integer
        k -= 1
    while fits(k + 1):
        k += 1
    return f"{x} <= {k}"
