"""A host calibration of a port-model database: measured latencies and throughputs that
replace the documented figures where the host disagrees with them.

A calibration file is a port-model database (format: ``databases/README.md``) that
``extends`` the database the machine file names (the *prior*) and holds only the
entries the host measured differently, each group with a ``source`` saying where and
how they were measured. Its ``calibration`` header key (ignored by the database loader)
is the machine-readable record of what changed::

    arch: ZEN2
    extends: ZEN2
    calibration:
      prior: ZEN2
      host: "AMD EPYC 9R45 (family 26 model 2)"
      date: "2026-05-01"
      runs: 3
      forms_measured: 64
      agreeing: 61
      entries:
      - {key: "vaddsd xmm,xmm,xmm", field: lat, measured: 2.01, prior: 3.0, written: 2.0,
         spread: 0.01, form: "vaddsd xmm,xmm,xmm"}
      not_written:
      - {key: "movq mem,r64", field: tp, measured: 0.27, prior: 0.5, reason: "..."}
    instruction_groups:
    - source: "measured on ... by kerncraft-machine, 3 runs, spread up to 1.2 %"
      forms:
        "vaddsd xmm,xmm,xmm": {uops: [["FP2", "FP3"]], lat: 2.0, tp: 0.5}

A machine file refers to it under ``in-core model`` with :data:`CALIBRATION_KEY`
(``kerncraft calibration: host-calibration.yml``, a path relative to the machine file;
Kerncraft and other tools ignore keys they do not know there).
:func:`calibrated_database` gives the ECM pipeline the file to load instead of the
bundled database; the files are written by :mod:`kerncraft.dbtools.calibrate`.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Protocol

from kerncraft.errors import KerncraftError

__all__ = ["CALIBRATION_KEY", "MeasuredEntry", "Calibration", "read_calibration",
           "calibration_path", "calibrated_database", "calibration_bytes"]

#: The ``in-core model`` key of a machine file that names its calibration file.
CALIBRATION_KEY = "kerncraft calibration"


# the key in a machine file's text (omap '- key: value' or mapping 'key: value' spelling)
_KEY_LINE = re.compile(r"^[ \t]*(?:-[ \t]+)?kerncraft calibration:[ \t]*['\"]?([^'\"#\n]+?)"
                       r"['\"]?[ \t]*(?:#.*)?$", re.M)


class _MachineLike(Protocol):
    @property
    def path(self) -> str | None: ...

    @property
    def in_core_model(self) -> Mapping[str, str]: ...


@dataclass(frozen=True)
class MeasuredEntry:
    """One value the host measured differently from the prior database.

    ``field`` is ``lat``, ``tp`` or ``lat_other`` of the table entry ``key``, or a
    header value such as ``load_latency.gpr``; ``written`` is the value the file holds
    (None: the difference was found but not written, ``reason`` says why)."""

    key: str
    field: str
    measured: float
    prior: float
    written: float | None = None
    spread: float = 0.0
    form: str = ""
    reason: str = ""
    how: str = ""               # how a written throughput was put into the entry's uops

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"key": self.key, "field": self.field,
                               "measured": self.measured, "prior": self.prior}
        if self.written is not None:
            doc["written"] = self.written
            doc["spread"] = self.spread
        if self.form and self.form != self.key:
            doc["form"] = self.form
        if self.how:
            doc["how"] = self.how
        if self.reason:
            doc["reason"] = self.reason
        return doc


@dataclass(frozen=True)
class Calibration:
    """What a calibration file records about itself (its ``calibration`` key)."""

    path: str
    prior: str
    host: str
    date: str
    runs: int
    forms_measured: int
    entries: tuple[MeasuredEntry, ...]              # written into the file
    not_written: tuple[MeasuredEntry, ...] = ()     # differences left to the prior

    def describe(self) -> str:
        """The line of the ECM/ECMCPU report."""
        return (f"in-core: DB {self.prior} + {len(self.entries)} "
                f"entr{'y' if len(self.entries) == 1 else 'ies'} measured on "
                f"{self.host or 'the calibrating host'} ({os.path.basename(self.path)})")

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.path, "prior": self.prior, "host": self.host,
                "date": self.date, "runs": self.runs, "forms_measured": self.forms_measured,
                "entries": [e.to_dict() for e in self.entries],
                "not_written": [e.to_dict() for e in self.not_written]}


def read_calibration(path: str | os.PathLike) -> Calibration:
    """The ``calibration`` record of a calibration file; KerncraftError naming the file
    when it is missing, not a database or has no record."""
    from kerncraft.incore.dbfile import read_database_yaml

    file = Path(path)
    if not file.is_file():
        raise KerncraftError(f"in-core calibration file {file} not found")
    data = read_database_yaml(file)
    record = data.get("calibration")
    if not isinstance(record, dict):
        raise KerncraftError(f"{file}: not a calibration file (no 'calibration' record)")
    try:
        return Calibration(
            path=str(file), prior=str(record["prior"]), host=str(record.get("host", "")),
            date=str(record.get("date", "")), runs=int(record.get("runs", 0)),
            forms_measured=int(record.get("forms_measured", 0)),
            entries=tuple(_entry(e) for e in record.get("entries") or ()),
            not_written=tuple(_entry(e) for e in record.get("not_written") or ()))
    except (KeyError, TypeError, ValueError) as exc:
        raise KerncraftError(f"{file}: malformed 'calibration' record: {exc}") from None


def _entry(doc: Mapping[str, Any]) -> MeasuredEntry:
    written = doc.get("written")
    return MeasuredEntry(key=str(doc["key"]), field=str(doc["field"]),
                         measured=float(doc["measured"]), prior=float(doc["prior"]),
                         written=None if written is None else float(written),
                         spread=float(doc.get("spread", 0.0)), form=str(doc.get("form", "")),
                         reason=str(doc.get("reason", "")), how=str(doc.get("how", "")))


def calibration_path(machine: _MachineLike) -> Path | None:
    """The calibration file a machine file names (relative paths from the machine
    file's directory), or None when it names none."""
    name = dict(machine.in_core_model).get(CALIBRATION_KEY)
    if not name:
        return None
    path = Path(os.path.expanduser(str(name)))
    if not path.is_absolute() and machine.path:
        path = Path(machine.path).resolve().parent / path
    return path


def calibrated_database(machine: _MachineLike, database: str
                        ) -> tuple[str, Calibration | None]:
    """(database to load, calibration): the machine file's calibration file when it
    names one, else ``database`` itself. One KerncraftError with the path when the file
    is missing or was measured against another database than ``database``."""
    path = calibration_path(machine)
    if path is None:
        return database, None
    if not path.is_file():
        raise KerncraftError(f"machine file {machine.path or ''} names the in-core "
                             f"calibration '{path}' ({CALIBRATION_KEY}), which does not exist; "
                             "run 'kerncraft-incore calibrate' to write it or remove the key")
    calibration = read_calibration(path)
    if calibration.prior.upper() != database.upper():
        raise KerncraftError(f"in-core calibration {path} was measured against "
                             f"{calibration.prior}, but the machine file names {database}")
    from kerncraft.incore.database import load_database
    load_database(path)            # a malformed file fails here, with its path
    return str(path.resolve()), calibration


def calibration_bytes(machine_path: str | os.PathLike, machine_text: bytes) -> bytes:
    """The content of the calibration file a machine file's text names (found without
    parsing the YAML), for the keys of cached reports; ``b""`` if it names none."""
    match = _KEY_LINE.search(machine_text.decode("utf-8", "replace"))
    if not match:
        return b""
    path = Path(os.path.expanduser(match.group(1).strip()))
    if not path.is_absolute():
        path = Path(machine_path).resolve().parent / path
    try:
        return b"\0calibration\0" + path.read_bytes()
    except OSError:
        return b"\0calibration missing\0" + str(path).encode()
