"""The one on-disk cache of the toolkit: where it lives and how entries are written.

Compiler output, in-core analysis results and parsed port-model databases are
cached by content hash so that repeated runs and sweeps skip work. The cache
is outside the user's folders: ``$KERNCRAFT_CACHE_DIR``, else
``$XDG_CACHE_HOME/kerncraft``, else ``~/.cache/kerncraft``;
``KERNCRAFT_NO_CACHE=1`` disables it. Entries are written to a temporary file
and renamed, so concurrent runs never see half-written entries, and any
failure to write only turns caching off for that entry.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_directory() -> Path | None:
    """The cache directory, or None if caching is disabled (KERNCRAFT_NO_CACHE)."""
    if os.environ.get("KERNCRAFT_NO_CACHE", "").strip() not in ("", "0"):
        return None
    explicit = os.environ.get("KERNCRAFT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "kerncraft"


def entry_path(*parts: str) -> Path | None:
    """Path of a cache entry below the cache directory (None if caching is off)."""
    base = cache_directory()
    return None if base is None else base.joinpath(*parts)


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
        return True
    except OSError:
        return False
