"""Cache-line-split costs in a calibration (:mod:`kerncraft.dbtools.calibration_run`):
time vector loads and stores that cross a 64-byte line against the same accesses
aligned to the line, and write the database's ``line_split`` table
(``databases/README.md``) where the host differs from the prior.

Microbenchmark (one loop per kind, width and offset, :mod:`kerncraft.dbtools.microbench`'s
clock-calibrated harness): a stream of :data:`LINES` independent ``vmovupd`` loads
(destinations rotating over 12 registers) or stores (one source register) to the
consecutive L1-resident cache lines of one 4-KiB page, each access starting
:data:`SPLIT_OFFSET` bytes into its line (8 bytes before the line end: every width from
16 bytes up crosses into the next line, and the last access into the next page) or at
the line start (never crosses). That is the mix a contiguous stream of split accesses
has -- one page crossing per 64 line crossings, for every width and offset -- and the
page crossing matters: on AMD Zen 5 a split store that stays in its page costs nothing
extra (1.00 cy, as aligned ones to a new line each), one that crosses a page about 25
cy, so the stream's split stores average 1.35-1.45 cy. Loads and stores run in
separate loops (no 4K aliasing between them).

Cost (per kind and width): the table charges ``cycles`` per split access evenly on its
``ports`` (:mod:`kerncraft.incore.linesplit`), on top of what the form's own uops put
there. The ports are the prior's: those its table names for the kind (a pseudo-port such
as ``L1D``), else its ``load_data_ports`` (``load_ports`` without them) for loads and
``store_data_ports`` for stores -- the paths a second access of the same line pair
occupies, and the only ports a calibration could name without inventing one. The
cost is chosen so that the model reproduces the measured split time ``t_split``:

    cycles = |ports| x (t_split - b),   b = the model's busiest port of those per access

(``b``: the port-balanced load of the form's uops in the database being calibrated, with
the entries measured before in). Where the ports are load-data paths the form uses,
``b`` is the aligned time and ``cycles = |ports| x (t_split - t_aligned)``; a pseudo-port
aligned accesses never use has ``b = 0`` and ``cycles = t_split``, as the hand-measured
tables of ICX.yml and ZEN5.yml say. When the split access is no slower than the aligned
one (within the tolerance), splits cost nothing here and the cost is 0.

Written only where the cost changes the model's time of a split access by more than the
tolerance (and 0.05 cy) against the prior's cost (0 without one), and the runs agree.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from kerncraft.errors import KerncraftError
from kerncraft.incore.calibration import MeasuredEntry

__all__ = ["LINES", "SPLIT_OFFSET", "SplitTiming", "LineSplitDecision", "split_cases",
           "access_form", "access_body", "measure_split_timings", "split_ports",
           "decide_line_split", "default_split_measure"]

LINE = 64
#: Bytes into a line where a split access starts (8 B before the line end).
SPLIT_OFFSET = 56
#: Accesses per loop: one 4-KiB page of lines (all in L1), the last split one crossing
#: into the next page.
LINES = 4096 // LINE
# the pages of the harness's 64-KiB, page-aligned buffer the loads and stores walk
_LOAD_BASE = 4096
_STORE_BASE = 16384
_BYTES = {"xmm": 16, "ymm": 32, "zmm": 64}
_MAX_SPREAD = 0.10            # as kerncraft.dbtools.calibrate.MAX_SPREAD

Measure = Callable[[str, str, bool], float]   # (kind, width, split) -> cy per access


@dataclass(frozen=True)
class SplitTiming:
    """Median cycles per access of split and aligned accesses of one kind and width."""

    kind: str                 # 'load' | 'store'
    width: str                # 'xmm' | 'ymm' | 'zmm'
    split: float
    aligned: float
    runs: int = 1
    spread: float = 0.0       # the larger (max - min) / median of the two


@dataclass(frozen=True)
class LineSplitDecision:
    """The ``line_split`` header table to write (None: nothing) and the record."""

    table: Mapping[str, Any] | None
    written: tuple[MeasuredEntry, ...]
    not_written: tuple[MeasuredEntry, ...]
    agreeing: int


def split_cases(host_flags: Iterable[str]) -> list[tuple[str, str]]:
    """(kind, width) to time: every vector width the CPU ``flags`` have (AVX and later;
    none without AVX, as :func:`kerncraft.dbtools.calibrate.standard_forms`)."""
    flags = set(host_flags)
    if "avx" not in flags:
        return []
    widths = ["xmm", "ymm"] + (["zmm"] if "avx512f" in flags else [])
    return [(kind, w) for kind in ("load", "store") for w in widths]


def access_form(kind: str, width: str) -> str:
    """The instruction form the microbenchmark times."""
    return f"vmovupd mem,{width}" if kind == "load" else f"vmovupd {width},mem"


def access_body(kind: str, width: str, split: bool) -> list[str]:
    """The loop body (module doc): independent loads or stores, all split or none."""
    offset = SPLIT_OFFSET if split else 0
    body = []
    for i in range(LINES):
        line = i * LINE + offset
        if kind == "load":
            body.append(f"        vmovupd {_LOAD_BASE + line}(%r14), %{width}{i % 12}")
        else:
            body.append(f"        vmovupd %{width}13, {_STORE_BASE + line}(%r14)")
    return body


def _median_spread(values: Sequence[float]) -> tuple[float, float]:
    median = statistics.median(values)
    return median, ((max(values) - min(values)) / median if median > 0 else 0.0)


def measure_split_timings(cases: Sequence[tuple[str, str]], measure: Measure, runs: int,
                          progress: Callable[[str], None] | None = None
                          ) -> list[SplitTiming]:
    """Median and spread over ``runs`` (all cases once, then again, so a disturbance
    hits one run of a case); ``measure(kind, width, split)`` is one run."""
    found: dict[tuple[str, str, bool], list[float]] = {}
    for run in range(runs):
        for kind, width in cases:
            if progress:
                progress(f"[line splits {run + 1}/{runs}] {kind} {width}")
            for split in (False, True):
                found.setdefault((kind, width, split), []).append(measure(kind, width, split))
    out = []
    for kind, width in cases:
        split, s_spread = _median_spread(found[(kind, width, True)])
        aligned, a_spread = _median_spread(found[(kind, width, False)])
        out.append(SplitTiming(kind, width, split, aligned, runs, max(s_spread, a_spread)))
    return out


def split_ports(model: Any, kind: str, width: str | None = None) -> tuple[str, ...]:
    """The ports a split access's extra cycles go on (module doc): the prior's table's
    for the kind and width (ICX: zmm loads on ``L1D``, narrower ones on the load-data
    ports), else for the kind, else its load-data (or load) ports, resp. store-data
    ports."""
    same_kind = [c for c in model.line_split if c.kind == kind]
    for cost in same_kind:
        if width is not None and cost.vector_bytes == _BYTES[width]:
            return tuple(cost.ports)
    if same_kind:
        return tuple(same_kind[0].ports)
    if kind == "load":
        return tuple(model.load_data_ports or model.load_ports)
    return tuple(model.store_data_ports)


def _modelled(model: Any, form: str, extra: Mapping[str, float]) -> tuple[float, dict]:
    """(time of one access, port totals) of ``form`` in ``model`` with ``extra``
    cycles per port added after balancing (as the analysis adds split cycles)."""
    from kerncraft.incore.throughput import balance_ports
    cost = model.lookup_form(form, simple_address=True)
    if cost is None:
        raise KerncraftError(f"the database has no entry for {form!r}")
    totals = dict(balance_ports([list(cost.uops)], model.ports).port_totals)
    for port, cycles in extra.items():
        totals[port] = totals.get(port, 0.0) + cycles
    return max(totals.values(), default=0.0), totals


def _prior_cost(model: Any, kind: str, width: str) -> tuple[float, tuple[str, ...]]:
    for cost in model.line_split:
        if cost.kind == kind and cost.vector_bytes == _BYTES[width]:
            return float(cost.cycles), tuple(cost.ports)
    return 0.0, ()


def _spread_evenly(cycles: float, ports: Sequence[str]) -> dict[str, float]:
    return {p: cycles / len(ports) for p in ports} if ports else {}


def _differs(a: float, b: float, tolerance: float, floor: float = 0.05) -> bool:
    gap = abs(a - b)
    return gap > floor and gap > tolerance * max(abs(a), abs(b))


def _finding(model: Any, t: SplitTiming, tolerance: float) -> tuple[MeasuredEntry, bool, tuple]:
    """(record, whether to write, ports) of one kind and width."""
    form = access_form(t.kind, t.width)
    field = f"line_split.{t.kind}.{t.width}"
    ports = split_ports(model, t.kind, t.width)
    prior, prior_ports = _prior_cost(model, t.kind, t.width)
    _, base = _modelled(model, form, {})
    busiest = max((base.get(p, 0.0) for p in ports), default=0.0)
    extra = t.split - t.aligned
    free = not _differs(t.split, t.aligned, tolerance)   # no measurable split cost
    cycles = 0.0 if free else len(ports) * max(0.0, t.split - busiest)
    t_prior = _modelled(model, form, _spread_evenly(prior, prior_ports))[0]
    t_new = _modelled(model, form, _spread_evenly(cycles, ports))[0]
    names = "/".join(ports)
    how = (f"split {t.split:.2f} cy, aligned {t.aligned:.2f} cy per {t.kind} "
           f"({extra:+.2f}); " + ("no split cost measurable" if free else
                                  f"the form puts {busiest:.2f} cy on {names}: "
                                  f"{len(ports)} x ({t.split:.2f} - {busiest:.2f})")
           + f" = {cycles:.2f} cy on {names}; a split {t.kind} modelled {t_new:.2f} cy "
           f"(prior {t_prior:.2f})")
    reason = ""
    write = _differs(t_new, t_prior, tolerance)
    if write and t.spread > _MAX_SPREAD:
        reason, write = f"runs disagree (spread {100 * t.spread:.0f} %)", False
    entry = MeasuredEntry(form, field, round(cycles, 3), prior,
                          round(cycles, 2) if write else None, round(t.spread, 4), "",
                          reason, how)
    return entry, write, ports


def decide_line_split(model: Any, timings: Sequence[SplitTiming], tolerance: float,
                      source: str) -> LineSplitDecision:
    """The table entries to write (module doc); ``model`` is the database being
    calibrated with the entries measured so far in (its ``line_split`` the prior's)."""
    table: dict[str, Any] = {}
    written: list[MeasuredEntry] = []
    not_written: list[MeasuredEntry] = []
    agreeing = 0
    for t in timings:
        try:
            entry, write, ports = _finding(model, t, tolerance)
        except KerncraftError as exc:
            not_written.append(MeasuredEntry(access_form(t.kind, t.width),
                                             f"line_split.{t.kind}.{t.width}", 0.0, 0.0,
                                             reason=str(exc)))
            continue
        if write:
            table.setdefault(t.kind, {})[t.width] = {"ports": list(ports),
                                                     "cycles": entry.written}
            written.append(entry)
        elif entry.reason:
            not_written.append(entry)
        else:
            agreeing += 1
    full = {"source": source, **table} if table else None
    return LineSplitDecision(full, tuple(written), tuple(not_written), agreeing)


def default_split_measure(clock: Callable[[], float], cpu: int | None, quick: bool,
                          realtime: bool) -> Measure:
    """One run of one case with the clock-calibrated harness (cycles per access)."""
    from kerncraft.dbtools.microbench import measure_body

    def run(kind: str, width: str, split: bool) -> float:
        return measure_body(access_body(kind, width, split), core_hz=clock(), width=width,
                            cpu=cpu, quick=quick, realtime=realtime)
    return run
