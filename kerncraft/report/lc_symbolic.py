"""The text of ``-p LC`` in symbols (Kerncraft's ``-D . 0``).

Laid out like the ``-p LC`` report of a point (:func:`kerncraft.report.text.format_lc`),
without the columns that need numbers: per level the ladder of conditions, each with
its traffic, its inequality (footprint in bytes <= bytes the level may hold) and what
it keeps. The highest condition whose inequality holds is the one that applies.
"""
from __future__ import annotations

from kerncraft.models.lc import LCSymbolicResult

__all__ = ["format_lc_symbolic"]


def format_lc_symbolic(result: LCSymbolicResult, verbose: int = 0) -> str:
    """The report; ``verbose`` adds nothing (every condition is shown anyway).

    >>> import kerncraft
    >>> from kerncraft.models.lc import compute_lc_symbolic
    >>> result = compute_lc_symbolic(kerncraft.api.load_kernel("kernels/copy.c"),
    ...                              kerncraft.load_machine("CSX"), {"N": 0})
    >>> print(format_lc_symbolic(result).splitlines()[0])
    Layer conditions (LC) in symbols: N; cores=1; cache lines per unit of work (8 iterations)
    """
    analysis = result.analysis
    at = ", ".join(result.symbols) or "(none)"
    if result.values:
        at += " at " + " ".join(f"{k}={v}" for k, v in sorted(result.values.items()))
    lines = [f"Layer conditions (LC) in symbols: {at}; cores={analysis.cores}; cache lines "
             f"per unit of work ({analysis.unit_of_work} iterations)"]
    for cap in analysis.capacities:
        lines += ["", cap.describe(),
                  f"  {'#':>2}  {'reuse window':<34} {'misses':>6} {'stores':>6} {'evicts':>6}"]
        for cond in result.conditions[cap.name]:
            window = cond.window if cond.index == 0 else f"{cond.window} ({cond.iterations} it)"
            lines.append(f"  {cond.index:>2}  {_short(window, 34):<34} {cond.miss_lines:>6} "
                         f"{cond.store_lines:>6} {cond.eviction_lines:>6}")
            if cond.index:
                solved = f"   ({cond.bound})" if cond.bound else ""
                lines.append(f"{'':6}condition: {cond.inequality}{solved}")
                lines.append(f"{'':6}kept: {', '.join(cond.hits) or '-'}")
    lines += ["", "The highest condition of a level whose inequality holds applies (left: "
                  "bytes the reuse needs, right: bytes the level may hold)."]
    return "\n".join(lines)


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."
