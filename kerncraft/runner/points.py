"""The -D points of a run: computing, caching, printing, progress, parallel work.

:func:`kerncraft.runner.run.run_models` and the warm path of the command
line (:mod:`kerncraft.cli.warm`, which must not import the models) print a
point through the same functions here, so a point read back from
:mod:`kerncraft.memo.reports` prints exactly as it did when it was computed.
This module imports nothing heavy at module level for that reason.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence, TextIO

from kerncraft.memo.reports import (Manifest, StoredPoint, load_manifest, load_point, run_key,
                                  store_manifest, store_point)
from kerncraft.memo.reports import enabled as pointcache_enabled

#: In-core models whose result depends only on files kerncraft knows (the external
#: analyzers can change without notice, so their reports are not kept).
CACHEABLE_INCORE = ("kerncraft", "kerncraft-sim")


def asks_user(options) -> bool:
    """Whether the run asks on the terminal (``--asm-block manual``, ``--pointer-increment
    manual`` or ``auto_with_manual_fallback``): its reports depend on the answers, so
    they are neither kept nor served from the point cache."""
    return (options.asm_block == "manual"
            or options.pointer_increment in ("manual", "auto_with_manual_fallback"))


def point_label(bindings: Mapping[str, int]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(bindings.items()))


def print_header(bindings: Mapping[str, int], count: int, out: TextIO) -> None:
    """The ``=== N=... ===`` line that separates the points of a sweep."""
    if count > 1:
        print(f"=== {point_label(bindings)} ===", file=out)


def print_point(point: StoredPoint, count: int, out: TextIO) -> None:
    """Everything a point prints: header, ``-v`` kernel summary, each model's text."""
    print_header(point.bindings, count, out)
    if point.summary is not None:
        print(point.summary, file=out)
    for _, text, _ in point.reports:
        print(text, file=out)
    out.flush()         # a piped report grows point by point


def write_documents(document: Mapping[str, Any], json_target: str | None, store: Any,
                    out: TextIO) -> None:
    """``--json`` (``-``: the document alone on stdout) and ``--store`` of a run
    (``store``: a file name for JSON Lines or a :class:`kerncraft.runner.store.PickleStore`)."""
    from kerncraft.report.json import write_json
    from kerncraft.runner.store import write_store

    if json_target:
        write_json(json_target, document, sys.stdout if json_target == "-" else out)
    if store:
        write_store(store, document)


# -------------------------------------------------------------------- caching
@dataclass(frozen=True)
class PointStore:
    """The cache entries of one run (see :mod:`kerncraft.memo.reports`)."""

    run: str
    manifest: Manifest

    def load(self, request: Mapping[str, int]) -> StoredPoint | None:
        return load_point(self.run, self.manifest, request)

    def store(self, point: StoredPoint, request: Mapping[str, int]) -> None:
        store_point(self.run, self.manifest, point, request)   # False: not cached, no harm


def open_store(kernel, machine, models: Sequence[str], options) -> PointStore | None:
    """The point store of this run, or None if its reports must not be kept:
    caching off, a kernel or machine not read from a file, an external analyzer."""
    if (not pointcache_enabled() or not kernel.source or not getattr(machine, "path", None)
            or options.incore_model not in CACHEABLE_INCORE or kernel.bindings
            or asks_user(options)):
        return None
    from kerncraft.incore.calibration import calibration_bytes
    try:
        machine_bytes = Path(machine.path).read_bytes()
        machine_bytes += calibration_bytes(machine.path, machine_bytes)   # its in-core calibration
    except OSError:
        return None     # the machine was loaded from elsewhere: nothing to key it by
    from kerncraft.compilation.compiler import compiler_stamps

    run = run_key(kernel.source, kernel.filename, machine.path, machine_bytes, models, options)
    manifest = Manifest(kernel.constant_names, compiler_stamps(machine, options.compiler))
    if load_manifest(run) != manifest:
        store_manifest(run, manifest)
    return PointStore(run, manifest)


