"""The picture of an in-core campaign: predicted against measured cycles per assembly
iteration, one colour per analyzer, log-log, with the +-10 % and +-20 % bands
(``kerncraft-validate --incore --plot FILE``; needs matplotlib)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from kerncraft.validation.incore_score import scorable

__all__ = ["write_campaign_plot"]


def _points(records: Sequence, tool: str) -> tuple[list[float], list[float]]:
    measured, predicted = [], []
    for record in scorable(records):
        prediction = record.prediction(tool)
        if prediction is not None and prediction.cycles:
            measured.append(record.measured)
            predicted.append(prediction.cycles)
    return measured, predicted


def write_campaign_plot(path: str, records: Sequence, tools: Sequence[str], title: str,
                        mapes: dict[str, float]) -> str:
    """Draw the picture into ``path`` (.png, .svg or .pdf); returns ``path``."""
    from kerncraft.report.plot import OKABE_ITO, STYLE, check_plot_path, require_matplotlib
    from kerncraft.userfiles import atomic_output, display_name

    check_plot_path(path)
    require_matplotlib()
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    series = {tool: _points(records, tool) for tool in tools}
    values = [v for m, p in series.values() for v in (*m, *p) if v > 0]
    lo = 10 ** math.floor(math.log10(0.8 * min(values, default=0.5)))
    hi = 10 ** math.ceil(math.log10(1.25 * max(values, default=50.0)))
    with rc_context(STYLE):
        figure = Figure(figsize=(3.4, 3.8), layout="constrained")
        FigureCanvasAgg(figure)
        ax = figure.add_subplot()
        ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
        for band, alpha in ((0.2, 0.15), (0.1, 0.3)):
            ax.fill_between([lo, hi], [lo * (1 - band), hi * (1 - band)],
                            [lo * (1 + band), hi * (1 + band)], color="#999999", alpha=alpha,
                            linewidth=0, label=f"\u00b1{band:.0%}")
        for colour, marker, (tool, (measured, predicted)) in zip(OKABE_ITO, "os^Dv",
                                                                   series.items()):
            mape = mapes.get(tool)
            label = tool + (f" (MAPE {100 * mape:.1f} %)" if mape is not None else "")
            ax.plot(measured, predicted, marker=marker, markersize=2.2, linestyle="none",
                    color=colour, alpha=0.7, markeredgewidth=0, label=label)
        ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi),
               xlabel="measured (cy per assembly iteration)",
               ylabel="predicted (cy per assembly iteration)")
        ax.set_title(title, fontsize=7)
        figure.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=2,
                      frameon=False, fontsize=6)
        with atomic_output(path, f"--plot {display_name(path)}") as target:
            figure.savefig(target, dpi=300, format=Path(path).suffix.lower()[1:])
    return path
