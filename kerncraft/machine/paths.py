"""Where a machine file named on the command line is: ``-m CSX`` or a path.

Kept apart from :mod:`kerncraft.machine.loader` because finding the file needs
no YAML library: a warm run (:mod:`kerncraft.memo.reports`) hashes the file
without parsing it.
"""
from __future__ import annotations

import os
from pathlib import Path

from kerncraft.errors import MachineFileError

__all__ = ["MACHINE_PATH_ENV", "bundled_machine_dir", "list_bundled_machines",
           "machine_search_dirs", "resolve_machine_path"]

#: Environment variable with extra directories (os.pathsep separated) that are
#: searched for machine names before the bundled ``machine-files/``.
MACHINE_PATH_ENV = "KERNCRAFT_MACHINE_PATH"

_MACHINE_SUFFIXES = (".yml", ".yaml")


def bundled_machine_dir() -> Path:
    """The bundled ``machine-files/`` (see :mod:`kerncraft.resources`)."""
    from kerncraft.resources import bundled_dir
    return bundled_dir("machine-files")


def machine_search_dirs() -> list[Path]:
    """Directories searched for a bare machine name, in order."""
    extra = [Path(p).expanduser() for p in os.environ.get(MACHINE_PATH_ENV, "").split(os.pathsep)
             if p.strip()]
    return extra + [bundled_machine_dir()]


def list_bundled_machines() -> list[str]:
    """Names (file stems) of the machine files shipped with kerncraft."""
    directory = bundled_machine_dir()
    if not directory.is_dir():
        return []
    return sorted(p.stem for p in directory.iterdir() if p.suffix in _MACHINE_SUFFIXES)


def resolve_machine_path(path_or_name: str | os.PathLike[str]) -> Path:
    """Turn ``-m`` input into a file: an existing path as-is, else a name.

    A name ('CSX', 'CSX.yml', case-insensitively) is looked up in
    :func:`machine_search_dirs`. Unknown names raise MachineFileError listing
    the bundled machines.
    """
    text = os.fspath(path_or_name)
    path = Path(text).expanduser()
    if path.is_file():
        return path
    if path.is_dir():
        raise MachineFileError(f"machine file {text!r} is a directory")
    if not text or "/" in text or os.sep in text:
        raise MachineFileError(f"machine file not found: {text!r}")
    candidates = [text] if text.lower().endswith(_MACHINE_SUFFIXES) else \
        [text + suffix for suffix in _MACHINE_SUFFIXES]
    wanted = {c.lower() for c in candidates}
    for directory in machine_search_dirs():
        for candidate in candidates:
            if (directory / candidate).is_file():
                return directory / candidate
        if directory.is_dir():
            for entry in sorted(directory.iterdir()):
                if entry.name.lower() in wanted and entry.is_file():
                    return entry
    bundled = ", ".join(list_bundled_machines()) or "none"
    raise MachineFileError(f"unknown machine {text!r}: no such file, and no {candidates[0]} in "
                           f"${MACHINE_PATH_ENV} or the bundled machine files "
                           f"(bundled: {bundled})")
