"""Point plans on disk: what a run needs to compute a new -D point with arithmetic.

A point plan (:class:`kerncraft.models.point_plan.PointPlan`) is derived once per
run key (:func:`kerncraft.memo.reports.run_key`: package source, host, kernel,
machine file, models, options) and kept here as a pickle below
``<cache dir>/plans/``. Reading one imports only the light modules its classes
live in (no sympy, networkx, pycparser or YAML). An unreadable, corrupt or
foreign entry is a miss; entries are written atomically. This module only stores
and loads: it does not know what a plan holds.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from kerncraft.diskstore import entry_path, mark_used, read_pickled, write_pickled
from kerncraft.memo.reports import enabled

__all__ = ["FORMAT_VERSION", "load_plan", "store_plan"]

#: Bump when the stored plans change shape.
FORMAT_VERSION = "3"     # 3: one ladder for LC, ECMData and RooflineFLOP


def _plan_path(run: str) -> Path | None:
    return entry_path("plans", run[:2], f"{run}.plan") if enabled() else None


def load_plan(run: str) -> Any | None:
    """The plan stored for ``run``, or None."""
    path = _plan_path(run)
    if path is None:
        return None
    doc = read_pickled(path)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_VERSION or doc.get("run") != run:
        return None
    mark_used(path)
    return doc.get("plan")


def store_plan(run: str, plan: Any) -> bool:
    """Keep ``plan`` for ``run`` (False: caching off, or not picklable)."""
    path = _plan_path(run)
    if path is None:
        return False
    # (write_pickled counts the bytes for the cache bound)
    return write_pickled(path, {"format": FORMAT_VERSION, "run": run, "plan": plan})
