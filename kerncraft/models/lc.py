"""``-p LC``: the layer conditions of every cache level, and which one holds.

For each level the report lists the ladder of layer conditions - symbolic in
the kernel's constants and evaluated at the -D point - with the references
each condition keeps, the resulting misses / write-backs / evictions per
unit of work, and marks the condition that holds. Below it, the traffic
(:class:`~kerncraft.cache.traffic.TrafficResult`) and the predictor's notes
(near-threshold, partial cache lines, associativity). The same numbers go to
``--json``.

The symbolic analysis is done once per (kernel source, machine, cores) and
cached, so a -D sweep only evaluates compiled expressions per point.
"""
from __future__ import annotations

from typing import Any

from kerncraft.cache.layer_conditions import (LayerConditionAnalysis, LCPoint,
                                              cached_lc_analysis)
from kerncraft.models.registry import ModelReport
from kerncraft.options import as_options


def analysis_for(kernel, machine, cores: int = 1, fill=None) -> LayerConditionAnalysis:
    """The cached symbolic analysis shared by all -D points (see cached_lc_analysis)."""
    return cached_lc_analysis(kernel, machine, cores, fill)


def lc_model(kernel, machine, args) -> ModelReport:
    """Run the LC model for one bound kernel (see module doc)."""
    options = as_options(args)
    analysis = analysis_for(kernel, machine, options.cores, options.cache_fill)
    bindings = {name: kernel.bindings[name] for name in analysis.constant_names
                if name in kernel.bindings}
    point = analysis.evaluate_point(bindings)
    return ModelReport("LC", format_lc_report(analysis, point), lc_data(analysis, point))


def _fmt_bytes(x: float) -> str:
    if x >= 1 << 20:
        return f"{x / (1 << 20):.2f} MB"
    if x >= 1024:
        return f"{x / 1024:.2f} kB"
    return f"{x:.0f} B"


def _short(text: str, width: int) -> str:
    """Cut ``text`` to ``width`` characters (table cells only; full text is in JSON)."""
    return text if len(text) <= width else text[: width - 3] + "..."


def format_lc_report(analysis: LayerConditionAnalysis, point: LCPoint) -> str:
    """Human-readable LC report (conditions per level, traffic, notes)."""
    u = analysis.unit_of_work
    at = " ".join(f"{k}={v}" for k, v in sorted(point.bindings.items())) or "(no constants)"
    lines = [f"Layer conditions (LC) at {at}, cores={analysis.cores}; traffic in cache lines "
             f"per unit of work ({u} iterations)"]
    for cap in analysis.capacities:
        held = point.holding[cap.name]
        lines.append("")
        lines.append(cap.describe())
        lines.append(f"  {'#':>2}  {'reuse window':<34} {'footprint':>10}  {'fits':<4} "
                     f"{'misses':>6} {'stores':>6} {'evicts':>6}")
        for cond in analysis.conditions[cap.name]:
            foot = point.footprints[cond.index]
            misses, stores, evicts = point.condition_values(cap, cond.index, u)
            mark = "->" if cond.index == held else "  "
            fits = "yes" if foot <= cap.usable else "no"
            window = cond.window if cond.index == 0 else \
                f"{cond.window} ({cond.threshold_text} it)"
            lines.append(f"{mark}{cond.index:>2}  {_short(window, 34):<34} {_fmt_bytes(foot):>10}  "
                         f"{fits:<4} {misses:>6.2f} {stores:>6.2f} {evicts:>6.2f}")
            if cond.index:
                lines.append(f"{'':6}condition: {cond.inequality_text}")
                lines.append(f"{'':6}kept: {', '.join(cond.hits) or '-'}")
        cond = analysis.conditions[cap.name][held]
        lines.append(f"  -> condition {held} holds in {cap.name}: kept "
                     f"{', '.join(cond.hits) or 'nothing'}; missed "
                     f"{', '.join(cond.miss_accesses) or 'nothing'}")
    lines.append("")
    lines.append(f"  {'level':<6}{'loads':>8}{'stores':>8}{'misses':>8}{'evicts':>8}  loaded from")
    for lvl in point.traffic.levels:
        src = ", ".join(f"{k} {v:.2f}" for k, v in lvl.load_sources) or "next level"
        lines.append(f"  {lvl.level:<6}{lvl.loads:>8.2f}{lvl.stores:>8.2f}{lvl.misses:>8.2f}"
                     f"{lvl.evictions:>8.2f}  {src}")
    notes = [n for n in point.traffic.notes if not n.startswith("LC capacities")]
    if notes:
        lines.append("Notes:")
        lines.extend(f"  - {n}" for n in notes)
    return "\n".join(lines)


def lc_data(analysis: LayerConditionAnalysis, point: LCPoint) -> dict[str, Any]:
    """JSON view: per level the conditions (symbolic and evaluated) and the traffic."""
    u = analysis.unit_of_work
    levels = []
    for cap in analysis.capacities:
        conds = []
        for cond in analysis.conditions[cap.name]:
            misses, stores, evicts = point.condition_values(cap, cond.index, u)
            conds.append({
                "index": cond.index, "window": cond.window, "threshold": cond.threshold_text,
                "inequality": None if cond.index == 0 else cond.inequality_text,
                "footprint": cond.footprint_text,
                "footprint_bytes": point.footprints[cond.index],
                "fits": point.footprints[cond.index] <= cap.usable,
                "hits": list(cond.hits), "misses": list(cond.miss_accesses),
                "miss_lines": misses, "store_lines": stores, "eviction_lines": evicts,
            })
        levels.append({"level": cap.name, "usable_bytes": cap.usable, "size_bytes": cap.size,
                       "fill_factor": cap.fill, "role": cap.role,
                       "holds": point.holding[cap.name], "conditions": conds})
    return {"cores": analysis.cores, "unit_of_work_iterations": u,
            "levels": levels, "traffic": point.traffic.to_dict()}
