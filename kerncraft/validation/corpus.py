"""The replay corpus: recorded ``kerncraft-validate`` runs on disk, written and read.

``kerncraft-validate --record DIR`` keeps everything needed to predict every point
again without measuring (:mod:`kerncraft.validation.replay`), one folder per host run::

    DIR/<host-slug>-<date>/           e.g. amd-epyc-f26m2-2026-11-24
        points.json                   the points and the run's settings
        host.json                     the host (:mod:`kerncraft.validation.hostinfo`)
        summary.json                  the errors as recorded
        <machine file>                a byte copy, under its own name
        <files it names>              any file the machine file names by a relative path
                                      (a calibration file), at the same relative path
        kernels/<kernel>.c            the source text of every kernel

An existing folder is never written into: a second recording of the same host and
day gets ``-2``, ``-3``, ... and the command says so.

``points.json``: ``format`` (1), ``tool`` ({``kerncraft``: version, ``commit``}),
``machine_file``, ``referenced_files``, ``options`` (``cores``, ``roofline``,
``incore_model``, ``min_time``, ``repeats``, ``rounds``), ``targets``, ``skipped`` and
``points``, each with ``kernel``, ``kernel_file``, ``level``, ``defines``,
``working_set_bytes``, ``target_bytes``, ``measured_cy_per_cl`` (the fastest round),
``rounds`` (cy/CL of every round), ``clock_hz``, ``backend``, ``seconds``,
``measurement_notes`` and ``recorded`` (the predictions of the recording run:
``ecm_cy_per_cl``, ``roofline_cy_per_cl``, ``ecm_error``, ``model_level``).

``summary.json``: {``ECM``|``Roofline``: {``points``, ``median_abs_error``,
``within_10_percent_points``, ``beyond_30_percent_points``, ``levels``: [{``level``,
``points``, ``median_abs_error``, ``worst_error``, ``worst_kernel``}]}} (errors as
fractions).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from kerncraft.errors import KerncraftError
from kerncraft.userfiles import display_name, write_output
from kerncraft.report.json import finite_or_null
from kerncraft.validation.notes import NOTE_THRESHOLD

__all__ = ["FORMAT_VERSION", "POINTS_FILE", "HOST_FILE", "SUMMARY_FILE", "KERNEL_FOLDER",
           "RecordedPoint", "Recording", "host_slug", "reserve_recording",
           "referenced_files", "summary_document", "points_document", "write_recording",
           "load_recording", "find_recordings"]

FORMAT_VERSION = 1
POINTS_FILE, HOST_FILE, SUMMARY_FILE = "points.json", "host.json", "summary.json"
KERNEL_FOLDER = "kernels"
WITHIN, BEYOND = 0.10, NOTE_THRESHOLD


@dataclass(frozen=True)
class RecordedPoint:
    kernel: str
    kernel_file: str                    # relative to the recording
    level: str
    defines: Mapping[str, int]
    target_bytes: int | None
    measured: float                     # cy/CL, the fastest round
    rounds: tuple[float, ...]
    clock_hz: float | None
    backend: str
    seconds: float | None
    measurement_notes: tuple[str, ...]
    recorded_ecm: float | None          # the prediction of the recording run


@dataclass(frozen=True)
class Recording:
    path: Path
    machine_file: Path
    cores: int
    roofline: str
    incore_model: str
    points: tuple[RecordedPoint, ...]
    host: Mapping[str, Any]
    summary: Mapping[str, Any]
    tool: Mapping[str, Any]

    @property
    def name(self) -> str:
        return self.path.name

    def kernel_source(self, point: RecordedPoint) -> str:
        return _read_text(self.path / point.kernel_file)


# ---------------------------------------------------------------- writing

def host_slug(host: Mapping[str, Any]) -> str:
    """'amd-epyc-f26m2': the model name, then the CPUID family and model."""
    name = re.sub(r"\((r|tm)\)", "", str(host.get("model_name") or host.get("vendor") or "host"),
                  flags=re.IGNORECASE)
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "host"
    if host.get("family") is not None and host.get("model") is not None:
        slug += f"-f{host['family']}m{host['model']}"
    return slug


def reserve_recording(parent: str | Path, name: str) -> tuple[Path, str | None]:
    """Create ``parent/name`` for a new recording, or ``name-2``, ``name-3``, ... when it
    exists; (the folder, a message when it is not ``name``)."""
    parent = Path(parent)
    if (parent / POINTS_FILE).exists():
        raise KerncraftError(f"{parent} is itself a recording (it has {POINTS_FILE}); give "
                             "the folder that holds recordings")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for number in range(1, 1000):
            path = parent / (name if number == 1 else f"{name}-{number}")
            try:
                path.mkdir()
            except FileExistsError:
                continue
            note = None if number == 1 else (f"{parent / name} exists (never overwritten); "
                                             f"recording into {path}")
            return path, note
    except OSError as exc:
        raise KerncraftError(f"cannot create a recording folder in {parent}: "
                             f"{exc.strerror}") from None
    raise KerncraftError(f"{parent} holds 999 recordings named {name}; choose another folder")


_VALUE = re.compile(r"^\s*(?:-\s+)?(?:[^#:'\"]+:\s+)?['\"]?([^\s'\"#]+)['\"]?\s*(?:#.*)?$")


def referenced_files(machine_path: str | Path) -> list[str]:
    """Files the machine file names by a path relative to its folder that exist there (a
    calibration file of the in-core model, ...), as written in the file."""
    machine_path = Path(machine_path).resolve()
    folder = machine_path.parent
    found = set()
    for line in _read_text(machine_path).splitlines():
        match = _VALUE.match(line)
        value = match.group(1) if match else ""
        if not value or value.startswith(("/", "~")) or ".." in Path(value).parts:
            continue
        if "/" not in value and "." not in value.strip("."):
            continue        # a number or a name, not a file
        target = (folder / value).resolve()
        if target != machine_path and target.is_file() and folder in target.parents:
            found.add(value)
    return sorted(found)


def _errors(points, model: str) -> list[float]:
    return [abs(p.error(model)) for p in points]


def summary_document(result) -> dict[str, Any]:
    """``summary.json`` of a :class:`~kerncraft.validation.campaign.ValidationResult`."""
    document = {}
    for summary in result.summaries:
        errors = _errors(result.points, summary.model)
        document[summary.model] = {
            "points": summary.points, "median_abs_error": summary.median_abs_error,
            "within_10_percent_points": sum(e <= WITHIN + 1e-12 for e in errors),
            "beyond_30_percent_points": sum(e > BEYOND for e in errors),
            "levels": [vars(lvl).copy() for lvl in summary.levels]}
    return document


def _point_entry(point, kernel_file: str) -> dict[str, Any]:
    m = point.measurement
    return {"kernel": point.kernel, "kernel_file": kernel_file, "level": point.level,
            "defines": dict(point.size.defines), "working_set_bytes": point.size.working_set,
            "target_bytes": point.size.target, "measured_cy_per_cl": point.measured,
            "rounds": list(m.rounds) or [point.measured], "clock_hz": m.clock_hz,
            "backend": m.backend, "seconds": m.seconds, "measurement_notes": list(m.notes),
            "recorded": {"ecm_cy_per_cl": point.prediction.ecm,
                         "roofline_cy_per_cl": point.prediction.roofline,
                         "ecm_error": point.ecm_error, "model_level": point.size.model_level}}


def points_document(result, machine_file: str, kernel_files: Mapping[str, str],
                    referenced: Iterable[str], tool: Mapping[str, Any]) -> dict[str, Any]:
    """``points.json`` of a result; ``kernel_files``: kernel label -> file in the recording."""
    options = result.options
    return {"format": FORMAT_VERSION, "tool": dict(tool), "machine_file": machine_file,
            "referenced_files": list(referenced),
            "options": {"cores": options.cores, "roofline": options.roofline,
                        "incore_model": options.incore_model, "min_time": options.min_time,
                        "repeats": options.repeats, "rounds": options.rounds},
            "targets": dict(result.targets),
            "points": [_point_entry(p, kernel_files[p.kernel]) for p in result.points],
            "skipped": [vars(s).copy() for s in result.skipped]}


def _kernel_files(labels: Iterable[str]) -> dict[str, str]:
    """A file name in ``kernels/`` per kernel label (a path label keeps its stem)."""
    files: dict[str, str] = {}
    for label in labels:
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(label).stem) or "kernel"
        name, number = stem, 1
        while f"{KERNEL_FOLDER}/{name}.c" in files.values():
            number += 1
            name = f"{stem}-{number}"
        files[label] = f"{KERNEL_FOLDER}/{name}.c"
    return files


def _json_bytes(document: Mapping[str, Any]) -> bytes:
    return (json.dumps(finite_or_null(document), indent=2, allow_nan=False) + "\n").encode()


def write_recording(path: Path, result, machine_path: str | Path,
                    kernel_sources: Mapping[str, str], host: Mapping[str, Any],
                    tool: Mapping[str, Any]) -> None:
    """Write a recording of ``result`` into the (reserved, empty) folder ``path``;
    ``kernel_sources``: kernel label -> source text of every kernel with a point."""
    machine_path = Path(machine_path)
    referenced = referenced_files(machine_path)
    kernel_files = _kernel_files(dict.fromkeys(p.kernel for p in result.points))
    try:
        files = {machine_path.name: machine_path.read_bytes()}
        files.update({rel: (machine_path.parent / rel).read_bytes() for rel in referenced})
    except OSError as exc:
        raise KerncraftError(f"cannot copy the machine file {exc.filename}: "
                             f"{exc.strerror}") from None
    files.update({rel: kernel_sources[label].encode() for label, rel in kernel_files.items()})
    files[POINTS_FILE] = _json_bytes(points_document(result, machine_path.name, kernel_files,
                                                     referenced, tool))
    files[HOST_FILE] = _json_bytes(host)
    files[SUMMARY_FILE] = _json_bytes(summary_document(result))
    try:
        for rel in {str(Path(rel).parent) for rel in files}:
            (path / rel).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise KerncraftError(f"cannot write the recording {path}: {exc.strerror}") from None
    for rel, data in files.items():     # each file whole or not at all (a full disk)
        write_output(path / rel, data, f"the recording file {display_name(path / rel)}")


# ---------------------------------------------------------------- reading

def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KerncraftError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
                             ) from None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise KerncraftError(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from None


def _recorded_point(entry: Mapping[str, Any]) -> RecordedPoint:
    recorded = entry.get("recorded") or {}
    return RecordedPoint(
        str(entry["kernel"]), str(entry["kernel_file"]), str(entry["level"]),
        {str(k): int(v) for k, v in entry["defines"].items()}, entry.get("target_bytes"),
        float(entry["measured_cy_per_cl"]),
        tuple(float(v) for v in entry.get("rounds") or ()), entry.get("clock_hz"),
        str(entry.get("backend") or "unknown"), entry.get("seconds"),
        tuple(entry.get("measurement_notes") or ()), recorded.get("ecm_cy_per_cl"))


def load_recording(path: str | Path) -> Recording:
    """The recording in folder ``path`` (a KerncraftError names what is wrong)."""
    path = Path(path)
    doc = _read_json(path / POINTS_FILE)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_VERSION:
        raise KerncraftError(f"{path / POINTS_FILE}: not a recording of format "
                             f"{FORMAT_VERSION}")
    try:
        points = tuple(_recorded_point(entry) for entry in doc["points"])
        options = doc["options"]
        machine = path / doc["machine_file"]
        cores, roofline = int(options["cores"]), str(options["roofline"])
        incore = str(options.get("incore_model") or "kerncraft")
    except (KeyError, TypeError, ValueError) as exc:
        raise KerncraftError(f"{path / POINTS_FILE}: malformed ({type(exc).__name__}: "
                             f"{exc})") from None
    if not machine.is_file():
        raise KerncraftError(f"{path}: the recorded machine file {machine.name} is missing")
    return Recording(path, machine, cores, roofline, incore, points,
                     _read_json(path / HOST_FILE), _read_json(path / SUMMARY_FILE),
                     doc.get("tool") or {})


def find_recordings(folders: Iterable[str | Path]) -> list[Path]:
    """Every recording folder at or below ``folders`` (sorted per folder)."""
    found: list[Path] = []
    for folder in map(Path, folders):
        if not folder.is_dir():
            raise KerncraftError(f"no such folder: {folder}")
        below = ([folder] if (folder / POINTS_FILE).is_file()
                 else sorted(p.parent for p in folder.rglob(POINTS_FILE)))
        if not below:
            raise KerncraftError(f"no recording in {folder} (a recording is a folder with "
                                 f"{POINTS_FILE})")
        found += [p for p in below if p not in found]
    return found
