"""Command line of ``kerncraft-validate`` (the logic is in :mod:`kerncraft.validation.campaign`).

The report is a Markdown table, one row per point as soon as it is measured,
then the notes of points whose ECM error exceeds 30 % and the summaries.
Progress goes to stderr; with ``--json -`` the JSON goes to stdout and the
report to stderr.

``--record DIR`` keeps the run as a recording (:mod:`kerncraft.validation.record`);
``--replay DIR ...`` predicts recorded points again (:mod:`kerncraft.validation.replay`):
per recording a heading and the tables of a live run, then the cross-host table. Its
``--json`` document: ``recordings`` (per recording the live run's document plus
``recording``, ``host``, ``tool``, ``recorded_summary``, ``comparison``,
``changed_predictions``) and ``comparison`` (per recording: ``recording``, ``host``,
``points``, ``changed_points``, ``levels``: the levels and ``all``, each with
``median_abs_error``, ``worst_error``, ``worst_kernel``, ``recorded_median``,
``recorded_worst_error``, ``recorded_worst_kernel``, ``change``, ``grown``).
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from typing import Sequence, TextIO

from kerncraft.cli.common import run_reporting_errors
from kerncraft.cli.plotting import plot_path, require_matplotlib, write_validation
from kerncraft.errors import KerncraftError

__all__ = ["main", "build_parser", "format_row", "format_summary"]

PROG = "kerncraft-validate"
QUICK_MIN_TIME, QUICK_REPEATS = 0.05, 2
HEADER = ("| kernel | level | defines | working set | measured cy/CL | ECM cy/CL | ECM error | "
          "Roofline cy/CL | Roofline error | model: data from | notes |\n"
          "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|")


def _levels(text: str) -> list[str]:
    from kerncraft.validation.sizes import LEVELS
    levels = [part.strip().upper() for part in text.split(",") if part.strip()]
    unknown = [lvl for lvl in levels if lvl not in LEVELS]
    if unknown or not levels:
        raise argparse.ArgumentTypeError(f"unknown level(s) {', '.join(unknown) or '(none)'}; "
                                         f"choose from {','.join(LEVELS)}")
    return levels


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    from kerncraft.validation.campaign import DEFAULT_KERNELS, QUICK_KERNELS
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Validate the ECM and Roofline predictions of a machine file against "
                    "measurements on this host: every kernel at one size per memory level "
                    "(chosen from the machine file's cache sizes and checked with the layer "
                    "conditions), predicted and measured, with the relative error "
                    "(predicted - measured) / measured. The machine file must describe this "
                    "host for the numbers to mean anything.",
        epilog=f"Default kernels: {' '.join(DEFAULT_KERNELS)}. --quick: "
               f"{' '.join(QUICK_KERNELS)}, --min-time {QUICK_MIN_TIME}, --repeats "
               f"{QUICK_REPEATS}, --rounds 1.")
    parser.add_argument("-m", "--machine", metavar="MACHINE",
                        help="machine file (path, or bundled name such as CSX); required "
                             "unless --replay")
    parser.add_argument("kernels", nargs="*", metavar="KERNEL",
                        help="bundled kernel name (triad) or kernel file (default: the 14 "
                             "bundled kernels listed below)")
    parser.add_argument("--levels", type=_levels, default=None, metavar="L1,L2,L3,MEM",
                        help="memory levels to validate (default: all the machine file has)")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="write every point and the summaries as JSON ('-': stdout, the "
                             "report then goes to stderr)")
    parser.add_argument("--min-time", type=_positive(float), default=None, metavar="S",
                        help="seconds per measured run (default 0.2)")
    parser.add_argument("--repeats", type=_positive(int), default=None, metavar="N",
                        help="runs per point, the fastest counts (default 3)")
    parser.add_argument("--rounds", type=_positive(int), default=None, metavar="R",
                        help="passes over all points; each point counts its fastest pass "
                             "and rounds more than 10 %% apart are listed (default 2, "
                             "--quick 1): a host whose speed drifts over minutes, such as a "
                             "VM with busy neighbours, then still gives its real speed")
    parser.add_argument("-c", "--cores", type=_positive(int), default=1, metavar="N",
                        help="cores to run and predict on (default 1; sizes stay those of "
                             "one core, so each core holds 1/N of the working set)")
    parser.add_argument("--roofline", choices=("ASM", "FLOP"), default="ASM",
                        help="Roofline variant: in-core ceiling from the compiled loop "
                             "(ASM, default) or the arithmetic peak (FLOP)")
    parser.add_argument("-i", "--incore-model", choices=("kerncraft", "kerncraft-sim"),
                        default="kerncraft",
                        help="in-core model of the predictions: the static bounds "
                             "(kerncraft, default) or the cycle-level simulation "
                             "(kerncraft-sim)")
    parser.add_argument("--plot", metavar="FILE", type=plot_path, default=None,
                        help="draw predicted against measured cy/CL per level (log-log, "
                             "10 %% band) into FILE (.png, .svg, .pdf; needs matplotlib)")
    parser.add_argument("--quick", action="store_true",
                        help="a first look: 6 kernels, shorter runs (about 10 s on the "
                             "2-core development VM; a default run measures 56 points)")
    _add_corpus_options(parser)
    _add_incore_options(parser)
    return parser


def _add_incore_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "in-core campaign (--incore)",
        "Loop blocks of the bundled and the Polybench-like kernels (kernels/polybench/) "
        "under every installed compiler (gcc, clang), -O2/-O3, vector width and unrolling, "
        "measured here with their data in L1 and predicted by every analyzer (ours static "
        "and simulated, llvm-mca, OSACA where installed); --quick: 8 kernels, -O3. "
        "--min-time (0.02), --repeats (runs per extent, 3), --rounds (passes, 2), --json, "
        "--plot, --record and --replay apply to it.")
    group.add_argument("--incore", action="store_true",
                       help="run the in-core campaign instead of the ECM validation (with "
                            "--replay: replay in-core recordings)")
    group.add_argument("--results", metavar="FILE", default=None,
                       help="JSON Lines file of the measured blocks; a run skips blocks "
                            "already in it (default: incore-campaign/<host>.jsonl in the "
                            "kerncraft cache directory)")
    group.add_argument("--compilers", metavar="LIST", default=None,
                       type=lambda text: [c for c in text.split(",") if c],
                       help="compilers to use, comma-separated (default: gcc,clang, those "
                            "installed)")


def _add_corpus_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--record", metavar="DIR", default=None,
                        help="also keep this run as a recording in DIR/<host>-<date>/: "
                             "every point's kernel, -D values and measured cy/CL, the "
                             "machine file, a host description and the summary, for "
                             "--replay; an existing recording is never overwritten (the "
                             "new one gets -2, -3, ...)")
    parser.add_argument("--replay", metavar="DIR", nargs="+", default=None,
                        help="measure nothing: predict every point recorded in or below "
                             "DIR again with the current code and the recorded machine "
                             "file, print each host's tables and the median and worst "
                             "ECM error per host and level against the recorded ones")


def _percent(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:+.1f} %"


def _size(n: float) -> str:
    for unit, scale in (("MiB", 1024 ** 2), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"


def format_row(point, note_number: int | None = None) -> str:
    """The table row of a point (``note_number``: where its notes are listed)."""
    size = point.size
    defines = " ".join(f"{k}={v}" for k, v in sorted(size.defines.items()))
    where = size.model_level + ("" if size.matched else f" (not {size.level})")
    notes = f"[{note_number}]" if note_number is not None else ""
    return (f"| {point.kernel} | {point.level} | {defines} | {_size(size.working_set)} | "
            f"{point.measured:.2f} | {point.prediction.ecm:.2f} | {_percent(point.ecm_error)} | "
            f"{point.prediction.roofline:.2f} | {_percent(point.roofline_error)} | {where} | "
            f"{notes} |")


def format_summary(summaries) -> list[str]:
    lines = ["| model | level | points | median abs. error | worst error (kernel) |",
             "|---|---|---:|---:|---|"]
    for summary in summaries:
        for lvl in summary.levels:
            lines.append(f"| {summary.model} | {lvl.level} | {lvl.points} | "
                         f"{100 * lvl.median_abs_error:.1f} % | {_percent(lvl.worst_error)} "
                         f"({lvl.worst_kernel}) |")
    lines.append("")
    for summary in summaries:
        if summary.points:
            lines.append(f"{summary.model}: median abs. error {100 * summary.median_abs_error:.1f}"
                         f" % over {summary.points} points; within 10 %: "
                         f"{round(summary.within_10_percent * summary.points)} of "
                         f"{summary.points} ({100 * summary.within_10_percent:.0f} %)")
    return lines


def _check_host(machine, err: TextIO) -> str | None:
    from kerncraft.validation.campaign import host_model_name
    host = host_model_name()
    if host is None:
        print(f"{PROG}: warning: cannot read this host's model name from /proc/cpuinfo; "
              "make sure the machine file describes this host", file=err, flush=True)
    elif " ".join(host.split()).lower() != " ".join(machine.model_name.split()).lower():
        print(f"{PROG}: warning: the machine file describes '{machine.model_name}', this host "
              f"is '{host}': predictions for another CPU", file=err, flush=True)
    return host


def _document(result, machine, host, levels) -> dict:
    return {"machine": machine.path, "machine_model_name": machine.model_name,
            "host_model_name": host, "cores": result.options.cores,
            "roofline_model": result.options.roofline,
            "incore_model": result.options.incore_model, "levels": list(levels),
            "targets": dict(result.targets), "wall_seconds": result.wall_seconds,
            "points": [p.to_dict() for p in result.points],
            "skipped": [vars(s).copy() for s in result.skipped],
            "summary": {s.model: s.to_dict() for s in result.summaries}}


def _kernels(opts: argparse.Namespace) -> tuple[list, list]:
    """(label, kernel) pairs, and the default kernels that cannot be read (skipped with
    the reason); a kernel the user names must exist and parse (else an error)."""
    from kerncraft.validation import campaign as validate
    if opts.kernels:
        return [validate.resolve_kernel(name) for name in opts.kernels], []
    kernels, unusable = [], []
    for name in validate.QUICK_KERNELS if opts.quick else validate.DEFAULT_KERNELS:
        try:
            kernels.append(validate.resolve_kernel(name))
        except KerncraftError as exc:
            unusable.append(validate.Skipped(name, None, str(exc)))
    return kernels, unusable


def _chosen_levels(opts: argparse.Namespace, machine) -> list[str]:
    from kerncraft.validation.sizes import level_targets
    available = level_targets(machine)
    levels = opts.levels or list(available)
    missing = [lvl for lvl in levels if lvl not in available]
    if missing:
        raise KerncraftError(f"the machine file has no level {', '.join(missing)} "
                             f"(it has {', '.join(available)})")
    return levels


def _run_options(opts: argparse.Namespace):
    from kerncraft.validation.campaign import RunOptions
    return RunOptions(
        cores=opts.cores, roofline=f"Roofline{opts.roofline}",
        min_time=opts.min_time or (QUICK_MIN_TIME if opts.quick else 0.2),
        repeats=opts.repeats or (QUICK_REPEATS if opts.quick else 3),
        rounds=opts.rounds or (1 if opts.quick else 2), incore_model=opts.incore_model)


def _row_printer(out: TextIO):
    """(on_point, noted): prints a point's row, numbering the points that have notes."""
    noted: list = []

    def on_point(point) -> None:
        if point.notes:
            noted.append(point)
        print(format_row(point, len(noted) if point.notes else None), file=out, flush=True)
    return on_point, noted


