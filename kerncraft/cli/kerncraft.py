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
from kerncraft.api import is_description_path, read_kernel_file
from kerncraft.cli.plotting import (PointCollector, check_models, plot_path,
                                    require_matplotlib, write_pictures)
from kerncraft.cli.common import jobs_count, positive_int, run_reporting_errors
from kerncraft.cli.compat import (add_kerncraft_options, checked_points, file_outputs,
                                  store_target)
from kerncraft.cli.warm import warm_run
from kerncraft.errors import KerncraftError
from kerncraft.options import UNITS, AnalysisOptions
from kerncraft.runner.table import MODEL_ALIASES, MODELS, canonical_model
from kerncraft.userfiles import display_name

# Canonical model names (the aliases Kerncraft accepts: MODEL_ALIASES).
PERFORMANCE_MODELS = tuple(MODELS)


class _ArgumentParser(argparse.ArgumentParser):
    """argparse exits with status 2 on usage errors already; keep its message."""


def _model_name(value: str) -> str:
    try:
        return canonical_model(value)
    except KerncraftError as exc:
        raise argparse.ArgumentTypeError(exc.message)


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
    if value in ("auto", "auto_with_manual_fallback", "manual"):
        return value
    try:
        increment = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError("--pointer-increment takes auto, auto_with_manual_"
                                         f"fallback, manual or bytes, got {value!r}")
    if increment == 0:
        raise argparse.ArgumentTypeError("--pointer-increment must not be 0")
    return increment


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="kerncraft",
        description="Predict the performance of a loop kernel on a CPU (Roofline and ECM "
                    "models) from its C source and a machine description.",
        epilog="Example: kerncraft -p ECM -m CSX kernels/2d-5pt.c -D N 1000 -D M 1000. "
               "Disk cache: kerncraft cache info|clear (kerncraft cache -h).",
    )
    parser.add_argument("-V", "--version", action="version", version=f"kerncraft {__version__}")
    parser.add_argument("-p", "--pmodel", type=_model_name, action="append", required=True,
                        metavar="MODEL",
                        help="performance model: " + ", ".join(PERFORMANCE_MODELS)
                             + f" ({' and '.join(MODEL_ALIASES)} are accepted as aliases); "
                               "may be given several times")
    parser.add_argument("-m", "--machine", required=True, metavar="MACHINE",
                        help="machine file (path to YAML, or bundled name such as CSX)")
    parser.add_argument("kernel", metavar="KERNEL.c",
                        help="restricted C99 kernel file, or a kernel description (YAML)")
    parser.add_argument("--kernel-description", action="store_true",
                        help="read KERNEL as a kernel description (Kerncraft's YAML: arrays, "
                             "loops, data sources/destinations, flops) instead of C; a .yml "
                             "or .yaml file is read as one anyway; models: ECMData, "
                             "RooflineFLOP, LC (the others compile the C code)")
    parser.add_argument("-D", "--define", nargs=2, action="append", default=[],
                        metavar=("KEY", "VALUE"),
                        help="bind constant KEY to an integer or a range as in Kerncraft: "
                             "start-stop (every integer), start-stop:num (num points), "
                             "start-stop:numlog[base] (spaced geometrically); several -D give "
                             "the cartesian product, a KEY given again adds its values; KEY "
                             "'.' sets a default for all constants; a KEY the kernel does not "
                             "use is ignored with a warning; -D . 0 with -p LC: the layer "
                             "conditions in symbols")
    parser.add_argument("-u", "--unit", choices=UNITS, default=None,
                        help="unit of the reported performance (default depends on the model)")
    parser.add_argument("-c", "--cores", type=positive_int, default=1,
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
                             "(default), auto_with_manual_fallback (ask if not derived), "
                             "manual (always ask), or an integer")
    parser.add_argument("--aliasing", choices=("distinct", "pointers"), default="distinct",
                        help="code generation: 'distinct' (default) allocates every array "
                             "separately, so the compiler knows they do not overlap; "
                             "'pointers' compiles the nest as a function of pointer arguments "
                             "that may overlap, as Kerncraft does (run-time overlap checks, "
                             "some loops stay scalar)")
    parser.add_argument("--nontemporal-stores", choices=("auto", "on", "off"), default="auto",
                        help="stores that bypass the caches (no write-allocate): 'auto' "
                             "(default) the arrays the kernel's '#pragma nontemporal' names, "
                             "and for ECM all stores if the compiled loop streams them "
                             "(vmovnt*, movnti, stnp); 'on' every stored array; 'off' none")
    parser.add_argument("--ignore-unknown", action="store_true",
                        help="count unknown instruction forms as zero instead of refusing")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="also write the results as JSON to FILE ('-': stdout, and the "
                             "text report goes to stderr, so stdout is one JSON document)")
    parser.add_argument("--store", metavar="FILE", default=None,
                        help="collect the results of runs in FILE: a name ending in .pickle "
                             "gets Kerncraft's layout (one pickled dict keyed by the run's "
                             "options, -D point and model; values as in --json), any other "
                             "name one JSON line per run (JSON Lines)")
    parser.add_argument("-j", "--jobs", type=jobs_count, default=1, metavar="N",
                        help="compute the -D points of a sweep in N processes (default 1), or "
                             "'auto': every CPU this process may use for a -P SIM sweep, "
                             "whose points are whole cache simulations, else 1; not with "
                             "--plot or -p Benchmark")
    parser.add_argument("--dask", metavar="ADDRESS", default=None,
                        help="compute the -D points of a sweep on a Dask cluster: a "
                             "scheduler address (tcp://host:8786) or 'local' (a cluster of "
                             "this machine's cores); needs the extra kerncraft[dask]; not "
                             "with --plot or -p Benchmark")
    parser.add_argument("--max-points", type=positive_int, default=None, metavar="N",
                        help="allow more -D points than the default limit of 10,000")
    parser.add_argument("--plot", metavar="FILE", type=plot_path, default=None,
                        help="also draw the model's picture into FILE (.png, .svg, .pdf): "
                             "Roofline diagram, ECM contributions over a -D sweep or ECM "
                             "scaling, ECMData over a -D sweep, ECMCPU port pressure "
                             "(needs matplotlib)")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more output (-v: kernel summary and model details; -vv: more)")
    add_kerncraft_options(parser)
    return parser


