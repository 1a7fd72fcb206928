"""Reading a port-model database file: which file a database name means, the YAML
(with a JSON copy in the disk cache keyed by the file's content), header lists, and
the form keys of the table (brace expansion, normal spelling) and its entries
(:class:`FormEntry`). The model built from it is :mod:`kerncraft.incore.database`.

>>> expand_braces("v{add|sub}pd x")
['vaddpd x', 'vsubpd x']
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kerncraft.diskstore import atomic_write, entry_path, mark_used
from kerncraft.errors import KerncraftError
from kerncraft.incore.model import Uop

__all__ = ["DATABASE_DIR", "available_databases", "database_path", "read_database_yaml",
           "header_list", "expand_braces", "form_key", "normalise_form_key", "FormEntry",
           "PLACEHOLDERS", "decode_entry", "entry_with_key"]

DATABASE_DIR = Path(__file__).with_name("databases")


def available_databases() -> list[str]:
    """Names of the bundled databases (file stems, upper case)."""
    return sorted(p.stem.upper() for p in DATABASE_DIR.glob("*.yml"))


def database_path(arch: str | os.PathLike) -> Path:
    """The file of a database: a bundled one by name (case-insensitive), else the
    YAML file ``arch`` names. KerncraftError if there is none."""
    text = os.fspath(arch)
    p = Path(text)
    if p.suffix.lower() in (".yml", ".yaml") or os.sep in text:
        if not p.is_file():
            raise KerncraftError(f"instruction database file '{text}' not found")
        return p.resolve()
    for cand in DATABASE_DIR.glob("*.yml"):
        if cand.stem.upper() == text.upper():
            return cand.resolve()
    raise KerncraftError(
        f"unknown in-core architecture '{text}'; available: {', '.join(available_databases())}")


def read_database_yaml(path: Path) -> dict:
    """The YAML mapping of a database file, as written (``extends`` not followed);
    from the disk cache's JSON copy when the file's content is unchanged."""
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()[:32]
    cache_file = entry_path("incore-db", f"{path.stem}-{digest}.json")
    if cache_file is not None:
        try:
            data = json.loads(cache_file.read_text())
            mark_used(cache_file)
            return data
        except (OSError, ValueError):
            pass
    # libyaml's composer and the YAML 1.2 core schema: ruamel's safe loader in pure
    # Python gives the same data 10x slower (0.11 s for SKX.yml)
    from kerncraft.errors import MachineFileError
    from kerncraft.machine.yamlnodes import compose, plain_data
    try:
        data = plain_data(compose(raw.decode("utf-8"), str(path)), str(path))
    except MachineFileError as exc:
        raise KerncraftError(f"port-model database {exc}") from None
    if not isinstance(data, dict):
        raise KerncraftError(f"{path}: a database must be a YAML mapping")
    if cache_file is not None:
        try:
            atomic_write(cache_file, json.dumps(data))
        except (TypeError, ValueError):
            pass  # not JSON-representable: just do not cache it
    return data


def header_list(header: dict, key: str, path: Path, required: bool = True) -> tuple[str, ...]:
    """The list ``header[key]`` as strings (``()`` if absent and not ``required``)."""
    if key not in header:
        if required:
            raise KerncraftError(f"{path}: header field '{key}' is missing")
        return ()
    val = header[key]
    if not isinstance(val, (list, tuple)):
        raise KerncraftError(f"{path}: header field '{key}' must be a list")
    return tuple(str(v) for v in val)


def expand_braces(text: str) -> list[str]:
    """Brace expansion with '|' alternatives: 'v{add|sub}pd x' -> ['vaddpd x', 'vsubpd x'].

    Groups with identical alternatives are *linked* (they take the same choice),
    so 'add {r64|r32},{r64|r32}' gives 'add r64,r64' and 'add r32,r32' only;
    different groups combine freely. An empty alternative is allowed ('{|v}addpd').
    """
    parts = re.split(r"(\{[^{}]*\})", text)
    groups: list[str] = []
    for p in parts:
        if p.startswith("{") and p.endswith("}") and p not in groups:
            groups.append(p)
    out = []
    for combo in itertools.product(*(g[1:-1].split("|") for g in groups)):
        choice = dict(zip(groups, combo))
        out.append("".join(choice.get(p, p) for p in parts))
    return out


def form_key(mnemonic: str, types: tuple[str, ...]) -> str:
    """The table key of an instruction form: ``'vaddpd ymm,ymm,ymm'``."""
    return f"{mnemonic} {','.join(types)}".strip()


def normalise_form_key(key: str) -> str:
    """A form key as written in a database, in the spelling of :func:`form_key`
    (lower-case mnemonic, no blanks around the operand types)."""
    mnemonic, _, ops = key.strip().partition(" ")
    return form_key(mnemonic.lower(), tuple(t.strip() for t in ops.split(",") if t.strip()))


# ------------------------------------------------------------------ table entries
#: Uop placeholders a table entry may use instead of the header's load/store uops.
PLACEHOLDERS = ("load", "store", "store_addr", "store_data")
_ENTRY_KEYS = {"uops", "lat", "latency", "tp", "throughput", "source", "note",
               "mem_dest", "same_reg", "complex_address", "load_lat", "bypass", "lat_other",
               "access"}
_ACCESS = ("load", "store", "load+store")


@dataclass(frozen=True)
class FormEntry:
    """One table entry after YAML decoding (uops may contain placeholders)."""

    key: str
    uops: tuple[Uop | str, ...]
    latency: float
    throughput: float | None
    source: str
    mem_dest: str | None = None              # 'rmw' | 'store' | None (default rule)
    load_latency: float | None = None        # overrides the class load latency
    same_reg: "FormEntry | None" = None      # zero idiom / same-register variant
    complex_address: "FormEntry | None" = None  # base+index+disp variant (lea)
    bypass: str | None = None                # forwarding group: 'lat' holds inside it
    latency_other: float | None = None       # latency to consumers outside the group
    # 'load' | 'store' | 'load+store': the uops already hold the memory access (written
    # out instead of placeholders, as a calibration does); the form still loads/stores
    access: str | None = None


def entry_with_key(entry: FormEntry, key: str) -> FormEntry:
    """Copy of a template entry (and its variants) under a concrete form key."""
    new = object.__new__(FormEntry)
    for name in FormEntry.__dataclass_fields__:
        val = getattr(entry, name)
        if name in ("same_reg", "complex_address") and val is not None:
            val = entry_with_key(val, key)
        object.__setattr__(new, name, key if name == "key" else val)
    return new


def decode_entry(key: str, spec: Any, source: str, portset: set[str], where: str) -> FormEntry:
    """The :class:`FormEntry` of one table entry ``spec`` (KerncraftError naming
    ``where`` if malformed); ``portset``: the header's ports."""
    if not isinstance(spec, dict):
        raise KerncraftError(f"{where}: entry must be a mapping")
    unknown = set(spec) - _ENTRY_KEYS
    if unknown:
        raise KerncraftError(f"{where}: unknown fields {sorted(unknown)}")
    uops = tuple(_uop(u, portset, where) for u in spec.get("uops") or ())
    lat = spec.get("lat", spec.get("latency"))
    tp = spec.get("tp", spec.get("throughput"))
    if lat is None:
        raise KerncraftError(f"{where}: 'lat' (latency) is missing")
    mem_dest = spec.get("mem_dest")
    if mem_dest not in (None, "rmw", "store"):
        raise KerncraftError(f"{where}: mem_dest must be 'rmw' or 'store'")
    bypass, lat_other = spec.get("bypass"), spec.get("lat_other")
    if (bypass is None) != (lat_other is None):
        raise KerncraftError(f"{where}: 'bypass' and 'lat_other' go together")
    access = spec.get("access")
    if access is not None and access not in _ACCESS:
        raise KerncraftError(f"{where}: access must be one of {', '.join(_ACCESS)}")
    src = str(spec.get("source", source))
    variants = {}
    for vname in ("same_reg", "complex_address"):
        if vname in spec:
            sub = dict(spec[vname])
            sub.setdefault("tp", tp)
            sub.setdefault("source", src)
            variants[vname] = decode_entry(key, sub, src, portset, f"{where}.{vname}")
    return FormEntry(key=key, uops=uops, latency=float(lat),
                     throughput=None if tp is None else float(tp), source=src,
                     mem_dest=mem_dest,
                     load_latency=None if spec.get("load_lat") is None else float(spec["load_lat"]),
                     bypass=None if bypass is None else str(bypass),
                     latency_other=None if lat_other is None else float(lat_other),
                     access=access, **variants)


def _uop(spec: Any, portset: set[str], where: str) -> Uop | str:
    if isinstance(spec, str):
        if spec not in PLACEHOLDERS:
            raise KerncraftError(f"{where}: unknown uop placeholder '{spec}' (use {', '.join(PLACEHOLDERS)})")
        return spec
    if isinstance(spec, (list, tuple)):
        ports, cycles = spec, 1.0
    elif isinstance(spec, dict):
        ports, cycles = spec.get("ports", []), spec.get("cycles", 1.0)
    else:
        raise KerncraftError(f"{where}: malformed uop {spec!r}")
    ports = [str(p) for p in ports]
    bad = [p for p in ports if p not in portset]
    if bad:
        raise KerncraftError(f"{where}: unknown ports {bad}")
    return Uop(frozenset(ports), float(cycles))
