"""In-core calibration by timing: measure the instruction forms compiled loops use on
this host and write the ones the prior database gets wrong into a calibration file
(format: :mod:`kerncraft.incore.calibration`; writer: :mod:`kerncraft.dbtools.calibration_file`).

``kerncraft-incore calibrate ARCH -o FILE`` and the last step of ``kerncraft-machine``
run it. What is measured (:func:`calibration_targets`):

* the forms of the bundled kernels' loops, compiled with the machine file's compiler
  flags (else the database's target at ``-O3``, as ``bench --kernel-forms``);
* unless ``quick``: FP add, multiply, FMA, divide and square root (scalar and every
  vector width the host has), loads and stores per width, and the two-instruction chains
  of :mod:`kerncraft.dbtools.pair_check` (consumer-dependent latencies, written by
  :mod:`kerncraft.dbtools.calibrate_forwarding`).

A memory-source form is measured as the register form it is composed from: its latency
chain runs through the register operand anyway, and the register form is the table
entry a calibration can correct. Each form is measured ``runs`` times (all forms once,
then again, so a disturbance hits one run of a form); the median counts and the spread
is (max - min) / median.

Decision (:func:`decide`), per table entry:

* unknown to the prior: listed, never invented;
* latency: written when it differs from the prior by more than ``tolerance`` (relative)
  and 0.5 cy, the runs agree within :data:`MAX_SPREAD` and it is a whole number of
  cycles within :data:`WHOLE_CYCLE` (register latencies are whole cycles on every core
  we know; a fractional one means the clock or the chain is suspect);
* reciprocal throughput: when it differs by more than ``tolerance`` and 0.05 cy, the
  entry's own uops are scaled by measured / prior on their documented ports; written
  only if the scaled entry (with the header's load/store uops) reproduces the
  measurement -- a calibration rescales, it does not invent ports. Where the header's
  load/store uops bind, a load/store entry is rewritten on the same ports
  (:mod:`kerncraft.dbtools.calibrate_memory`: its extra access uop dropped or rescaled,
  else the placeholders' uops written out and lowered where they bind), again only if
  that reproduces the measurement;
* forms without an execution port (moves eliminated at rename), compares (no register
  result) and read-modify-write memory chains are not written;
* the L1 load-to-use latency of a pointer chase becomes the header's ``load_latency.gpr``;
* cache-line-split loads and stores per vector width become the header's ``line_split``
  table where they change the model's time of a split access
  (:mod:`kerncraft.dbtools.calibrate_linesplit`; also in ``quick``);
* the order loads and stores issue in becomes the header's ``memory_issue`` where grouped
  orders run measurably slower than interleaved ones and a fitted oldest-first pick
  explains it (:mod:`kerncraft.dbtools.calibrate_memissue`; also in ``quick``).
"""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from kerncraft.dbtools.calibrate_memory import extra_access_positions, memory_rewrite
from kerncraft.dbtools.calibration_file import EntryChange
from kerncraft.errors import KerncraftError
from kerncraft.incore.calibration import MeasuredEntry
from kerncraft.incore.model import Uop

__all__ = ["CalibrationPlan", "FormMeasurement", "Decision", "MAX_SPREAD", "WHOLE_CYCLE",
           "table_key", "calibration_targets", "standard_forms", "measure_forms", "decide"]

#: Runs of one form that spread more than this share are not written.
MAX_SPREAD = 0.10
#: A measured latency further than this from a whole number of cycles is not written.
WHOLE_CYCLE = 0.25

_FLAGS_ONLY = re.compile(r"^(v?u?comis[sd]|v?ptest|cmp[bwlq]?|test[bwlq]?|bt[bwlq]?) ")
_COMPOSED = re.compile(r"\[composed: '([^']+)' \+ [a-z +]+\]$")
_MOVX = re.compile(r"^mov([sz])(bw|bl|bq|wl|wq|lq)$")


