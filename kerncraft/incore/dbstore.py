"""Port models built before, kept on disk so that a new loop skips building them.

Building a port model from its YAML files (the file and those it ``extends``) decodes
~2,500 instruction forms: ~25 ms, a fifth of ``kerncraft-incore`` on a new loop. A
model built once is kept below ``<cache dir>/incore-models/`` as a pickle, keyed by the
database file's path and bytes and the source of the code that builds port models; the
entry also names every file of its ``extends`` chain with the digest of its bytes, so
an edit of a parent is a miss too. Loading one takes ~5 ms. An unreadable, corrupt or
foreign entry is a miss; entries are written atomically (:mod:`kerncraft.diskstore`);
off as every store of built objects (:func:`kerncraft.diskstore.derived_entry_path`).
"""
from __future__ import annotations

import functools
import gc
import hashlib
from pathlib import Path
from typing import Any, Iterable

from kerncraft.diskstore import (derived_entry_path, files_digest, mark_used,
                                 read_pickled, write_pickled)

__all__ = ["FORMAT_VERSION", "load_built", "store_built"]

#: Bump when the stored entries change shape.
FORMAT_VERSION = "1"
_PACKAGE_DIR = Path(__file__).resolve().parents[1]


@functools.lru_cache(maxsize=1)
def builder_fingerprint() -> str:
    """sha256 over the in-core package's modules (the builder, the form keys, the ISA
    classes, the model types) and the package version."""
    paths = sorted((_PACKAGE_DIR / "incore").glob("*.py")) + [_PACKAGE_DIR / "version.py"]
    return files_digest(paths, FORMAT_VERSION)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _entry(path: Path) -> Path | None:
    key = hashlib.sha256(f"{builder_fingerprint()}\0{path}\0{_digest(path)}".encode())
    name = key.hexdigest()
    return derived_entry_path("incore-models", name[:2], f"{name}.model")


def _unpickle_without_gc(entry: Path) -> Any | None:
    # an entry holds ~7,000 tracked objects and no cycles: the collector's passes while
    # they are created find nothing and cost ~2 ms of the ~7 ms load
    enabled = gc.isenabled()
    gc.disable()
    try:
        return read_pickled(entry)
    finally:
        if enabled:
            gc.enable()


def load_built(path: Path) -> Any | None:
    """The port model built before from the database file ``path``, or None."""
    try:
        entry = _entry(path)
    except OSError:
        return None         # the file itself is unreadable: the build will say so
    doc = _unpickle_without_gc(entry) if entry is not None else None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_VERSION:
        return None
    try:       # the file itself is in the entry's key: only its parents are read again
        fresh = all(_digest(Path(name)) == digest for name, digest in doc["files"]
                    if Path(name) != path)
    except (OSError, KeyError, TypeError, ValueError):
        return None
    if not fresh:
        return None
    mark_used(entry)
    return doc.get("model")


def store_built(path: Path, model: Any, files: Iterable[str]) -> bool:
    """Keep ``model``, built from ``path`` and the ``files`` it extends (False: caching off
    or failed)."""
    entry = _entry(path)
    if entry is None:
        return False
    chain = [(name, _digest(Path(name))) for name in files]
    return write_pickled(entry, {"format": FORMAT_VERSION, "files": chain, "model": model})
