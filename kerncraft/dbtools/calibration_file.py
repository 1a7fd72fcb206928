"""Writing a calibration file: the prior database's entries with the measured values put
in, as a port-model database that ``extends`` the prior (format and reader:
:mod:`kerncraft.incore.calibration`; the decisions: :mod:`kerncraft.dbtools.calibrate`).

An entry is copied whole from the prior (uops with their placeholders, variants,
``mem_dest``, forwarding group ...), because a table entry replaces the inherited one
completely; only the measured fields change. A throughput measurement scales the
cycles of the entry's uops by measured / prior reciprocal throughput: the ports stay as
documented, and since the port balance is linear in the cycles the entry's throughput
becomes the measured one. A load/store entry whose header uops bound is written with
the uops :mod:`kerncraft.dbtools.calibrate_memory` gives it (``EntryChange.uops``,
``access``), and its ``source`` says how.

Scalars are written in JSON spelling (valid YAML flow style) so form keys with commas
and port names such as ``'0DV'`` need no further quoting rules.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from kerncraft.incore.calibration import MeasuredEntry
from kerncraft.incore.database import FormEntry
from kerncraft.incore.model import Uop

__all__ = ["EntryChange", "CalibrationRecord", "entry_spec", "render_calibration"]


@dataclass(frozen=True)
class EntryChange:
    """The measured fields of one table entry (None: keep the prior's)."""

    latency: float | None = None
    throughput_scale: float | None = None     # factor on every uop's cycles
    throughput: float | None = None           # the entry's new 'tp'
    bypass: str | None = None                 # forwarding group, with latency_other
    latency_other: float | None = None
    # a load/store form rewritten (kerncraft.dbtools.calibrate_memory): its new uops
    # (placeholders kept where unchanged; throughput_scale is not applied to them), what
    # it accesses once placeholders are written out, and how (the entry's source says it)
    uops: tuple[Uop | str, ...] | None = None
    access: str | None = None
    how: str | None = None

    def merged(self, other: "EntryChange") -> "EntryChange":
        """Both changes; ``other``'s fields win where both are set."""
        values = {name: getattr(other, name) if getattr(other, name) is not None
                  else getattr(self, name) for name in self.__dataclass_fields__}
        return EntryChange(**values)


@dataclass(frozen=True)
class CalibrationRecord:
    """Everything a calibration file says besides its entries."""

    prior: str                  # database name (or absolute path) extended
    arch: str                   # the prior's arch name (kept: reports and tools use it)
    host: str
    date: str
    tool: str                   # 'kerncraft-incore calibrate --quick', 'kerncraft-machine'
    runs: int
    tolerance: float
    core_hz: float
    load: str                   # load averages before and after measuring
    forms_measured: int
    agreeing: int
    entries: tuple[MeasuredEntry, ...]
    not_written: tuple[MeasuredEntry, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)   # pair counts, unknown forms


def _uop_spec(uop: Uop | str, order: Sequence[str], scale: float) -> Any:
    if isinstance(uop, str):
        return uop                                # placeholder: load, store, ...
    ports = sorted(uop.ports, key=lambda p: (order.index(p) if p in order else len(order), p))
    cycles = round(uop.cycles * scale, 4)
    return ports if cycles == 1 else {"ports": ports, "cycles": cycles}


def entry_spec(entry: FormEntry, order: Sequence[str], change: EntryChange | None = None,
               with_source: bool = False) -> dict[str, Any]:
    """The YAML mapping of ``entry`` with ``change`` applied (``order``: the model's
    ports, for a stable spelling of port sets)."""
    change = change or EntryChange()
    scale = change.throughput_scale or 1.0
    uops = [_uop_spec(u, order, scale) for u in entry.uops] if change.uops is None \
        else [_uop_spec(u, order, 1.0) for u in change.uops]
    spec: dict[str, Any] = {"uops": uops,
                            "lat": change.latency if change.latency is not None
                            else entry.latency}
    tp = change.throughput if change.throughput is not None else entry.throughput
    if tp is not None:
        spec["tp"] = tp
    bypass = change.bypass or entry.bypass
    other = change.latency_other if change.latency_other is not None else entry.latency_other
    if bypass is not None and other is not None:
        spec["bypass"], spec["lat_other"] = bypass, other
    if entry.mem_dest is not None:
        spec["mem_dest"] = entry.mem_dest
    if entry.load_latency is not None:
        spec["load_lat"] = entry.load_latency
    access = change.access or entry.access
    if access is not None:
        spec["access"] = access
    for name, variant in (("same_reg", entry.same_reg),
                          ("complex_address", entry.complex_address)):
        if variant is not None:        # not measured: as documented, with its source
            spec[name] = entry_spec(variant, order, with_source=True)
    if with_source:
        spec["source"] = entry.source
    return spec


def _flow(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def render_calibration(record: CalibrationRecord, groups: Sequence[tuple[str, Mapping[str, dict]]],
                       header: Mapping[str, Any] | None = None) -> str:
    """The calibration file's text: header, the ``calibration`` record and one
    instruction group per ``(source, {key: spec})`` that has entries."""
    lines = [f"# In-core calibration of {record.arch} on {record.host}, written by {record.tool}",
             f"# on {record.date}. Only what this host measured differently from "
             f"{record.prior} is here",
             "# (latency; reciprocal throughput as scaled uop cycles on the documented ports);",
             "# everything else comes from the prior through 'extends'. The 'calibration'",
             "# record lists the measured entries with their prior values.",
             f"arch: {_flow(record.arch)}",
             f"name: {_flow(f'{record.arch} calibrated on {record.host}')}",
             f"extends: {_flow(record.prior)}"]
    if "line_split" in (header or {}):
        lines.append("# line_split: the cache-line-split costs this host measured differently "
                     "(per kind")
        lines.append("# and width; the prior's others are inherited)")
    for key, value in (header or {}).items():
        lines.append(f"{key}: {_flow(value)}")
    lines += ["calibration:",
              f"  prior: {_flow(record.prior)}",
              f"  host: {_flow(record.host)}",
              f"  date: {_flow(record.date)}",
              f"  tool: {_flow(record.tool)}",
              f"  runs: {record.runs}",
              f"  tolerance: {record.tolerance:g}",
              f"  core_hz: {record.core_hz:.6g}",
              f"  load: {_flow(record.load)}",
              f"  forms_measured: {record.forms_measured}",
              f"  agreeing: {record.agreeing}"]
    for key, value in record.extra.items():
        lines.append(f"  {key}: {_flow(value)}")
    for name, items in (("entries", record.entries), ("not_written", record.not_written)):
        lines.append(f"  {name}:" + ("" if items else " []"))
        lines += [f"  - {_flow(item.to_dict())}" for item in items]
    written = [(source, forms) for source, forms in groups if forms]
    lines.append("instruction_groups:" + ("" if written else " []"))
    for source, forms in written:
        lines.append(f"- source: {_flow(source)}")
        lines.append("  forms:")
        lines += [f"    {_flow(key)}: {_flow(spec)}" for key, spec in forms.items()]
    return "\n".join(lines) + "\n"
