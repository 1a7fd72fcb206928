"""``kerncraft-validate --incore``: the in-core campaign and its replay (the logic is in
:mod:`kerncraft.validation.incore_campaign` and :mod:`kerncraft.validation.incore_replay`).

The report is Markdown: what was compiled, measured and scored, a table of every
analyzer's scores, one per kernel family, the 20 blocks our static analyzer predicts
worst with each analyzer's prediction, error and binding resource, and the blocks every
analyzer misses. Progress goes to stderr; ``--json -`` puts the document on stdout and
the report on stderr.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Sequence, TextIO

__all__ = ["run_incore", "format_scores", "format_families", "format_worst"]

PROG = "kerncraft-validate"
WORST = 20


def _percent(value: float | None) -> str:
    return "n/a" if value is None or value != value else f"{100 * value:.1f} %"


def format_scores(scores: dict) -> list[str]:
    """The table of every analyzer's scores."""
    lines = ["| tool | blocks | failed | MAPE | median | within 10 % | within 20 % | "
             "Kendall tau | over | under |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for tool, s in scores.items():
        tau = "n/a" if s.kendall_tau != s.kendall_tau else f"{s.kendall_tau:.3f}"
        lines.append(f"| {tool} | {s.blocks} | {s.failed} | {_percent(s.mape)} | "
                     f"{_percent(s.median)} | {_percent(s.within_10)} | {_percent(s.within_20)}"
                     f" | {tau} | {_percent(s.over)} | {_percent(s.under)} |")
    return lines


def format_families(families: dict, tools: Sequence[str]) -> list[str]:
    """MAPE (and Kendall's tau) per kernel family and tool."""
    lines = ["| family | blocks | " + " | ".join(f"{t} MAPE (tau)" for t in tools) + " |",
             "|---|---:|" + "---:|" * len(tools)]
    for family, scores in families.items():
        blocks = max((s.blocks for s in scores.values()), default=0)
        cells = []
        for tool in tools:
            s = scores.get(tool)
            tau = "" if s is None or s.kendall_tau != s.kendall_tau else f" ({s.kendall_tau:.2f})"
            cells.append("n/a" if s is None else _percent(s.mape) + tau)
        lines.append(f"| {family} | {blocks} | " + " | ".join(cells) + " |")
    return lines


def format_worst(records: Sequence, tools: Sequence[str], count: int = WORST) -> list[str]:
    """The blocks our static analyzer predicts worst, every tool's view of them."""
    from kerncraft.validation.incore_score import relative_error, worst_blocks

    lines = ["| # | block | measured | " + " | ".join(tools) + " |",
             "|---:|---|---:|" + "---|" * len(tools)]
    for number, record in enumerate(worst_blocks(records, tools[0], count), 1):
        cells = []
        for tool in tools:
            p = record.prediction(tool)
            if p is None or not p.cycles:
                cells.append("-" if p is None else "failed")
                continue
            error = relative_error(p.cycles, record.measured)
            cells.append(f"{p.cycles:.2f} ({100 * error:+.0f} %) {p.binding[:60]}")
        lines.append(f"| {number} | {record.label} | {record.measured:.2f} | "
                     + " | ".join(cells) + " |")
    return lines


def _skipped_lines(skipped: Sequence[tuple[str, str]]) -> list[str]:
    reasons = Counter(reason.split(":")[0][:110] for _, reason in skipped)
    return [f"- {count} x {reason}" for reason, count in reasons.most_common()]


def _tools_in(records: Sequence) -> list[str]:
    from kerncraft.validation.incore_tools import TOOLS

    return [t for t in TOOLS if any(r.prediction(t) is not None for r in records)]


def run_incore(opts: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``--incore``: the campaign, or with ``--replay`` the replay of recordings."""
    from kerncraft.errors import KerncraftError

    ecm_only = [name for name, given in (
        ("--levels", opts.levels), ("--cores", opts.cores != 1),
        ("--roofline", opts.roofline != "ASM"),
        ("--incore-model", opts.incore_model != "kerncraft")) if given]
    if opts.replay:
        ecm_only += [name for name, given in (
            ("-m", opts.machine), ("KERNEL", opts.kernels), ("--record", opts.record),
            ("--quick", opts.quick), ("--plot", opts.plot), ("--results", opts.results),
            ("--compilers", opts.compilers)) if given]
    if ecm_only:
        raise KerncraftError(f"{', '.join(ecm_only)} cannot be used with --incore"
                             + (" --replay" if opts.replay else ""))
    if opts.replay:
        return _replay(opts, out, err)
    return _campaign(opts, out, err)


def _options(opts: argparse.Namespace, machine, host: dict):
    from kerncraft.measure.timing import default_cpu
    from kerncraft.validation.incore_campaign import (CampaignOptions, default_results,
                                                      kernel_files)
    from kerncraft.validation.incore_measure import MeasureOptions

    compilers = tuple(opts.compilers or [c for c in ("gcc", "clang") if shutil.which(c)])
    results = Path(opts.results) if opts.results else default_results(host["slug"])
    measure = MeasureOptions(cpu=default_cpu(), min_time=opts.min_time or 0.02,
                             runs=opts.repeats or 3, passes=opts.rounds or 2)
    jobs = max(1, min(2, len(os.sched_getaffinity(0))))
    return CampaignOptions(Path(str(machine.path)), tuple(kernel_files(opts.kernels,
                                                                       opts.quick)),
                           compilers, results, measure, opts.quick, jobs)


def _campaign(opts: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import kerncraft
    from kerncraft.validation.incore_campaign import host_identity, run_campaign
    from kerncraft.validation.incore_replay import repredict

    machine = kerncraft.load_machine(opts.machine)
    if opts.plot:
        from kerncraft.cli.plotting import require_matplotlib
        require_matplotlib()        # before minutes of measuring
    options = _options(opts, machine, host_identity())
    print(f"{PROG}: results file {options.results}", file=err, flush=True)
    result = run_campaign(options, machine, err)
    older = [r for r in result.records if r.key not in result.measured_now]
    fresh = {r.key: r for r in repredict(older, str(options.machine_path), options.jobs)}
    records = [fresh.get(r.key, r) for r in result.records]
    tools = _tools_in(records)
    document = _document(result, records, tools, options, opts)
    _print_campaign(result, records, tools, options, document, out)
    if opts.json:
        from kerncraft.report.json import write_json
        write_json(opts.json, document, sys.stdout)
    if opts.plot and records:
        _plot(opts.plot, records, tools, document, f"{result.host.get('model_name')}", err)
    if opts.record and records:
        _record(opts.record, result, records, options, document, err)
    return 0 if records else 1


def _command(opts: argparse.Namespace) -> str:
    """The command line as recorded: where the outputs went (``--json``, ``--results``,
    ``--plot``) is left out, so no path of this host goes into a recording."""
    if not (sys.argv and "validate" in sys.argv[0]):
        return PROG
    words, skip = [PROG], False
    for word in sys.argv[1:]:
        if skip:
            skip = False
        elif word in ("--json", "--results", "--plot"):
            skip = True
        elif not word.startswith(("--json=", "--results=", "--plot=")):
            words.append(word)
    return " ".join(words)


def _document(result, records, tools, options, opts) -> dict[str, Any]:
    from kerncraft.validation.incore_score import score_document

    skipped = [{"block": label, "reason": reason} for label, reason in result.skipped]
    extra = {"machine": str(options.machine_path), "command": _command(opts),
             "compilers": list(options.compilers), "combinations": result.variants,
             "distinct": result.distinct, "measured_now": result.new, "skipped": skipped,
             "remeasured": sum(((r.doc.get("measured") or {}).get("attempts") or 1) > 1
                               for r in records),
             "external_tools": result.tools.to_dict(), "notes": list(result.notes),
             "load": result.load, "wall_seconds": round(result.wall_seconds, 1),
             "block_results": [_block_summary(r, tools) for r in records]}
    return score_document(records, tools, result.host, extra)


def _block_summary(record, tools: Sequence[str]) -> dict[str, Any]:
    return {"key": record.key, "block": record.label, "family": record.family,
            "measured": record.measured, "unstable": record.unstable,
            "predictions": {t: p.cycles for t in tools
                            if (p := record.prediction(t)) is not None}}


def _print_campaign(result, records, tools, options, document, out: TextIO) -> None:
    from kerncraft.validation.incore_score import jointly_bad, score_families, score_tools

    host = result.host
    lines = [f"# In-core campaign: {host.get('model_name')} ({host.get('slug')}), machine "
             f"file {options.machine_path.name}", "", f"command: {document['command']}",
             f"compilers: {', '.join(options.compilers)}; tools: {', '.join(tools)}"]
    lines += [f"note: {note}" for note in result.notes]
    lines += [f"{result.variants} kernel x variant combinations, {result.distinct} distinct "
              f"blocks, {len(result.skipped)} combinations skipped; measured "
              f"{document['measured']} ({result.new} in this run), unstable "
              f"{document['unstable']} (after measuring the {document['remeasured']} "
              f"unstable at first once more), scored {document['blocks']}; "
              f"{result.wall_seconds:.0f} s",
              f"load: before {result.load.get('before')}; during {result.load.get('during')};"
              f" after {result.load.get('after')}", "",
              "## Scores (error = (predicted - measured) / measured)", "",
              *format_scores(score_tools(records, tools)), "", "## Per kernel family", "",
              *format_families(score_families(records, tools), tools), "",
              f"## The {WORST} blocks {tools[0] if tools else ''} predicts worst", "",
              *format_worst(records, tools), ""]
    bad = jointly_bad(records, tools)
    under = sum(all(r.prediction(t).cycles < r.measured for t in tools) for r in bad)
    lines.append(f"jointly bad (every tool off by more than 20 %): {len(bad)} blocks, "
                 f"{under} of them predicted too fast by every tool")
    if result.skipped:
        lines += ["", "skipped combinations:", *_skipped_lines(result.skipped)]
    print("\n".join(lines), file=out, flush=True)


def _plot(path: str, records, tools, document, title: str, err: TextIO) -> None:
    from kerncraft.validation.incore_plot import write_campaign_plot

    mapes = {t: s["mape"] for t, s in document["tools"].items()}
    write_campaign_plot(path, records, tools, f"in-core campaign: {title}", mapes)
    print(f"{PROG}: wrote {path}", file=err, flush=True)


def _record(parent: str, result, records, options, document, err: TextIO) -> None:
    from kerncraft.validation.hostinfo import host_description, tool_version
    from kerncraft.validation.incore_record import write_recording

    host = host_description(compilers=list(options.compilers), chosen_compiler=None,
                            load=result.load, started=result.started)
    score = {k: v for k, v in document.items() if k != "block_results"}
    campaign = {"tool": tool_version(), "command": document["command"],
                "options": {"quick": options.quick, "min_time": options.measure.min_time,
                            "runs": options.measure.runs, "passes": options.measure.passes,
                            "tolerance": options.measure.tolerance},
                "score": score}
    path = write_recording(parent, records, campaign, options.machine_path, host,
                           result.started)
    print(f"{PROG}: recorded {len(records)} blocks in {path}", file=err, flush=True)


def _replay(opts: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kerncraft.validation.incore_record import find_recordings, load_recording
    from kerncraft.validation.incore_replay import compare, replay
    from kerncraft.validation.incore_score import score_document

    jobs = max(1, min(2, len(os.sched_getaffinity(0))))
    comparisons, documents = [], []
    for path in find_recordings(opts.replay):
        recording = load_recording(path)
        print(f"{PROG}: replaying {len(recording.blocks)} blocks of {recording.name}",
              file=err, flush=True)
        records = replay(recording, jobs)
        comparison = compare(recording, records)
        comparisons.append(comparison)
        tools = _tools_in(records)
        left_out = sum(r.not_run for r in records if r.measured is not None)
        print("\n".join([f"## {recording.name}: {comparison.host} (machine file "
                         f"{recording.machine_file.name})", "",
                         *format_scores(comparison.now), ""]
                        + ([f"{left_out} block(s) left out: their program runs another "
                            "loop (benchmarks/incore_loop_check.py)", ""] if left_out else [])),
              file=out, flush=True)
        documents.append({**score_document(records, tools, recording.host),
                          "comparison": comparison.to_dict()})
    print("\n".join(["## all recordings: MAPE now and as recorded", "",
                     *_format_comparison(comparisons)]), file=out, flush=True)
    if opts.json:
        from kerncraft.report.json import write_json
        write_json(opts.json, {"recordings": documents}, sys.stdout)
    return 0 if all(c.now for c in comparisons) else 1


def _format_comparison(comparisons) -> list[str]:
    lines = ["| recording | host | tool | blocks | MAPE | recorded | change |",
             "|---|---|---|---:|---:|---:|---:|"]
    grown = []
    for c in comparisons:
        for tool, score in c.now.items():
            recorded = (c.recorded.get(tool) or {}).get("mape")
            change = c.change(tool)
            shown = "n/a" if change is None else f"{round(100 * change, 1) + 0.0:+.1f} pt"
            lines.append(f"| {c.recording} | {c.host} | {tool} | {score.blocks} | "
                         f"{_percent(score.mape)} | {_percent(recorded)} | {shown} |")
            if c.grown(tool):
                grown.append(f"{c.recording} {tool}")
    return [*lines, "", ("MAPE grown by more than 1 point: " + ", ".join(grown)) if grown
            else "no MAPE grew by more than 1 point"]
