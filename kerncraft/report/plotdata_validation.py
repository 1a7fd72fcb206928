"""The numbers of the validation picture: predicted against measured cy/CL per level.

From the points of a ``kerncraft-validate`` run (``ValidationPoint``s, read by
attribute) or from the Markdown table it prints (a stored run such as
``benchmarks/machines/validation-zen5-hand.txt``).

>>> table = ("| kernel | level | defines | working set | measured cy/CL | ECM cy/CL | "
...          "ECM error | Roofline cy/CL | Roofline error | model: data from | notes |\\n"
...          "| copy | L2 | N=14336 | 224.0 KiB | 2.71 | 2.66 | -1.9 % | 2.34 | -13.6 % | L2 |  |")
>>> points_from_table(table)
(ValidationPlotPoint(kernel='copy', level='L2', measured=2.71, ecm=2.66, roofline=2.34),)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from kerncraft.errors import KerncraftError

__all__ = ["ValidationPlotPoint", "ValidationPlot", "validation_plot", "points_from_table"]


@dataclass(frozen=True)
class ValidationPlotPoint:
    """One kernel at one level: measured and predicted cy/CL."""

    kernel: str
    level: str
    measured: float
    ecm: float
    roofline: float

    def error(self, model: str) -> float:
        """Relative error (predicted - measured) / measured of 'ECM' or 'Roofline'."""
        predicted = self.ecm if model == "ECM" else self.roofline
        return (predicted - self.measured) / self.measured


@dataclass(frozen=True)
class ValidationPlot:
    """Log-log predicted against measured, one colour per level, a band of +-``band``."""

    title: str
    points: tuple[ValidationPlotPoint, ...]
    levels: tuple[str, ...]                 # in the order of the run
    band: float = 0.10
    x_label: str = "measured (cy/CL)"
    y_label: str = "predicted (cy/CL)"

    def within_band(self, model: str) -> int:
        """How many points of ``model`` lie within the band."""
        return sum(abs(p.error(model)) <= self.band + 1e-12 for p in self.points)

    def outlier_labels(self, model: str = "ECM", most: int = 6, near: float = 1.6
                       ) -> tuple[tuple[ValidationPlotPoint, str], ...]:
        """Labels of the worst points outside the band: (the point the label sits at,
        'kernel L1, L2'). One label serves a kernel's points that lie within a factor
        ``near`` of each other on both axes (they would cover each other's labels)."""
        groups: list[list[ValidationPlotPoint]] = []
        outside = sorted((p for p in self.points if abs(p.error(model)) > self.band + 1e-12),
                         key=lambda p: -abs(p.error(model)))
        for point in outside:
            home = next((g for g in groups if g[0].kernel == point.kernel
                         and _close(g[0], point, model, near)), None)
            if home is not None:
                home.append(point)
            elif len(groups) < most:
                groups.append([point])
        order = {level: k for k, level in enumerate(self.levels)}
        return tuple((g[0], f"{g[0].kernel} " + ", ".join(
            sorted((p.level for p in g), key=order.get))) for g in groups)

    @property
    def ticks(self) -> tuple[float, ...]:
        """Tick values of both log axes (1, 2, 5 x 10^k, fewer on a wide range)."""
        from kerncraft.report.plotdata import log_ticks
        return log_ticks(*self.limits)

    @property
    def limits(self) -> tuple[float, float]:
        """Common axis range (cy/CL) holding every measured and predicted value."""
        values = [v for p in self.points for v in (p.measured, p.ecm, p.roofline) if v > 0]
        return min(values) / 1.3, max(values) * 1.3


def _close(a: ValidationPlotPoint, b: ValidationPlotPoint, model: str, factor: float) -> bool:
    """Within ``factor`` of each other in measured and in ``model``'s prediction."""
    def near(x: float, y: float) -> bool:
        return max(x, y) <= factor * min(x, y)
    predicted = (lambda p: p.ecm) if model == "ECM" else (lambda p: p.roofline)  # noqa: E731
    return near(a.measured, b.measured) and near(predicted(a), predicted(b))


def validation_plot(points: Iterable[Any], title: str = "prediction vs measurement") -> ValidationPlot:
    """From ``ValidationPlotPoint``s or ``kerncraft.validation.campaign.ValidationPoint``s
    (``kernel``, ``size.level``, ``measured``, ``prediction.ecm`` / ``.roofline``)."""
    converted = []
    for p in points:
        if not isinstance(p, ValidationPlotPoint):
            p = ValidationPlotPoint(p.kernel, p.size.level, float(p.measured),
                                    float(p.prediction.ecm), float(p.prediction.roofline))
        if p.measured > 0:
            converted.append(p)
    if not converted:
        raise KerncraftError("nothing to plot: no measured validation point")
    levels = tuple(dict.fromkeys(p.level for p in converted))
    return ValidationPlot(title, tuple(converted), levels)


def points_from_table(text: str) -> tuple[ValidationPlotPoint, ...]:
    """The rows of a ``kerncraft-validate`` Markdown table (other lines are skipped)."""
    found = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 9 or cells[0] in ("kernel", "") or cells[0].startswith("-"):
            continue
        try:
            measured, ecm, roofline = float(cells[4]), float(cells[5]), float(cells[7])
        except ValueError:
            continue
        found.append(ValidationPlotPoint(cells[0], cells[1], measured, ecm, roofline))
    return tuple(found)
