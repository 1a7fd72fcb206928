"""``-p LC``: the layer conditions of every cache level, and which one holds.

For each level the report lists the ladder of layer conditions - symbolic in
the kernel's constants and evaluated at the -D point - with the references
each condition keeps, the resulting misses / write-backs / evictions per
unit of work, and marks the condition that holds. Below it, the traffic
(:class:`~kerncraft.cache.traffic.TrafficResult`) and the predictor's notes
(near-threshold, partial cache lines, associativity). The same numbers go to
``--json``. This module computes the :class:`~kerncraft.models.results.LCResult`;
the text is :func:`kerncraft.report.text.format_lc`.

The symbolic analysis is done once per (kernel source, machine, cores) and
cached, so a -D sweep only evaluates compiled expressions per point.

Kerncraft's ``-D . 0`` asks for the conditions in symbols only:
:func:`compute_lc_symbolic` gives them (:class:`LCSymbolicResult`, the text is
:func:`kerncraft.report.lc_symbolic.format_lc_symbolic`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from kerncraft.cache.layer_conditions import LayerConditionAnalysis, cached_lc_analysis
from kerncraft.cache.lc_symbolic import SymbolicCondition, symbolic_conditions
from kerncraft.models.results import LCResult
from kerncraft.options import as_options


def analysis_for(kernel, machine, cores: int = 1, fill=None,
                 nontemporal: tuple[str, ...] = ()) -> LayerConditionAnalysis:
    """The cached symbolic analysis shared by all -D points (see cached_lc_analysis);
    ``nontemporal``: arrays whose stores bypass the caches (models/nontemporal.py)."""
    return cached_lc_analysis(kernel, machine, cores, fill, nontemporal=nontemporal)


def compute_lc(kernel, machine, options=None) -> LCResult:
    """The layer conditions of a bound kernel (see module doc).

    >>> import kerncraft
    >>> copy = kerncraft.api.load_kernel("kernels/copy.c").bind({"N": 10**7})
    >>> csx = kerncraft.load_machine("CSX")
    >>> compute_lc(copy, csx).holding        # 160 MB: no reuse kept anywhere
    {'L1': 0, 'L2': 0, 'L3': 0}
    """
    from kerncraft.kernel.binding import check_bound_kernel
    from kerncraft.models.transfers import check_core_count

    options = as_options(options)
    check_core_count(machine, options.cores)
    check_bound_kernel(kernel)
    from kerncraft.models.nontemporal import nontemporal_choice

    streamed = nontemporal_choice(kernel, options.nontemporal_stores)   # option or pragma
    analysis = analysis_for(kernel, machine, options.cores, options.cache_fill,
                            streamed.arrays if streamed is not None else ())
    bindings = {name: kernel.bindings[name] for name in analysis.constant_names
                if name in kernel.bindings}
    point = analysis.evaluate_point(bindings)
    if streamed is not None:
        point = dataclasses.replace(
            point, traffic=point.traffic.with_nontemporal_reason(streamed.reason))
    return LCResult(analysis, point)


@dataclass(frozen=True)
class LCSymbolicResult:
    """``-p LC`` with constants left symbolic (``-D . 0``): the ladder of every level.

    ``values`` holds the constants that did get a value (substituted), ``symbols``
    the ones left as symbols; ``conditions[level]`` the
    :class:`~kerncraft.cache.lc_symbolic.SymbolicCondition` ladder.
    """

    analysis: LayerConditionAnalysis
    values: Mapping[str, int]
    symbols: tuple[str, ...]
    conditions: Mapping[str, tuple[SymbolicCondition, ...]]

    def to_dict(self) -> dict[str, Any]:
        """JSON view: the levels with their conditions in symbols."""
        return {"cores": self.analysis.cores, "symbols": list(self.symbols),
                "defines": dict(self.values),
                "unit_of_work_iterations": self.analysis.unit_of_work,
                "levels": [{"level": cap.name, "usable_bytes": cap.usable,
                            "conditions": [c.to_dict() for c in self.conditions[cap.name]]}
                           for cap in self.analysis.capacities]}


def compute_lc_symbolic(kernel, machine, values: Mapping[str, int],
                        options=None) -> LCSymbolicResult:
    """The layer conditions of ``kernel`` (unbound) in symbols; the constants with a
    non-zero value in ``values`` are substituted, those with 0 stay symbols.

    >>> import kerncraft
    >>> result = compute_lc_symbolic(kerncraft.api.load_kernel("kernels/2d-5pt.c"),
    ...                              kerncraft.load_machine("CSX"), {"M": 0, "N": 0})
    >>> result.conditions["L1"][2].inequality, result.conditions["L1"][2].bound
    ('32*N - 80 <= 16384', 'N <= 514')
    """
    from kerncraft.models.transfers import check_core_count

    options = as_options(options)
    check_core_count(machine, options.cores)
    analysis = analysis_for(kernel, machine, options.cores, options.cache_fill)
    known = {name: value for name, value in values.items()
             if value and name in analysis.constant_names}
    symbols = tuple(name for name in analysis.constant_names if name not in known)
    return LCSymbolicResult(analysis, known, symbols, symbolic_conditions(analysis, known))
