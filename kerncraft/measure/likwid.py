"""likwid: probe whether counters work, and read likwid-perfctr / likwid-bench output.

Why a probe
-----------
likwid-perfctr can be installed and still useless: in a VM (or with no
access to the MSRs / perf_event) it lists zero counters, or fails when it
tries to program them. The benchmark mode must then fall back to the
timing backend (:mod:`kerncraft.measure.timing`) instead of failing late, so
:func:`probe_likwid` asks likwid itself: ``likwid-perfctr -e`` must list
counters, and a measurement of ``true`` must produce a result table.

Output formats read here
------------------------
*likwid-perfctr* (with or without the marker API ``-m``), both the default
table output and the CSV output of ``-O``. Per group (and region) it prints
a raw table (events with their counter register, one column per hardware
thread; with the marker API preceded by a 'Region Info' table with the
RDTSC runtime and call count), optionally a STAT table (sum/min/max/avg
over threads), a metric table and a metric STAT table. CSV output announces
each table with a ``TABLE,[Region <name>,]Group <n> <kind>,<group>,<rows>``
line and pads every line with commas. STAT tables are skipped (they can be
recomputed from the per-thread values). Values likwid could not read are
printed as ``-`` and become NaN. Lines that belong to neither format (the
measured program's own output) are ignored.

*likwid-bench*: the ``Key:<tabs>value`` summary block, notably
``MByte/s`` (decimal megabytes, counting the kernel's nominal loads and
stores per iteration, without write-allocate traffic).
"""
from __future__ import annotations

import math
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from kerncraft.errors import ToolError

__all__ = ["RegionResult", "PerfctrOutput", "LikwidProbe", "LikwidBenchResult",
           "parse_perfctr_output", "parse_perfctr_csv", "parse_perfctr_table",
           "parse_likwid_bench", "probe_likwid", "likwid_available", "counters_listed"]

_HEADERS = ("Region Info", "Event", "Metric")
_TABLE_HEADER = re.compile(r"^(?:Region (?P<region>.*?), )?Group (?P<index>\d+): (?P<group>\S+)\s*$")
_CSV_GROUP = re.compile(r"^Group (?P<index>\d+) (?P<kind>Raw|Metric)(?P<stat> STAT)?$")


@dataclass(frozen=True)
class RegionResult:
    """Counters and metrics of one group in one marker region.

    ``region`` is None for a measurement without the marker API (the whole
    run). Every per-thread tuple is ordered like ``threads`` (column labels
    such as 'HWThread 0'). ``counters`` maps event name -> values,
    ``registers`` event name -> counter register ('FIXC0', 'PMC1', ...);
    ``by_register`` maps (event, register) -> values and keeps an event that
    was measured on several counters (uncore boxes) apart, where ``counters``
    holds only the last of them.
    """

    region: str | None
    group: str
    group_index: int
    threads: tuple[str, ...]
    runtime: tuple[float, ...] = ()          # RDTSC runtime per thread [s]
    call_count: tuple[int, ...] = ()
    counters: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    registers: Mapping[str, str] = field(default_factory=dict)
    metrics: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    by_register: Mapping[tuple[str, str], tuple[float, ...]] = field(default_factory=dict)

    def counter(self, event: str, thread: int | None = None) -> float:
        """One thread's value of ``event``, or the sum over threads (NaNs skipped)."""
        values = self.counters[event]
        if thread is not None:
            return values[thread]
        return sum(v for v in values if not math.isnan(v))

    def metric(self, name: str, thread: int = 0) -> float:
        return self.metrics[name][thread]


@dataclass(frozen=True)
class PerfctrOutput:
    """Parsed likwid-perfctr output: CPU header and one entry per (region, group)."""

    cpu_name: str | None
    cpu_type: str | None
    cpu_clock_hz: float | None
    regions: tuple[RegionResult, ...]
    format: str                               # 'csv' or 'table'

    def region(self, name: str | None, group: str | None = None) -> RegionResult:
        """The result of region ``name`` (None: no marker API) and ``group``."""
        for entry in self.regions:
            if entry.region == name and (group is None or entry.group == group):
                return entry
        known = ", ".join(f"{r.region}/{r.group}" for r in self.regions) or "none"
        raise KeyError(f"no region {name!r} (group {group!r}) in likwid output; found: {known}")

    @property
    def region_names(self) -> tuple[str | None, ...]:
        return tuple(dict.fromkeys(r.region for r in self.regions))


# ---------------------------------------------------------------- values

def _number(text: str) -> float:
    text = text.strip()
    if text in ("-", "", "nan", "NaN", "-nan"):
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise ToolError(f"unexpected value {text!r} in likwid output") from None


def _clock(text: str) -> float | None:
    match = re.search(r"([\d.]+)\s*([GM])Hz", text)
    if not match:
        return None
    return float(match.group(1)) * (1e9 if match.group(2) == "G" else 1e6)


