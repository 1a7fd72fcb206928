"""Running the models: one model at one point (:func:`model_report`), and every
model over the -D points of a run (:func:`run_models`, the command line's loop).

A model of the table (:data:`kerncraft.runner.table.MODELS`) computes a typed
result; :func:`model_report` adds the text of :func:`kerncraft.report.text.format_result`
and the JSON data of ``result.to_dict()``. The typed results without the text come
from :func:`kerncraft.analyze`.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, TextIO

from kerncraft.runner.table import model_entry

__all__ = ["ModelReport", "model_report", "run_models"]


@dataclass(frozen=True)
class ModelReport:
    """One model at one point: the text it prints, the numbers for --json
    (``result.to_dict()``) and the typed result itself."""

    model: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    result: Any = None


def model_report(name: str, kernel, machine, options) -> ModelReport:
    """Model ``name`` of the table for a bound kernel, computed and rendered
    (``options``: AnalysisOptions or a namespace with the same attributes).

    >>> import kerncraft
    >>> copy = kerncraft.api.load_kernel("kernels/copy.c").bind({"N": 10**7})
    >>> report = model_report("ECM", copy, kerncraft.load_machine("CSX"), None)
    >>> report.text.splitlines()[2]
    '{ 2.00 \u230b 4.00 \u230b 12.00 \u230b 20.76 } cy/CL   {T_L1 \u230b T_L2 \u230b T_L3 \u230b T_MEM}'
    >>> report.data == report.result.to_dict()
    True
    """
    from kerncraft.options import as_options
    from kerncraft.report.text import format_result

    options = as_options(options)
    result = model_entry(name).compute(kernel, machine, options)
    return ModelReport(name, format_result(result, options.verbose), result.to_dict(), result)


def run_models(models: Sequence[str], kernel, machine, points: Sequence[Mapping[str, int]],
               options, out: TextIO | None = None, json_target: str | None = None,
               on_point: Callable[[Any, Sequence[ModelReport]], None] | None = None,
               store: str | None = None, jobs: int | None = 1, executor=None) -> int:
    """Run every model for every -D point, print reports, write JSON if asked.

    ``models``: names of the table (:data:`kerncraft.runner.table.MODELS`).
    ``json_target``: a file name or ``-`` (stdout); when None, the ``json``
    attribute of ``options`` if it has one (older callers pass the namespace).
    ``on_point(bound_kernel, reports)`` is called after every point (``--plot``).
    ``store``: a file the run's JSON document is appended to as one line (``--store``).
    ``jobs``: points computed in parallel processes (not with ``on_point`` or a
    model that measures, which need the typed results or a quiet machine); None
    chooses (:func:`auto_jobs`).
    ``executor``: a :class:`concurrent.futures.Executor` (e.g. a Dask cluster's) the
    points are computed on instead (:mod:`kerncraft.runner.scatter`); a failing
    point is reported at its place and the others are kept.

    A point computed before with the same inputs is read back from
    :mod:`kerncraft.memo.reports` instead (not with ``on_point`` or a measuring model).
    """
    from kerncraft.kernel.defines import resolve_bindings
    from kerncraft.runner.points import write_documents
    from kerncraft.options import as_options
    from kerncraft.report.json import cli_document

    out = out if out is not None else sys.stdout
    if json_target is None:
        json_target = getattr(options, "json", None)
    options = as_options(options)
    measuring = any([model_entry(m).measures for m in models])   # every name checked
    bindings = resolve_bindings(kernel, points)
    if on_point is not None or measuring:
        json_points = _run_typed(models, kernel, machine, bindings, options, out, on_point)
    else:
        json_points = _run_cached(models, kernel, machine, bindings, options, out, jobs,
                                  executor)
    write_documents(cli_document(kernel.filename, machine.path, json_points), json_target,
                    store, out)
    return 0


def _run_typed(models, kernel, machine, bindings, options, out, on_point) -> list[dict]:
    """Points whose typed results are needed (``--plot``) or that measure."""
    from kerncraft.kernel.summary import format_kernel_summary
    from kerncraft.models.compare import compare_reports
    from kerncraft.runner.points import point_label, print_header
    from kerncraft.report.json import point_document
    from kerncraft.report.text import format_comparison

    json_points = []
    measuring = any(model_entry(m).measures for m in models)
    for number, values in enumerate(bindings, 1):
        bound = kernel.bind(values)
        if measuring:       # seconds per point: say where the run is (stderr, not the report)
            print(f"kerncraft: measuring point {number}/{len(bindings)}"
                  + (f" ({point_label(bound.bindings)})" if bound.bindings else ""),
                  file=sys.stderr, flush=True)
        print_header(bound.bindings, len(bindings), out)
        if options.verbose:
            print(format_kernel_summary(bound), file=out)
        reports = [model_report(m, bound, machine, options) for m in models]
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


def compute_stored_point(task, values: Mapping[str, int]):
    """One point of a run, computed from a :class:`~kerncraft.runner.scatter.PointTask`
    (in a worker of an executor: the kernel and machine are parsed there, once)."""
    from kerncraft.kernel.summary import format_kernel_summary
    from kerncraft.runner.points import stored_form
    from kerncraft.runner.scatter import loaded

    kernel, machine = loaded(task.kernel_source, task.kernel_filename, task.machine_path)
    bound = kernel.bind(values)
    summary = format_kernel_summary(bound) if task.options.verbose else None
    return stored_form(bound.bindings, summary,
                       [model_report(m, bound, machine, task.options) for m in task.models])


def auto_jobs(options, points: int) -> int:
    """Processes for ``points`` new points when the user did not say: every usable CPU
    for a cache simulation (a point costs ~0.1-1 s, forking ~10 ms), else 1 (a point
    is arithmetic, or the point plan's, and a pool would only add its start-up)."""
    if options.cache_predictor != "SIM" or points < 2:
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cpus or 1, points))