def point_plan(store: PointStore | None, kernel, machine, models: Sequence[str], options,
               first: Mapping[str, int] | None = None):
    """The run's point plan (:mod:`kerncraft.models.point_plan`): read back, or derived
    now and kept; None when there is no store or the plan does not cover the run.
    ``first``: a point of the run, whose compiled code an ECM plan keeps (a plan read
    back gets it too if it has other code, and is kept again)."""
    if store is None:
        return None
    from kerncraft.errors import KerncraftError
    from kerncraft.memo.point_plans import load_plan, store_plan
    from kerncraft.models.point_plan import build_plan, extend_plan

    plan = load_plan(store.run)
    try:
        if plan is None:
            plan = build_plan(kernel, machine, options, models, first)
            if plan is not None:
                store_plan(store.run, plan)
        elif first is not None:
            extended = extend_plan(plan, kernel, first)
            if extended is not plan:
                plan = extended
                store_plan(store.run, plan)
    except KerncraftError:
        return None     # the points report it
    return plan


def planned_point(plan, values: Mapping[str, int]) -> StoredPoint | None:
    """The point at ``values`` computed from ``plan`` (text and data as the full path
    makes them), or None when the full path must compute it."""
    from kerncraft.models.point_plan import plan_results
    from kerncraft.report.json import finite_or_null
    from kerncraft.report.text import format_result

    planned = plan_results(plan, values)
    if planned is None:
        return None
    bindings, results = planned
    return StoredPoint(bindings, None, tuple(
        (model, format_result(result, plan.options.verbose), finite_or_null(result.to_dict()))
        for model, result in results))


def stored_form(bindings: Mapping[str, int], summary: str | None,
                reports: Sequence[Any]) -> StoredPoint:
    """A computed point as the cache keeps it (data as the JSON document holds it)."""
    from kerncraft.report.json import finite_or_null

    return StoredPoint(dict(bindings), summary,
                       tuple((r.model, r.text, finite_or_null(dict(r.data))) for r in reports))


# ------------------------------------------------------------------- progress
class Progress:
    """A line on stderr now and then for a sweep expected to take over ``threshold``
    seconds (estimated from the points done so far); silent for quick runs."""

    def __init__(self, total: int, threshold: float = 2.0, every: float = 2.0,
                 stream: TextIO | None = None):
        self.total, self.threshold, self.every = total, threshold, every
        self.stream = stream if stream is not None else sys.stderr
        self.start = self.last = time.perf_counter()
        self.done = 0

    def tick(self) -> None:
        self.done += 1
        now = time.perf_counter()
        elapsed = now - self.start
        if self.total < 2 or self.done == self.total or now - self.last < self.every:
            return
        if elapsed / self.done * self.total <= self.threshold:
            return
        self.last = now
        left = elapsed / self.done * (self.total - self.done)
        print(f"kerncraft: {self.done}/{self.total} points in {elapsed:.1f} s, "
              f"about {left:.0f} s left", file=self.stream, flush=True)


# ------------------------------------------------------------- parallel points
_WORKER: dict[str, Any] = {}


def _compute_in_worker(values: Mapping[str, int]) -> StoredPoint:
    return _WORKER["compute"](values)


def parallel_points(compute: Callable[[Mapping[str, int]], StoredPoint],
                    requests: Sequence[Mapping[str, int]], jobs: int
                    ) -> Iterator[StoredPoint]:
    """``compute`` of every request in ``jobs`` forked processes, in request order.

    The workers are forked so they inherit the parsed kernel, the machine and
    the warmed analyses; only the finished text and data come back. An error at
    a point is raised when the caller reaches that point, after the points
    before it were yielded (as in a sequential run).
    """
    import multiprocessing

    _WORKER["compute"] = compute
    try:
        context = multiprocessing.get_context("fork")
        with context.Pool(processes=min(jobs, len(requests))) as pool:
            yield from pool.imap(_compute_in_worker, requests, chunksize=1)
    finally:
        _WORKER.clear()
