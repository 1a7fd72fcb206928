"""The ECM part of a point plan: the compiled loop kept, the rest plain arithmetic.

What ECM reads of a bound kernel at a -D point, beyond the layer conditions:

* the compiled loop and its analysis (:class:`~kerncraft.models.incore_prediction.InCoreBase`):
  they change only with the constants that became literals in the generated C (the
  strides, :func:`~kerncraft.models.incore_prediction.stride_literals`), so one is kept
  per literal values; a point with other literals has other code and goes to the full
  path (which compiles it; the run then adds it to the plan, :func:`with_point_code`);
* the loop ranges and access indices the line-split estimate and the row-overlap note
  read (:class:`~kerncraft.incore.linesplit.KernelLayout`): :class:`PlanLayout` keeps
  them as one generated Python function of the constants;
* the layer-condition ladders of every cache share of the scaling table, per set of
  streamed arrays (the compiled loop's stores may choose them).

:func:`ecm_at_point` runs the model code of the full path on these
(``incore_at_point``, ``ecm_from_incore``). Kernels whose indices are not affine in the
loop indices with integer coefficients, or whose loop bounds depend on outer indices,
have no plan.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from kerncraft.cache.lc_point import PlainCode, PlainLadder
from kerncraft.incore.linesplit import AffineAccess, KernelLayout
from kerncraft.models.ecm import ecm_from_incore, scaling_core_counts, share_key
from kerncraft.models.incore_prediction import InCoreBase, incore_at_point
from kerncraft.models.l1_stream import with_l1_stream_limit
from kerncraft.models.nontemporal import NontemporalChoice, nontemporal_choice
from kerncraft.models.transfers import with_nontemporal

__all__ = ["PlanInCore", "PlanLayout", "plan_incore", "with_point_code", "ecm_at_point"]


@dataclass(frozen=True)
class PlanLayout:
    """The kernel's loop ranges and affine access indices as one plain function of the
    constants: ``[start, end]`` per loop, then per access its coefficient of every loop
    index and its constant."""

    code: PlainCode
    steps: tuple[int, ...]
    accesses: tuple[tuple[str, str, int, bool], ...]     # array, kind, element size, scalar

    def at(self, args: tuple[int, ...]) -> KernelLayout:
        values = [int(v) for v in self.code(*args)]
        nloops = len(self.steps)
        ranges = tuple(range(values[2 * k], values[2 * k + 1], step)
                       for k, step in enumerate(self.steps))
        accesses, position = [], 2 * nloops
        for array, kind, element_size, scalar in self.accesses:
            coeffs = tuple(values[position:position + nloops])
            const = values[position + nloops]
            position += nloops + 1
            accesses.append(AffineAccess(array, kind, element_size, scalar, (coeffs, const),
                                         frozenset(k for k, c in enumerate(coeffs) if c)))
        lags = tuple((w, r, write.affine[1] - read.affine[1])
                     for w, write in enumerate(accesses) if write.kind == "write"
                     for r, read in enumerate(accesses)
                     if read.kind != "write" and read.array == write.array
                     and read.affine[0] == write.affine[0])
        return KernelLayout(tuple(accesses), ranges, self.steps[-1], len(ranges[-1]), lags)


@dataclass(frozen=True)
class PlanInCore:
    literal_names: tuple[str, ...]                       # the constants that are literals
    bases: Mapping[tuple, InCoreBase]                    # per literal values
    iterations_per_cacheline: int
    layout: PlanLayout
    ladders: Mapping[tuple, PlainLadder]                 # per (streamed arrays, share key)


def _integer_polynomial(expr, constants) -> bool:
    import sympy

    if not expr.free_symbols <= set(constants):
        return False
    if not constants:
        return expr.is_Integer
    try:
        return all(c.is_Integer for c in sympy.Poly(expr, *constants).coeffs())
    except sympy.PolynomialError:
        return False


def plan_layout(kernel) -> PlanLayout | None:
    """The :class:`PlanLayout` of an unbound kernel, or None (module doc)."""
    import sympy

    constants = [c.symbol for c in kernel.constants]
    loops = [lp.symbol for lp in kernel.loops]
    if not loops:
        return None
    exprs = []
    for lp in kernel.loops:
        if not (sympy.sympify(lp.start).free_symbols | sympy.sympify(lp.end).free_symbols
                ) <= set(constants):
            return None     # bounds in outer indices (triangular loops)
        exprs += [lp.start, lp.end]
    for acc in kernel.accesses:
        try:
            poly = sympy.Poly(sympy.expand(acc.linear_index), *loops)
        except sympy.PolynomialError:
            return None
        if poly.total_degree() > 1:
            return None
        parts = [poly.coeff_monomial(s) for s in loops] + [poly.coeff_monomial(1)]
        if not all(_integer_polynomial(sympy.sympify(p), constants) for p in parts):
            return None
        exprs += parts
    code = PlainCode.of(sympy.lambdify(constants, exprs, modules="math"))
    if code is None:
        return None
    return PlanLayout(code, tuple(lp.step for lp in kernel.loops), tuple(
        (a.array, a.kind, kernel.arrays[a.array].element_size,
         kernel.arrays[a.array].is_scalar) for a in kernel.accesses))


def _light(base: InCoreBase) -> InCoreBase:
    """``base`` with the stored stand-ins of the selection and the analysis, which pickle
    without the assembly parser (memo/incore_analyses.py)."""
    from kerncraft.memo import incore_analyses as stored

    selection, analysis = base.selection, base.analysis
    if not isinstance(selection, stored.CachedSelection):
        real = selection
        selection = stored.CachedSelection(stored.selection_essentials(real), lambda: real)
    if not isinstance(analysis, stored.CachedAnalysis):
        real_analysis = analysis
        analysis = stored.CachedAnalysis(stored.analysis_essentials(real_analysis),
                                         lambda: real_analysis)
    return dataclasses.replace(base, selection=selection, analysis=analysis)


def _streamed(kernel, options, base: InCoreBase) -> NontemporalChoice | None:
    # nontemporal_choice reads the store scan of the compiled loop's analysis only
    return nontemporal_choice(kernel, options.nontemporal_stores,
                              _AnalysisOnly(base.analysis))


@dataclass(frozen=True)
class _AnalysisOnly:
    analysis: Any


def _ladders(kernel, machine, options, streamed: tuple[str, ...],
             ladders: Mapping[tuple, PlainLadder]) -> dict[tuple, PlainLadder] | None:
    from kerncraft.cache.layer_conditions import cached_lc_analysis

    out = dict(ladders)
    for n in scaling_core_counts(machine, options):
        key = (streamed, share_key(machine, n))
        if key in out:
            continue
        ladder = cached_lc_analysis(kernel, machine, n, None, True, streamed).plain
        if ladder is None or not isinstance(ladder.code, PlainCode):
            return None
        out[key] = ladder
    return out


def _base_at(kernel, machine, options, values: Mapping[str, int]):
    """(literal values, InCoreBase) of the code the point ``values`` compiles."""
    from kerncraft.models.incore_prediction import incore_base, stride_literals

    bound = kernel.bind(values)
    arguments = options.incore_arguments()
    return stride_literals(bound), _light(incore_base(bound, machine, **arguments))


def plan_incore(kernel, machine, options, values: Mapping[str, int]) -> PlanInCore | None:
    """The ECM part of the plan of an unbound ``kernel``, with the code of the point
    ``values`` (KerncraftError: the point cannot be bound or compiled)."""
    from kerncraft.cache.traffic import iterations_per_cacheline

    layout = plan_layout(kernel)
    if layout is None:
        return None
    literals, base = _base_at(kernel, machine, options, values)
    nontemporal = _streamed(kernel, options, base)
    ladders = _ladders(kernel, machine, options,
                       nontemporal.arrays if nontemporal is not None else (), {})
    if ladders is None:
        return None
    return PlanInCore(tuple(name for name, _ in literals), {literals: base},
                      iterations_per_cacheline(kernel, machine.cacheline_size), layout, ladders)


def with_point_code(part: PlanInCore, kernel, machine, options,
                    values: Mapping[str, int]) -> PlanInCore:
    """``part`` with the compiled code of the point ``values`` (itself if it has it)."""
    literals = tuple(sorted((name, values[name]) for name in part.literal_names))
    if literals in part.bases:
        return part
    literals, base = _base_at(kernel, machine, options, values)
    nontemporal = _streamed(kernel, options, base)
    ladders = _ladders(kernel, machine, options,
                       nontemporal.arrays if nontemporal is not None else (), part.ladders)
    if ladders is None:
        return part
    return dataclasses.replace(part, bases={**part.bases, literals: base}, ladders=ladders)


def ecm_at_point(part: PlanInCore, plan_kernel, machine, options,
                 bindings: Mapping[str, int], args: tuple[int, ...]):
    """The ECM result at ``bindings`` (``args``: their values in the order of the
    constants), or None when the code of the point is not in the plan."""
    literals = tuple(sorted((name, bindings[name]) for name in part.literal_names))
    base = part.bases.get(literals)
    if base is None:
        return None
    incore = incore_at_point(base, machine, part.iterations_per_cacheline, part.layout.at(args))
    incore = with_l1_stream_limit(incore, plan_kernel, machine)
    nontemporal = nontemporal_choice(plan_kernel, options.nontemporal_stores, incore)
    streamed = nontemporal.arrays if nontemporal is not None else ()
    first = part.ladders.get((streamed, share_key(machine, 1)))
    if first is None:
        return None
    traffic = with_nontemporal(first.evaluate_point(bindings, True).traffic, nontemporal)

    def traffic_of(n: int):
        ladder = part.ladders[(streamed, share_key(machine, n))]
        return with_nontemporal(ladder.evaluate_point(bindings, False).traffic, nontemporal,
                                False)
    return ecm_from_incore(plan_kernel, machine, options, incore, traffic, traffic_of)
