"""Reading a port-model database file: the YAML (with a JSON copy in the disk
cache keyed by the file's content), header lists, and the brace expansion of
form keys. The model built from it is :mod:`kerncraft.incore.database`.

>>> expand_braces("v{add|sub}pd x")
['vaddpd x', 'vsubpd x']
"""
from __future__ import annotations

import hashlib
import itertools
import json
import re
from pathlib import Path

from kerncraft.diskstore import atomic_write, entry_path
from kerncraft.errors import KerncraftError

__all__ = ["expand_braces"]


def _read_yaml(path: Path) -> dict:
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


def _str_tuple(header: dict, key: str, path: Path, required: bool = True) -> tuple[str, ...]:
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
