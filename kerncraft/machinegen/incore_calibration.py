"""The last step of ``kerncraft-machine``: calibrate the in-core database the new machine
file names on this host and reference the calibration from the file.

The calibration (:mod:`kerncraft.dbtools.calibration_run`) is written next to the
machine file as ``<stem>-calibration.yml`` and named under ``in-core model`` as
``kerncraft calibration: <stem>-calibration.yml`` (a path relative to the machine file,
:mod:`kerncraft.incore.calibration`). ``--quick`` measures only the forms of the
bundled kernels at the file's compiler flags and the cache-line-split loads and stores
per vector width, once each (a few seconds); the default also measures FP arithmetic,
loads and stores per vector width and the two-form chains, three runs each. Without
``-o`` (the file goes to stdout) there is no place for the calibration, and the step is
skipped with a note.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable

from kerncraft.errors import KerncraftError
from kerncraft.userfiles import display_name, write_output

__all__ = ["calibrate_machine_file", "add_calibration_reference"]

_KERNCRAFT_ENTRY = re.compile(r"^([ \t]*)- kerncraft:[^\n]*$", re.M)
_OMAP_BLOCK = re.compile(r"^in-core model:[ \t]*!!omap[^\n]*\n(?:[ \t]*#[^\n]*\n)*"
                         r"(?:([ \t]+)- [^\n]*\n)+", re.M)


def add_calibration_reference(text: str, name: str, comment: str = "") -> str:
    """``text`` with ``- kerncraft calibration: name`` after the ``- kerncraft: DB`` entry
    of its ``in-core model``, else after its last entry (a published file: the first
    entry stays the one Kerncraft takes by default); unchanged without an ``!!omap``
    in-core model."""
    match = _KERNCRAFT_ENTRY.search(text)
    if match is None:
        block = _OMAP_BLOCK.search(text)
        if block is None:
            return text
        line = f"{block.group(1)}- kerncraft calibration: {name}" + (
            f"   # {comment}" if comment else "")
        return text[:block.end()] + line + "\n" + text[block.end():]
    line = f"\n{match.group(1)}- kerncraft calibration: {name}" + (f"   # {comment}" if comment
                                                                 else "")
    return text[:match.end()] + line + text[match.end():]


def calibrate_machine_file(text: str, output: Path | None, *, quick: bool,
                           realtime: bool = True,
                           progress: Callable[[str], None] | None = None) -> str:
    """Measure the calibration of the database ``text`` (a machine file to be written to
    ``output``) names, write it beside ``output`` and return ``text`` referencing it.
    Any reason not to calibrate (no file, no database, no compiler, not x86) is one
    progress line and ``text`` unchanged."""
    from kerncraft.dbtools.calibrate import CalibrationPlan
    from kerncraft.dbtools.calibration_run import run_calibration
    say = progress or _stderr
    if output is None:
        say("in-core calibration skipped: it is written next to the machine file (give -o FILE)")
        return text
    try:
        prior, target = _prior_and_target(text, output)
        plan = CalibrationPlan.quick() if quick else CalibrationPlan()
        say(f"in-core calibration of {prior} on this host")
        result = run_calibration(prior, plan=plan, target=target, realtime=realtime,
                                 tool="kerncraft-machine" + (" --quick" if quick else ""),
                                 progress=lambda line: say(f"  {line}"))
    except KerncraftError as exc:
        say(f"in-core calibration skipped: {' '.join(str(exc).split())}")
        return text
    path = output.with_name(f"{output.stem}-calibration.yml")
    write_output(path, result.text, f"calibration file {display_name(path)}")
    say(f"wrote {path}: {len(result.written)} value(s) of {prior} measured differently "
        f"({result.seconds:.1f} s)")
    comment = (f"[measured] {len(result.written)} in-core value(s) differ from {prior} "
               f"on this host")
    return add_calibration_reference(text, path.name, comment)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _prior_and_target(text: str, output: Path) -> tuple[str, tuple[str, tuple[str, ...]]]:
    from kerncraft.compilation.compiler import select_compiler
    from kerncraft.machine.loader import parse_machine_text
    from kerncraft.models.incore_ports import resolve_database
    machine = parse_machine_text(text, str(output))
    return resolve_database(machine), select_compiler(machine)
