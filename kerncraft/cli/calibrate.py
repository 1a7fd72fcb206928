"""``kerncraft-incore calibrate ARCH -o FILE [--quick]``: measure the instruction forms
compiled loops use on this host and write where the database ``ARCH`` disagrees as a
calibration file (:mod:`kerncraft.dbtools.calibration_run`).

``ARCH`` is a database name or a machine file: for a machine file the database it names
is the prior and the bundled kernels are compiled with its compiler flags. Progress goes
to stderr, the summary to stdout. A machine file uses the calibration once its
``in-core model`` names it (``kerncraft calibration: FILE``, relative to the machine
file); ``kerncraft-machine`` writes and references one itself.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from kerncraft.errors import KerncraftError

__all__ = ["calibrate_main", "build_calibrate_parser"]

PROG = "kerncraft-incore calibrate"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:      # one line, exit status 2
        raise KerncraftError(message)


def build_calibrate_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Measure latency and throughput of the instruction "
                "forms the bundled kernels compile to (and, unless --quick, FP arithmetic, "
                "loads and stores per vector width and two-form chains; always the extra "
                "cycles of cache-line-split loads and stores per width) on this host, and "
                "write where the database disagrees as a calibration file: a database that "
                "extends ARCH. Reference it from a machine file's 'in-core model' as "
                "'kerncraft calibration: FILE'.")
    p.add_argument("arch", metavar="ARCH", help="database name (the prior) or a machine file "
                   "(its database is the prior, its compiler flags compile the kernels)")
    p.add_argument("-o", "--output", metavar="FILE", required=True,
                   help="calibration file to write")
    p.add_argument("-f", "--force", action="store_true", help="overwrite an existing FILE")
    p.add_argument("--quick", action="store_true",
                   help="only the kernels' forms and the line splits, one run each (a few "
                   "seconds)")
    p.add_argument("--runs", type=int, metavar="N", default=None,
                   help="runs per form (default 3, quick 1)")
    p.add_argument("--tolerance", type=float, default=0.1, metavar="SHARE",
                   help="relative difference that counts (default 0.1)")
    p.add_argument("--no-pairs", action="store_true",
                   help="skip the two-form chains (consumer-dependent latencies)")
    p.add_argument("--no-line-split", action="store_true",
                   help="skip timing cache-line-split loads and stores (the header's "
                   "line_split table)")
    p.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default: the last one)")
    p.add_argument("--no-realtime", action="store_true",
                   help="do not run under 'chrt -f 50' even where that is allowed")
    return p


def prior_and_target(arch: str) -> tuple[str, tuple[str, tuple[str, ...]] | None]:
    """(prior database, (compiler, flags) or None) for a database name, a machine file
    (path or bundled name) or a database file."""
    from kerncraft.incore.dbfile import available_databases
    if arch.upper() in available_databases():
        return arch.upper(), None
    from kerncraft.compilation.compiler import select_compiler
    from kerncraft.machine.loader import load_machine
    from kerncraft.models.incore_ports import resolve_database
    try:
        machine = load_machine(arch)
    except KerncraftError:
        if os.path.isfile(arch):
            return os.path.abspath(arch), None       # a database file
        raise
    return resolve_database(machine), select_compiler(machine)


def calibrate_main(argv: Sequence[str]) -> int:
    from kerncraft.dbtools.calibrate import CalibrationPlan
    from kerncraft.dbtools.calibration_run import format_summary, run_calibration
    args = build_calibrate_parser().parse_args(list(argv))
    output = Path(args.output)
    if output.exists() and not args.force:
        raise KerncraftError(f"{output} exists; use --force to overwrite it")
    plan = CalibrationPlan.quick() if args.quick else CalibrationPlan()
    plan = replace(plan, runs=max(1, args.runs or plan.runs), tolerance=args.tolerance,
                   pairs=plan.pairs and not args.no_pairs,
                   line_split=plan.line_split and not args.no_line_split)
    prior, target = prior_and_target(args.arch)
    _note_other_core(prior)
    tool = "kerncraft-incore calibrate" + (" --quick" if args.quick else "")
    result = run_calibration(prior, plan=plan, target=target, tool=tool,
                             cpu=args.cpu, realtime=not args.no_realtime,
                             progress=lambda line: print(line, file=sys.stderr, flush=True))
    output.write_text(result.text, encoding="utf-8")
    sys.stdout.write(format_summary(result, os.fspath(output)))
    return 0


def _note_other_core(prior: str) -> None:
    from kerncraft.measure.topology import host_incore_model
    host = host_incore_model()
    if host and host.upper() != prior.upper():
        print(f"{PROG}: note: this host's core uses the {host} database; the calibration "
              f"corrects {prior} to what this host measures", file=sys.stderr)