def run(opts: argparse.Namespace, out: TextIO, err: TextIO, measure=None) -> int:
    import kerncraft
    from kerncraft.validation import campaign as validate
    from kerncraft.report.json import write_json

    if opts.replay:
        return run_replay(opts, out, err)
    machine = kerncraft.load_machine(opts.machine)
    kernels, unusable = _kernels(opts)
    levels = _chosen_levels(opts, machine)
    if opts.plot:
        require_matplotlib()    # before minutes of measuring
    host = _check_host(machine, err)
    measure = measure or validate.benchmark_measure
    recording = _start_recording(opts.record, measure, err) if opts.record else None
    print(HEADER, file=out, flush=True)
    on_point, noted = _row_printer(out)
    try:
        result = validate.run_validation(
            kernels, machine, levels, _run_options(opts), on_point=on_point,
            measure=recording.sampler if recording else measure, progress=err)
    except BaseException:
        _abandon(recording)
        raise
    result = dataclasses.replace(result, skipped=(*unusable, *result.skipped))
    _print_trailer(result, noted, out)
    if recording:
        _finish_recording(recording, result, machine, kernels, err)
    if opts.json:
        # '-': JSON on stdout (the report went to stderr, see main)
        write_json(opts.json, _document(result, machine, host, levels), sys.stdout)
    if opts.plot and result.points:
        write_validation(opts.plot, result.points, _picture_title(machine), err)
    if not result.points:
        print(f"{PROG}: no point could be measured (see the skipped lines)", file=err)
    return 0 if result.points else 1