class _Builder:
    """Collects the rows of one (region, group) while the parser walks tables."""

    def __init__(self, region: str | None, group: str, index: int):
        self.region, self.group, self.index = region, group, index
        self.threads: tuple[str, ...] = ()
        self.info: dict[str, tuple[float, ...]] = {}
        self.counters: dict[str, tuple[float, ...]] = {}
        self.registers: dict[str, str] = {}
        self.by_register: dict[tuple[str, str], tuple[float, ...]] = {}
        self.metrics: dict[str, tuple[float, ...]] = {}

    def add_row(self, table: str, cells: Sequence[str]) -> None:
        if table == "Region Info":
            self.info[cells[0]] = tuple(_number(c) for c in cells[1:])
        elif table == "Event":
            name, register, values = cells[0], cells[1], tuple(_number(c) for c in cells[2:])
            if name == "Runtime (RDTSC) [s]":       # printed as an event row without metrics
                self.info.setdefault("RDTSC Runtime [s]", values)
            else:
                self.counters[name], self.registers[name] = values, register
                self.by_register[(name, register)] = values
        elif table == "Metric":
            self.metrics[cells[0]] = tuple(_number(c) for c in cells[1:])

    def build(self) -> RegionResult:
        runtime = self.info.get("RDTSC Runtime [s]") or self.metrics.get("Runtime (RDTSC) [s]", ())
        calls = tuple(int(c) for c in self.info.get("call count", ()) if not math.isnan(c))
        return RegionResult(self.region, self.group, self.index, self.threads, tuple(runtime),
                            calls, self.counters, self.registers, self.metrics,
                            self.by_register)


def _header_info(lines: Sequence[str]) -> tuple[str | None, str | None, float | None]:
    info: dict[str, str] = {}
    for line in lines:          # the last occurrence wins: CSV repeats it more precisely
        for key in ("CPU name:", "CPU type:", "CPU clock:"):
            if line.startswith(key):
                info[key] = line[len(key):].strip(" \t,")
    clock = info.get("CPU clock:")
    return info.get("CPU name:"), info.get("CPU type:"), _clock(clock) if clock else None


# ---------------------------------------------------------------- CSV (-O)

def parse_perfctr_csv(text: str) -> PerfctrOutput:
    """Parse ``likwid-perfctr -O`` output (see module docstring)."""
    builders: dict[tuple[str | None, int], _Builder] = {}
    current: _Builder | None = None
    table: str | None = None
    skip = False
    for raw in text.splitlines():
        cells = raw.rstrip().split(",")
        while cells and cells[-1] == "":
            cells.pop()
        if not cells:
            continue
        if cells[0] == "TABLE" and len(cells) >= 4:
            region = cells[1][len("Region "):] if cells[1].startswith("Region ") else None
            spec, group = (cells[2], cells[3]) if region is not None else (cells[1], cells[2])
            match = _CSV_GROUP.match(spec)
            if match is None:
                raise ToolError(f"unexpected likwid CSV table header: {raw.strip()}")
            index = int(match["index"])
            current = builders.setdefault((region, index), _Builder(region, group, index))
            skip, table = bool(match["stat"]), None
            continue
        if current is None or skip or cells[0] == "STRUCT":
            continue
        if cells[0] in _HEADERS:
            table = cells[0]
            first = 2 if table == "Event" else 1
            current.threads = current.threads or tuple(cells[first:])
            continue
        if table is not None and len(cells) >= 2:
            current.add_row(table, cells)
    name, cpu_type, clock = _header_info(text.splitlines())
    return PerfctrOutput(name, cpu_type, clock, tuple(b.build() for b in builders.values()), "csv")


# ---------------------------------------------------------------- tables

def parse_perfctr_table(text: str) -> PerfctrOutput:
    """Parse the default (ASCII table) output of likwid-perfctr."""
    builders: dict[tuple[str | None, int], _Builder] = {}
    current: _Builder | None = None
    table: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        header = _TABLE_HEADER.match(line)
        if header:
            index = int(header["index"])
            key = (header["region"], index)
            current = builders.setdefault(key, _Builder(header["region"], header["group"], index))
            table = None
            continue
        if current is None or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] in _HEADERS:
            stat = "Sum" in cells          # STAT tables: Sum | Min | Max | Avg columns
            table = None if stat else cells[0]
            if not stat:
                first = 2 if table == "Event" else 1
                current.threads = current.threads or tuple(cells[first:])
            continue
        if table is not None:
            current.add_row(table, cells)
    name, cpu_type, clock = _header_info(text.splitlines())
    return PerfctrOutput(name, cpu_type, clock, tuple(b.build() for b in builders.values()),
                         "table")


def parse_perfctr_output(text: str) -> PerfctrOutput:
    """Parse likwid-perfctr output in either format (CSV if it has TABLE lines)."""
    if re.search(r"^TABLE,", text, re.MULTILINE):
        result = parse_perfctr_csv(text)
    else:
        result = parse_perfctr_table(text)
    if not result.regions:
        raise ToolError("no likwid-perfctr result tables found in the output")
    return result


# ---------------------------------------------------------------- likwid-bench

