"""The warm path of ``kerncraft``: a run whose every point is in the point cache.

It runs before anything heavy is imported: it finds the kernel and machine
files, hashes them with the options (:func:`kerncraft.memo.reports.run_key`),
and if every -D point was computed before with the same inputs and compilers,
prints the stored reports and writes the same JSON. It imports neither sympy,
networkx nor pycparser and parses no YAML, so such a run takes a few tens of
milliseconds. Anything else (a miss, an error to report, ``--plot``, a model
that measures (``-p Benchmark``), an external in-core analyzer) returns None and
the caller runs the models, which compute the missing points and keep them.
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence, TextIO

from kerncraft.api import read_kernel_file
from kerncraft.errors import KerncraftError
from kerncraft.kernel.defines import complete_points, expand_defines, unused_define_warnings
from kerncraft.incore.calibration import calibration_bytes
from kerncraft.machine.paths import resolve_machine_path
from kerncraft.runner.points import (CACHEABLE_INCORE, asks_user, planned_point, print_point,
                                     write_documents)
from kerncraft.runner.table import MODELS
from kerncraft.options import AnalysisOptions
from kerncraft.memo.reports import enabled as pointcache_enabled
from kerncraft.memo.point_plans import load_plan
from kerncraft.memo.reports import load_manifest, run_key, store_point, stored_points
from kerncraft.report.json import cli_document, point_document
from kerncraft.userfiles import display_name


def warm_run(args: argparse.Namespace, options: AnalysisOptions, models: Sequence[str],
             out: TextIO) -> int | None:
    """Exit code of the run served from the cache, or None to run the models."""
    if (not pointcache_enabled() or getattr(args, "plot", None) is not None
            or any(m not in MODELS or MODELS[m].measures for m in models)
            or options.incore_model not in CACHEABLE_INCORE or asks_user(options)):
        return None
    try:
        source = read_kernel_file(args.kernel)
        machine_path = resolve_machine_path(args.machine)
        machine_bytes = machine_path.read_bytes()
        machine_bytes += calibration_bytes(machine_path, machine_bytes)   # its calibration
        points = expand_defines(args.define, max_points=getattr(args, "max_points", None))
    except (KerncraftError, OSError):
        return None         # the full run reports it, in its usual order and words
    run = run_key(source, args.kernel, str(machine_path), machine_bytes, tuple(models), options)
    manifest = load_manifest(run)
    if manifest is None:
        return None
    requests = complete_points(manifest.constants, points)
    if isinstance(requests, str):
        return None         # a constant without a value: the full run says where
    stored = _stored_or_planned(run, manifest, requests)
    if stored is None:
        return None
    for warning in unused_define_warnings(manifest.constants, args.define):
        print(f"kerncraft: warning: {warning}", file=sys.stderr)
    for point in stored:
        print_point(point, len(stored), out)
    json_points = [point_document(p.bindings, {m: d for m, _, d in p.reports}) for p in stored]
    # the kernel's name as the cold run shows it (kernel.filename: bytes escaped)
    write_documents(cli_document(display_name(args.kernel), str(machine_path), json_points),
                    args.json, args.store, out)
    return 0


def _stored_or_planned(run: str, manifest, requests) -> list | None:
    """Every point from the point cache, or computed from the run's point plan (and
    kept); None when one of them needs the full path."""
    points = stored_points(run, manifest, requests)
    plan = None
    for index, (point, request) in enumerate(zip(points, requests)):
        if point is not None:
            continue
        plan = plan if plan is not None else load_plan(run)
        point = planned_point(plan, request) if plan is not None else None
        if point is None:
            return None
        store_point(run, manifest, point, request)
        points[index] = point
    return points