def options_from_args(args: argparse.Namespace) -> AnalysisOptions:
    """The one place where parsed command-line options become model options
    (validated there: an unknown or discontinued in-core model is an error)."""
    return AnalysisOptions(
        cache_predictor=args.cache_predictor, cores=args.cores, unit=args.unit,
        verbose=args.verbose, incore_model=args.incore_model,
        compiler=args.compiler, compiler_flags=args.compiler_flags, asm_block=args.asm_block,
        pointer_increment=args.pointer_increment, ignore_unknown=args.ignore_unknown,
        aliasing=getattr(args, "aliasing", "distinct"),
        nontemporal_stores=getattr(args, "nontemporal_stores", "auto"),
        iterations=getattr(args, "iterations", None))


def _reads_description(args: argparse.Namespace) -> bool:
    """Whether the kernel file is a kernel description: --kernel-description, or a .yml
    or .yaml file (said in a note on stderr: Kerncraft needed the option)."""
    if getattr(args, "kernel_description", False):
        return True
    if is_description_path(args.kernel):
        print(f"kerncraft: note: {display_name(args.kernel)} is read as a kernel description "
              "(--kernel-description)", file=sys.stderr)
        return True
    return False


def run(args: argparse.Namespace, out=None) -> int:
    """Run the models for every -D point; returns the process exit code."""
    out = out if out is not None else (sys.stderr if args.json == "-" else sys.stdout)
    options = options_from_args(args)
    args.store = store_target(args, options)   # every path below writes through args.store
    models = list(dict.fromkeys(args.pmodel))  # keep order, drop repeats
    description = _reads_description(args)
    # the option changes what a non-YAML file means, so those points are not served
    warm = not (description and not is_description_path(args.kernel))
    code = warm_run(args, options, models, out) if warm else None
    if code is not None:        # every point came from the point cache
        return code
    # imported only now: the parser brings sympy and pycparser (~0.2 s)
    from kerncraft.machine.loader import load_machine
    from kerncraft.kernel.parser import parse_kernel
    from kerncraft.kernel.defines import expand_defines
    from kerncraft.runner.run import run_models

    machine = load_machine(args.machine)
    source = read_kernel_file(args.kernel)
    if description:
        from kerncraft.kernel.description import check_models_for, parse_kernel_description

        kernel = parse_kernel_description(source, filename=args.kernel)
        check_models_for(kernel, models)    # ECM and others compile the loop: no C code
    else:
        kernel = parse_kernel(source, filename=args.kernel)
    points = expand_defines(args.define, max_points=getattr(args, "max_points", None),
                            symbolic=True)
    symbolic = checked_points(args, kernel, points)
    if symbolic is not None:    # -D . 0: Kerncraft's layer conditions in symbols
        from kerncraft.runner.symbolic import run_symbolic_lc
        return run_symbolic_lc(models, kernel, machine, symbolic, options, out,
                               outputs=file_outputs(args))
    plot = getattr(args, "plot", None)
    if getattr(args, "dask", None):
        from kerncraft.cli.dask_executor import check_dask_run, dask_executor

        check_dask_run(models, plot)
        with dask_executor(args.dask) as executor:
            return run_models(models, kernel, machine, points, options, out,
                              json_target=args.json, store=args.store, executor=executor)
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
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["cache"]:       # ``kerncraft cache info|clear`` (a kernel: ./cache)
        from kerncraft.cli.cache import main as cache_main

        return cache_main(argv[1:])
    args = build_parser().parse_args(argv)
    return run_reporting_errors("kerncraft", lambda: run(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
