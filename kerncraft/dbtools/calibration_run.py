"""One calibration run on this host: which forms, the clock, the measurements, the
decisions and the file text (the parts: :mod:`kerncraft.dbtools.calibrate`,
:mod:`kerncraft.dbtools.calibrate_forwarding`, :mod:`kerncraft.dbtools.calibration_file`).

The measuring functions can be passed in (``bench`` for one run of one form,
``measure_chain`` for one run of a pair chain, ``measure_split`` for one run of a
cache-line-split case of :mod:`kerncraft.dbtools.calibrate_linesplit`), so the whole run
is testable without timing anything; by default they are the clock-calibrated microbenchmarks of
:mod:`kerncraft.dbtools.microbench`, pinned to one CPU.
"""
from __future__ import annotations

import datetime
import os
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from kerncraft.dbtools.calibrate import (CalibrationPlan, Decision, calibration_targets, decide,
                                         measure_forms, standard_forms)
from kerncraft.dbtools.calibration_file import (CalibrationRecord, EntryChange, entry_spec,
                                                render_calibration)
from kerncraft.errors import KerncraftError
from kerncraft.incore.calibration import MeasuredEntry

__all__ = ["CalibrationResult", "run_calibration", "kernel_forms_for", "host_description",
           "split_opt_level", "format_summary"]

Progress = Callable[[str], None]


@dataclass(frozen=True)
class CalibrationResult:
    """The file text and what went into it."""

    text: str
    prior: str
    forms_measured: int
    written: tuple[MeasuredEntry, ...]
    not_written: tuple[MeasuredEntry, ...]
    unknown: tuple[str, ...] = ()                    # kernel forms the prior lacks
    skipped: Mapping[str, str] = field(default_factory=dict)   # not measurable, why
    pairs: Mapping[str, int] = field(default_factory=dict)     # measured, differing ...
    seconds: float = 0.0
    runs: int = 1


def host_description() -> str:
    """'model name (family F model M)' of this host's first CPU."""
    from kerncraft.measure.topology import parse_cpuinfo
    try:
        info = parse_cpuinfo(Path("/proc/cpuinfo").read_text(encoding="utf-8",
                                                            errors="replace"))
    except OSError:
        info = {}
    name = info.get("model name", "unknown CPU")
    if "cpu family" in info and "model" in info:
        name += f" (family {info['cpu family']} model {info['model']})"
    return name


