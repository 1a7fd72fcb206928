"""Persistent, content-keyed cache of in-core results (block selection + analysis).

Why: a repeated ``kerncraft -p ECM ...`` run spends most of its time importing
and running the assembly parser, the block selector and the dependency-graph
analysis (networkx), although the numbers the models need -- a dozen floats
and the per-port cycles -- only depend on the assembly text and the analyzer.
This module stores those essentials as a small JSON document next to the
compiler cache (``<cache dir>/incore/``, see :mod:`kerncraft.diskstore`),
so a repeated run needs neither the parser nor networkx.

The key is the sha256 of everything the result can depend on:

* the assembly text (which already encodes the compiler, its version, the flags
  and the generated C source, see :mod:`kerncraft.compilation.compiler`),
* the kernel source and the constants that became literals (block selection
  compares the loop's pointer increments with the kernel's strides),
* the block options (``--asm-block``, ``--pointer-increment``,
  ``--ignore-unknown``) and the in-core backend with its arguments,
* the content of every port-model database file (``extends`` chains included),
* the *analyzer version*: the content of the source files that compute the
  result (``kerncraft/incore/``, ``kerncraft/kernel/``, ``kerncraft/compilation/``,
  ``kerncraft/models/incore_prediction.py``) plus ``kerncraft.__version__``, so
  editing the analyzer invalidates the cache without a version bump.

Cache hits return :class:`CachedSelection` / :class:`CachedAnalysis`: light
objects with the stored fields that behave like the real
:class:`~kerncraft.compilation.asm_block.BlockSelection` / ``InCoreAnalysis`` for any other
attribute by recomputing the full result on first use (``-v`` reports need the
instruction table). Like the compiler cache it is never needed for
correctness: ``KERNCRAFT_NO_CACHE=1`` disables it, an unreadable or corrupt
entry is a miss, an unwritable directory silently disables storing, and
entries are written to a temporary file and renamed into place.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from kerncraft.incore.analysis import InCoreAnalysis

__all__ = ["FORMAT_VERSION", "analyzer_fingerprint", "database_fingerprint", "result_key",
           "load", "store", "CachedSelection", "CachedAnalysis", "selection_essentials",
           "analysis_essentials"]

#: Bump when the stored document changes shape.
FORMAT_VERSION = "5"

_PACKAGE_DIR = Path(__file__).resolve().parent.parent          # .../kerncraft
#: Where the bundled port-model databases live (same as
#: ``kerncraft.incore.database.DATABASE_DIR``; not imported from there because
#: a cache hit should not need that module).
DATABASE_DIR = _PACKAGE_DIR / "incore" / "databases"
# Source that decides the in-core result (relative to the package directory).
_ANALYZER_TREES = ("incore", "kernel", "compilation")
_ANALYZER_FILES = ("models/incore_prediction.py",)


@functools.lru_cache(maxsize=1)
def analyzer_fingerprint() -> str:
    """sha256 over the analyzer's source files and the package version."""
    from kerncraft.version import __version__

    files: list[str] = []
    for tree in _ANALYZER_TREES:
        for root, dirs, names in os.walk(_PACKAGE_DIR / tree):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files.extend(os.path.join(root, n) for n in names
                         if n.endswith((".py", ".yml", ".yaml", ".json")))
    files.extend(str(_PACKAGE_DIR / f) for f in _ANALYZER_FILES)
    h = hashlib.sha256(__version__.encode())
    for path in sorted(files):
        h.update(os.path.relpath(path, _PACKAGE_DIR).encode() + b"\0")
        try:
            with open(path, "rb") as fh:
                h.update(fh.read())
        except OSError:
            h.update(b"<missing>")
        h.update(b"\0\1")
    return h.hexdigest()