@dataclass(frozen=True)
class CalibrationPlan:
    """How much to measure: ``quick`` is the kernels' forms once, nothing else."""

    runs: int = 3
    tolerance: float = 0.1
    standard_forms: bool = True     # FP arithmetic, loads, stores per width
    pairs: bool = True              # consumer-dependent latencies (pair chains)
    # cache-line-split loads and stores per width (calibrate_linesplit; well under 1 s
    # on a quiet host, so --quick keeps it)
    line_split: bool = True
    # the issue order of loads and stores (calibrate_memissue; about a second)
    memory_issue: bool = True
    # short timings (as 'bench --quick'): several short runs show more than one long one
    short_timing: bool = True

    @classmethod
    def quick(cls) -> "CalibrationPlan":
        return cls(runs=1, standard_forms=False, pairs=False)


@dataclass(frozen=True)
class FormMeasurement:
    """Median latency and reciprocal throughput of one form over ``runs`` runs."""

    form: str                       # as measured (a register form for memory sources)
    key: str                        # the prior's table entry it concerns
    latency: float | None
    throughput: float | None
    latency_kind: str = "register"  # 'register' | 'load' (pointer chase) | 'memory'
    runs: int = 1
    latency_spread: float = 0.0
    throughput_spread: float = 0.0


@dataclass(frozen=True)
class Decision:
    """What a calibration writes: changed entries and header values, and the record."""

    changes: Mapping[str, EntryChange]
    header: Mapping[str, Any]
    written: tuple[MeasuredEntry, ...]
    not_written: tuple[MeasuredEntry, ...]
    agreeing: int


# ------------------------------------------------------------------ what to measure

def _mnemonic_names(mnemonic: str) -> list[str]:
    """The spellings the database may list a mnemonic under (as PortModel.lookup tries)."""
    names = [mnemonic]
    m = _MOVX.match(mnemonic)
    if m:
        names.append("movzx" if m.group(1) == "z" else
                     ("movsxd" if m.group(2) == "lq" else "movsx"))
    elif mnemonic[-1:] in "bwlq" and len(mnemonic) > 2:
        names.append(mnemonic[:-1])
    elif mnemonic[-1:] in "xyz" and mnemonic.startswith(("vcvt", "cvt", "vfpclass")):
        names.append(mnemonic[:-1])
    return names


def table_key(model: Any, form: str) -> str | None:
    """The table entry that gives ``form`` its cost: its own, or the register form it
    is composed from (the database README: the cost's ``source`` names it); None if the
    prior does not know the form."""
    cost = model.lookup_form(form)
    if cost is None:
        return None
    composed = _COMPOSED.search(cost.source)
    if composed:
        return composed.group(1)
    mnemonic, _, ops = form.strip().partition(" ")
    for name in _mnemonic_names(mnemonic.lower()):
        key = f"{name} {ops}".strip()
        if key in model.forms:
            return key
    return None


def _measured_form(form: str, key: str) -> str:
    """The form to time for ``form`` whose entry is ``key``: the kernel's own mnemonic
    (gas spelling) with the entry's operand classes."""
    mnemonic = form.split(" ", 1)[0]
    ops = key.partition(" ")[2]
    return f"{mnemonic} {ops}".strip()


def standard_forms(flags: Iterable[str]) -> list[str]:
    """FP add/mul/FMA/div/sqrt, loads and stores at every width the CPU ``flags`` allow
    (AVX and later; none without AVX)."""
    flags = set(flags)
    if "avx" not in flags:
        return []
    widths = ["xmm", "ymm"] + (["zmm"] if "avx512f" in flags else [])
    forms = ["vaddsd xmm,xmm,xmm", "vmulsd xmm,xmm,xmm", "vdivsd xmm,xmm,xmm",
             "vsqrtsd xmm,xmm,xmm", "vmovsd mem,xmm", "vmovsd xmm,mem",
             "movq mem,r64", "movq r64,mem"]
    if "fma" in flags:
        forms.append("vfmadd231sd xmm,xmm,xmm")
    for w in widths:
        forms += [f"vaddpd {w},{w},{w}", f"vmulpd {w},{w},{w}", f"vdivpd {w},{w},{w}",
                  f"vsqrtpd {w},{w}", f"vmovupd mem,{w}", f"vmovupd {w},mem"]
        if "fma" in flags:
            forms.append(f"vfmadd231pd {w},{w},{w}")
    return forms