def split_opt_level(flags: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """(the -O level, the other flags) of a compiler command line (default -O3)."""
    opts = [f for f in flags if f.startswith("-O")]
    return (opts[-1] if opts else "-O3"), tuple(f for f in flags if not f.startswith("-O"))


def kernel_forms_for(model: Any, arch: str, target: tuple[str, Sequence[str]] | None = None,
                     opt_levels: Sequence[str] = ("-O3",)) -> tuple[dict[str, str], list]:
    """({form: example}, loops) of the bundled kernels compiled with ``target`` =
    (compiler, flags with the -O level), else the database's target at ``opt_levels``."""
    from kerncraft.dbtools.form_check import forms_of_loops, kernel_loops
    plain = None
    if target is not None:
        level, rest = split_opt_level(list(target[1]))
        plain, opt_levels = (target[0], rest), (level,)
    loops = kernel_loops(model, arch, opt_levels, target=plain)
    return forms_of_loops(loops), loops


def _kernel_pairs(loops: list) -> dict[tuple[str, str], str]:
    from kerncraft.dbtools.pair_check import dependent_pairs
    found: dict[tuple[str, str], str] = {}
    for path, opt, instructions in loops:
        for pair in dependent_pairs(instructions):
            found.setdefault(pair, f"{path.name} {opt}")
    return dict(sorted(found.items()))


def _load_text(text: str) -> Any:
    """The port model a calibration text describes (written to a private temp file)."""
    from kerncraft.incore.database import load_database
    with tempfile.TemporaryDirectory(prefix="kerncraft-cal-") as tmp:
        path = Path(tmp, "calibration.yml")
        path.write_text(text, encoding="utf-8")
        return load_database(path)


def _source(host: str, date: str, tool: str, runs: int, entries: Sequence[MeasuredEntry],
            pairs: bool) -> str:
    spread = max((e.spread for e in entries), default=0.0)
    how = ("latency chain and throughput rotation of each form alone"
           + ("; forwarding to other consumers from two-form chains" if pairs else ""))
    return (f"measured on {host} {date} by {tool}, {runs} run{'s' if runs != 1 else ''}, "
            f"spread up to {100 * spread:.1f} % (median of the runs; {how}; "
            "kerncraft.dbtools.microbench, clock-calibrated)")


def _specs(model: Any, changes: Mapping[str, EntryChange], source: str) -> dict[str, dict]:
    """The written entries; a rewritten load/store entry says how in its own source."""
    specs = {}
    for key, change in sorted(changes.items()):
        spec = entry_spec(model.forms[key], model.ports, change)
        if change.how:
            spec["source"] = f"{source}; throughput: {change.how}"
        specs[key] = spec
    return specs


class _ClockedBench:
    """One run of a form with the microbenchmark, at the clock calibrated before each run
    of all forms: a clock that changes during the calibration (turbo, a busy host) moves
    only the runs it happened in, and the record lists the clock of every run."""

    def __init__(self, model: Any, cpu: int | None, quick: bool, realtime: bool,
                 core_hz: float) -> None:
        self.model, self.cpu, self.quick, self.realtime = model, cpu, quick, realtime
        self.clocks = [core_hz]

    def before_run(self, run: int) -> None:
        if run > 0:
            from kerncraft.dbtools.microbench import calibrated_clock
            self.clocks.append(calibrated_clock(self.cpu, self.quick))

    def __call__(self, form: str) -> Any:
        from kerncraft.dbtools.microbench import bench_form
        return bench_form(self.model, form, cpu=self.cpu, quick=self.quick,
                          realtime=self.realtime, core_hz=self.clocks[-1])


def _default_chain(clock: Callable[[], float], cpu: int | None, quick: bool, realtime: bool
                   ) -> Callable[[list[str], str | None], float]:
    from kerncraft.dbtools.microbench import measure_body
    from kerncraft.dbtools.microbench_forms import UNROLL

    def run(lines: list[str], width: str | None) -> float:
        body = list(lines) * (UNROLL // len(lines))
        return measure_body(body, core_hz=clock(), width=width, cpu=cpu, quick=quick,
                            realtime=realtime) * len(lines)
    return run


def _x86_model(prior: str) -> Any:
    from kerncraft.incore.analysis import load_model
    model = load_model(prior)
    if str(getattr(model, "isa", "x86")).lower() != "x86":
        raise KerncraftError(f"{prior} is not an x86 database: the calibration times x86 forms")
    return model


def run_calibration(prior: str, *, plan: CalibrationPlan | None = None,
                    target: tuple[str, Sequence[str]] | None = None, tool: str = "kerncraft",
                    cpu: int | None = None, realtime: bool = True,
                    progress: Progress | None = None, bench: Callable[[str], Any] | None = None,
                    measure_chain: Callable[[list[str], str | None], float] | None = None,
                    kernel_forms: Mapping[str, str] | None = None,
                    pairs: Mapping[tuple[str, str], str] | None = None,
                    host: str | None = None, core_hz: float | None = None,
                    host_flags: Sequence[str] | None = None, date: str | None = None,
                    measure_split: Callable[[str, str, bool], float] | None = None,
                    measure_order: Callable[[str], float] | None = None
                    ) -> CalibrationResult:
    """Measure, decide and write the calibration of database ``prior`` on this host
    (module doc); ``target`` = the machine file's (compiler, flags). The keywords from
    ``bench`` on replace what would be measured or read on this host."""
    start, load_before = time.monotonic(), os.getloadavg()[0]
    plan = plan or CalibrationPlan()
    say = progress or (lambda line: None)
    model = _x86_model(prior)
    if core_hz is None:
        from kerncraft.dbtools.microbench import calibrated_clock
        core_hz = calibrated_clock(cpu, plan.short_timing)
    loops: list = []
    if kernel_forms is None:
        say("compiling the bundled kernels")
        kernel_forms, loops = kernel_forms_for(model, model.arch, target)
    if host_flags is None:
        from kerncraft.measure.topology import cpu_flags
        host_flags = sorted(cpu_flags())
    forms = list(kernel_forms) + (standard_forms(host_flags) if plan.standard_forms else [])
    targets, unknown = calibration_targets(model, forms)
    clocked = _ClockedBench(model, cpu, plan.short_timing, realtime, core_hz)
    measurements, skipped = measure_forms(targets, bench or clocked, plan.runs, say,
                                          None if bench else clocked.before_run)
    decision = decide(model, measurements, plan.tolerance)
    texts = dict(model=model, prior=prior, decision=decision, plan=plan, core_hz=core_hz,
                 host=host if host is not None else host_description(), tool=tool,
                 date=date or datetime.date.today().isoformat(), load_before=load_before,
                 forms_measured=len(measurements))
    extra: dict[str, Any] = {"unknown_forms": list(unknown)} if unknown else {}
    if len(clocked.clocks) > 1:
        extra["clock_per_run_ghz"] = [round(hz / 1e9, 3) for hz in clocked.clocks]
    found = (dict(decision.changes), list(decision.written), list(decision.not_written))
    periods: dict = {}
    if plan.pairs:
        chain = measure_chain or _default_chain(lambda: clocked.clocks[-1], cpu,
                                                plan.short_timing, realtime)
        pairs = pairs if pairs is not None else _kernel_pairs(loops)
        pairs, lacking, forms_lacking = _known_pairs(model, pairs)
        if lacking:
            unknown += tuple(f for f in forms_lacking if f not in unknown)
            extra["unknown_forms"] = list(unknown)
            extra["pairs_unknown_to_prior"] = lacking
        periods = _add_forwarding(texts, found, extra, pairs, chain, say)
    if plan.line_split:
        _add_line_split(texts, found, extra, host_flags,
                        measure_split or _split_measure(clocked, plan, cpu, realtime), say)
    if plan.memory_issue and (measure_order is not None or "avx" in host_flags):
        _add_memory_issue(texts, found, extra,
                          measure_order or _order_measure(clocked, plan, cpu, realtime), say)
    text = _final_text(texts, found, extra, periods)
    counts = {k: v for k, v in extra.items() if isinstance(v, int)}
    return CalibrationResult(text, prior, len(measurements), tuple(found[1]), tuple(found[2]),
                             unknown, skipped, counts, time.monotonic() - start, plan.runs)


Found = tuple[dict[str, EntryChange], list[MeasuredEntry], list[MeasuredEntry]]


def _known_pairs(model: Any, pairs: Mapping[tuple[str, str], str]
                 ) -> tuple[dict[tuple[str, str], str], list[str], list[str]]:
    """(the pairs whose two forms the prior knows, 'producer -> consumer' of the others,
    the forms it lacks): a chain with a form the prior lacks has no model period to
    compare with, so it is not timed (the calibration never invents a form)."""
    known: dict[tuple[str, str], str] = {}
    lacking: list[str] = []
    forms: list[str] = []
    for pair, where in pairs.items():
        missing = [form for form in pair if model.lookup_form(form) is None]
        if not missing:
            known[pair] = where
            continue
        lacking.append(f"{pair[0]} -> {pair[1]}")
        forms += [form for form in missing if form not in forms]
    return known, lacking, forms


def _add_forwarding(texts: Mapping[str, Any], found: Found, extra: dict[str, Any],
                    pairs: Mapping[tuple[str, str], str],
                    chain: Callable[[list[str], str | None], float], say: Progress) -> dict:
    """Time the pair chains and add their forwarding changes to ``found`` (changes,
    written, not written) and their counts to ``extra``; the measured periods."""
    changes, written, not_written = found
    first = _text(changes=changes, written=written, not_written=not_written, extra={}, **texts)
    fw_changes, fw_written, fw_not, periods, counts = _forwarding(
        texts["model"], texts["decision"], pairs, chain, texts["plan"], say, first)
    for key, change in fw_changes.items():
        changes[key] = changes.get(key, EntryChange()).merged(change)
    written += fw_written
    not_written += fw_not
    extra.update(counts)
    return periods


def _split_measure(clocked: _ClockedBench, plan: CalibrationPlan, cpu: int | None,
                   realtime: bool) -> Callable[[str, str, bool], float]:
    from kerncraft.dbtools.calibrate_linesplit import default_split_measure
    return default_split_measure(lambda: clocked.clocks[-1], cpu, plan.short_timing, realtime)


def _add_line_split(texts: dict[str, Any], found: Found, extra: dict[str, Any],
                    host_flags: Sequence[str],
                    measure: Callable[[str, str, bool], float], say: Progress) -> None:
    """Time the line-split cases of the host's vector widths and decide them against the
    prior with the entries found so far in (the table's cost is what the form's own uops
    leave to explain); the table goes into the header, its record into ``found``, the
    counts into ``extra``."""
    from kerncraft.dbtools.calibrate_linesplit import (LINES, decide_line_split,
                                                       measure_split_timings, split_cases)
    cases = split_cases(host_flags)
    if not cases:
        return
    changes, written, not_written = found
    plan = texts["plan"]
    say("timing cache-line-split loads and stores")
    timings = measure_split_timings(cases, measure, plan.runs, say)
    model = _load_text(_text(changes=changes, written=written, not_written=not_written,
                             extra={}, **texts))
    source = (f"measured on {texts['host']} {texts['date']} by {texts['tool']}: {LINES} "
              "vector loads / stores 8 B before each line end (a stream over one 4-KiB "
              "page) against the same at the line starts, median of "
              f"{plan.runs} run{'s' if plan.runs != 1 else ''}; cycles = ports x (split "
              "time - the form's own cycles on those ports) "
              "(kerncraft.dbtools.calibrate_linesplit)")
    decision = decide_line_split(model, timings, plan.tolerance, source)
    written += decision.written
    not_written += decision.not_written
    extra.update(line_splits_measured=len(timings), line_splits_agreeing=decision.agreeing)
    if decision.table:
        prior = texts["decision"]
        texts["decision"] = replace(prior, header={**prior.header,
                                                   "line_split": decision.table})


def _order_measure(clocked: _ClockedBench, plan: CalibrationPlan, cpu: int | None,
                   realtime: bool) -> Callable[[str], float]:
    from kerncraft.dbtools.calibrate_memissue import default_order_measure
    return default_order_measure(lambda: clocked.clocks[-1], cpu, plan.short_timing, realtime)


def _add_memory_issue(texts: dict[str, Any], found: Found, extra: dict[str, Any],
                      measure: Callable[[str], float], say: Progress) -> None:
    """Time the load/store orders and fit the oldest-first pick
    (:mod:`kerncraft.dbtools.calibrate_memissue`); a fit that differs from the prior's and
    explains what port balancing cannot goes into the header."""
    from kerncraft.dbtools.calibrate_memissue import (ORDERS, decide_memory_issue,
                                                      describe_fit, measure_order_timings)
    changes, written, not_written = found
    plan = texts["plan"]
    say("timing loads and stores in grouped and interleaved orders")
    timings = measure_order_timings(ORDERS, measure, plan.runs, say)
    source = (f"measured on {texts['host']} {texts['date']} by {texts['tool']}: "
              f"{len(ORDERS)} orders of independent 16-B loads and stores, median of "
              f"{plan.runs} run{'s' if plan.runs != 1 else ''}, fitted oldest-first pick "
              "(kerncraft.dbtools.calibrate_memissue)")
    table, found_written, found_not, fit = decide_memory_issue(
        getattr(texts["model"], "memory_issue", None), timings, plan.tolerance, source)
    written += found_written
    not_written += found_not
    extra.update(describe_fit(fit, timings))
    if table:
        prior = texts["decision"]
        texts["decision"] = replace(prior, header={**prior.header, "memory_issue": table})


def _final_text(texts: Mapping[str, Any], found: Found, extra: dict[str, Any],
                periods: Mapping) -> str:
    """The file text; with pairs, after counting those the final model still misses."""
    changes, written, not_written = found
    text = _text(changes=changes, written=written, not_written=not_written, extra=extra, **texts)
    if not periods:
        return text
    left = _differing(_load_text(text), periods, texts["plan"].tolerance)
    extra["pairs_differing_after"] = len(left)
    if left:
        extra["pairs_still_differing"] = left
    # a pair no single form explained may be explained by the groups the others gave
    missed = {item.split(":", 1)[0] for item in left}
    not_written[:] = [e for e in not_written if e.field != "period" or e.key in missed]
    return _text(changes=changes, written=written, not_written=not_written, extra=extra,
                 **texts)


def _text(*, model: Any, prior: str, decision: Decision, changes: Mapping[str, EntryChange],
          written: Sequence[MeasuredEntry], not_written: Sequence[MeasuredEntry], host: str,
          date: str, tool: str, plan: CalibrationPlan, core_hz: float, load_before: float,
          forms_measured: int, extra: Mapping[str, Any]) -> str:
    load = (f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after "
            f"({os.cpu_count()} CPUs)")
    record = CalibrationRecord(
        prior=prior, arch=model.arch, host=host, date=date, tool=tool, runs=plan.runs,
        tolerance=plan.tolerance, core_hz=core_hz, load=load, forms_measured=forms_measured,
        agreeing=decision.agreeing, entries=tuple(written), not_written=tuple(not_written),
        extra=extra)
    source = _source(host, date, tool, plan.runs, written, plan.pairs)
    return render_calibration(record, [(source, _specs(model, changes, source))],
                              decision.header)


def _differing(model: Any, periods: Mapping, tolerance: float) -> list[str]:
    """The pairs whose measured period still differs from ``model``'s."""
    from kerncraft.dbtools.calibrate_forwarding import model_periods, pair_differs
    return [f"{m.producer} -> {m.consumer}: measured {m.period:.2f}, model {m.model:.2f}"
            for m in model_periods(model, periods) if pair_differs(m, tolerance)]


def _forwarding(model: Any, decision: Decision, pairs: Mapping[tuple[str, str], str],
                chain: Callable[[list[str], str | None], float], plan: CalibrationPlan,
                say: Progress, first_text: str) -> tuple:
    """(changes, written, not written, measured periods, counts): forwarding from the
    pair chains, against the model with the single-form changes in (``first_text``)."""
    from kerncraft.dbtools.calibrate_forwarding import (forwarding_changes, measure_pairs,
                                                        model_periods, pair_differs)
    if not pairs:
        return {}, [], [], {}, {}
    say(f"timing {len(pairs)} producer -> consumer chains")
    periods, _ = measure_pairs(list(pairs), chain, plan.runs, say)
    calibrated = _load_text(first_text)
    measured = model_periods(calibrated, periods)
    lowered = {e.key for e in decision.written if e.field == "lat" and e.written is not None
               and e.written < e.prior}
    changes, written, not_written = forwarding_changes(calibrated, measured, lowered,
                                                       plan.tolerance, prior=model)
    counts = {"pairs_measured": len(measured),
              "pairs_differing_before": sum(1 for m in measured
                                            if pair_differs(m, plan.tolerance))}
    return changes, written, not_written, periods, counts


def format_summary(result: CalibrationResult, path: str) -> str:
    """What a calibration found and wrote, for the terminal."""
    def value(v: float | None) -> str:
        return "-" if v is None else f"{v:g}"

    rows = [f"In-core calibration of {result.prior} on this host: {result.forms_measured} "
            f"forms measured ({result.runs} run(s) each), "
            f"{len(result.written)} value(s) written to {path} ({result.seconds:.1f} s)"]
    rows += [f"  {e.key:<36} {e.field:<17} measured {e.measured:>7.2f}  prior {value(e.prior):>5}"
             f"  -> {value(e.written)}" for e in result.written]
    rows += [f"  not written: {e.key} {e.field} measured {e.measured:.2f}, prior "
             f"{value(e.prior)}: {e.reason}" for e in result.not_written]
    if "pairs_measured" in result.pairs:
        rows.append(f"  pairs: {result.pairs.get('pairs_measured', 0)} chains measured, "
                    f"{result.pairs.get('pairs_differing_before', 0)} differed from the model "
                    f"with the single-form values, {result.pairs.get('pairs_differing_after', 0)}"
                    " after the forwarding values")
    if "line_splits_measured" in result.pairs:
        rows.append(f"  line splits: {result.pairs['line_splits_measured']} load/store widths "
                    f"timed, {result.pairs.get('line_splits_agreeing', 0)} agree with "
                    f"{result.prior}'s cost")
    if result.unknown:
        rows.append(f"  unknown to {result.prior} (not invented): {', '.join(result.unknown)}")
    if result.skipped:
        rows.append(f"  not measurable: {', '.join(sorted(result.skipped))}")
    return "\n".join(rows) + "\n"
