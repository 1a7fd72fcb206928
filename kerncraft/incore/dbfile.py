"""Reading a port-model database file: which file a database name means, the YAML
(with a JSON copy in the disk cache keyed by the file's content), header lists, and
the form keys of the table (brace expansion, normal spelling). The model built from
it is :mod:`kerncraft.incore.database`.

>>> expand_braces("v{add|sub}pd x")
['vaddpd x', 'vsubpd x']
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from pathlib import Path

from kerncraft.diskstore import atomic_write, entry_path
from kerncraft.errors import KerncraftError

__all__ = ["DATABASE_DIR", "available_databases", "database_path", "read_database_yaml",
           "header_list", "expand_braces", "form_key", "normalise_form_key"]

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
            return json.loads(cache_file.read_text())
        except (OSError, ValueError):
            pass
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    try:
        data = YAML(typ="safe", pure=True).load(raw.decode("utf-8"))
    except YAMLError as exc:
        raise KerncraftError(f"{path}: malformed YAML: {exc}") from None
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
