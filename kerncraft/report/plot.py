"""Drawing the pictures of :mod:`kerncraft.report.plotdata` with matplotlib.

matplotlib is optional (``pip install kerncraft[plot]``) and imported only when a
picture is drawn; figures are made on the Agg canvas (no display, no pyplot
state). The pictures are sized for one column of a paper (8.9 cm wide, 8 pt
type) and use the Okabe-Ito colours, which stay apart for colour-blind readers.

>>> check_plot_path("roofline.svg")
'roofline.svg'
>>> check_plot_path("roofline.jpg")
Traceback (most recent call last):
...
kerncraft.errors.KerncraftError: --plot roofline.jpg: unsupported picture format '.jpg' (use .png, .svg or .pdf)
"""
from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Any

from kerncraft.errors import KerncraftError
from kerncraft.userfiles import atomic_output, display_name
from kerncraft.report.plotdata import (ECMSweepPlot, PortPressurePlot, RooflinePlot,
                                       ScalingPlot)
from kerncraft.report.plotdata_validation import ValidationPlot

__all__ = ["FORMATS", "check_plot_path", "draw", "require_matplotlib", "MISSING_MATPLOTLIB"]

FORMATS = (".png", ".svg", ".pdf")
MISSING_MATPLOTLIB = "--plot needs matplotlib, which is not installed: pip install kerncraft[plot]"
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
             "#000000")
VERMILLION, BLUE, GREY = "#D55E00", "#0072B2", "#999999"
MARKERS = "os^Dv<>ph"
CONTRIBUTION_ORDER = ("T_nOL", "T_L1L2", "T_L2L3", "T_L3MEM")   # fixed colours across machines
WIDTH_IN, HEIGHT_IN = 3.5, 2.6       # 8.9 cm x 6.6 cm; pictures with the legend below: taller
TALL_IN = 3.2
STYLE = {"font.size": 8, "axes.labelsize": 8, "xtick.labelsize": 7, "ytick.labelsize": 7,
         "legend.fontsize": 6.5, "axes.titlesize": 8, "lines.linewidth": 1.2,
         "svg.fonttype": "none", "pdf.fonttype": 42, "axes.spines.top": False,
         "axes.spines.right": False}


def check_plot_path(path: str) -> str:
    """``path`` if it names a .png, .svg or .pdf file, else a one-line error."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        shown = f"'{suffix}'" if suffix else "(none)"
        raise KerncraftError(f"--plot {path}: unsupported picture format {shown} "
                             f"(use .png, .svg or .pdf)")
    return path


def _matplotlib():
    """(Figure, FigureCanvasAgg, rc_context), or the install hint as an error."""
    try:
        from matplotlib import rc_context
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise KerncraftError(MISSING_MATPLOTLIB) from None
    return Figure, FigureCanvasAgg, rc_context


def require_matplotlib() -> None:
    """Fail early (before a long run) with the install hint when matplotlib is missing."""
    _matplotlib()


def draw(plot: Any, path: str) -> str:
    """Draw any plot-data object into ``path`` (format from the suffix); returns ``path``."""
    check_plot_path(path)
    drawers = {RooflinePlot: (_roofline, TALL_IN), ECMSweepPlot: (_ecm_sweep, TALL_IN),
               ScalingPlot: (_scaling, HEIGHT_IN), PortPressurePlot: (_ports, HEIGHT_IN),
               ValidationPlot: (_validation, 3.6)}
    if type(plot) not in drawers:
        raise TypeError(f"no picture for {type(plot).__name__}")
    drawer, height = drawers[type(plot)]
    Figure, FigureCanvasAgg, rc_context = _matplotlib()
    with rc_context(STYLE):
        figure = Figure(figsize=(WIDTH_IN, height), layout="constrained")
        FigureCanvasAgg(figure)
        drawer(figure.add_subplot(), plot)
        # atomically: a full disk must not leave an empty or truncated picture behind
        with atomic_output(path, f"--plot {display_name(path)}") as target:
            figure.savefig(target, dpi=300, format=Path(path).suffix.lower()[1:])
    return path


def _legend_outside(ax, where: str = "lower center", ncols: int = 2) -> None:
    """The axes' legend outside them (constrained layout makes room), no frame."""
    ax.figure.legend(*ax.get_legend_handles_labels(), loc=f"outside {where}", ncols=ncols,
                     frameon=False, handlelength=1.6, columnspacing=1.0)


