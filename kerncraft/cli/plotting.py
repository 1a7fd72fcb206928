"""``--plot FILE`` of the commands: which pictures a run gives, and writing them.

The numbers come from :mod:`kerncraft.report.plotdata` (one function per kind),
the drawing from :mod:`kerncraft.report.plot`. ``kerncraft`` collects every
point's reports while it prints them (:class:`PointCollector`) and draws at the
end:

* ``RooflineFLOP`` / ``RooflineASM``: the Roofline diagram (of the last -D point);
* ``ECM``: over a -D sweep the contributions against the working-set size (with
  ``-p Benchmark`` in the same call: the measured points); at one point the
  scaling table (performance against cores);
* ``ECMData``: over a -D sweep the link times against the working-set size;
* ``ECMCPU``: the port pressure of the compiled loop (built-in in-core analyzer), with
  the line-split cycles and the resource the report names as binding.

Titles name the kernel file, the machine and the -D values of the run. One picture is
written to FILE itself; several to ``FILE-<model>.<suffix>``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence, TextIO

from kerncraft.errors import KerncraftError

__all__ = ["require_matplotlib", "write_port_pressure", "write_validation", "plot_path", "PointCollector", "check_models", "pictures", "picture_paths",
           "write_pictures"]

ROOFLINES = ("RooflineFLOP", "RooflineASM")


def require_matplotlib() -> None:
    """The install hint as an error when matplotlib is missing (checked before a run)."""
    from kerncraft.report.plot import require_matplotlib as require

    require()


def plot_path(value: str) -> str:
    """argparse type of ``--plot``: a .png, .svg or .pdf file name."""
    from kerncraft.report.plot import check_plot_path

    try:
        return check_plot_path(value)
    except KerncraftError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--plot {value}: ")) from None


class PointCollector:
    """``on_point`` of :func:`kerncraft.runner.run.run_models`: keeps every
    point's working set (bytes), label and reports."""

    def __init__(self) -> None:
        self.points: list[tuple[float, str, dict[str, Any]]] = []
        self.bindings: list[dict[str, int]] = []
        self.kernel = ""            # the kernel's file name (picture titles)

    def __call__(self, bound: Any, reports: Sequence[Any]) -> None:
        from kerncraft.validation.sizes import working_set

        label = " ".join(f"{k}={v}" for k, v in sorted(bound.bindings.items()))
        results = {r.model: r.result for r in reports if r.result is not None}
        self.points.append((float(working_set(bound)), label, results))
        self.bindings.append(dict(bound.bindings))
        self.kernel = self.kernel or str(getattr(bound, "filename", "") or "")

    def title(self, kind: str, machine: Any, last_only: bool = False) -> str:
        """'<kind>: <kernel> on <machine>, <-D values>' (of the last point only, or all)."""
        from kerncraft.report.plotdata import machine_name, picture_title, sizes_text

        bindings = self.bindings[-1:] if last_only else self.bindings
        return picture_title(kind, self.kernel, machine_name(machine), sizes_text(bindings))


def _sweep(model: str, collector: PointCollector, machine: Any) -> Any:
    from kerncraft.report.plotdata import ecm_sweep_plot

    points = [(size, label, results[model]) for size, label, results in collector.points]
    measured = [(size, results["Benchmark"].cycles_per_cl)
                for size, _, results in collector.points if "Benchmark" in results]
    capacities = {lvl.name: lvl.size_per_group for lvl in machine.cache_levels}
    kind = "ECM contributions" if model == "ECM" else "ECMData link times"
    return ecm_sweep_plot(points, capacities, measured, title=collector.title(kind, machine))


def pictures(models: Sequence[str], collector: PointCollector, machine: Any) -> list[tuple[str, Any]]:
    """(model, plot data) of every picture this run gives, in the order of ``-p``."""
    from kerncraft.report.plotdata import (incore_prediction_plot, machine_name, roofline_plot,
                                           scaling_plot)

    found = []
    last = collector.points[-1][2] if collector.points else {}
    sweep = len(collector.points) > 1
    for model in models:
        if model in ROOFLINES and model in last:
            cores = last[model].cores
            kind = model + (f", {cores} cores" if cores > 1 else "")
            found.append((model, roofline_plot(last[model], collector.title(kind, machine,
                                                                             True))))
        elif model in ("ECM", "ECMData") and sweep:
            found.append((model, _sweep(model, collector, machine)))
        elif model == "ECM" and model in last:
            found.append((model, scaling_plot(last[model], machine.clock,
                                              collector.title("ECM scaling", machine, True))))
        elif model == "ECMCPU" and model in last:
            prediction = last[model].prediction
            if hasattr(prediction.analysis, "port_totals"):
                same = prediction.arch == machine_name(machine)    # CSX on CSX: said once
                kind = "ECMCPU port pressure" + ("" if same else f" ({prediction.arch})")
                found.append((model, incore_prediction_plot(
                    prediction, collector.title(kind, machine, True))))
    return found


def check_models(models: Sequence[str], points: int) -> None:
    """Refuse before the run when none of ``models`` gives a picture with ``points`` points."""
    if any(m in ROOFLINES or m in ("ECM", "ECMCPU") or (m == "ECMData" and points > 1)
           for m in models):
        return
    raise KerncraftError(
        "--plot: no picture for " + ", ".join(models) + " (pictures: RooflineFLOP, "
        "RooflineASM, ECM (scaling, or a -D sweep), ECMData over a -D sweep, ECMCPU)")


def picture_paths(path: str, names: Sequence[str]) -> list[str]:
    """``path`` for one picture, ``stem-<name>.suffix`` next to it for several."""
    if len(names) == 1:
        return [path]
    target = Path(path)
    return [str(target.with_name(f"{target.stem}-{name}{target.suffix}")) for name in names]


def write_pictures(path: str, models: Sequence[str], collector: PointCollector, machine: Any,
                   err: TextIO | None = None) -> list[str]:
    """Draw the pictures of a ``kerncraft`` run; a run without any is an error."""
    from kerncraft.report.plot import draw

    found = pictures(models, collector, machine)
    if not found:
        check_models(models, len(collector.points))
        raise KerncraftError("--plot: the run gave no result to draw")
    written = [draw(plot, target)
               for (_, plot), target in zip(found, picture_paths(path, [m for m, _ in found]))]
    for target in written:
        print(f"kerncraft: wrote {target}", file=err if err is not None else sys.stderr)
    return written


def write_port_pressure(path: str, analysis: Any, name: str = "",
                        err: TextIO | None = None) -> str:
    """``kerncraft-incore --plot``: the port pressure of one analysed loop."""
    from kerncraft.report.plot import draw
    from kerncraft.report.plotdata import port_pressure_plot

    title = f"port pressure: {name} on {analysis.arch}" if name else ""
    written = draw(port_pressure_plot(analysis, title), path)
    print(f"kerncraft-incore: wrote {written}", file=err if err is not None else sys.stderr)
    return written


def write_validation(path: str, points: Sequence[Any], name: str = "",
                     err: TextIO | None = None) -> str:
    """``kerncraft-validate --plot``: predicted against measured per level."""
    from kerncraft.report.plot import draw
    from kerncraft.report.plotdata_validation import validation_plot

    written = draw(validation_plot(points, name or "prediction vs measurement"), path)
    print(f"kerncraft-validate: wrote {written}", file=err if err is not None else sys.stderr)
    return written