def _run_cached(models, kernel, machine, bindings, options, out, jobs: int | None,
                executor=None) -> list[dict]:
    """Predicting models: each point from the point cache, else computed (and kept)."""
    from kerncraft.runner.points import (Progress, open_store, parallel_points, planned_point,
                                         point_plan, print_header, print_point, stored_form)
    from kerncraft.report.json import point_document

    store = open_store(kernel, machine, tuple(models), options)
    stored = [store.load(values) if store is not None else None for values in bindings]
    missing = [values for values, hit in zip(bindings, stored) if hit is None]
    plan = point_plan(store, kernel, machine, tuple(models), options,
                      missing[0] if missing else None) if missing else None
    count = len(bindings)

    def compute(values: Mapping[str, int], printing: bool = False):
        from kerncraft.kernel.summary import format_kernel_summary

        point = planned_point(plan, values) if plan is not None else None
        if point is not None:       # arithmetic only (models/point_plan.py)
            if printing:
                print_header(point.bindings, count, out)
            if store is not None:
                store.store(point, values)
            return point
        bound = kernel.bind(values)
        if printing:        # header first: an error at this point comes after it
            print_header(bound.bindings, count, out)
        summary = format_kernel_summary(bound) if options.verbose else None
        if printing and summary is not None:
            print(summary, file=out)
        point = stored_form(bound.bindings, summary,
                            [model_report(m, bound, machine, options) for m in models])
        if store is not None:
            store.store(point, values)
        return point

    todo = [values for values, hit in zip(bindings, stored) if hit is None]
    progress = Progress(len(todo))
    if executor is not None and todo:
        return _run_on_executor(models, kernel, machine, bindings, stored, options, out,
                                executor, store, progress)
    if jobs is None:
        jobs = auto_jobs(options, len(todo))
    computed = iter(parallel_points(compute, todo, jobs) if jobs > 1 and len(todo) > 1 else ())
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


def _run_on_executor(models, kernel, machine, bindings, stored, options, out, executor,
                     store, progress) -> list[dict]:
    """The points not stored, computed on ``executor``; printed in order as they come.
    A failing point prints its header and its error (stderr) and the run goes on; at
    the end a :class:`~kerncraft.runner.scatter.SweepError` names the failures (the
    JSON document is not written then: the command line exits with the error)."""
    from kerncraft.report.json import point_document
    from kerncraft.runner.points import print_header, print_point
    from kerncraft.runner.scatter import PointTask, SweepError, executor_outcomes, point_label

    from kerncraft.errors import KerncraftError

    if not kernel.source or not getattr(machine, "path", None):
        raise KerncraftError("points computed elsewhere need a kernel and a machine "
                             "read from files")
    task = PointTask(kernel.source, kernel.filename, machine.path, tuple(models), options)
    todo = [(values, (task, values)) for values, hit in zip(bindings, stored) if hit is None]
    outcomes = executor_outcomes(compute_stored_point, todo, executor,
                                 on_complete=lambda _outcome: progress.tick())
    json_points, failures, count = [], [], len(bindings)
    for values, point in zip(bindings, stored):
        if point is None:
            outcome = next(outcomes)
            if not outcome.ok:
                print_header(values, count, out)
                print(f"kerncraft: point {point_label(values)} failed: {outcome.error}"
                      + (f"\n{outcome.trace}" if outcome.trace else ""), file=sys.stderr)
                failures.append(outcome)
                continue
            point = outcome.value
            if store is not None:
                store.store(point, values)
        print_point(point, count, out)
        json_points.append(point_document(point.bindings, {m: d for m, _, d in point.reports}))
    if failures:
        raise SweepError(failures, json_points, count)
    return json_points