def _title(ax, title: str, width: int = 52) -> None:
    """The title, broken after the kind ('ECM scaling:') when it would not fit the
    column, the rest wrapped."""
    if len(title) > width and ": " in title:
        kind, rest = title.split(": ", 1)
        title = kind + "\n" + textwrap.fill(rest, width)
    elif len(title) > width:
        title = textwrap.fill(title, width)
    ax.set_title(title)


def _decades(low: float, high: float) -> tuple[float, float]:
    return 10 ** math.floor(math.log10(low)), 10 ** math.ceil(math.log10(high))


def _roofline(ax, plot: RooflinePlot) -> None:
    scale = plot.y_scale
    x_lo, x_hi = _decades(min(p.intensity for p in plot.points) / 4,
                          max(p.intensity for p in plot.points) * 40)
    top = plot.compute or max(c.bandwidth * x_hi for c in plot.ceilings)
    y_lo = plot.performance / scale / 8
    colour_of = dict(zip([c.level for c in plot.ceilings], OKABE_ITO))
    shape_of = dict(zip([c.level for c in plot.ceilings], MARKERS))
    for ceiling in plot.ceilings:
        knee = (plot.compute / ceiling.bandwidth) if plot.compute else None
        line_x = [x_lo] + ([knee] if knee and x_lo < knee < x_hi else []) + [x_hi]
        line_y = [min(x * ceiling.bandwidth, plot.compute or math.inf) / scale for x in line_x]
        faint = {} if ceiling.traffic else {"linestyle": (0, (4, 2)), "alpha": 0.55}
        ax.plot(line_x, line_y, color=colour_of[ceiling.level], **faint)
        if ceiling.traffic:     # the legend: the level's roof and its marker on it
            ax.plot([], [], color=colour_of[ceiling.level], marker=shape_of[ceiling.level],
                    markerfacecolor="none", markersize=4, label=ceiling.label)
    if plot.compute:
        ax.axhline(plot.compute / scale, color="black", linestyle="--", linewidth=1,
                   label=plot.compute_label)
    # each level's marker sits on its own roof at the kernel's intensity there (what
    # that level alone allows), a dotted line down to the prediction: levels with
    # the same intensity stay apart because their bandwidths differ
    for point in plot.points:
        roof = plot.roof_at(point) / scale
        ax.plot([point.intensity] * 2, [plot.performance / scale, roof], color=GREY,
                linestyle=":", linewidth=0.8)
        ax.plot(point.intensity, roof, marker=shape_of[point.level], markersize=6.5,
                color=colour_of[point.level], markerfacecolor="none", markeredgewidth=1.1,
                linestyle="none", zorder=4)     # above the prediction: a ring around it
    binding = [p for p in plot.points if p.binding]
    where = binding[0] if binding else min(plot.points, key=plot.roof_at)
    name = binding[0].level if binding else plot.bottleneck
    ax.plot(where.intensity, plot.performance / scale, marker="*", markersize=7,
            color=VERMILLION, markeredgecolor="black", markeredgewidth=0.5, linestyle="none",
            label=f"prediction, bound by {name}: {plot.performance / scale:.3g} GFLOP/s")
    ax.set(xscale="log", yscale="log", xlim=(x_lo, x_hi), xlabel=plot.x_label,
           ylabel=plot.y_label, ylim=(y_lo, top / scale * 2))
    _legend_outside(ax)
    _title(ax, plot.title)
    _label_roofs(ax, plot, x_lo, y_lo * scale, colour_of)


def _label_roofs(ax, plot: RooflinePlot, x_lo: float, y_lo: float, colour_of) -> None:
    """Each roof's name on the roof itself, parallel to it, near its visible left end
    (the angle needs the final layout: it is computed after a layout pass)."""
    ax.figure.draw_without_rendering()
    scale = plot.y_scale
    for ceiling in plot.ceilings:
        x = max(x_lo, y_lo / ceiling.bandwidth) * 1.6
        if plot.compute and x * ceiling.bandwidth > plot.compute:
            continue            # its roof is the compute line here: the legend names it
        (x0, y0), (x1, y1) = ax.transData.transform(
            [(x, x * ceiling.bandwidth / scale), (x * 10, x * 10 * ceiling.bandwidth / scale)])
        angle = math.atan2(y1 - y0, x1 - x0)
        # 2.5 pt off the line, at right angles to it (above and to the left)
        ax.annotate(ceiling.label, (x, x * ceiling.bandwidth / scale),
                    xytext=(-2.5 * math.sin(angle), 2.5 * math.cos(angle)),
                    textcoords="offset points", rotation=math.degrees(angle),
                    rotation_mode="anchor", fontsize=5.5, color=colour_of[ceiling.level],
                    alpha=1.0 if ceiling.traffic else 0.75)


