"""The one on-disk cache of the toolkit: where it lives, how entries are written, how big it grows.

Compiler output, in-core analysis results, parsed port-model databases and finished
reports are cached by content hash so that repeated runs and sweeps skip work. The
cache is outside the user's folders: ``$KERNCRAFT_CACHE_DIR``, else
``$XDG_CACHE_HOME/kerncraft``, else ``~/.cache/kerncraft``; without a usable home
(``HOME`` unset, empty, relative or ``/``, as in some batch jobs and containers) the
platform's temporary directory, one folder per user (``kerncraft-cache-UID``), so
nothing is ever created at ``/.cache``. ``KERNCRAFT_NO_CACHE=1`` disables it.

Entries are written to a temporary file and renamed, so concurrent runs never see
half-written entries, and any failure to write only turns caching off for that entry.

The cache is bounded: ``KERNCRAFT_CACHE_MAX_MB`` (default 200; ``0`` means no bound).
A run that writes checks the total size at its first write (unless a run did so
within the hour) and then after every twentieth of the bound it writes; above the
bound the least recently used entries go until the cache is at 80 % of it (the margin keeps every later write from evicting
again). A cache hit marks its entry used (:func:`mark_used`, the file's mtime).
``kerncraft cache info|clear`` shows and empties it (:func:`cache_usage`,
:func:`clear_cache`).
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import os
import pickle
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from kerncraft.errors import KerncraftError

__all__ = ["CacheUsage", "DEFAULT_LIMIT_MB", "atomic_write", "cache_directory", "cache_limit",
           "cache_usage", "clear_cache", "derived_entry_path", "enforce_limit", "entry_path",
           "files_digest", "mark_used",
           "note_written", "read_pickled", "write_pickled"]

#: Default bound of the cache in MB (``KERNCRAFT_CACHE_MAX_MB`` overrides it).
DEFAULT_LIMIT_MB = 200.0
#: Fraction of the bound the cache is brought down to when it is exceeded.
_EVICT_TO = 0.8
#: A temporary file older than this was left by a crashed writer.
_STALE_TMP_SECONDS = 3600.0
#: The first write of a run walks the cache only if no run did within this time.
_SCAN_INTERVAL = 3600.0
#: Empty file at the top of the cache whose mtime is the last walk's time.
_SCAN_STAMP = ".last-size-check"


def _home_cache() -> Path | None:
    """``~/.cache`` when the home directory is usable, else None."""
    home = os.environ.get("HOME", "")
    if not home or not os.path.isabs(home) or Path(home) == Path("/"):
        return None
    return Path(home) / ".cache"


def cache_directory() -> Path | None:
    """The cache directory, or None if caching is disabled (KERNCRAFT_NO_CACHE)."""
    if os.environ.get("KERNCRAFT_NO_CACHE", "").strip() not in ("", "0"):
        return None
    explicit = os.environ.get("KERNCRAFT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "kerncraft"
    home = _home_cache()
    if home is not None:
        return home / "kerncraft"
    uid = os.getuid() if hasattr(os, "getuid") else os.getpid()
    return Path(tempfile.gettempdir()) / f"kerncraft-cache-{uid}"


def cache_limit() -> int | None:
    """The bound in bytes (None: unbounded). A malformed value is an error, not ignored."""
    text = os.environ.get("KERNCRAFT_CACHE_MAX_MB", "").strip()
    if not text:
        return int(DEFAULT_LIMIT_MB * 1e6)
    try:
        megabytes = float(text)
    except ValueError:
        raise KerncraftError(f"KERNCRAFT_CACHE_MAX_MB={text!r} is not a number of megabytes "
                         "(0 for no bound)") from None
    if megabytes < 0:
        raise KerncraftError(f"KERNCRAFT_CACHE_MAX_MB={text!r} is negative (0 for no bound)")
    return None if megabytes == 0 else int(megabytes * 1e6)


def entry_path(*parts: str) -> Path | None:
    """Path of a cache entry below the cache directory (None if caching is off)."""
    base = cache_directory()
    return None if base is None else base.joinpath(*parts)


def mark_used(path: Path) -> None:
    """Record a hit on ``path`` for the least-recently-used eviction."""
    try:
        os.utime(path)
    except OSError:
        pass        # evicted or read-only meanwhile: the hit itself stands


class _WriteBudget:
    """Bytes written by this process since the cache size was last checked."""

    checked = False
    since_check = 0


def atomic_write(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` via a temporary file and a rename; False on failure."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp_name, path)
        except BaseException:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass
            raise
    except OSError:
        return False
    note_written(len(text))
    return True


def derived_entry_path(*parts: str) -> Path | None:
    """Path of an entry that holds an object built from the user's files (a machine
    model, a port model); None when caching is off, and also with
    ``KERNCRAFT_NO_REPORT_CACHE`` (as the finished reports): a test that patches a
    builder must not be served an object built before."""
    if os.environ.get("KERNCRAFT_NO_REPORT_CACHE", "").strip() not in ("", "0"):
        return None
    return entry_path(*parts)


def files_digest(paths: Iterable[Path], salt: str = "") -> str:
    """sha256 over ``salt`` and the names and bytes of ``paths`` (in the order given):
    the fingerprint of the code that builds a stored object."""
    digest = hashlib.sha256(salt.encode())
    for path in paths:
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0\1")
    return digest.hexdigest()


def read_pickled(path: Path) -> Any | None:
    """The object pickled into ``path`` by :func:`write_pickled`; None when the entry is
    absent, torn, or of classes this version no longer has (a miss, never an error).

    Only for entries this package wrote into the user's own cache directory."""
    try:
        return pickle.loads(base64.b64decode(path.read_bytes()))
    except (OSError, ValueError, binascii.Error, pickle.UnpicklingError, EOFError,
            AttributeError, ImportError, TypeError, IndexError):
        return None


