"""Files the user names: showing their names, reading their text, writing outputs.

* :func:`display_name` -- a path as printable text. A name may hold bytes that are
  not UTF-8 (``latin1_\\xe9.c``); Python keeps them as lone surrogates, which
  cannot be encoded, hashed as UTF-8 or printed to a strict stdout. The name is only
  a label for us, so it is shown with the byte escaped.
* :func:`decode_text` -- the UTF-8 text of a kernel or machine file: a leading
  byte-order mark is dropped (editors on Windows write one), and an undecodable
  byte is reported as ``file:line:col``.
* :func:`atomic_output` / :func:`write_output` -- output files (``--json``,
  ``--plot``, ``-o``) are written to a temporary file in the same folder and
  renamed over the target, so a full disk or an interrupted run never leaves a
  truncated or empty file; the previous file stays as it was.
  :func:`append_output` appends to a ``--store`` file whole or not at all;
  :func:`merge_pickle_output` merges into a ``--store FILE.pickle`` (Kerncraft's
  layout: one pickled dict) under the same lock, by an atomic rewrite.
"""
from __future__ import annotations

import builtins
import contextlib
import fcntl
import io
import os
import pickle
import secrets
import shutil
import stat
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Mapping

from kerncraft.errors import KerncraftError, SourceLocation

BOM = "\ufeff"


def display_name(path: str | os.PathLike[str]) -> str:
    r"""``path`` as text that can always be printed and encoded.

    >>> display_name(os.fsdecode(b"latin1_\xe9.c"))
    'latin1_\\xe9.c'
    """
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def decode_text(data: bytes, path: str | os.PathLike[str] | None,
                error: type[KerncraftError] = KerncraftError) -> str:
    """The UTF-8 text of a user's file, without a leading byte-order mark.

    An undecodable byte raises ``error`` located at its line and column (in
    characters, as an editor counts them; the byte offset is in the message).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = exc.start
        line_start = data.rfind(b"\n", 0, start) + 1
        line = data.count(b"\n", 0, start) + 1
        # the bytes before the first bad one decode: count them as characters (a
        # byte-order mark is dropped, so it takes no column)
        before = data[line_start:start].decode("utf-8")
        col = len(before[1:] if line == 1 and before.startswith(BOM) else before) + 1
        shown = display_name(path) if path is not None else None
        raise error(f"not UTF-8: byte 0x{data[start]:02x} at byte offset {start} "
                    f"({exc.reason})", SourceLocation(shown, line, col)) from None
    return text[1:] if text.startswith(BOM) else text


def _writes_in_place(target: str) -> bool:
    """True for targets a rename must not replace: devices, pipes (``/dev/null``,
    ``/dev/stdout``): they are written directly."""
    try:
        return not stat.S_ISREG(os.stat(target).st_mode)
    except OSError:
        return False


def _temporary_beside(target: str) -> str:
    """A new empty file next to ``target``; created with the usual mode (0666
    less the umask) because it becomes the user's file."""
    folder, name = os.path.split(target)
    base, dot, suffix = name.rpartition(".")
    # the suffix is kept: matplotlib picks the picture format from it
    tail = f".{suffix}" if dot and base else ""
    for _ in range(100):
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp{tail}")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target}")


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], describe: str) -> Iterator[str]:
    """Yield a path to write instead of ``path``; on success it replaces ``path``.

    On any error the temporary file is removed, ``path`` is left untouched and
    an ``OSError`` becomes one :class:`KerncraftError`:
    ``cannot write <describe>: <reason>``.
    """
    if os.path.isdir(path):
        raise KerncraftError(f"cannot write {describe}: it is a directory")
    if _writes_in_place(os.fspath(path)):
        with _one_line(describe):
            yield os.fspath(path)
        return
    target = os.path.realpath(path)     # through a symlink: the link stays
    tmp = None
    try:
        with _one_line(describe):
            tmp = _temporary_beside(target)
            yield tmp
            if os.path.exists(target):
                shutil.copymode(target, tmp)     # keep the permissions the user gave
            os.replace(tmp, target)
            tmp = None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


@contextlib.contextmanager
def _one_line(describe: str) -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise KerncraftError(f"cannot write {describe}: {reason}") from None