def _step_edges(xs: list[float]) -> list[float]:
    """Edges of one step per point on a log axis: geometric means between neighbours."""
    if len(xs) == 1:
        return [xs[0] / 1.5, xs[0] * 1.5]
    inner = [math.sqrt(a * b) for a, b in zip(xs, xs[1:])]
    return [xs[0] ** 2 / inner[0]] + inner + [xs[-1] ** 2 / inner[-1]]


def _ecm_sweep(ax, plot: ECMSweepPlot) -> None:
    xs = [p.working_set for p in plot.points]
    edges = _step_edges(xs)
    steps = lambda values: list(values) + [values[-1]]  # noqa: E731  (step="post" needs n+1)
    names = list(dict.fromkeys(CONTRIBUTION_ORDER + plot.part_names + plot.overlapping_names))
    colour_of = dict(zip(names, OKABE_ITO * 2))      # one colour per contribution, stacked or not
    base = [0.0] * len(xs)
    for name in plot.part_names:
        colour = colour_of[name]
        height = [base[i] + dict(p.parts).get(name, 0.0) for i, p in enumerate(plot.points)]
        ax.fill_between(edges, steps(base), steps(height), step="post", color=colour,
                        alpha=0.85, linewidth=0, label=name)
        base = height
    lines = [(f"{name} (overlaps)", [dict(p.overlapping).get(name, 0.0) for p in plot.points],
              "--", colour_of[name]) for name in plot.overlapping_names]
    if any(p.t_ol is not None for p in plot.points):
        lines.append(("T_OL", [p.t_ol or 0.0 for p in plot.points], ":", "black"))
    for label, values, style, colour in lines:
        ax.step(edges, steps(values), where="post", color=colour, linestyle=style,
                linewidth=1.2, label=label)
    if any(p.prediction is not None for p in plot.points):
        ax.plot(xs, [p.prediction for p in plot.points], color="black", marker="o",
                markersize=2.5, linestyle="none", label="prediction")
    if plot.measured:
        ax.plot(*zip(*plot.measured), color=VERMILLION, marker="D", markersize=3.5,
                linestyle="none", markeredgecolor="black", markeredgewidth=0.4,
                label="measured")
    top = plot.top * 1.2
    for name, size in plot.capacities:
        if edges[0] <= size <= edges[-1]:
            ax.axvline(size, color=GREY, linestyle="--", linewidth=0.8)
            ax.text(size * 1.08, top * 0.97, name, color="#555555", fontsize=6.5, va="top")
    ax.set(xscale="log", xlim=(edges[0], edges[-1]), ylim=(0, top), xlabel=plot.x_label,
           ylabel=plot.y_label)
    _legend_outside(ax, ncols=3)
    _title(ax, plot.title)


def _scaling(ax, plot: ScalingPlot) -> None:
    values = [v / 1e9 for v in plot.performance]
    ax.plot(plot.cores, values, color=BLUE, linewidth=1)
    core = [(c, v) for c, v, m in zip(plot.cores, values, plot.memory_bound) if not m]
    memory = [(c, v) for c, v, m in zip(plot.cores, values, plot.memory_bound) if m]
    if core:
        ax.plot(*zip(*core), marker="o", markersize=3.5, color=BLUE, linestyle="none",
                label="core-bound")
    if memory:
        ax.plot(*zip(*memory), marker="o", markersize=3.5, color="white", linestyle="none",
                markeredgecolor=VERMILLION, label="memory-bound")
    top = max(values) * 1.3
    for k, cores in enumerate(plot.numa_steps, 2):  # the next core opens NUMA domain k
        ax.axvline(cores + 0.5, color="#009E73", linestyle="-.", linewidth=0.8)
        ax.text(cores + 0.7, top * 0.98, f"NUMA domain {k}\nfrom {cores + 1} cores",
                color="#00704F", fontsize=6, va="top")
    if plot.saturation is not None and plot.saturation in plot.cores:
        value = values[plot.cores.index(plot.saturation)]
        ax.axvline(plot.saturation, color=GREY, linestyle="--", linewidth=0.8)
        ax.annotate(f"saturation: {plot.saturation} cores", (plot.saturation, value),
                    xytext=(6, -16), textcoords="offset points", fontsize=6.5)
    elif plot.note and memory:
        first = memory[0]
        ax.annotate(textwrap.fill(plot.note, 30), first, xytext=(6, -10),
                    textcoords="offset points", fontsize=6, va="top")
    ax.set(xlabel=plot.x_label, ylabel=plot.y_label, ylim=(0, top),
           xlim=(0, max(plot.cores) + 1))
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(loc="lower right", frameon=False)
    _title(ax, plot.title)


