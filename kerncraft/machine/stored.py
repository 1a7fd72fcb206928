"""Machine models read before, kept on disk so that a new run skips the YAML.

Reading a machine file costs the import of two YAML libraries (~30 ms) and the
composition and checks of the file (~15 ms for a published file), about a tenth of
a first ``kerncraft`` run of a new kernel. A model built once is kept below
``<cache dir>/machines/`` as a pickle, keyed by the file's bytes, its path (the model
and its messages name it) and the source of the code that builds it, so an edit of
either is a miss. An unreadable, corrupt or foreign entry is a miss too (the file is
then read as usual); entries are written atomically (:mod:`kerncraft.diskstore`). Off with
``KERNCRAFT_NO_CACHE`` and, as the point plans, with ``KERNCRAFT_NO_REPORT_CACHE``.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from kerncraft.diskstore import (derived_entry_path, files_digest, mark_used,
                                 read_pickled, write_pickled)
from kerncraft.machine.model import MachineModel

__all__ = ["FORMAT_VERSION", "load_stored", "store_model"]

#: Bump when the stored entries change shape.
FORMAT_VERSION = "1"
_PACKAGE_DIR = Path(__file__).resolve().parents[1]
# the code a machine model is built by: this package, the unit parser, the version
_BUILDER_FILES = ("units.py", "errors.py", "version.py")


@functools.lru_cache(maxsize=1)
def builder_fingerprint() -> str:
    """sha256 over the source of the machine package and the modules it parses with."""
    paths = sorted((_PACKAGE_DIR / "machine").glob("*.py"))
    return files_digest(paths + [_PACKAGE_DIR / name for name in _BUILDER_FILES],
                        FORMAT_VERSION)


def _entry_key(data: bytes, path: str) -> str:
    digest = hashlib.sha256(builder_fingerprint().encode())
    digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(data)
    return digest.hexdigest()


def _entry(key: str) -> Path | None:
    return derived_entry_path("machines", key[:2], f"{key}.machine")


def load_stored(data: bytes, path: str) -> MachineModel | None:
    """The model built before from these bytes at ``path``, or None."""
    key = _entry_key(data, path)
    entry = _entry(key)
    if entry is None:
        return None
    doc = read_pickled(entry)
    if not isinstance(doc, dict) or doc.get("key") != key \
            or not isinstance(doc.get("model"), MachineModel):
        return None
    mark_used(entry)
    return doc["model"]


def store_model(data: bytes, path: str, model: MachineModel) -> bool:
    """Keep ``model`` built from ``data`` at ``path`` (False: caching off or failed)."""
    key = _entry_key(data, path)
    entry = _entry(key)
    if entry is None:
        return False
    return write_pickled(entry, {"key": key, "model": model})