def write_output(path: str | os.PathLike[str], content: str | bytes, describe: str) -> None:
    """Write ``content`` to ``path`` atomically (see :func:`atomic_output`)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    with atomic_output(path, describe) as tmp:
        with open(tmp, "wb") as handle:
            handle.write(data)


def append_output(path: str | os.PathLike[str], content: str | bytes, describe: str) -> None:
    """Append ``content`` to ``path`` whole or not at all (``--store``).

    Not by a rename: runs of a sweep split over jobs append to one store at once,
    and a copy renamed over it would drop the lines the others appended meanwhile.
    Instead the append holds an exclusive lock (other kerncraft runs wait) and a
    failed write (full disk) is cut off again, so the runs stored so far stay as
    they were and no half line remains; a store this call created is removed.
    """
    data = content.encode("utf-8") if isinstance(content, str) else content
    created = not os.path.exists(path)
    with _one_line(describe), open(path, "ab", buffering=0) as handle:
        with contextlib.suppress(OSError):  # no locks (some network file systems): append
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        size = os.fstat(handle.fileno()).st_size
        try:
            done = 0
            while done < len(data):
                done += handle.write(data[done:])
        except OSError:
            with contextlib.suppress(OSError):      # a pipe cannot be cut: nothing to undo
                handle.truncate(size)
                if created and size == 0:
                    os.unlink(path)
            raise


class _NotPlainData(pickle.UnpicklingError):
    """The pickle names a class (its ``module.name`` is the message)."""


class _PlainUnpickler(pickle.Unpickler):
    """Reads dicts, lists, tuples, sets, strings and numbers only: unpickling anything
    else can run code, and a store file may come from anywhere."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins" and name in ("set", "frozenset"):
            return getattr(builtins, name)
        raise _NotPlainData(f"{module}.{name}")


def _locked_current(path: str | os.PathLike[str]) -> tuple[BinaryIO, bool]:
    """``path`` opened for reading (created if missing) under an exclusive lock, and
    whether this call created it. A run that waited for the lock while another one
    renamed a new file over ``path`` holds the old file: it opens the new one again."""
    for _ in range(100):
        created = not os.path.exists(path)
        handle = open(path, "a+b")
        with contextlib.suppress(OSError):  # no locks (some network file systems)
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            now, held = os.stat(path), os.fstat(handle.fileno())
        except OSError:
            now = held = None
        if now is not None and (now.st_ino, now.st_dev) == (held.st_ino, held.st_dev):
            handle.seek(0)
            return handle, created
        handle.close()
    raise OSError(f"{path} keeps being replaced")


def _stored_dict(data: bytes, describe: str) -> dict:
    try:
        stored = _PlainUnpickler(io.BytesIO(data)).load()
    except _NotPlainData as exc:
        raise KerncraftError(f"cannot merge into {describe}: it holds {exc} objects (a "
                             "pickle Kerncraft wrote?); store into another file") from None
    except Exception:       # truncated or not a pickle at all: any error unpickling
        stored = None
    if not isinstance(stored, dict):
        raise KerncraftError(f"cannot merge into {describe}: it is not a pickled dict "
                             "(Kerncraft's --store layout); store into another file")
    return stored


def merge_pickle_output(path: str | os.PathLike[str], entries: Mapping[Any, Any],
                        describe: str) -> None:
    """Merge ``entries`` into the dict pickled in ``path`` (created if missing), as
    Kerncraft's ``--store FILE.pickle`` does: an entry with the key of a stored one
    replaces it.

    The file is locked while it is read and rewritten (another kerncraft run waits,
    as with :func:`append_output`) and rewritten atomically (:func:`write_output`),
    so it always holds a whole pickle. Only plain data is read back (no code runs).
    """
    if os.path.isdir(path):
        raise KerncraftError(f"cannot write {describe}: it is a directory")
    if _writes_in_place(os.fspath(path)):       # /dev/null: nothing to merge with
        write_output(path, pickle.dumps(dict(entries), protocol=4), describe)
        return
    with _one_line(describe):
        handle, created = _locked_current(path)
    try:
        with _one_line(describe):
            data = handle.read()
        stored = _stored_dict(data, describe) if data else {}
        stored.update(entries)
        write_output(path, pickle.dumps(stored, protocol=4), describe)
    except BaseException:
        if created:     # no empty file left behind by a run that stored nothing
            with contextlib.suppress(OSError):
                if os.path.getsize(path) == 0:
                    os.unlink(path)
        raise
    finally:
        handle.close()