def _ports(ax, plot: PortPressurePlot) -> None:
    x = range(len(plot.ports))
    splits = plot.split_cycles or (0.0,) * len(plot.ports)
    base = [c - s for c, s in zip(plot.cycles, splits)]
    colours = [VERMILLION if p in plot.bottleneck else BLUE for p in plot.ports]
    ax.bar(x, base, color=colours, width=0.7)
    if any(splits):             # the line-split cycles on top, hatched: part of the bar
        ax.bar(x, splits, bottom=base, color=colours, width=0.7, hatch="////",
               edgecolor="white", linewidth=0, label="line splits")
    scale = max(list(plot.cycles) + [v for name, v in plot.bounds if name != "critical path"])
    top = scale * 2.2
    styles = {"LCD": ("--", "black"), "critical path": (":", "#009E73"),
              "front end": ("-.", "#CC79A7"), "simulated": ((0, (5, 1, 1, 1)), "#56B4E9")}
    for name, value in plot.bounds:
        style, colour = styles.get(name, ("--", GREY))
        binding = name in plot.binding_bounds
        label = f"{name} {value:.3g} cy"
        if value > top:         # a long latency chain would flatten the bars: name it only
            ax.plot([], [], linestyle=style, color=colour, label=f"{label} (off scale)")
            continue
        ax.axhline(value, linestyle=style, color=VERMILLION if binding else colour,
                   linewidth=2.0 if binding else 1, label=None if binding else label)
    # the bottleneck as the report names it: ports (orange bars) or a bound (orange line)
    if plot.bottleneck:
        ax.bar([0], [0], color=VERMILLION, label=plot.binding_label)
    else:
        name = plot.binding_bounds[0] if plot.binding_bounds else ""
        ax.plot([], [], color=VERMILLION, linewidth=2.0,
                linestyle=styles.get(name, ("-", ""))[0], label=plot.binding_label)
    ax.set_xticks(x, plot.ports, rotation=90 if len(plot.ports) > 14 else 0)
    ax.set(xlabel=plot.x_label, ylabel=plot.y_label, ylim=(0, top),
           xlim=(-0.6, len(plot.ports) - 0.4))
    ax.legend(loc="upper left", frameon=False)
    _title(ax, plot.title)


def _validation(ax, plot: ValidationPlot) -> None:
    lo, hi = plot.limits
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
    ax.fill_between([lo, hi], [lo * (1 - plot.band), hi * (1 - plot.band)],
                    [lo * (1 + plot.band), hi * (1 + plot.band)], color=GREY, alpha=0.3,
                    linewidth=0, label=f"\u00b1{plot.band:.0%}")
    for colour, level in zip(OKABE_ITO, plot.levels):
        points = [p for p in plot.points if p.level == level]
        ax.plot([p.measured for p in points], [p.ecm for p in points], marker="o",
                markersize=3.5, linestyle="none", color=colour, label=f"{level} ECM")
        ax.plot([p.measured for p in points], [p.roofline for p in points], marker="s",
                markersize=3.5, linestyle="none", color=colour, markerfacecolor="none",
                markeredgewidth=0.8, label=f"{level} Roofline")
    for point, text in plot.outlier_labels("ECM"):  # the ECM points farthest outside
        # away from the diagonal, where the other points are: below-right of a point
        # predicted too fast, above-left of one predicted too slow
        below = point.ecm < point.measured
        ax.annotate(text, (point.measured, point.ecm), xytext=(4, -4) if below else (-4, 4),
                    textcoords="offset points", fontsize=5.5, color="#333333",
                    ha="left" if below else "right", va="top" if below else "bottom")
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator
    ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi), xlabel=plot.x_label,
           ylabel=plot.y_label)
    for axis in (ax.xaxis, ax.yaxis):       # 1-2-5 ticks with plain numbers, no minor labels
        axis.set_major_locator(FixedLocator(plot.ticks))
        axis.set_major_formatter(lambda value, _: f"{value:g}")
        axis.set_minor_locator(NullLocator())
        axis.set_minor_formatter(NullFormatter())
    _legend_outside(ax, ncols=3)
    _title(ax, plot.title)
