"""``kerncraft-incore``: analyse a marked assembly loop against a port model.

    kerncraft-incore --arch ARCH FILE.s [--json FILE|-] [--export-graph FILE.dot]
                     [--fixed] [--ignore-unknown] [--unroll N]

``ARCH`` is a database name (SKX, CSX, SPR, ...) or a Kerncraft machine file
(path or bundled name); for a machine file its ``in-core model`` entry for
``kerncraft`` is used, else its OSACA/IACA code mapped to our databases.
Every user error is one ``kerncraft-incore: error: ...`` line on stderr and
exit status 2 -- never a traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, NoReturn, Sequence

from kerncraft.errors import KerncraftError, MachineFileError

PROG = "kerncraft-incore"

# OSACA / IACA architecture codes -> our database names
_ARCH_ALIASES = {"CLX": "CSX", "CSL": "CSX", "SKL": "SKX", "SKYLAKE-AVX512": "SKX",
                 "CASCADELAKE": "CSX", "SAPPHIRERAPIDS": "SPR"}


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        _fail(message)


def _fail(message: str, code: int = 2) -> NoReturn:
    print(f"{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)
    raise SystemExit(code)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Static in-core analysis of an assembly loop: optimal "
                "port balancing (TP), critical path (CP), loop-carried dependencies (LCD).")
    p.add_argument("file", metavar="FILE.s", help="assembly file with a marked loop "
                   "(OSACA/LLVM-MCA comment markers or IACA byte markers), else the innermost loop")
    p.add_argument("--arch", required=True, help="database name (e.g. SKX, CSX, SPR) or machine file")
    p.add_argument("--json", metavar="FILE", help="write the result as JSON ('-' for stdout)")
    p.add_argument("--export-graph", metavar="FILE.dot", help="write the dependency graph (graphviz)")
    p.add_argument("--fixed", action="store_true",
                   help="split every uop equally over its ports instead of optimal balancing")
    p.add_argument("--ignore-unknown", action="store_true",
                   help="count instruction forms missing from the database as zero")
    p.add_argument("--unroll", type=int, metavar="N", default=None,
                   help="source iterations per assembly iteration (adds per-iteration numbers)")
    return p


def _machine_model_name(arch: str) -> str | None:
    """Database name named by a machine file, ``None`` if ``arch`` is not one.

    Raises :class:`MachineFileError` for a machine file without a usable
    ``in-core model`` entry.
    """
    try:
        from kerncraft.machine.loader import load_machine  # type: ignore
    except ImportError:
        return None
    try:
        machine = load_machine(arch)
    except (KerncraftError, OSError):
        return None
    entries = {k.lower(): v for k, v in dict(machine.in_core_model).items()}
    for tool in ("kerncraft", "osaca", "iaca"):
        if tool in entries and entries[tool]:
            name = str(entries[tool]).upper()
            return _ARCH_ALIASES.get(name, name)
    raise MachineFileError(f"{arch}: no 'in-core model' entry for kerncraft, OSACA or IACA",
                           yaml_path="in-core model")


def _from_machine(arch: str, name: str) -> Any:
    from kerncraft.incore.analysis import load_model
    try:
        return load_model(name)
    except KerncraftError as exc:
        raise MachineFileError(f"machine file {arch} names in-core model {name!r}: {exc}") \
            from None


def resolve_model(arch: str) -> Any:
    """Port model for a database name/path or a machine file name/path.

    Names try the databases first (``CSX`` is both a database and a bundled
    machine file); files try the machine-file reader first (a database YAML is
    not a valid machine file and falls through to the database loader).
    """
    from kerncraft.incore.analysis import load_model
    looks_like_file = os.path.sep in arch or arch.endswith((".yml", ".yaml")) or os.path.isfile(arch)
    if looks_like_file and not os.path.isfile(arch):
        raise MachineFileError(f"--arch {arch}: no such file")
    if looks_like_file:
        name = _machine_model_name(arch)
        if name is not None:
            return _from_machine(arch, name)
        try:
            return load_model(arch)
        except KerncraftError as exc:
            raise MachineFileError(f"--arch {arch} is neither a machine file nor a port-model "
                                   f"database ({exc})") from None
    try:
        return load_model(_ARCH_ALIASES.get(arch.upper(), arch))
    except KerncraftError as db_error:
        name = _machine_model_name(arch)
        if name is None:
            raise db_error from None
        return _from_machine(arch, name)


def _run(args: argparse.Namespace) -> int:
    from kerncraft.incore.analysis import analyze_text
    from kerncraft.incore.report import export_dot, format_report, to_json
    if args.unroll is not None and args.unroll < 1:
        _fail(f"--unroll must be a positive integer, got {args.unroll}")
    try:
        with open(args.file, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError as exc:
        _fail(f"cannot read {args.file}: {exc.strerror or exc}")
    model = resolve_model(args.arch)
    result = analyze_text(text, args.arch, filename=args.file, model=model, fixed=args.fixed,
                          ignore_unknown=args.ignore_unknown)
    if args.json == "-":
        json.dump(to_json(result, unroll=args.unroll), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_report(result, unroll=args.unroll))
        if args.json:
            _write(args.json, json.dumps(to_json(result, unroll=args.unroll), indent=2) + "\n")
    if args.export_graph:
        try:
            export_dot(result, args.export_graph)
        except OSError as exc:
            _fail(f"cannot write {args.export_graph}: {exc.strerror or exc}")
    return 0


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        _fail(f"cannot write {path}: {exc.strerror or exc}")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except KerncraftError as exc:
        _fail(str(exc), getattr(exc, "exit_code", 2))
    except BrokenPipeError:
        # reader went away (``| head``): stop quietly, as other Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as exc:
        _fail(f"{getattr(exc, 'filename', None) or 'I/O'}: {exc.strerror or exc}")
    except RecursionError:
        _fail("input too deeply nested")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