@functools.lru_cache(maxsize=16)
def database_fingerprint(arch: str) -> str:
    """sha256 of a port-model database file and the files it ``extends``.

    (The bundled databases are also part of :func:`analyzer_fingerprint`; this
    keeps the key right for a database given by path.)
    """
    import re

    h = hashlib.sha256(arch.encode())
    seen: set[str] = set()
    todo = [arch]
    while todo:
        name = todo.pop()
        path = Path(name) if name.lower().endswith((".yml", ".yaml")) or os.sep in name else \
            next((p for p in _bundled_files() if p.stem.upper() == name.upper()), None)
        if path is None or str(path) in seen:
            h.update(f"<unresolved {name}>".encode())
            continue
        seen.add(str(path))
        try:
            raw = path.read_bytes()
        except OSError:
            h.update(f"<missing {name}>".encode())
            continue
        h.update(raw)
        match = re.search(rb"^extends:\s*['\"]?([^'\"\s#]+)", raw, re.M)
        if match:
            todo.append(match.group(1).decode("utf-8", "replace"))
    return h.hexdigest()


def bundled_databases() -> list[str]:
    """Names of the bundled databases, as ``database.available_databases()`` gives them."""
    return sorted(p.stem.upper() for p in _bundled_files())


@functools.lru_cache(maxsize=1)
def _bundled_files() -> tuple[Path, ...]:
    """The bundled database files (listed once per process: a sweep asks per point)."""
    return tuple(sorted(DATABASE_DIR.glob("*.yml")))


def result_key(*parts: object) -> str:
    """sha256 of the format version, the analyzer fingerprint and ``parts`` (by repr)."""
    h = hashlib.sha256(f"kerncraft-incore-result/{FORMAT_VERSION}".encode())
    h.update(analyzer_fingerprint().encode())
    for part in parts:
        h.update(b"\0\1")
        h.update(part.encode("utf-8", "surrogatepass") if isinstance(part, str)
                 else repr(part).encode())
    return h.hexdigest()


def _entry_path(key: str) -> Path | None:
    from kerncraft.diskstore import entry_path

    return entry_path("incore", key[:2], f"{key}.json")


def load(key: str) -> dict | None:
    """The stored document of ``key``, or None (miss, disabled, unreadable, corrupt)."""
    path = _entry_path(key)
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_VERSION or doc.get("key") != key:
        return None
    from kerncraft.diskstore import mark_used

    mark_used(path)
    return doc


def store(key: str, doc: Mapping[str, Any]) -> bool:
    """Write ``doc`` for ``key`` atomically; False if caching is off or fails."""
    path = _entry_path(key)
    if path is None:
        return False
    try:
        text = json.dumps({"format": FORMAT_VERSION, "key": key, **doc}, indent=1,
                          allow_nan=False)
    except (TypeError, ValueError):
        return False
    from kerncraft.diskstore import atomic_write

    return atomic_write(path, text)


# --------------------------------------------------------------- stored essentials
_SELECTION_FIELDS = ("index", "pointer_increment", "unroll", "simd_width", "outer_unroll",
                     "iterations_per_asm_iteration", "mode", "explanation")
_ANALYSIS_FIELDS = ("arch", "throughput", "critical_path", "lcd", "frontend", "unknown_forms",
                    "notes", "ports", "bottleneck_ports", "balancing", "fused_uops", "rob_size",
                    "code_block_bytes", "memory_issue")


def selection_essentials(selection) -> dict:
    """The JSON-able part of a BlockSelection the models use (``describe()`` as text)."""
    doc = {f: getattr(selection, f) for f in _SELECTION_FIELDS}
    doc["describe"] = selection.describe()
    doc["instruction_lines"] = [ins.line_number for ins in selection.instructions]
    return doc


def analysis_essentials(analysis: InCoreAnalysis) -> dict:
    """The JSON-able numbers of an in-core analysis the models use."""
    doc = {f: _jsonable(getattr(analysis, f)) for f in _ANALYSIS_FIELDS}
    doc["port_totals"] = [[p, c] for p, c in analysis.port_totals.items()]
    doc["vector_accesses"] = [[a.kind, a.vector_bytes, a.count]
                              for a in analysis.vector_accesses]
    doc["line_split_costs"] = [[c.kind, c.vector_bytes, list(c.ports), c.cycles]
                               for c in analysis.line_split_costs]
    layout = analysis.loop_layout
    doc["loop_layout"] = layout.to_dict() if layout is not None else None
    return doc


def _jsonable(value):
    if isinstance(value, tuple):
        return list(value)
    return value


