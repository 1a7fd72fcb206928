"""``kerncraft-incore``: analyse a marked assembly loop against a port model.

    kerncraft-incore --arch ARCH FILE.s [--syntax auto|att|intel] [--json FILE|-]
                     [--export-graph FILE.dot]
                     [--fixed] [--ignore-unknown] [--unroll N] [--simulate [--rows N]]
                     [--alignment BYTES|none] [--register-offset REG=BYTES ...]
                     [--register-value REG=ADDRESS ...]

Database tools (:mod:`kerncraft.dbtools.coverage`, :mod:`kerncraft.dbtools.microbench`)::

    kerncraft-incore bench ARCH FORM [FORM ...] [--cpu N] [--quick] [--json FILE|-]
        measure latency and throughput of instruction forms on this machine
        (clock-calibrated timing, no counters) next to the database's values
    kerncraft-incore calibrate ARCH -o FILE [--quick]
        measure the forms compiled loops use and write where the database disagrees
        as a calibration file for a machine file (:mod:`kerncraft.cli.calibrate`)
    kerncraft-incore --db-check [ARCH ...] [--no-kernels] [--verbose] [--json FILE|-]
        missing values, duplicate keys and forms of the bundled kernels that the
        database does not know, per architecture (all databases if none is given)

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
from typing import TYPE_CHECKING, NoReturn, Sequence

from kerncraft.cli.plotting import plot_path, require_matplotlib, write_port_pressure
from kerncraft.errors import KerncraftError
from kerncraft.memo.reports import load_output, output_key, store_output
from kerncraft.userfiles import display_name, write_output

if TYPE_CHECKING:
    from kerncraft.incore.analysis import InCoreAnalysis
    from kerncraft.incore.protocols import PortModelLike

PROG = "kerncraft-incore"

class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        _fail(message)


def _fail(message: str, code: int = 2) -> NoReturn:
    print(f"{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)
    raise SystemExit(code)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Static in-core analysis of an assembly loop: optimal "
                "port balancing (TP), critical path (CP), loop-carried dependencies (LCD), "
                "front end.", epilog="Database tools: 'kerncraft-incore bench ARCH FORM ...' "
                "measures instruction forms on this machine; 'kerncraft-incore --db-check "
                "[ARCH ...]' checks databases (missing values, duplicates, unknown forms of the "
                "bundled kernels).")
    p.add_argument("file", metavar="FILE.s", help="assembly file with a marked loop "
                   "(OSACA/LLVM-MCA comment markers or IACA byte markers), else the innermost loop")
    p.add_argument("--arch", required=True, help="database name (e.g. SKX, CSX, SPR) or machine file")
    p.add_argument("--syntax", choices=("auto", "att", "intel"), default="auto",
                   help="x86 assembly syntax of FILE.s (default auto: a .intel_syntax/.att_syntax "
                        "directive, else the operands decide; objdump -d output is recognised "
                        "in either syntax)")
    p.add_argument("--json", metavar="FILE", help="write the result as JSON ('-' for stdout)")
    p.add_argument("--export-graph", metavar="FILE.dot", help="write the dependency graph (graphviz)")
    p.add_argument("--fixed", action="store_true",
                   help="split every uop equally over its ports instead of optimal balancing")
    p.add_argument("--ignore-unknown", action="store_true",
                   help="count instruction forms missing from the database as zero")
    p.add_argument("--plot", metavar="FILE", type=plot_path, default=None,
                   help="draw the port pressure (bottleneck highlighted, LCD/CP/front-end "
                        "bounds as lines) into FILE (.png, .svg, .pdf; needs matplotlib)")
    p.add_argument("--simulate", action="store_true",
                   help="also run the cycle-level scheduling simulation: simulated cycles per "
                        "iteration, bottleneck variants, per-instruction waits")
    p.add_argument("--rows", type=int, metavar="N", default=None,
                   help="with --simulate: the loop runs N iterations per execution of an "
                        "enclosing loop that restarts its loop-carried chains (a reduction "
                        "per row); consecutive rows overlap as far as the core reaches")
    p.add_argument("--unroll", type=int, metavar="N", default=None,
                   help="source iterations per assembly iteration (adds per-iteration numbers)")
    p.add_argument("--alignment", type=_alignment, metavar="BYTES", default=64,
                   help="assumed alignment of every address register at loop entry, for the "
                        "cache-line splits of packed vector accesses (x86): a power of two "
                        "(default 64: the displacement and the per-iteration advance decide), "
                        "or 'none' (unknown: uniform start addresses)")
    p.add_argument("--register-offset", type=_register_offset, action="append", default=[],
                   metavar="REG=BYTES",
                   help="known entry value of an address register modulo 64, e.g. rsi=8 for a "
                        "pointer 8 B past a cache-line start (repeatable; overrides "
                        "--alignment for that register)")
    p.add_argument("--register-value", type=_register_offset, action="append", default=[],
                   metavar="REG=ADDRESS",
                   help="full entry value of an address register (e.g. rsi=0x406010, as a "
                        "debugger shows it at the loop's first instruction): counts as "
                        "--register-offset and also reports loads that overlap an earlier "
                        "store in the low 12 bits (4K aliasing)")
    return p


def _register_offset(text: str) -> tuple[str, int]:
    """``--register-offset`` / ``--register-value``: ``REG=INTEGER`` with an x86
    general-purpose register."""
    from kerncraft.incore.addresssplit import register_root
    name, sep, value = text.partition("=")
    try:
        return register_root(name), int(value, 0)
    except ValueError as exc:
        detail = exc if sep and name.strip() else "expected REG=BYTES"
        raise argparse.ArgumentTypeError(f"{text!r}: {detail}") from None


def _alignment(text: str) -> int:
    """``--alignment``: a power of two in bytes, or none/unknown/0 (unknown)."""
    if text.strip().lower() in ("none", "unknown", "0"):
        return 0
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if value <= 0 or value & (value - 1):
        raise argparse.ArgumentTypeError(f"expected a power of two or 'none', got {text!r}")
    return value


def _run(args: argparse.Namespace) -> int:
    if args.unroll is not None and args.unroll < 1:
        _fail(f"--unroll must be a positive integer, got {args.unroll}")
    if args.rows is not None and (args.rows < 1 or not args.simulate):
        _fail("--rows needs --simulate and a positive number of iterations per row")
    try:
        with open(args.file, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError as exc:
        _fail(f"cannot read {args.file}: {exc.strerror or exc}")
    key = _output_key(args, text)
    stored, result = (load_output(key) if key is not None else None), None
    if stored is None:
        stored, result = _analyse(args, text)
        if key is not None:
            store_output(key, stored)
    sys.stdout.write(stored["stdout"])
    if "json" in stored:
        _write(args.json, stored["json"])
    if args.export_graph:       # (never cached: result is set)
        from kerncraft.report.incore import export_dot
        try:
            export_dot(result, args.export_graph)
        except KerncraftError as exc:
            _fail(str(exc))
    if args.plot:
        write_port_pressure(args.plot, result, os.path.basename(args.file))
    return 0


def _output_key(args: argparse.Namespace, text: str) -> str | None:
    """Key of this run's output in the cache (:mod:`kerncraft.memo.reports`), or None
    when the run writes more than text (a graph, a picture).

    ``--arch`` may name a file (database or machine file, by path or bundled
    name): its bytes are part of the key; bundled databases are package source.
    """
    if args.export_graph or args.plot:
        return None
    from kerncraft.incore.calibration import calibration_bytes
    from kerncraft.machine.paths import resolve_machine_path

    try:
        arch_file = resolve_machine_path(args.arch).read_bytes()
        arch_file += calibration_bytes(resolve_machine_path(args.arch), arch_file)
    except (KerncraftError, OSError):
        arch_file = b""
    # every option (a new one included without a change here), except the JSON file's
    # name, which only says where the same text goes
    options = repr(sorted((k, repr(v)) for k, v in vars(args).items() if k != "json")
                   + [("json", "-" if args.json == "-" else bool(args.json))])
    return output_key(PROG, options, arch_file, text)


def _analyse(args: argparse.Namespace, text: str) -> tuple[dict[str, str], InCoreAnalysis]:
    """The texts of the analysis (``stdout`` and, for ``--json FILE``, ``json``) and
    the analysis itself."""
    from kerncraft.incore.analysis import analyze_text
    from kerncraft.incore.arch import resolve_model
    from kerncraft.report.incore import format_report, to_json
    if args.plot:
        require_matplotlib()
    model = resolve_model(args.arch)
    result = analyze_text(text, args.arch, filename=args.file, model=model, syntax=args.syntax,
                          fixed=args.fixed,
                          ignore_unknown=args.ignore_unknown, split_alignment=args.alignment,
                          register_values=dict(args.register_offset) or None,
                          register_addresses=dict(args.register_value) or None)
    doc = to_json(result, unroll=args.unroll)
    texts: dict[str, str] = {}
    if args.simulate:
        from kerncraft.incore.bottleneck_sim import format_simulation, simulate
        sim = simulate(result, model, row_length=args.rows)
        doc["simulation"] = sim.to_dict()
    if args.json == "-":
        texts["stdout"] = json.dumps(doc, indent=2) + "\n"
    else:
        texts["stdout"] = format_report(result, unroll=args.unroll)
        if args.simulate:
            texts["stdout"] += format_simulation(sim)
        if args.json:
            texts["json"] = json.dumps(doc, indent=2) + "\n"
    return texts, result


def _write(path: str, text: str) -> None:
    # atomically: a full disk must not leave an empty or truncated file behind
    try:
        write_output(path, text, display_name(path))
    except KerncraftError as exc:
        _fail(str(exc))


def _bench_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=f"{PROG} bench", description="Measure latency and reciprocal throughput "
                "of instruction forms on this machine (clock-calibrated timing of generated "
                "loops, no hardware counters) and print them next to the database's values.")
    p.add_argument("arch", metavar="ARCH", help="database name or machine file to compare with")
    p.add_argument("forms", metavar="FORM", nargs="*",
                   help="instruction form with operand classes, e.g. 'addq r64,r64' or "
                        "'vfmadd231pd mem,ymm,ymm' (quote it)")
    p.add_argument("--kernel-forms", action="store_true",
                   help="measure every form the bundled kernels compile to for ARCH (at "
                        "-O3) and list where the database differs from this host")
    p.add_argument("--kernel-pairs", action="store_true",
                   help="time two-instruction dependency chains between the forms the "
                        "bundled kernels pass registers between (at -O3) and list where the "
                        "database's latencies, forwarding groups included, differ")
    p.add_argument("--tolerance", type=float, default=0.1, metavar="SHARE",
                   help="with --kernel-forms/--kernel-pairs: relative difference that "
                        "counts (default 0.1)")
    p.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default: the last one)")
    p.add_argument("--quick", action="store_true", help="shorter runs (less precise)")
    p.add_argument("--no-realtime", action="store_true",
                   help="do not run under 'chrt -f 50' even where that is allowed")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON ('-' for stdout)")
    return p


def _db_check_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=f"{PROG} --db-check", description="Check port-model databases: missing "
                "values, duplicate keys, forms of the bundled kernels that are unknown.")
    p.add_argument("--db-check", dest="archs", metavar="ARCH", nargs="*", required=True,
                   help="databases to check (default: all bundled ones)")
    p.add_argument("--no-kernels", action="store_true",
                   help="skip compiling the bundled kernels")
    p.add_argument("--verbose", "-v", action="store_true", help="list every finding")
    p.add_argument("--json", metavar="FILE", help="write the findings as JSON ('-' for stdout)")
    return p


def _bench_main(argv: Sequence[str]) -> int:
    from kerncraft.dbtools.microbench import bench_form, calibrated_clock, format_result
    from kerncraft.incore.arch import resolve_model
    args = _bench_parser().parse_args(argv)
    if sum((bool(args.forms), args.kernel_forms, args.kernel_pairs)) != 1:
        _fail("give instruction forms, --kernel-forms or --kernel-pairs (one of the three)")
    model = resolve_model(args.arch)
    if args.kernel_pairs and (model.isa or "x86").lower() != "x86":
        _fail(f"--kernel-pairs times x86 chains; {args.arch} is not an x86 database")
    _warn_other_core(model.arch)
    hz = calibrated_clock(args.cpu, args.quick)
    if args.kernel_forms or args.kernel_pairs:
        return _kernel_check_main(args, model, hz)
    results = []
    for form in args.forms:
        r = bench_form(model, form, cpu=args.cpu, quick=args.quick,
                       realtime=not args.no_realtime, core_hz=hz)
        results.append(r)
        if args.json != "-":
            sys.stdout.write(format_result(r))
            sys.stdout.flush()
    _emit_json(args.json, [r.to_json() for r in results])
    return 0


def _warn_other_core(arch: str) -> None:
    """Measurements compare this host's core with the database: say so when the
    database describes another core."""
    from kerncraft.measure.topology import host_incore_model
    host = host_incore_model()
    if host and host.upper() != str(arch).upper():
        print(f"{PROG}: warning: this host's core uses the {host} database; the "
              f"measurements are compared with {arch}, a different core", file=sys.stderr)


def _kernel_check_main(args: argparse.Namespace, model: PortModelLike, hz: float) -> int:
    """``bench ARCH --kernel-forms`` / ``--kernel-pairs``: the database checked against
    this host, form by form or pair by pair (what the bundled kernels use)."""
    if args.kernel_pairs:
        from kerncraft.dbtools.pair_check import check_pairs as check_items
        from kerncraft.dbtools.pair_check import format_pairs_check as format_check
        from kerncraft.dbtools.pair_check import kernel_pairs as kernel_items
    else:
        from kerncraft.dbtools.form_check import check_forms as check_items
        from kerncraft.dbtools.form_check import format_database_check as format_check
        from kerncraft.dbtools.form_check import kernel_forms as kernel_items
    items = kernel_items(model, model.arch)
    check = check_items(model, items, core_hz=hz, tolerance=args.tolerance, cpu=args.cpu,
                        quick=args.quick, realtime=not args.no_realtime,
                        progress=lambda line: print(line, file=sys.stderr, flush=True))
    if args.json != "-":
        sys.stdout.write(format_check(check))
    _emit_json(args.json, [check.to_json()])
    return 0


def _emit_json(target: str | None, documents: list) -> None:
    """The --json list of the bench and db-check subcommands ('-': stdout)."""
    if not target:
        return
    text = json.dumps(documents, indent=2) + "\n"
    if target == "-":
        sys.stdout.write(text)
    else:
        _write(target, text)


def _db_check_main(argv: Sequence[str]) -> int:
    from kerncraft.incore.database import available_databases
    from kerncraft.dbtools.coverage import check_database, format_check
    from kerncraft.incore.arch import ARCH_ALIASES
    args = _db_check_parser().parse_args(argv)
    archs = [ARCH_ALIASES.get(a.upper(), a) for a in args.archs] or available_databases()
    checks = []
    for arch in archs:
        check = check_database(arch, kernels=not args.no_kernels)
        checks.append(check)
        if args.json != "-":
            sys.stdout.write(format_check(check, verbose=args.verbose))
            sys.stdout.flush()
    _emit_json(args.json, [c.to_json() for c in checks])
    return 1 if any(c.failed for c in checks) else 0


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] == "bench" and not ("--arch" in argv and os.path.isfile("bench")):
        return _bench_main(argv[1:])
    if "--db-check" in argv or any(a.startswith("--db-check=") for a in argv):
        return _db_check_main(argv)
    if argv and argv[0] == "calibrate" and not os.path.isfile("calibrate"):
        from kerncraft.cli.calibrate import calibrate_main      # kerncraft-incore calibrate
        return calibrate_main(argv[1:])
    return _run(build_parser().parse_args(argv))


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(argv)
    except KerncraftError as exc:
        _fail(str(exc), exc.exit_code)
    except BrokenPipeError:
        # reader went away (``| head``): stop quietly, as other Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as exc:
        _fail(f"{exc.filename or 'I/O'}: {exc.strerror or exc}")
    except RecursionError:
        _fail("input too deeply nested")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