def write_pickled(path: Path, obj: Any) -> bool:
    """Pickle ``obj`` into ``path`` atomically (as base64 text); False when ``obj``
    cannot be pickled or the write failed."""
    try:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return False
    return atomic_write(path, base64.b64encode(data).decode("ascii"))


def note_written(size: int) -> None:
    """Account ``size`` bytes written into the cache; evict when the budget says so."""
    limit = cache_limit()
    base = cache_directory()
    if limit is None or base is None:
        return
    _WriteBudget.since_check += size
    if _WriteBudget.checked:
        if _WriteBudget.since_check < limit / 20:
            return
    elif _recently_scanned(base):
        _WriteBudget.checked = True     # another run looked within the hour: trust it
        return
    _WriteBudget.checked, _WriteBudget.since_check = True, 0
    enforce_limit(base, limit)
    _stamp_scan(base)


def _recently_scanned(base: Path) -> bool:
    """True when a run walked the cache less than ``_SCAN_INTERVAL`` ago. Walking
    thousands of entries takes tens of milliseconds, too much for every short run."""
    try:
        return time.time() - (base / _SCAN_STAMP).stat().st_mtime < _SCAN_INTERVAL
    except OSError:
        return False


def _stamp_scan(base: Path) -> None:
    try:
        (base / _SCAN_STAMP).touch()
    except OSError:
        pass            # a read-only cache: the next run walks it again, no harm


@dataclass(frozen=True)
class _Entry:
    path: Path
    size: int
    used: float


def _entries(base: Path) -> list[_Entry]:
    """Every file below ``base``; stale temporary files are removed on the way."""
    found, now = [], time.time()
    for root, _dirs, names in os.walk(base):
        for name in names:
            path = Path(root, name)
            try:
                stat = path.stat()
            except OSError:
                continue            # removed by a concurrent run
            if name == _SCAN_STAMP:
                continue
            if name.startswith(".tmp-"):
                if now - stat.st_mtime > _STALE_TMP_SECONDS:
                    _remove(path)
                continue            # a writer's file in flight: not ours to count
            found.append(_Entry(path, stat.st_size, stat.st_mtime))
    return found


def _remove(path: Path) -> bool:
    try:
        path.unlink()
        return True
    except FileNotFoundError:
        return True                 # another run evicted it first
    except OSError:
        return False


def enforce_limit(base: Path, limit: int) -> int:
    """Evict least recently used entries until ``base`` holds at most 80 % of ``limit``
    bytes, if it holds more than ``limit``. Returns the number of bytes removed."""
    entries = _entries(base)
    total = sum(e.size for e in entries)
    if total <= limit:
        return 0
    removed = 0
    for entry in sorted(entries, key=lambda e: e.used):
        if total - removed <= limit * _EVICT_TO:
            break
        if _remove(entry.path):
            removed += entry.size
    return removed


@dataclass(frozen=True)
class CacheUsage:
    """What the cache holds: its place, its bound, and bytes and files per kind
    (the kind is the entry's top folder: ``asm``, ``incore``, ``points``, ...)."""

    directory: Path
    limit: int | None
    kinds: tuple[tuple[str, int, int], ...]     # (kind, bytes, files), largest first

    @property
    def total_bytes(self) -> int:
        return sum(size for _kind, size, _files in self.kinds)

    @property
    def total_files(self) -> int:
        return sum(files for _kind, _size, files in self.kinds)


def cache_usage(base: Path) -> CacheUsage:
    """Sizes of the cache at ``base`` by kind (an absent directory is an empty cache)."""
    per_kind: dict[str, list[int]] = {}
    if base.is_dir():
        for entry in _entries(base):
            rel = entry.path.relative_to(base).parts
            kind = rel[0] if len(rel) > 1 else "(top)"
            sizes = per_kind.setdefault(kind, [0, 0])
            sizes[0] += entry.size
            sizes[1] += 1
    kinds = tuple(sorted(((k, v[0], v[1]) for k, v in per_kind.items()),
                         key=lambda item: (-item[1], item[0])))
    return CacheUsage(base, cache_limit(), kinds)


def clear_cache(base: Path, kinds: tuple[str, ...] = ()) -> int:
    """Delete the cache at ``base`` (or only the given kinds); returns the bytes freed.

    Only the cache's own kind folders are touched, so a ``KERNCRAFT_CACHE_DIR`` pointed
    at a folder with other files in it loses none of them.
    """
    usage = cache_usage(base)
    known = {kind for kind, _size, _files in usage.kinds}
    unknown = [k for k in kinds if k not in known]
    if unknown:
        raise KerncraftError(f"no cache kind {', '.join(unknown)} in {base} "
                         f"(kinds: {', '.join(sorted(known)) or 'none, the cache is empty'})")
    freed = 0
    for kind, size, _files in usage.kinds:
        if kinds and kind not in kinds:
            continue
        if kind == "(top)":
            continue        # loose files at the top are not the cache's
        shutil.rmtree(base / kind)
        freed += size
    return freed