class _Lazy:
    """Stored fields as attributes; anything else from the full result, computed once."""

    def __init__(self, fields: Mapping[str, Any], full: Callable[[], Any]):
        self.__dict__.update(fields)
        self.__dict__["_full_fn"] = full

    def __getattr__(self, name: str) -> Any:
        # a stand-in: a field it does not store comes from the full result
        if name.startswith("__") or name == "_full_fn":
            raise AttributeError(name)
        full = self.__dict__.get("_full")
        if full is None:
            full = self.__dict__["_full_fn"]()
            self.__dict__["_full"] = full
        return getattr(full, name)

    @property
    def cached(self) -> bool:
        return True

    def __reduce__(self):
        # Sent to another process (a sweep on an executor): the stored fields travel,
        # the recomputation does not (it closes over this process's kernel and files);
        # there a field that is not stored is an AttributeError naming the cause.
        fields = {k: v for k, v in self.__dict__.items() if k not in ("_full_fn", "_full")}
        return (_detached, (type(self), fields))


def _not_stored(name: str):
    def missing():
        raise AttributeError(f"this in-core result came from another process and stores "
                             f"only the fields the models use, not {name!r}")
    return missing


def _detached(cls: type, fields: Mapping[str, Any]) -> "_Lazy":
    """A stand-in rebuilt from its stored fields (the counterpart of ``__reduce__``)."""
    obj = cls.__new__(cls)
    obj.__dict__.update(fields)
    obj.__dict__["_full_fn"] = _not_stored(cls.__name__)
    return obj


class CachedSelection(_Lazy):
    """A BlockSelection restored from the cache (see the module doc)."""

    def __init__(self, doc: Mapping[str, Any], full: Callable[[], Any]):
        fields = {f: doc[f] for f in _SELECTION_FIELDS}
        fields["_describe"] = doc["describe"]
        fields["instruction_lines"] = tuple(doc.get("instruction_lines", ()))
        super().__init__(fields, full)

    def describe(self) -> str:
        return self._describe

    def __repr__(self) -> str:
        return (f"CachedSelection(index={self.index}, iterations_per_asm_iteration="
                f"{self.iterations_per_asm_iteration}, unroll={self.unroll}, "
                f"simd_width={self.simd_width})")


class CachedAnalysis(_Lazy):
    """An in-core analysis restored from the cache (see the module doc)."""

    def __init__(self, doc: Mapping[str, Any], full: Callable[[], Any]):
        fields = {f: doc.get(f) for f in _ANALYSIS_FIELDS}
        for f in ("unknown_forms", "notes", "ports", "bottleneck_ports", "fused_uops"):
            fields[f] = tuple(fields[f] or ())
        fields["port_totals"] = {p: c for p, c in doc["port_totals"]}
        from kerncraft.incore.linesplit import SplitCost, VectorAccess   # light module
        fields["vector_accesses"] = tuple(VectorAccess(k, int(w), int(n))
                                          for k, w, n in doc["vector_accesses"])
        fields["line_split_costs"] = tuple(SplitCost(k, int(w), tuple(p), float(c))
                                           for k, w, p, c in doc["line_split_costs"])
        layout = doc["loop_layout"]
        if layout is not None:
            from kerncraft.incore.codeblocks import LoopLayout   # light module
            layout = LoopLayout(**{**layout, "blocks": tuple(layout["blocks"])})
        fields["loop_layout"] = layout
        super().__init__(fields, full)

    @property
    def prediction(self) -> float:
        from kerncraft.incore.model import loop_bound   # light module
        return loop_bound(self.throughput, self.lcd, self.frontend, self.memory_issue)

    def __repr__(self) -> str:
        return (f"CachedAnalysis(arch={self.arch!r}, throughput={self.throughput}, "
                f"critical_path={self.critical_path}, lcd={self.lcd})")


def restore(doc: Mapping[str, Any], full: Callable[[], tuple[Any, Any]]
            ) -> tuple[CachedSelection, CachedAnalysis]:
    """(selection, analysis) from a stored document; ``full()`` recomputes both."""
    memo: list = []

    def full_result():
        if not memo:
            memo.append(full())
        return memo[0]

    selection = CachedSelection(doc["selection"], lambda: full_result()[0])
    analysis = CachedAnalysis(doc["analysis"], lambda: full_result()[1])
    return selection, analysis
