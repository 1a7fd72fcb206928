"""Which port model an ``--arch`` argument names: a database name or file, or a
machine file whose ``in-core model`` entry names one (OSACA/IACA codes mapped to
our database names).

>>> resolve_model("CSX").arch
'CSX'
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from kerncraft.errors import KerncraftError, MachineFileError

if TYPE_CHECKING:
    from kerncraft.incore.aarch64.portmodel import AArch64PortModel
    from kerncraft.incore.database import PortModel

__all__ = ["ARCH_ALIASES", "resolve_model"]

# OSACA / IACA architecture codes -> our database names
_ARCH_ALIASES = {"CLX": "CSX", "CSL": "CSX", "SKL": "SKX", "SKYLAKE-AVX512": "SKX",
                 "CASCADELAKE": "CSX", "SAPPHIRERAPIDS": "SPR", "ZEN1": "ZEN", "ZNVER1": "ZEN",
                 "ZNVER3": "ZEN3", "ZNVER4": "ZEN4", "NEOVERSE-N1": "N1", "NEOVERSEN1": "N1",
                 "NEOVERSE-V2": "V2", "NEOVERSEV2": "V2"}
ARCH_ALIASES = _ARCH_ALIASES


def _machine_model_name(arch: str) -> str | None:
    """Database name named by a machine file, ``None`` if ``arch`` is not one.

    Raises :class:`MachineFileError` for a machine file without a usable
    ``in-core model`` entry.
    """
    try:
        from kerncraft.machine.loader import load_machine  # type: ignore
    except ImportError:
        return None
    try:
        machine = load_machine(arch)
    except (KerncraftError, OSError):
        return None
    entries = {k.lower(): v for k, v in dict(machine.in_core_model).items()}
    for tool in ("kerncraft", "osaca", "iaca"):
        if tool in entries and entries[tool]:
            name = str(entries[tool]).upper()
            return _ARCH_ALIASES.get(name, name)
    raise MachineFileError(f"{arch}: no 'in-core model' entry for kerncraft, OSACA or IACA",
                           yaml_path="in-core model")


def _from_machine(arch: str, name: str) -> PortModel | AArch64PortModel:
    from kerncraft.incore.analysis import load_model
    from kerncraft.incore.calibration import calibrated_database
    from kerncraft.machine.loader import load_machine
    try:
        return load_model(calibrated_database(load_machine(arch), name)[0])  # its calibration
    except KerncraftError as exc:
        raise MachineFileError(f"machine file {arch} names in-core model {name!r}: {exc}") \
            from None


def resolve_model(arch: str) -> PortModel | AArch64PortModel:
    """Port model for a database name/path or a machine file name/path.

    Names try the databases first (``CSX`` is both a database and a bundled
    machine file); files try the machine-file reader first (a database YAML is
    not a valid machine file and falls through to the database loader).
    """
    from kerncraft.incore.analysis import load_model
    looks_like_file = os.path.sep in arch or arch.endswith((".yml", ".yaml")) or os.path.isfile(arch)
    if looks_like_file and not os.path.isfile(arch):
        raise MachineFileError(f"--arch {arch}: no such file")
    if looks_like_file:
        name = _machine_model_name(arch)
        if name is not None:
            return _from_machine(arch, name)
        try:
            return load_model(arch)
        except KerncraftError as exc:
            raise MachineFileError(f"--arch {arch} is neither a machine file nor a port-model "
                                   f"database ({exc})") from None
    try:
        return load_model(_ARCH_ALIASES.get(arch.upper(), arch))
    except KerncraftError as db_error:
        name = _machine_model_name(arch)
        if name is None:
            raise db_error from None
        return _from_machine(arch, name)
