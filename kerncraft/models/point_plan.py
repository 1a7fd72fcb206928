"""A point plan: what a run needs to compute a new -D point with arithmetic only.

The symbolic work of a kernel (parsing, layer conditions, checks) is done once;
a :class:`PointPlan` keeps its results as plain data -- the layer-condition ladder
with its expressions as generated Python (:class:`~kerncraft.cache.lc_point.PlainLadder`),
the machine, the options, the kernel facts the data models read
(:class:`PlanKernel`) and the checks binding and the models make, as one
generated function -- so that a point costs a few arithmetic operations and
imports neither sympy, networkx nor pycparser. :func:`plan_results` then runs
the same model code as the full path (``ecm_data_from_traffic``) on it.

Covered: ``-p LC`` (its analysis as :class:`~kerncraft.cache.lc_point.PlainLCAnalysis`:
the conditions' texts, printed once), ``-p ECMData``, ``-p RooflineFLOP`` and ``-p ECM``
(in-core model ``kerncraft``, :mod:`kerncraft.models.plan_incore`) with the LC predictor
and no ``-v`` (anything
else returns no plan and runs the full path). A point whose checks fail (a loop without
iterations, a non-positive dimension, an array beyond 2**62 bytes) returns None
from :func:`plan_results`: the full path reports it in its own words.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kerncraft.cache.lc_point import PlainCode, PlainLadder, PlainLCAnalysis
from kerncraft.errors import KerncraftError
from kerncraft.models.ecm_data import ecm_data_from_traffic
from kerncraft.models.results import LCResult
from kerncraft.models.roofline import roofline_flop_from_traffic
from kerncraft.models.plan_incore import PlanInCore, ecm_at_point, plan_incore, with_point_code
from kerncraft.models.nontemporal import NontemporalChoice
from kerncraft.models.transfers import with_nontemporal

__all__ = ["PLAN_MODELS", "PlanAccess", "PlanArray", "PlanKernel", "PointPlan", "build_plan",
           "extend_plan", "plan_results"]

#: Models a plan computes; a run with any other model has no plan.
PLAN_MODELS = frozenset({"LC", "ECMData", "ECM", "RooflineFLOP"})

MAX_ARRAY_BYTES = 1 << 62    # kernel/binding.py: the largest array a model accepts


@dataclass(frozen=True)
class PlanArray:
    name: str
    ctype: str
    element_size: int
    is_scalar: bool
    nontemporal: bool


@dataclass(frozen=True)
class PlanAccess:
    array: str
    kind: str
    offset: str                 # the unbound expressions, as text: what tells accesses
    indices: tuple[str, ...]    # apart (models/l1_stream.py)


@dataclass(frozen=True)
class PlanKernel:
    """The facts of a bound kernel the data models read that do not depend on the
    point (stream mix, element sizes, FLOPs per iteration)."""

    filename: str | None
    accesses: tuple[PlanAccess, ...]
    arrays: Mapping[str, PlanArray]
    total_flops: int


@dataclass(frozen=True)
class PointPlan:
    models: tuple[str, ...]
    options: Any                          # AnalysisOptions
    machine: Any                          # MachineModel
    constant_names: tuple[str, ...]
    kernel: PlanKernel
    checks: PlainCode                     # dimensions, trip counts, array bytes
    check_counts: tuple[int, int]         # how many dimensions, how many trip counts
    ladder: PlainLadder | None            # LC, ECMData, RooflineFLOP: the LC ladder
    nontemporal: NontemporalChoice | None
    incore: PlanInCore | None = None      # ECM: compiled code, layout, ladders


def _plan_kernel(kernel) -> PlanKernel:
    arrays = {name: PlanArray(name, a.ctype, a.element_size, a.is_scalar, a.nontemporal)
              for name, a in kernel.arrays.items()}
    accesses = tuple(PlanAccess(a.array, a.kind, str(a.offset), tuple(str(i) for i in a.indices))
                     for a in kernel.accesses)
    return PlanKernel(kernel.filename, accesses, arrays, kernel.total_flops)


def _checks(kernel) -> tuple[PlainCode, tuple[int, int]] | None:
    """The numbers binding and the models check, as one plain function of the constants."""
    import sympy

    symbols = [c.symbol for c in kernel.constants]
    allowed = set(symbols)
    dims = [d for a in kernel.arrays.values() for d in a.dimensions]
    trips = [lp.trip_count() for lp in kernel.loops]
    sizes = [sympy.Integer(a.element_size) * sympy.Mul(*a.dimensions)
             for a in kernel.arrays.values()]
    exprs = [sympy.sympify(e) for e in dims + trips + sizes]
    if any(not e.free_symbols <= allowed for e in exprs):
        return None     # bounds in outer indices (triangular loops): the full path checks
    function = sympy.lambdify(symbols, exprs or [sympy.Integer(0)], modules="math")
    code = PlainCode.of(function)
    return (code, (len(dims), len(trips))) if code is not None else None


def build_plan(kernel, machine, options, models: Sequence[str],
               first: Mapping[str, int] | None = None) -> PointPlan | None:
    """The plan of an unbound ``kernel`` (as parsed) for ``models``, or None if the
    plan does not cover them (see the module doc). ECM needs a point, ``first``, whose
    code it compiles (KerncraftError: that point cannot be bound or compiled)."""
    from kerncraft.cache.layer_conditions import cached_lc_analysis
    from kerncraft.models.nontemporal import nontemporal_choice

    if (not set(models) <= PLAN_MODELS or options.cache_predictor != "LC" or options.verbose
            or kernel.bindings or not kernel.source
            or options.cores > machine.sockets * machine.cores_per_socket):
        return None     # (too many cores: the full path says so)
    checks = _checks(kernel)
    if checks is None:
        return None
    nontemporal = nontemporal_choice(kernel, options.nontemporal_stores)
    ladder = None
    if "LC" in models and options.cache_fill is not None:
        return None     # (the API's fill shares: the full path's analysis takes them)
    if {"LC", "ECMData", "RooflineFLOP"} & set(models):
        streamed = nontemporal.arrays if nontemporal is not None else ()
        ladder = cached_lc_analysis(kernel, machine, options.cores, None, True, streamed).plain
        if ladder is None or not isinstance(ladder.code, PlainCode):
            return None
    incore = None
    if "ECM" in models:
        if first is None or options.incore_model != "kerncraft":
            return None
        incore = plan_incore(kernel, machine, options, first)
        if incore is None:
            return None
    return PointPlan(tuple(models), options, machine, tuple(kernel.constant_names),
                     _plan_kernel(kernel), checks[0], checks[1], ladder, nontemporal, incore)


def extend_plan(plan: PointPlan, kernel, values: Mapping[str, int]) -> PointPlan:
    """``plan`` with the compiled code of the point ``values`` (the same plan if it has
    it or needs none; KerncraftError: the point cannot be bound or compiled)."""
    if plan.incore is None or any(name not in values for name in plan.constant_names):
        return plan
    part = with_point_code(plan.incore, kernel, plan.machine, plan.options, values)
    return plan if part is plan.incore else dataclasses.replace(plan, incore=part)


def _passes_checks(plan: PointPlan, bindings: Mapping[str, int]) -> bool:
    values = plan.checks(*(bindings[name] for name in plan.constant_names))
    ndims, ntrips = plan.check_counts
    dims, trips, sizes = values[:ndims], values[ndims:ndims + ntrips], values[ndims + ntrips:]
    return (all(d > 0 for d in dims) and all(t > 0 for t in trips)
            and all(s <= MAX_ARRAY_BYTES for s in sizes))


def plan_results(plan: PointPlan, values: Mapping[str, int]
                 ) -> tuple[dict[str, int], list[tuple[str, Any]]] | None:
    """(the point's bindings, [(model, result)]) at the -D point ``values``, or None
    when the full path must compute it (a check fails, a constant has no value)."""
    if any(name not in values for name in plan.constant_names):
        return None
    bindings = {name: values[name] for name in plan.constant_names}
    try:
        if not _passes_checks(plan, bindings):
            return None
        results = []
        for model in plan.models:
            result = _result(plan, model, bindings)
            if result is None:
                return None     # other code than the plan's: the full path compiles it
            results.append((model, result))
    except (ArithmeticError, ValueError, TypeError, KerncraftError):
        return None     # the full path says what is wrong with the point
    return bindings, results


def _result(plan: PointPlan, model: str, bindings: Mapping[str, int]):
    if model == "ECM":
        args = tuple(bindings[name] for name in plan.constant_names)
        return ecm_at_point(plan.incore, plan.kernel, plan.machine, plan.options, bindings,
                            args)
    if model == "LC":               # models/lc.compute_lc on the plan's ladder
        return _lc_result(plan, bindings)
    traffic = with_nontemporal(plan.ladder.evaluate_point(bindings, True).traffic,
                               plan.nontemporal)
    if model == "RooflineFLOP":
        return roofline_flop_from_traffic(plan.kernel, plan.machine, plan.options, traffic)
    return ecm_data_from_traffic(plan.kernel, plan.machine, plan.options, traffic)


def _lc_result(plan: PointPlan, bindings: Mapping[str, int]) -> LCResult:
    ladder = plan.ladder
    point = ladder.evaluate_point(bindings, True)
    if plan.nontemporal is not None:
        point = dataclasses.replace(
            point, traffic=point.traffic.with_nontemporal_reason(plan.nontemporal.reason))
    view = PlainLCAnalysis(ladder.unit_of_work, plan.options.cores, ladder.capacities,
                           ladder.conditions)
    return LCResult(view, point)
