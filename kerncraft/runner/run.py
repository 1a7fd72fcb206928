"""Which performance models exist, and running them over the -D points.

A model is a callable ``model(kernel, machine, options) -> ModelReport`` taking a
*bound* kernel and :class:`~kerncraft.options.AnalysisOptions` (or an object
with the same attributes, converted by :func:`~kerncraft.options.as_options`).
The typed results without the text come from :func:`kerncraft.analyze`. Models
that a later development stage provides are listed in ``PLANNED`` with the
stage that builds them, so the CLI can say so in one line.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, TextIO

from kerncraft.errors import NotImplementedModelError


@dataclass(frozen=True)
class ModelReport:
    """What a model entry point returns: the text it prints, the numbers for --json
    (``result.to_dict()``) and the typed result itself (None for stubs)."""

    model: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    result: Any = None


ModelFunction = Callable[..., ModelReport]

PLANNED: Mapping[str, str] = {}


IMPLEMENTED: Mapping[str, str] = {
    "ECMData": "kerncraft.models.ecm_data:ecm_data_model",
    "RooflineFLOP": "kerncraft.models.roofline:roofline_flop_model",
    "LC": "kerncraft.models.lc:lc_model",
    "ECMCPU": "kerncraft.models.ecm:ecm_cpu_model",
    "ECM": "kerncraft.models.ecm:ecm_model",
    "RooflineASM": "kerncraft.models.roofline:roofline_asm_model",
    "Benchmark": "kerncraft.benchmark.kernel_run:benchmark_model",
}
"""Models of this version, as 'module:function' (imported only when used)."""


def load_model(name: str) -> ModelFunction:
    """Import and return the function of an implemented model."""
    import importlib

    module_name, function = IMPLEMENTED[name].split(":")
    return getattr(importlib.import_module(module_name), function)


def run_models(models: Sequence[str], kernel, machine, points: Sequence[Mapping[str, int]],
               options, out: TextIO | None = None, json_target: str | None = None,
               on_point: Callable[[Any, Sequence[ModelReport]], None] | None = None,
               store: str | None = None, jobs: int = 1) -> int:
    """Run every model for every -D point, print reports, write JSON if asked.

    ``json_target``: a file name or ``-`` (stdout); when None, the ``json``
    attribute of ``options`` if it has one (older callers pass the namespace).
    ``on_point(bound_kernel, reports)`` is called after every point (``--plot``).
    ``store``: a file the run's JSON document is appended to as one line (``--store``).
    ``jobs``: points computed in parallel processes (not with ``on_point`` or
    ``-p Benchmark``, which need the typed results or a quiet machine).

    A point computed before with the same inputs is read back from
    :mod:`kerncraft.memo.reports` instead (not with ``on_point`` or Benchmark).
    """
    from kerncraft.kernel.defines import resolve_bindings
    from kerncraft.runner.points import write_documents
    from kerncraft.options import as_options
    from kerncraft.report.json import cli_document

    out = out if out is not None else sys.stdout
    if json_target is None:
        json_target = getattr(options, "json", None)
    options = as_options(options)

    missing = [m for m in models if m not in IMPLEMENTED]
    implemented = {m: load_model(m) for m in models if m in IMPLEMENTED}
    bindings = resolve_bindings(kernel, points)
    measuring = "Benchmark" in implemented
    if measuring or on_point is not None:
        json_points = _run_typed(models, implemented, kernel, machine, bindings, options, out,
                                 on_point)
    else:
        json_points = _run_cached(models, implemented, kernel, machine, bindings, options, out,
                                  jobs)
    write_documents(cli_document(kernel.filename, machine.path, json_points), json_target,
                    store, out)
    if missing:
        name = missing[0]
        raise NotImplementedModelError(
            f"model {name} is not available in this version yet (it is built by "
            f"{PLANNED.get(name, 'a later stage')})")
    return 0


def _run_typed(models, implemented, kernel, machine, bindings, options, out,
               on_point) -> list[dict]:
    """Points whose typed results are needed (``--plot``) or that measure."""
    from kerncraft.kernel.summary import format_kernel_summary
    from kerncraft.models.compare import compare_reports, format_comparison
    from kerncraft.runner.points import point_label, print_header
    from kerncraft.report.json import point_document

    json_points = []
    measuring = "Benchmark" in implemented
    for number, values in enumerate(bindings, 1):
        bound = kernel.bind(values)
        if measuring:       # seconds per point: say where the run is (stderr, not the report)
            print(f"kerncraft: measuring point {number}/{len(bindings)}"
                  + (f" ({point_label(bound.bindings)})" if bound.bindings else ""),
                  file=sys.stderr, flush=True)
        print_header(bound.bindings, len(bindings), out)
        if options.verbose:
            print(format_kernel_summary(bound), file=out)
        reports = [implemented[m](bound, machine, options) for m in models if m in implemented]
        for report in reports:
            print(report.text, file=out)
        if on_point is not None:
            on_point(bound, reports)
        comparison = compare_reports(reports, options.cores)
        if comparison:      # -p Benchmark with a predicting model: side by side
            print(format_comparison(comparison, options.cores), file=out)
        json_points.append(point_document(bound.bindings, {r.model: r.data for r in reports},
                                          [row.to_dict() for row in comparison]))
        out.flush()         # a piped report grows point by point
    return json_points


def _run_cached(models, implemented, kernel, machine, bindings, options, out,
                jobs: int) -> list[dict]:
    """Predicting models: each point from the point cache, else computed (and kept)."""
    from kerncraft.runner.points import (Progress, open_store, parallel_points, print_header,
                                         print_point, stored_form)
    from kerncraft.report.json import point_document

    entries = [(m, implemented[m]) for m in models if m in implemented]
    store = open_store(kernel, machine, tuple(m for m, _ in entries), options)
    stored = [store.load(values) if store is not None else None for values in bindings]
    count = len(bindings)

    def compute(values: Mapping[str, int], printing: bool = False):
        from kerncraft.kernel.summary import format_kernel_summary

        bound = kernel.bind(values)
        if printing:        # header first: an error at this point comes after it
            print_header(bound.bindings, count, out)
        summary = format_kernel_summary(bound) if options.verbose else None
        if printing and summary is not None:
            print(summary, file=out)
        point = stored_form(bound.bindings, summary,
                            [model(bound, machine, options) for _, model in entries])
        if store is not None:
            store.store(point, values)
        return point

    todo = [values for values, hit in zip(bindings, stored) if hit is None]
    computed = iter(parallel_points(compute, todo, jobs) if jobs > 1 and len(todo) > 1 else ())
    progress = Progress(len(todo))
    json_points = []
    for values, point in zip(bindings, stored):
        if point is not None:
            print_point(point, count, out)
        else:
            try:
                point = next(computed, None)
            except Exception:           # a worker's error: after its header, as sequentially
                print_header(values, count, out)
                raise
            if point is None:           # sequential: print as the point is computed
                point = compute(values, printing=True)
                for _, text, _ in point.reports:
                    print(text, file=out)
                out.flush()
            else:
                print_point(point, count, out)
            progress.tick()
        json_points.append(point_document(point.bindings, {m: d for m, _, d in point.reports}))
    return json_points


def _write_json(target: str, document: Mapping[str, Any], out: TextIO) -> None:
    """:func:`kerncraft.report.json.write_json` under its former name (imported by
    kerncraft/cli/validate.py)."""
    from kerncraft.report.json import write_json

    write_json(target, document, out)
