"""``kerncraft-tile``: blocking advice from the layer conditions.

For a kernel and a machine: per cache level and layer condition the largest block
size for which the condition holds, and per proposed size the model's prediction
in cy/CL (:mod:`kerncraft.models.tiling`). Kerncraft's ``cachetile`` options
``-m``, ``-D``, ``-b/--min-block-length``, ``-c/--cores`` and ``-v`` are accepted,
and so is its rule for the blocked constant (the one left without a -D value).

Example: ``kerncraft-tile -m CSX kernels/2d-5pt.c -D M 10000 -D N 10000``
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence, TextIO

from kerncraft import __version__
from kerncraft.cli.common import positive_int, run_reporting_errors
from kerncraft.errors import DefineError, KerncraftError

PREDICTION_MODELS = ("ECM", "ECMData", "RooflineFLOP", "RooflineASM")
"""Models with a cy/CL prediction per block size (``-p``; aliases as for kerncraft)."""



def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kerncraft-tile",
        description="Blocking advice: for each cache level the largest block size for "
                    "which each layer condition holds, and the predicted cy/CL per "
                    "proposed size.",
        epilog="Example: kerncraft-tile -m CSX kernels/2d-5pt.c -D M 10000 -D N 10000")
    parser.add_argument("-V", "--version", action="version", version=f"kerncraft {__version__}")
    parser.add_argument("-m", "--machine", required=True, metavar="MACHINE",
                        help="machine file (path to YAML, or bundled name such as CSX)")
    parser.add_argument("kernel", metavar="KERNEL.c",
                        help="restricted C99 kernel file, or a kernel description (.yml) as "
                             "Kerncraft's cachetile read")
    parser.add_argument("-D", "--define", nargs=2, action="append", default=[],
                        metavar=("KEY", "VALUE"),
                        help="bind constant KEY to an integer; a blocked constant's value is "
                             "its unblocked extent (compared as 'no blocking')")
    parser.add_argument("--block", action="append", default=[], metavar="VAR",
                        help="constant to block (repeat or comma-separate for several, which "
                             "take one common size); default: the one constant without a -D "
                             "value, else the innermost loop's extent")
    parser.add_argument("-p", "--pmodel", default=None, metavar="MODEL",
                        help="model predicting each choice: ECM (default for C), ECMData "
                             "(sum of the transfer times, needs no compiler; default for a "
                             "kernel description), RooflineFLOP, RooflineASM")
    parser.add_argument("-b", "--min-block-length", type=positive_int, default=None, metavar="MIN",
                        help="smallest block size to search and propose (default: the "
                             "smallest at which every loop runs)")
    parser.add_argument("-c", "--cores", type=positive_int, default=1,
                        help="number of cores (shared caches are split among them; default 1)")
    parser.add_argument("-C", "--compiler", default=None,
                        help="compiler for the in-core part (default: the machine file's first)")
    parser.add_argument("--compiler-flags", default=None,
                        help="compiler flags (default: the machine file's for the compiler)")
    parser.add_argument("-i", "--incore-model", default="kerncraft", metavar="MODEL",
                        help="in-core analyzer (as for kerncraft; default: kerncraft)")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="also write the advice as JSON to FILE ('-': stdout, and the "
                             "text goes to stderr)")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="also list the kept references of each condition")
    return parser


def _defines(pairs: Sequence[Sequence[str]]) -> dict[str, int]:
    from kerncraft.kernel.defines import parse_define

    values: dict[str, int] = {}
    for key, text in pairs:
        define = parse_define(key, text)
        if len(define.values) != 1:
            raise DefineError(f"-D {key} {text}: kerncraft-tile takes one value per constant "
                              "(the block sizes are what it searches)")
        values[define.key] = define.values[0]
    return values


def _model(name: str) -> str:
    from kerncraft.runner.table import canonical_model

    model = canonical_model(name)
    if model not in PREDICTION_MODELS:
        raise KerncraftError(f"-p {name}: kerncraft-tile predicts with "
                             f"{', '.join(PREDICTION_MODELS)}")
    return model


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Compute and print the advice; returns the exit code."""
    from kerncraft.api import analyze, load_kernel, resolve_machine
    from kerncraft.models.tiling import tiling_advice
    from kerncraft.options import AnalysisOptions

    out = out if out is not None else (sys.stderr if args.json == "-" else sys.stdout)
    options = AnalysisOptions(cores=args.cores, compiler=args.compiler,
                              compiler_flags=args.compiler_flags,
                              incore_model=args.incore_model)
    defines = _defines(args.define)
    block = [name.strip() for item in args.block for name in item.split(",") if name.strip()]
    machine = resolve_machine(args.machine)
    kernel = load_kernel(args.kernel)
    # a kernel description (YAML) has no C code to compile: ECMData, as Kerncraft's cachetile
    description = Path(args.kernel).suffix.lower() in (".yml", ".yaml")
    model = _model(args.pmodel or ("ECMData" if description else "ECM"))

    def predict(bindings):
        return analyze(kernel, machine, model, defines=bindings, options=options)

    advice = tiling_advice(kernel, machine, defines, block or None, options, predict,
                           args.min_block_length, model)
    print(format_advice(advice, args.kernel, args.machine, args.verbose), file=out)
    if args.json is not None:
        _write_json(args.json, {"kernel": args.kernel, "machine": args.machine,
                                **advice.to_dict()})
    return 0