def calibration_targets(model: Any, forms: Iterable[str]
                        ) -> tuple[dict[str, str], tuple[str, ...]]:
    """({form to measure: table key}, forms the prior does not know)."""
    targets: dict[str, str] = {}
    seen_keys: set[str] = set()
    unknown: list[str] = []
    for form in forms:
        key = table_key(model, form)
        if key is None:
            if form not in unknown:   # a kernel form may also be a standard one
                unknown.append(form)
            continue
        if key in seen_keys:
            continue
        seen_keys.add(key)
        targets[_measured_form(form, key)] = key
    return targets, tuple(unknown)


# ------------------------------------------------------------------ measuring

def _median_spread(values: Sequence[float | None]) -> tuple[float | None, float]:
    found = [v for v in values if v is not None]
    if not found:
        return None, 0.0
    median = statistics.median(found)
    spread = (max(found) - min(found)) / median if median > 0 else 0.0
    return median, spread


def measure_forms(targets: Mapping[str, str], bench: Callable[[str], Any], runs: int,
                  progress: Callable[[str], None] | None = None,
                  before_run: Callable[[int], None] | None = None
                  ) -> tuple[list[FormMeasurement], dict[str, str]]:
    """(measurements, {form: why not measured}). ``bench(form)`` is one run of
    :func:`kerncraft.dbtools.microbench.bench_form` (or anything with its ``latency``,
    ``throughput`` and ``latency_kind``); ``before_run(k)`` is called before run k
    (the clock is calibrated again there)."""
    results: dict[str, list[Any]] = {form: [] for form in targets}
    skipped: dict[str, str] = {}
    total = len(targets) * runs
    done = 0
    for run in range(runs):
        if before_run is not None:
            before_run(run)
        for form in targets:
            done += 1
            if form in skipped:
                continue
            if progress:
                progress(f"[{done}/{total}] {form}")
            try:
                results[form].append(bench(form))
            except KerncraftError as exc:
                skipped[form] = str(exc).splitlines()[0]
    out = []
    for form, key in targets.items():
        if form in skipped or not results[form]:
            continue
        lat, lat_spread = _median_spread([r.latency for r in results[form]])
        tp, tp_spread = _median_spread([r.throughput for r in results[form]])
        out.append(FormMeasurement(form, key, lat, tp, results[form][0].latency_kind,
                                   len(results[form]), lat_spread, tp_spread))
    return out, skipped


# ------------------------------------------------------------------ deciding

def _differs(measured: float, prior: float, tolerance: float, floor: float) -> bool:
    gap = abs(measured - prior)
    return gap > floor and gap > tolerance * max(abs(measured), abs(prior))


def _is_eliminated(entry: Any) -> bool:
    return entry.latency == 0 and not any(isinstance(u, str) or u.ports for u in entry.uops)


def _latency_finding(model: Any, m: FormMeasurement, tolerance: float
                     ) -> tuple[MeasuredEntry | None, str, float | None]:
    """(finding, field, prior) of the latency, None if there is nothing to compare."""
    entry = model.forms[m.key]
    if m.latency is None or _FLAGS_ONLY.match(m.form) or _is_eliminated(entry):
        return None, "", None
    if m.latency_kind == "load":
        field, prior = "load_latency.gpr", float(model.load_latency.get("gpr", 0.0))
    elif m.latency_kind == "register":
        field, prior = "lat", float(entry.latency)
    else:
        return None, "", None         # read-modify-write: store forwarding + the operation
    if not _differs(m.latency, prior, tolerance, 0.5):
        return None, field, prior
    reason = ""
    if m.latency_spread > MAX_SPREAD:
        reason = f"runs disagree (spread {100 * m.latency_spread:.0f} %)"
    elif abs(m.latency - round(m.latency)) > WHOLE_CYCLE:
        reason = (f"{m.latency:.2f} cy is not a whole number of cycles: the clock or the "
                  "chain is suspect")
    written = None if reason else float(round(m.latency))
    return MeasuredEntry(m.key, field, round(m.latency, 3), prior, written,
                         round(m.latency_spread, 4), m.form, reason), field, prior