def _start_recording(parent: str, measure, err: TextIO):
    from kerncraft.validation.record import start_recording
    recording = start_recording(parent, measure)
    if recording.note:
        print(f"{PROG}: {recording.note}", file=err, flush=True)
    return recording


def _abandon(recording) -> None:
    if recording is not None:
        from kerncraft.validation.record import abandon_recording
        abandon_recording(recording)


def _finish_recording(recording, result, machine, kernels, err: TextIO) -> None:
    from kerncraft.validation.record import finish_recording
    if not result.points:
        _abandon(recording)
        print(f"{PROG}: nothing recorded (no point)", file=err)
        return
    path = finish_recording(recording, result, machine, kernels)
    print(f"{PROG}: recorded {len(result.points)} points in {path}", file=err, flush=True)


# ---------------------------------------------------------------- --replay

def _refuse_with_replay(opts: argparse.Namespace) -> None:
    given = [name for name, value in (
        ("-m", opts.machine), ("KERNEL", opts.kernels), ("--levels", opts.levels),
        ("--record", opts.record), ("--min-time", opts.min_time), ("--repeats", opts.repeats),
        ("--rounds", opts.rounds), ("--quick", opts.quick), ("--plot", opts.plot),
        ("--cores", opts.cores != 1), ("--roofline", opts.roofline != "ASM"),
        ("--incore-model", opts.incore_model != "kerncraft")) if value]
    if given:
        raise KerncraftError(f"--replay predicts with the recorded machine files, kernels and "
                             f"settings; {', '.join(given)} cannot be used with it")


