"""``kerncraft-validate --record DIR``: a live run kept as a recording of the corpus.

The folder is reserved before the first measurement (:func:`start_recording`: a
wrong or unwritable ``DIR`` fails at once, not after minutes of measuring, and two
runs never share a folder), the load is read before, during (after every point) and
after the run, and :func:`finish_recording` writes the files of
:mod:`kerncraft.validation.corpus`. A run that ends without a point leaves nothing.
"""
from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from kerncraft.errors import KerncraftError
from kerncraft.validation.corpus import host_slug, reserve_recording, write_recording
from kerncraft.validation.hostinfo import (LoadSampler, cpu_description, host_description,
                                           load_summary, tool_version)

__all__ = ["RecordingRun", "start_recording", "finish_recording", "abandon_recording"]


@dataclass(frozen=True)
class RecordingRun:
    path: Path                      # the reserved, still empty folder
    note: str | None                # why it is not named as asked (never overwritten)
    started: datetime.datetime
    load_before: str | None
    sampler: LoadSampler            # the measuring function to use: reads the load


def start_recording(parent: str | Path, measure: Callable[..., Any],
                    cpuinfo: str = "/proc/cpuinfo") -> RecordingRun:
    """Reserve ``parent/<host-slug>-<date>`` and read the load before measuring."""
    started = datetime.datetime.now().astimezone()
    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    name = f"{host_slug(cpu_description(text))}-{started.date().isoformat()}"
    path, note = reserve_recording(parent, name)
    return RecordingRun(path, note, started, load_summary(os.cpu_count() or 1),
                        LoadSampler(measure))


def _compilers(machine) -> tuple[list[str], str | None]:
    from kerncraft.compilation.compiler import select_compiler
    from kerncraft.errors import ToolError

    names = [name for name, _ in (getattr(machine, "compilers", ()) or ())]
    try:
        chosen = select_compiler(machine)[0]
    except ToolError:
        chosen = None
    return names + ([chosen] if chosen and chosen not in names else []), chosen


def finish_recording(run: RecordingRun, result, machine,
                     kernels: Sequence[tuple[str, Any]]) -> Path:
    """Write the recording of ``result`` (``kernels``: the run's (label, parsed kernel));
    a result without points is not recorded (the folder is removed)."""
    if not result.points:
        abandon_recording(run)
        raise KerncraftError("nothing to record: no point was measured")
    names, chosen = _compilers(machine)
    load = {"before": run.load_before, "during": run.sampler.document(),
            "after": load_summary(os.cpu_count() or 1)}
    host = host_description(compilers=names, chosen_compiler=chosen, load=load,
                            started=run.started)
    sources = {label: kernel.source for label, kernel in kernels}
    try:
        write_recording(run.path, result, machine.path, sources, host, tool_version())
    except KerncraftError:
        abandon_recording(run)
        raise
    return run.path


def abandon_recording(run: RecordingRun) -> None:
    """Remove the reserved folder and what was written into it: the folder was created
    empty for this run, so everything in it is the run's own."""
    import shutil

    shutil.rmtree(run.path, ignore_errors=True)