def _balanced(uops: Sequence[Any], ports: Sequence[str]) -> float:
    from kerncraft.incore.throughput import balance_ports
    return float(balance_ports([list(uops)], ports).throughput)


def _throughput_finding(model: Any, m: FormMeasurement, tolerance: float
                        ) -> tuple[MeasuredEntry | None, EntryChange | None]:
    """(finding, change of the entry) of the reciprocal throughput: the entry's own uops
    scaled, else a load/store entry rewritten (:mod:`kerncraft.dbtools.calibrate_memory`)."""
    entry = model.forms[m.key]
    cost = model.lookup_form(m.form)
    if m.throughput is None or cost is None or _is_eliminated(entry):
        return None, None
    prior = _balanced(cost.uops, model.ports)
    if prior <= 0 or not _differs(m.throughput, prior, tolerance, 0.05):
        return None, None
    written = round(m.throughput, 2)
    scale = written / prior
    # the operation's own uops; a second access uop (Zen 4's zmm halves) is the access
    # itself, which only the load/store rewrite below changes
    extras = extra_access_positions(model, entry.uops)
    own = [u for i, u in enumerate(entry.uops) if not isinstance(u, str) and i not in extras]
    rest = list(cost.uops)            # the header's load/store uops and composed parts
    for uop in own:
        if uop in rest:
            rest.remove(uop)
    scaled = [Uop(u.ports, u.cycles * scale) for u in own]
    reached = _balanced(scaled + rest, model.ports) if scaled else prior
    change: EntryChange | None = None
    reason = how = ""
    if m.throughput_spread > MAX_SPREAD:
        reason = f"runs disagree (spread {100 * m.throughput_spread:.0f} %)"
    elif not _differs(reached, m.throughput, tolerance, 0.05):
        how = f"the entry's own uops scaled by {scale:.3g} on their ports"
        kept = None if not extras else tuple(   # the access uops as they were
            u if isinstance(u, str) or i in extras else Uop(u.ports, round(u.cycles * scale, 4))
            for i, u in enumerate(entry.uops))
        change = EntryChange(throughput_scale=scale, throughput=written, uops=kept)
    else:
        rewrite = memory_rewrite(
            model, entry.uops, written,
            lambda value: not _differs(value, m.throughput, tolerance, 0.05))
        if rewrite is None:
            reason = (f"the entry's own uops scaled give {reached:.2f} cy and no rewrite of "
                      "its load/store uops on the documented ports reproduces the measurement")
        else:
            written, how = round(rewrite.reached, 2), rewrite.how
            change = EntryChange(uops=rewrite.uops, access=rewrite.access, throughput=written,
                                 how=how)
    finding = MeasuredEntry(m.key, "tp", round(m.throughput, 3), round(prior, 3),
                            None if reason else written, round(m.throughput_spread, 4),
                            m.form, reason, how)
    return finding, change


def decide(model: Any, measurements: Iterable[FormMeasurement], tolerance: float = 0.1
           ) -> Decision:
    """The entries and header values to write (module doc), with the record of every
    difference found."""
    changes: dict[str, EntryChange] = {}
    header: dict[str, Any] = {}
    written: list[MeasuredEntry] = []
    not_written: list[MeasuredEntry] = []
    agreeing = 0
    for m in measurements:
        lat, field, _ = _latency_finding(model, m, tolerance)
        tp, tp_change = _throughput_finding(model, m, tolerance)
        if lat is None and tp is None:
            agreeing += 1
            continue
        for finding in (lat, tp):
            if finding is not None:
                (written if finding.written is not None else not_written).append(finding)
        change = EntryChange()
        if lat is not None and lat.written is not None:
            if field == "load_latency.gpr":
                header["load_latency"] = {**dict(model.load_latency), "gpr": lat.written}
            else:
                change = change.merged(EntryChange(latency=lat.written))
        if tp_change is not None:
            change = change.merged(tp_change)
        if change != EntryChange():
            changes[m.key] = changes.get(m.key, EntryChange()).merged(change)
    return Decision(changes, header, tuple(written), tuple(not_written), agreeing)