def run_replay(opts: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``--replay``: every recording below the folders predicted again (no measuring)."""
    import kerncraft
    from kerncraft.report.json import write_json
    from kerncraft.validation.corpus import find_recordings, load_recording
    from kerncraft.validation.replay import compare, compiler_difference, replay_recording

    _refuse_with_replay(opts)
    recordings = [load_recording(path) for path in find_recordings(opts.replay)]
    comparisons, documents = [], []
    for number, recording in enumerate(recordings):
        machine = kerncraft.load_machine(recording.machine_file)
        difference = compiler_difference(recording, machine)
        if difference:
            print(f"{PROG}: warning: {recording.name}: {difference}", file=err, flush=True)
        result = replay_recording(recording, machine, progress=err)
        _print_replay(recording, result, out, first=number == 0)
        comparisons.append(compare(recording, result))
        documents.append(_replay_document(recording, result, machine, comparisons[-1]))
    print("\n".join(["", "## all recordings: ECM error now and as recorded", "",
                     *format_comparison(comparisons)]), file=out, flush=True)
    if opts.json:
        write_json(opts.json, {"recordings": documents,
                               "comparison": [c.to_dict() for c in comparisons]}, sys.stdout)
    return 0 if all(c.points for c in comparisons) else 1


def _print_replay(recording, result, out: TextIO, first: bool) -> None:
    """One recording: a heading, then the tables of a live run."""
    host = recording.host
    print(("" if first else "\n") + f"## {recording.name}: {host.get('model_name') or 'unknown'}"
          f" (recorded {host.get('date') or 'on an unknown date'}; machine file "
          f"{recording.machine_file.name})\n\n{HEADER}", file=out, flush=True)
    on_point, noted = _row_printer(out)
    for point in result.points:
        on_point(point)
    _print_trailer(result, noted, out)


def _replay_document(recording, result, machine, comparison) -> dict:
    from kerncraft.validation.replay import changed_predictions
    levels = list(dict.fromkeys(p.level for p in recording.points))
    document = _document(result, machine, recording.host.get("model_name"), levels)
    return {"recording": str(recording.path), "host": dict(recording.host),
            "tool": dict(recording.tool), "recorded_summary": dict(recording.summary),
            "comparison": comparison.to_dict(),
            "changed_predictions": [{"kernel": p.kernel, "level": p.level,
                                     "recorded_ecm_cy_per_cl": before,
                                     "ecm_cy_per_cl": p.prediction.ecm}
                                    for p, before in changed_predictions(recording, result)],
            **document}


def _points(change: float | None) -> str:
    """'+0.3 pt' (percentage points); '+0.0', never '-0.0', for a change that rounds away."""
    return "n/a" if change is None else f"{round(100 * change, 1) + 0.0:+.1f} pt"


def _worst(error: float | None, kernel: str | None) -> str:
    return "n/a" if error is None else f"{_percent(error)} ({kernel})"


def format_comparison(comparisons) -> list[str]:
    """The cross-host table: per recording and level the ECM median and worst error,
    now and as recorded, and the medians that grew by more than one point."""
    lines = ["| recording | host | level | points | median abs. error | recorded | change | "
             "worst error (kernel) | recorded worst (kernel) |",
             "|---|---|---|---:|---:|---:|---:|---|---|"]
    for host in comparisons:
        for lvl in host.levels:
            recorded = ("n/a" if lvl.recorded_median is None
                        else f"{100 * lvl.recorded_median:.1f} %")
            lines.append(f"| {host.recording} | {host.host} | {lvl.level} | {lvl.points} | "
                         f"{100 * lvl.median_abs_error:.1f} % | {recorded} | "
                         f"{_points(lvl.change)} | {_worst(lvl.worst_error, lvl.worst_kernel)}"
                         f" | {_worst(lvl.recorded_worst_error, lvl.recorded_worst_kernel)} |")
    grown = [f"{host.recording} {lvl.level} ({_points(lvl.change)})"
             for host in comparisons for lvl in host.levels if lvl.grown]
    changed = sum(host.changed_points for host in comparisons)
    total = sum(host.points for host in comparisons)
    return [*lines, "", f"ECM predictions changed by more than 1 % since recorded: {changed} "
            f"of {total} points",
            ("grown by more than 1 point: " + ", ".join(grown)) if grown
            else "no median abs. ECM error grew by more than 1 point"]


def _picture_title(machine) -> str:
    """'prediction vs measurement: <machine file>' for the --plot picture."""
    from pathlib import Path
    return f"prediction vs measurement: {Path(str(machine.path)).stem}"


def _print_trailer(result, noted: Sequence, out: TextIO) -> None:
    """After the table: the notes of points beyond 30 %, skipped points, summaries."""
    print("", file=out)
    for number, point in enumerate(noted, 1):
        print(f"[{number}] {point.kernel} {point.level}, ECM {_percent(point.ecm_error)}: "
              + "; ".join(point.notes), file=out)
    unsteady = [p for p in result.points if any("rounds differ" in n
                                                 for n in p.measurement.notes)]
    if unsteady:
        print(f"unsteady host: the rounds of {len(unsteady)} point(s) differ by more than "
              f"10 % (fastest used): " + ", ".join(
                  f"{p.kernel} {p.level} ({' / '.join(f'{v:.2f}' for v in p.measurement.rounds)})"
                  for p in unsteady), file=out)
    for skip in result.skipped:
        print(f"skipped: {skip.kernel} {skip.level or ''}: {skip.reason}", file=out)
    options = result.options
    print("\n".join(["", *format_summary(result.summaries),
                     f"{len(result.points)} points in {result.wall_seconds:.0f} s "
                     f"({options.cores} core(s), {options.roofline}, in-core model "
                     f"{options.incore_model})"]), file=out, flush=True)


def main(argv: Sequence[str] | None = None, measure=None) -> int:
    """Entry point; ``measure`` replaces the real measurement (tests)."""
    parser = build_parser()
    opts = parser.parse_args(argv)
    if opts.machine is None and not opts.replay:
        parser.error("the following arguments are required: -m/--machine")
    if opts.incore:
        return _run_incore(opts)
    if opts.results or opts.compilers:
        parser.error("--results and --compilers belong to the in-core campaign (--incore)")
    to_stdout = opts.json == "-"
    out = sys.stderr if to_stdout else sys.stdout
    return run_reporting_errors(PROG, lambda: run(opts, out, sys.stderr, measure))


def _run_incore(opts: argparse.Namespace) -> int:
    """``--incore`` (:mod:`kerncraft.cli.validate_incore`), errors as for a live run."""
    from kerncraft.cli.validate_incore import run_incore

    out = sys.stderr if opts.json == "-" else sys.stdout
    return run_reporting_errors(
        PROG, lambda: run_incore(opts, out, sys.stderr),
        "interrupted (the measured blocks are kept in the results file)")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
