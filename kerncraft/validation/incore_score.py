"""Scores of the in-core campaign: every analyzer against the measured blocks.

The relative error of a prediction is (predicted - measured) / measured. Per tool, over
the blocks it predicted (CesASMe, seed 003: a tool that fails on a block is left out
there, and the count says so): MAPE (mean absolute percentage error), the median
absolute error, the shares within 10 % and 20 %, Kendall's tau-b of prediction against
measurement (does the tool order the blocks as the machine does; ties handled) and the
shares of over- and under-predictions. Unstable blocks (passes more than 5 % apart) are
left out of every score and counted.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["ToolScore", "relative_error", "kendall_tau", "score_pairs", "scorable",
           "score_tools", "score_families", "worst_blocks", "jointly_bad", "score_document"]


@dataclass(frozen=True)
class ToolScore:
    """One analyzer on a set of blocks (errors as fractions: 0.1 = 10 %)."""

    tool: str
    blocks: int
    mape: float
    median: float
    within_10: float                # shares of the blocks, 0..1
    within_20: float
    kendall_tau: float
    over: float                     # share predicted too high
    under: float                    # share predicted too low
    failed: int = 0                 # blocks the tool could not predict

    def to_dict(self) -> dict[str, Any]:
        return {"blocks": self.blocks, "mape": _finite(self.mape),
                "median": _finite(self.median), "within_10": _finite(self.within_10),
                "within_20": _finite(self.within_20),
                "kendall_tau": _finite(self.kendall_tau), "over": _finite(self.over),
                "under": _finite(self.under), "failed": self.failed}


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) else round(value, 6)


def relative_error(predicted: float, measured: float) -> float:
    return (predicted - measured) / measured


def kendall_tau(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Kendall's tau-b of two equally long sequences (nan for fewer than two pairs or
    when one sequence is constant)."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) *
                            (concordant + discordant + ties_y))
    return (concordant - discordant) / denominator if denominator else math.nan


def score_pairs(tool: str, pairs: Sequence[tuple[float, float]], failed: int = 0) -> ToolScore:
    """The score of (predicted, measured) pairs."""
    if not pairs:
        nan = math.nan
        return ToolScore(tool, 0, nan, nan, nan, nan, nan, nan, nan, failed)
    errors = [relative_error(p, m) for p, m in pairs]
    absolute = [abs(e) for e in errors]
    n = len(errors)
    return ToolScore(tool, n, sum(absolute) / n, statistics.median(absolute),
                     sum(e <= 0.10 + 1e-12 for e in absolute) / n,
                     sum(e <= 0.20 + 1e-12 for e in absolute) / n,
                     kendall_tau([p for p, _ in pairs], [m for _, m in pairs]),
                     sum(e > 0 for e in errors) / n, sum(e < 0 for e in errors) / n, failed)


def scorable(records: Iterable) -> list:
    """The blocks that count: measured, stable, and the loop the program runs."""
    return [r for r in records if r.measured is not None and r.measured > 0 and not r.unstable
            and not getattr(r, "not_run", False)]


def _pairs(records: Sequence, tool: str) -> tuple[list[tuple[float, float]], int]:
    pairs, failed = [], 0
    for record in records:
        prediction = record.prediction(tool)
        if prediction is None:
            continue
        if prediction.cycles is None or prediction.cycles <= 0:
            failed += 1
        else:
            pairs.append((prediction.cycles, record.measured))
    return pairs, failed


def score_tools(records: Sequence, tools: Sequence[str]) -> dict[str, ToolScore]:
    """Per tool, over the scorable blocks it was run on."""
    blocks = scorable(records)
    return {tool: score_pairs(tool, *_pairs(blocks, tool)) for tool in tools
            if any(r.prediction(tool) is not None for r in blocks)}


def score_families(records: Sequence, tools: Sequence[str]) -> dict[str, dict[str, ToolScore]]:
    """Per kernel family, per tool."""
    blocks = scorable(records)
    families = sorted({r.family for r in blocks})
    return {family: score_tools([r for r in blocks if r.family == family], tools)
            for family in families}


def worst_blocks(records: Sequence, tool: str, count: int = 20) -> list:
    """The ``count`` scorable blocks ``tool`` predicts worst (largest absolute error)."""
    rated = []
    for record in scorable(records):
        prediction = record.prediction(tool)
        if prediction is not None and prediction.cycles:
            rated.append((abs(relative_error(prediction.cycles, record.measured)), record))
    rated.sort(key=lambda pair: (-pair[0], pair[1].key))
    return [record for _, record in rated[:count]]


def jointly_bad(records: Sequence, tools: Sequence[str], threshold: float = 0.2) -> list:
    """Blocks every tool that predicted them misses by more than ``threshold`` (what they
    all miss: CesASMe's jointly bad rows)."""
    bad = []
    for record in scorable(records):
        errors = [relative_error(p.cycles, record.measured) for tool in tools
                  if (p := record.prediction(tool)) is not None and p.cycles]
        if len(errors) == len(tools) and all(abs(e) > threshold for e in errors):
            bad.append(record)
    return bad


def score_document(records: Sequence, tools: Sequence[str], host: Mapping[str, Any],
                   extra: Mapping[str, Any] | None = None, worst: int = 20) -> dict[str, Any]:
    """The ``--json`` document: ``host``, ``blocks`` (scored), ``measured``,
    ``unstable``, ``not_run`` (another loop of the program ran), ``tools``, ``families``,
    ``worst`` (by our static analyzer), ``jointly_bad``."""
    measured = [r for r in records if r.measured is not None]
    ranked = worst_blocks(records, tools[0], worst) if tools else []
    return {"host": dict(host), "blocks": len(scorable(records)), "measured": len(measured),
            "unstable": sum(r.unstable for r in measured),
            "not_run": sum(getattr(r, "not_run", False) for r in measured),
            "tools": {t: s.to_dict() for t, s in score_tools(records, tools).items()},
            "families": {f: {t: s.to_dict() for t, s in scores.items()}
                         for f, scores in score_families(records, tools).items()},
            "worst": [_worst_entry(r, tools) for r in ranked],
            "jointly_bad": len(jointly_bad(records, tools)), **(extra or {})}


def _worst_entry(record, tools: Sequence[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"key": record.key, "block": record.label,
                             "measured": record.measured, "tools": {}}
    for tool in tools:
        prediction = record.prediction(tool)
        if prediction is not None:
            error = (relative_error(prediction.cycles, record.measured)
                     if prediction.cycles else None)
            entry["tools"][tool] = {"cy": prediction.cycles, "error": error,
                                    "binding": prediction.binding}
    return entry
