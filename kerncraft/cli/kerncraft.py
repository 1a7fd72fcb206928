"""The ``kerncraft`` command line (option-compatible with Kerncraft 0.8.x).

The CLI only wires stages together: parse options, load the machine and the
kernel, expand -D sweeps, and hand every point to the requested models. Every
user error is a :class:`~kerncraft.errors.KerncraftError`, printed as one line
(``kerncraft: error: ...``) with a non-zero exit code, never a traceback.
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

from kerncraft import __version__
from kerncraft.api import read_kernel_file
from kerncraft.cli.plotting import (PointCollector, check_models, plot_path,
                                    require_matplotlib, write_pictures)
from kerncraft.cli.warm import warm_run
from kerncraft.errors import KerncraftError, error_lines
from kerncraft.options import UNITS, AnalysisOptions
from kerncraft.runner.table import MODEL_ALIASES, MODELS, canonical_model

# Canonical model names (the aliases Kerncraft accepts: MODEL_ALIASES).
PERFORMANCE_MODELS = tuple(MODELS)


class _ArgumentParser(argparse.ArgumentParser):
    """argparse exits with status 2 on usage errors already; keep its message."""


def _model_name(value: str) -> str:
    try:
        return canonical_model(value)
    except KerncraftError as exc:
        raise argparse.ArgumentTypeError(exc.message)


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


def _asm_block(value: str) -> str | int:
    if value in ("auto", "manual"):
        return value
    try:
        block = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--asm-block takes auto, manual or a block number, "
                                         f"got {value!r}")
    if block < 0:
        raise argparse.ArgumentTypeError(f"block number must be >= 0, got {value!r}")
    return block


def _pointer_increment(value: str) -> str | int:
    if value in ("auto", "auto_with_manual_fallback"):
        return value
    try:
        increment = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--pointer-increment takes auto, auto_with_manual_fallback or bytes, got {value!r}")
    if increment == 0:
        raise argparse.ArgumentTypeError("--pointer-increment must not be 0")
    return increment


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="kerncraft",
        description="Predict the performance of a loop kernel on a CPU (Roofline and ECM "
                    "models) from its C source and a machine description.",
        epilog="Example: kerncraft -p ECM -m CSX kernels/2d-5pt.c -D N 1000 -D M 1000",
    )
    parser.add_argument("-V", "--version", action="version", version=f"kerncraft {__version__}")
    parser.add_argument("-p", "--pmodel", type=_model_name, action="append", required=True,
                        metavar="MODEL",
                        help="performance model: " + ", ".join(PERFORMANCE_MODELS)
                             + f" ({' and '.join(MODEL_ALIASES)} are accepted as aliases); "
                               "may be given several times")
    parser.add_argument("-m", "--machine", required=True, metavar="MACHINE",
                        help="machine file (path to YAML, or bundled name such as CSX)")
    parser.add_argument("kernel", metavar="KERNEL.c", help="restricted C99 kernel file")
    parser.add_argument("-D", "--define", nargs=2, action="append", default=[],
                        metavar=("KEY", "VALUE"),
                        help="bind constant KEY to an integer or a range "
                             "start-stop[:num[log[base]]]; several -D give the cartesian "
                             "product; KEY '.' sets a default for all constants")
    parser.add_argument("-u", "--unit", choices=UNITS, default=None,
                        help="unit of the reported performance (default depends on the model)")
    parser.add_argument("-c", "--cores", type=_positive_int, default=1,
                        help="number of cores to predict for (default 1)")
    parser.add_argument("-P", "--cache-predictor", choices=("LC", "SIM"), default="LC",
                        help="data-traffic predictor: layer conditions (LC, default) or "
                             "cache simulation (SIM)")
    parser.add_argument("-C", "--compiler", default=None,
                        help="compiler to use (default: the machine file's first compiler)")
    parser.add_argument("--compiler-flags", default=None,
                        help="compiler flags (default: the machine file's flags for the compiler); "
                             "write --compiler-flags='-O2 ...' when they start with '-'")
    parser.add_argument("-i", "--incore-model", default="kerncraft", metavar="MODEL",
                        help="in-core analyzer: kerncraft (built-in, default), kerncraft-sim "
                             "(built-in cycle-level simulation), OSACA, LLVM-MCA")
    parser.add_argument("--asm-block", type=_asm_block, default="auto",
                        help="loop block of the assembly to analyse: auto (default), manual "
                             "(list blocks and ask), or a block number")
    parser.add_argument("--pointer-increment", type=_pointer_increment, default="auto",
                        help="bytes the main pointer advances per assembly iteration: auto "
                             "(default), auto_with_manual_fallback, or an integer")
    parser.add_argument("--aliasing", choices=("distinct", "pointers"), default="distinct",
                        help="code generation: 'distinct' (default) allocates every array "
                             "separately, so the compiler knows they do not overlap; "
                             "'pointers' compiles the nest as a function of pointer arguments "
                             "that may overlap, as Kerncraft does (run-time overlap checks, "
                             "some loops stay scalar)")
    parser.add_argument("--ignore-unknown", action="store_true",
                        help="count unknown instruction forms as zero instead of refusing")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="also write the results as JSON to FILE ('-': stdout, and the "
                             "text report goes to stderr, so stdout is one JSON document)")
    parser.add_argument("--store", metavar="FILE", default=None,
                        help="append this run's results to FILE as one JSON line (JSON "
                             "Lines; Kerncraft's --store wrote a pickle): runs accumulate")
    parser.add_argument("-j", "--jobs", type=_positive_int, default=1, metavar="N",
                        help="compute the -D points of a sweep in N processes (default 1; "
                             "worth it for -P SIM sweeps; not with --plot or -p Benchmark)")
    parser.add_argument("--max-points", type=_positive_int, default=None, metavar="N",
                        help="allow more -D points than the default limit of 10,000")
    parser.add_argument("--plot", metavar="FILE", type=plot_path, default=None,
                        help="also draw the model's picture into FILE (.png, .svg, .pdf): "
                             "Roofline diagram, ECM contributions over a -D sweep or ECM "
                             "scaling, ECMData over a -D sweep, ECMCPU port pressure "
                             "(needs matplotlib)")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more output (-v: kernel summary and model details; -vv: more)")
    return parser


def options_from_args(args: argparse.Namespace) -> AnalysisOptions:
    """The one place where parsed command-line options become model options
    (validated there: an unknown or discontinued in-core model is an error)."""
    return AnalysisOptions(
        cache_predictor=args.cache_predictor, cores=args.cores, unit=args.unit,
        verbose=args.verbose, incore_model=args.incore_model,
        compiler=args.compiler, compiler_flags=args.compiler_flags, asm_block=args.asm_block,
        pointer_increment=args.pointer_increment, ignore_unknown=args.ignore_unknown,
        aliasing=getattr(args, "aliasing", "distinct"))


def run(args: argparse.Namespace, out=None) -> int:
    """Run the models for every -D point; returns the process exit code."""
    out = out if out is not None else (sys.stderr if args.json == "-" else sys.stdout)
    options = options_from_args(args)
    models = list(dict.fromkeys(args.pmodel))  # keep order, drop repeats
    code = warm_run(args, options, models, out)
    if code is not None:        # every point came from the point cache
        return code
    # imported only now: the parser brings sympy and pycparser (~0.2 s)
    from kerncraft.machine.loader import load_machine
    from kerncraft.kernel.parser import parse_kernel
    from kerncraft.kernel.defines import expand_defines
    from kerncraft.runner.run import run_models

    machine = load_machine(args.machine)
    source = read_kernel_file(args.kernel)
    kernel = parse_kernel(source, filename=args.kernel)
    points = expand_defines(args.define, max_points=getattr(args, "max_points", None))
    plot = getattr(args, "plot", None)
    if plot is None:
        return run_models(models, kernel, machine, points, options, out, json_target=args.json,
                          store=args.store, jobs=getattr(args, "jobs", 1))
    from kerncraft.kernel.defines import resolve_bindings
    require_matplotlib()        # before a possibly long run
    check_models(models, len(resolve_bindings(kernel, points)))
    collector = PointCollector()
    code = run_models(models, kernel, machine, points, options, out, json_target=args.json,
                      on_point=collector, store=args.store)
    write_pictures(plot, models, collector, machine)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return run(args)
    except KerncraftError as exc:
        print(error_lines("kerncraft", exc), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("kerncraft: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