def _write_json(target: str, document: dict[str, Any]) -> None:
    from kerncraft.userfiles import write_output

    text = json.dumps(document, indent=2) + "\n"
    if target == "-":
        sys.stdout.write(text)
    else:
        write_output(target, text, f"JSON file {target}")


def format_advice(advice, kernel: str, machine: str, verbose: int = 0) -> str:
    """The text report of a :class:`~kerncraft.models.tiling.TilingAdvice`."""
    name = "=".join(advice.block)
    fixed = ", ".join(f"{k}={v}" for k, v in advice.fixed.items())
    head = f"Blocking advice for {kernel} on {machine}: block {name}"
    extra = [fixed] if fixed else []
    if advice.full_size is not None:
        extra.append(f"{name}={advice.full_size} without blocking")
    lines = [head + (f" ({'; '.join(extra)})" if extra else "")
             + f", {advice.cores} core{'s' if advice.cores > 1 else ''}",
             "Bytes a layer condition may fill (fill factor x cache size, "
             "docs/layer-conditions.md):"]
    lines += [f"  {text}" for text in advice.capacities]
    lines += ["", f"Largest {name} for which each layer condition holds "
                  f"({name} >= {advice.smallest}):"]
    lines += _limit_rows(advice, name, verbose)
    if advice.choices:
        lines += [""] + _choice_rows(advice, name)
    if advice.notes:
        lines += ["Notes:"] + [f"  - {note}" for note in advice.notes]
    return "\n".join(lines)


def _limit_rows(advice, name: str, verbose: int) -> list[str]:
    width = max([len("reuse window")] + [len(lim.window) for lim in advice.limits])
    rows = [f"  level   #  {'reuse window':<{width}}  {'largest ' + name:>12}  condition"]
    for lim in advice.limits:
        largest = "any" if lim.always else "never" if lim.largest is None else str(lim.largest)
        rows.append(f"  {lim.level:<6} {lim.condition:>2}  {lim.window:<{width}}  "
                    f"{largest:>12}  {lim.inequality}")
        if verbose:
            rows.append(f"  {'':<6}     kept: {', '.join(lim.kept) or '-'}")
    return rows


def _choice_rows(advice, name: str) -> list[str]:
    levels = list(advice.choices[0].holding)
    model = advice.model or "-"
    rows = [f"Predicted {model} per choice (cy/CL, {advice.cores} core"
            f"{'s' if advice.cores > 1 else ''}; the layer condition holding per level):",
            f"  {name:>10}  " + " ".join(f"{lv:>3}" for lv in levels)
            + f"  {model + ' cy/CL':>12}  chosen as"]
    best = advice.best
    for i, c in enumerate(advice.choices):
        size = str(c.size) if c.size is not None else "-"
        held = " ".join(f"{c.holding[lv]:>2}{'*' if lv in c.whole_set_levels else ' '}"
                        for lv in levels)
        cycles = f"{c.cycles_per_cl:.2f}" if c.cycles_per_cl is not None else "-"
        why = "no blocking" if c.reasons == ("no blocking",) else \
            "largest for " + ", ".join(c.reasons)
        rows.append(f"  {size:>10}  {held}  {cycles:>12}  {why}"
                    + ("   <- best" if i == best else ""))
    if any(c.whole_set_levels for c in advice.choices):
        rows.append("  * the tile's whole working set fits this level (see the notes)")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_reporting_errors("kerncraft-tile", lambda: run(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
