"""Persistent cache of finished model reports, one file of -D points per run.

Why: a model run spends most of its time importing sympy and the kernel front
end (pycparser), and on the symbolic analysis, although what it prints for a
point depends only on its inputs. A repeated point is therefore read back from
the run's points file below ``<cache dir>/points/`` (see :mod:`kerncraft.diskstore`) as the text and the
``--json`` data the cold run produced: a warm run imports neither sympy,
networkx nor pycparser, and parses no YAML.

An entry is found by the sha256 of everything the report can depend on
(:func:`run_key`):

* the content of every source and data file of the package and the version
  (:func:`source_fingerprint`), so any edit of kerncraft invalidates all entries,
* the kernel text and its file name as given (both appear in the output), the
  machine file's bytes and resolved path,
* the models and every :class:`~kerncraft.options.AnalysisOptions` field,
* the host CPU (``-march=native`` flags compile differently elsewhere),
* the -D values of the point (:func:`point_key`),

and it is only used while the compilers it was computed with are unchanged:
the run's :class:`Manifest` lists them (``shutil.which`` result, size and
mtime), checked once per run. ``KERNCRAFT_NO_CACHE=1`` disables every cache,
``KERNCRAFT_NO_REPORT_CACHE=1`` only this one (the test suite sets it: tests that
patch kerncraft's functions must not read reports stored by others). An
unreadable, corrupt or foreign entry is a miss; entries are written atomically.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from kerncraft.diskstore import (atomic_write, cache_directory, entry_path, mark_used,
                                 note_written)

if TYPE_CHECKING:
    from kerncraft.options import AnalysisOptions

__all__ = ["FORMAT_VERSION", "NO_REPORT_CACHE_ENV", "Manifest", "StoredPoint", "ToolStamp",
           "enabled", "host_fingerprint",
           "load_manifest", "load_output", "load_point", "load_points", "output_key",
           "point_key", "run_key", "source_fingerprint", "store_manifest", "store_output",
           "store_point", "stored_points", "tool_stamp"]

#: Bump when the stored documents change shape.
FORMAT_VERSION = "2"

_PACKAGE_DIR = Path(__file__).resolve().parents[1]           # .../kerncraft
#: Environment variable that turns off only the report caches of this module.
NO_REPORT_CACHE_ENV = "KERNCRAFT_NO_REPORT_CACHE"


def enabled() -> bool:
    """True unless caching is off (``KERNCRAFT_NO_CACHE`` or ``KERNCRAFT_NO_REPORT_CACHE``)."""
    if os.environ.get(NO_REPORT_CACHE_ENV, "").strip() not in ("", "0"):
        return False
    return cache_directory() is not None


def _entry(*parts: str) -> Path | None:
    return entry_path(*parts) if enabled() else None
_SOURCE_SUFFIXES = (".py", ".yml", ".yaml", ".json")


@functools.lru_cache(maxsize=1)
def source_fingerprint() -> str:
    """sha256 over every source and data file of the package and its version.

    Reading the ~1.7 MB takes ~2 ms, less than trusting modification times
    would save, and it cannot miss an edit.
    """
    from kerncraft.version import __version__

    h = hashlib.sha256(__version__.encode())
    files = []
    for root, dirs, names in os.walk(_PACKAGE_DIR):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        files.extend(os.path.join(root, n) for n in names if n.endswith(_SOURCE_SUFFIXES))
    for path in sorted(files):
        h.update(os.path.relpath(path, _PACKAGE_DIR).encode() + b"\0")
        with open(path, "rb") as handle:
            h.update(handle.read())
        h.update(b"\0\1")
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def host_fingerprint() -> str:
    """CPU identity (architecture, model name and feature flags of the first CPU)."""
    parts = [platform.machine()]
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key = line.split(":", 1)[0].strip()
                if key in ("model name", "flags", "Features", "CPU part", "vendor_id"):
                    parts.append(line.strip())
                if not line.strip() and len(parts) > 1:
                    break      # first processor is enough
    except OSError:
        parts.append(platform.processor())
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def run_key(kernel_source: str, kernel_name: str | None, machine_path: str,
            machine_bytes: bytes, models: Sequence[str], options: AnalysisOptions) -> str:
    """sha256 of one run's inputs except the -D values (see the module doc).

    ``options`` is an :class:`~kerncraft.options.AnalysisOptions`; its ``repr``
    lists every field, so a new option changes the key without a change here.
    """
    h = hashlib.sha256(f"kerncraft-points/{FORMAT_VERSION}".encode())
    for part in (source_fingerprint(), host_fingerprint(), kernel_source, str(kernel_name),
                 machine_path, "\0".join(models), repr(options)):
        h.update(b"\0\1")
        h.update(part.encode("utf-8", "surrogatepass"))
    h.update(b"\0\1")
    h.update(machine_bytes)
    return h.hexdigest()


def point_key(bindings: Mapping[str, int]) -> str:
    """Name of a point's entry: its -D values in the kernel's constant order."""
    text = json.dumps([[name, value] for name, value in bindings.items()])
    return hashlib.sha256(text.encode()).hexdigest()[:40]


# ------------------------------------------------------------------ manifest
@dataclass(frozen=True)
class ToolStamp:
    """An external program a run depended on, as found on PATH (path None: absent)."""

    name: str
    path: str | None
    mtime_ns: int = 0
    size: int = 0

    def current(self) -> bool:
        """True if ``name`` still resolves to the same, unmodified file."""
        return tool_stamp(self.name) == self


def tool_stamp(name: str) -> ToolStamp:
    """Where ``name`` is on PATH now, with the size and mtime of that file."""
    path = shutil.which(name)
    if path is None:
        return ToolStamp(name, None)
    try:
        st = os.stat(path)
    except OSError:
        return ToolStamp(name, None)
    return ToolStamp(name, path, st.st_mtime_ns, st.st_size)


@dataclass(frozen=True)
class Manifest:
    """What a run key's points share: the kernel's constants (to complete -D
    points without parsing the kernel) and the tools the reports depend on."""

    constants: tuple[str, ...]
    tools: tuple[ToolStamp, ...]

    def current(self) -> bool:
        return all(tool.current() for tool in self.tools)

    @property
    def digest(self) -> str:
        """Part of every point's entry name: points stored with other tools are
        never read, even after the manifest was rewritten for the current ones."""
        text = json.dumps([list(self.constants), [list(vars(t).values()) for t in self.tools]])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _run_dir(run: str) -> Path | None:
    return _entry("points", run[:2], run)


def _read(path: Path | None, run: str) -> dict | None:
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, ValueError, UnicodeDecodeError):
        return None     # absent, or half-written by a crashed older version: a miss
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_VERSION or doc.get("run") != run:
        return None
    mark_used(path)
    return doc


def _write(path: Path | None, run: str, doc: Mapping[str, Any]) -> bool:
    if path is None:
        return False
    try:
        text = json.dumps({"format": FORMAT_VERSION, "run": run, **doc}, default=str)
    except (TypeError, ValueError):
        return False    # not representable (e.g. odd dict keys): this point is not cached
    return atomic_write(path, text)


def load_manifest(run: str) -> Manifest | None:
    """The manifest of ``run`` if stored and its tools are unchanged, else None."""
    directory = _run_dir(run)
    doc = _read(directory / "manifest.json" if directory else None, run)
    if doc is None:
        return None
    try:
        manifest = Manifest(tuple(doc["constants"]),
                            tuple(ToolStamp(*tool) for tool in doc["tools"]))
    except (KeyError, TypeError):
        return None
    return manifest if manifest.current() else None


def store_manifest(run: str, manifest: Manifest) -> bool:
    directory = _run_dir(run)
    return _write(directory / "manifest.json" if directory else None, run,
                  {"constants": list(manifest.constants),
                   "tools": [[t.name, t.path, t.mtime_ns, t.size] for t in manifest.tools]})


# -------------------------------------------------------------------- points
@dataclass(frozen=True)
class StoredPoint:
    """What a run prints and writes for one -D point.

    ``reports`` holds ``(model, text, data)`` per model, ``data`` as the JSON
    document holds it (non-finite numbers already null); ``summary`` is the
    ``-v`` kernel summary or None.
    """

    bindings: Mapping[str, int]
    summary: str | None
    reports: tuple[tuple[str, str, Mapping[str, Any]], ...]


def _points_path(run: str, manifest: Manifest) -> Path | None:
    """One file holds every point of a run (JSON Lines, ``point key TAB document``):
    a sweep of a thousand points is one entry, not a thousand files."""
    directory = _run_dir(run)
    return directory / f"{manifest.digest}-points.jsonl" if directory else None


def _stored_lines(path: Path | None, wanted: set[str]) -> dict[str, dict]:
    """The documents of the ``wanted`` point keys in ``path`` (the last line of a key
    wins; a torn or foreign line is a miss). Only wanted lines are parsed."""
    if path is None:
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    found: dict[str, dict] = {}
    for line in reversed(lines):
        key, _tab, text = line.partition("\t")
        if key not in wanted or key in found:
            continue
        try:
            doc = json.loads(text)
        except ValueError:
            continue        # torn by a crash: the point is a miss
        if isinstance(doc, dict) and doc.get("format") == FORMAT_VERSION:
            found[key] = doc
    if found:
        mark_used(path)
    return found


def _as_point(doc: Mapping[str, Any] | None, request: Mapping[str, int]) -> StoredPoint | None:
    if doc is None or doc.get("bindings") != dict(request):
        return None         # a different point with the same key (or a stale entry)
    return StoredPoint(doc["point_bindings"], doc["summary"],
                       tuple((m, text, data) for m, text, data in doc["reports"]))


def load_point(run: str, manifest: Manifest, bindings: Mapping[str, int]
               ) -> StoredPoint | None:
    """The stored point, or None (miss, disabled, unreadable)."""
    key = point_key(bindings)
    return _as_point(_stored_lines(_points_path(run, manifest), {key}).get(key), bindings)


def store_point(run: str, manifest: Manifest, point: StoredPoint,
                request: Mapping[str, int]) -> bool:
    """Store ``point`` under the -D values it was asked for (``request``): one line
    appended in one write, so concurrent runs interleave whole lines."""
    path = _points_path(run, manifest)
    if path is None:
        return False
    try:
        text = json.dumps({"format": FORMAT_VERSION, "bindings": dict(request),
                           "point_bindings": dict(point.bindings), "summary": point.summary,
                           "reports": [list(r) for r in point.reports]}, default=str)
    except (TypeError, ValueError):
        return False    # not representable (e.g. odd dict keys): this point is not cached
    line = f"{point_key(request)}\t{text}\n".encode("utf-8", "surrogatepass")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        return False
    note_written(len(line))
    return True


def load_points(run: str, manifest: Manifest, requests: Iterable[Mapping[str, int]]
                ) -> list[StoredPoint] | None:
    """Every requested point, or None as soon as one is missing (one read of the file)."""
    points = stored_points(run, manifest, requests)
    return None if any(p is None for p in points) else points


def stored_points(run: str, manifest: Manifest, requests: Iterable[Mapping[str, int]]
                  ) -> list[StoredPoint | None]:
    """Each requested point or None where it is missing (one read of the file)."""
    requests = list(requests)
    keys = [point_key(r) for r in requests]
    docs = _stored_lines(_points_path(run, manifest), set(keys))
    return [_as_point(docs.get(key), request) for key, request in zip(keys, requests)]


# ------------------------------------------------------------- whole outputs
def output_key(command: str, *parts: str | bytes) -> str:
    """Key of a whole command output (``kerncraft-incore``): the package source,
    the host and ``parts`` (file contents and every option, in a fixed order)."""
    h = hashlib.sha256(f"kerncraft-output/{FORMAT_VERSION}/{command}".encode())
    for part in (source_fingerprint(), host_fingerprint(), *parts):
        h.update(b"\0\1")
        h.update(part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _output_path(key: str) -> Path | None:
    return _entry("outputs", key[:2], f"{key}.json")


def load_output(key: str) -> dict[str, str] | None:
    """The stored texts of an output (name -> text), or None."""
    doc = _read(_output_path(key), key)
    texts = doc.get("texts") if doc is not None else None
    return texts if isinstance(texts, dict) else None


def store_output(key: str, texts: Mapping[str, str]) -> bool:
    return _write(_output_path(key), key, {"texts": dict(texts)})
