"""Kerncraft 0.8.18 command-line habits that need more than an argparse line.

* the options Kerncraft has and whose job is done otherwise here
  (:func:`add_kerncraft_options`: ``--iterations``, ``--ignore-warnings``,
  ``--no-phenoecm``, ``--clean-intermediates``);
* the ``--store`` target: Kerncraft's pickle for ``FILE.pickle``, else JSON Lines
  (:func:`store_target`, :mod:`kerncraft.runner.store`);
* the -D keys a kernel does not use (a warning) and values that leave constants
  symbolic (``-D . 0``): :func:`checked_points`.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any, Mapping, Sequence

from kerncraft.cli.common import positive_int
from kerncraft.options import AnalysisOptions
from kerncraft.runner.store import KERNCRAFT_OPTIONS, PickleStore

__all__ = ["add_kerncraft_options", "store_target", "checked_points", "file_outputs"]


def add_kerncraft_options(parser: argparse.ArgumentParser) -> None:
    """Kerncraft's ``-p Benchmark`` and housekeeping options."""
    parser.add_argument("--iterations", type=positive_int, default=None, metavar="N",
                        help="-p Benchmark: run the kernel N times first and more until a "
                             "run lasts 0.2 s (Kerncraft's option; default: start at 1)")
    parser.add_argument("--ignore-warnings", action="store_true",
                        help="accepted for Kerncraft command lines, no effect: -p Benchmark "
                             "here does not stop when the host's CPU model or clock differ "
                             "from the machine file (it measures the clock and notes a "
                             "difference); a different ISA stays an error")
    parser.add_argument("--no-phenoecm", action="store_true",
                        help="accepted for Kerncraft command lines, no effect: -p Benchmark "
                             "builds no phenomenological ECM model here (it shows the "
                             "per-level volumes likwid measures beside the prediction)")
    parser.add_argument("--clean-intermediates", action="store_true",
                        help="accepted for Kerncraft command lines, no effect: nothing is "
                             "written beside the kernel file (Kerncraft's .KERNEL_kerncraft "
                             "folder); compiled programs are cached in the user's cache "
                             "folder (kerncraft cache clear)")



def store_target(args: argparse.Namespace, options: AnalysisOptions) -> Any:
    """What ``--store`` writes to: None, a :class:`PickleStore` for a name ending in
    ``.pickle``, else the file name (JSON Lines)."""
    store = getattr(args, "store", None)
    if not isinstance(store, str) or not store.endswith(".pickle"):
        return store
    given = {"asm_block": args.asm_block, "cache_predictor": args.cache_predictor,
             "code_file": args.kernel, "compiler": args.compiler,
             "compiler_flags": args.compiler_flags, "cores": args.cores,
             "incore_model": options.incore_model, "json": args.json,
             "machine": args.machine, "pointer_increment": args.pointer_increment}
    identity = {name: given.get(name, getattr(args, name, None)) for name in KERNCRAFT_OPTIONS}
    for field in dataclasses.fields(AnalysisOptions):     # ours that change a result
        value = getattr(options, field.name)
        if (field.name not in identity and field.name not in ("verbose", "unit")
                and value != field.default):
            identity[field.name] = value
    return PickleStore(store, tuple(sorted(identity.items())))


def checked_points(args: argparse.Namespace, kernel,
                   points: Sequence[Mapping[str, int]]) -> list[dict[str, int]] | None:
    """Warn (stderr) about -D keys ``kernel`` does not use; the resolved points if a
    value leaves a constant symbolic (``-D . 0``), else None (a normal run)."""
    from kerncraft.kernel.defines import (resolve_bindings, symbolic_names,
                                          unused_define_warnings)

    for warning in unused_define_warnings(kernel.constant_names, args.define):
        print(f"kerncraft: warning: {warning}", file=sys.stderr)
    if not any(0 in point.values() for point in points):
        return None
    bindings = resolve_bindings(kernel, points)
    return bindings if symbolic_names(bindings) else None


def file_outputs(args: argparse.Namespace) -> list[str]:
    """The options of ``args`` that write files (a symbolic run refuses them)."""
    return [option for option, dest in (("--json", "json"), ("--store", "store"),
                                         ("--plot", "plot")) if getattr(args, dest, None)]
