"""Prediction next to measurement, when ``-p Benchmark`` runs with a predicting model.

``relative error = (prediction - measurement) / measurement`` of the time per
cache line of work (cy/CL): positive means the model predicts a slower kernel
than measured (pessimistic), negative a faster one (optimistic). Models that
predict a full runtime are compared: ECM (its scaling-table row for ``-c``),
RooflineFLOP and RooflineASM. ECMCPU, ECMData and LC predict only a part.
The table of the report is :func:`kerncraft.report.text.format_comparison`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

__all__ = ["ComparisonRow", "relative_error", "predicted_cycles", "compare_reports"]


@dataclass(frozen=True)
class ComparisonRow:
    model: str
    predicted: float        # cy/CL
    measured: float         # cy/CL

    @property
    def error(self) -> float:
        return relative_error(self.predicted, self.measured)

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "predicted_cy_per_cl": self.predicted,
                "measured_cy_per_cl": self.measured, "relative_error": self.error}


def relative_error(predicted: float, measured: float) -> float:
    """(predicted - measured) / measured."""
    if not measured > 0:
        raise ValueError(f"measured value must be positive, got {measured}")
    return (predicted - measured) / measured


def predicted_cycles(model: str, data: Mapping[str, Any], cores: int = 1) -> float | None:
    """cy/CL a model report predicts for ``cores`` cores (None: not a full prediction)."""
    if model == "ECM":
        rows = [r for r in data.get("scaling", ()) if r.get("cores") == cores]
        return float(rows[0]["cycles_per_cl"]) if rows else None
    if model in ("RooflineFLOP", "RooflineASM") and data.get("cycles_per_cl") is not None:
        return float(data["cycles_per_cl"])
    return None


def compare_reports(reports: Sequence, cores: int = 1) -> list[ComparisonRow]:
    """Rows for every predicting model next to the Benchmark report (none if absent)."""
    bench = next((r for r in reports if r.model == "Benchmark"), None)
    if bench is None:
        return []
    measured = float(bench.data["cycles_per_cl"])
    rows = []
    for report in reports:
        predicted = predicted_cycles(report.model, report.data, cores)
        if predicted is not None:
            rows.append(ComparisonRow(report.model, predicted, measured))
    return rows
