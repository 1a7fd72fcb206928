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
"""
from __future__ import annotations

from kerncraft.cache.layer_conditions import LayerConditionAnalysis, cached_lc_analysis
from kerncraft.models.results import LCResult
from kerncraft.options import as_options


def analysis_for(kernel, machine, cores: int = 1, fill=None) -> LayerConditionAnalysis:
    """The cached symbolic analysis shared by all -D points (see cached_lc_analysis)."""
    return cached_lc_analysis(kernel, machine, cores, fill)


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
    analysis = analysis_for(kernel, machine, options.cores, options.cache_fill)
    bindings = {name: kernel.bindings[name] for name in analysis.constant_names
                if name in kernel.bindings}
    return LCResult(analysis, analysis.evaluate_point(bindings))