@dataclass(frozen=True)
class LikwidBenchResult:
    """Summary of one likwid-bench run (bandwidth in B/s, decimal)."""

    test: str | None
    bandwidth: float                  # MByte/s x 1e6
    seconds: float
    iterations: int | None
    size_bytes: int | None            # total working set (all threads, all streams)
    threads: int | None
    data_volume: float | None
    flops_per_second: float | None
    values: Mapping[str, str] = field(default_factory=dict)   # every 'Key: value' line


def parse_likwid_bench(text: str) -> LikwidBenchResult:
    """Read likwid-bench's result block (ToolError if 'MByte/s' is missing)."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        match = re.match(r"^([A-Za-z][\w ./()-]*?):\s+(\S.*?)\s*$", line)
        if match and match.group(1) not in values:
            values[match.group(1)] = match.group(2)
    if "MByte/s" not in values:
        raise ToolError("likwid-bench output has no 'MByte/s' line:\n" + text[-400:])

    def num(key: str) -> float | None:
        raw = values.get(key)
        return None if raw is None else _number(raw.split()[0])

    threads = re.search(r"Using (\d+) threads", text)
    test = re.search(r"^Test:\s*(\S+)", text, re.MULTILINE)
    mflops = num("MFlops/s")
    iterations, size = num("Iterations"), num("Size (Byte)")
    return LikwidBenchResult(
        test=test.group(1) if test else None, bandwidth=num("MByte/s") * 1e6,
        seconds=num("Time") or math.nan, iterations=None if iterations is None else int(iterations),
        size_bytes=None if size is None else int(size),
        threads=int(threads.group(1)) if threads else None, data_volume=num("Data volume (Byte)"),
        flops_per_second=None if mflops is None else mflops * 1e6, values=values)


# ---------------------------------------------------------------- probe

@dataclass(frozen=True)
class LikwidProbe:
    """What of likwid works on this host; ``reason`` explains a missing piece."""

    perfctr: bool                     # hardware counters can be read
    bench: bool                       # likwid-bench is installed
    topology: bool                    # likwid-topology is installed
    counters: int | None              # counters likwid-perfctr lists (None: unknown)
    reason: str

    def __bool__(self) -> bool:
        return self.perfctr


Runner = Callable[[Sequence[str]], "tuple[int, str]"]


def _run(argv: Sequence[str], timeout: float = 30.0) -> tuple[int, str]:
    try:
        out = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout,
                             check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return -1, str(exc)
    return out.returncode, out.stdout + out.stderr


def counters_listed(text: str) -> int | None:
    """Number of counters in ``likwid-perfctr -e`` output ('has N counters')."""
    match = re.search(r"has (\d+) counters", text)
    return int(match.group(1)) if match else None


def probe_likwid(cpu: int = 0, run: Runner | None = None,
                 which: Callable[[str], str | None] = shutil.which) -> LikwidProbe:
    """Find out whether likwid-perfctr can measure on this host.

    ``run`` (argv -> (exit code, output)) and ``which`` can be replaced in
    tests. The probe lists the counters (``-e``); only if there are some, it
    measures ``true`` with the first listed group and demands a result table.
    """
    run = run or _run
    bench, topology = which("likwid-bench") is not None, which("likwid-topology") is not None
    perfctr = which("likwid-perfctr")

    def result(ok: bool, counters: int | None, reason: str) -> LikwidProbe:
        return LikwidProbe(ok, bench, topology, counters, reason)

    if perfctr is None:
        return result(False, None, "likwid-perfctr is not installed")
    code, listing = run([perfctr, "-e"])
    counters = counters_listed(listing)
    if code != 0 or counters is None:
        return result(False, counters, f"'likwid-perfctr -e' failed: {listing.strip()[:200]}")
    if counters == 0:
        return result(False, 0, "likwid-perfctr lists no hardware counters on this CPU "
                                "(typical for a virtual machine); using the timing backend")
    code, groups = run([perfctr, "-a"])
    names = re.findall(r"^\s*(\w+)\s{2,}", groups, re.MULTILINE)
    group = "CLOCK" if "CLOCK" in names else next((n for n in names if n != "Group"), None)
    true = which("true") or "/bin/true"
    if group is None:
        return result(False, counters, "likwid-perfctr lists no performance groups")
    code, out = run([perfctr, "-C", str(cpu), "-g", group, "-O", true])
    if code != 0 or "TABLE," not in out:
        lines = [ln.strip() for ln in out.splitlines() if ln.strip() and not ln.startswith("-")]
        why = next((ln for ln in lines if re.search(r"cannot|error|fail|denied", ln, re.I)),
                   lines[-1] if lines else f"exit code {code}")
        return result(False, counters, f"likwid-perfctr cannot measure: {why[:200]}")
    return result(True, counters, f"likwid-perfctr works (group {group} measured)")


def likwid_available(cpu: int = 0) -> bool:
    """True if likwid-perfctr can read hardware counters here (else use the timing backend)."""
    return probe_likwid(cpu).perfctr
