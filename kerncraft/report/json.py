"""JSON documents of model results (the schema is ``docs/json.md``).

``--json`` writes :func:`cli_document`: the kernel, the machine and one entry
per -D point with every model's ``to_dict()``. Library users call
:func:`to_json` on a result, a :class:`~kerncraft.api.SweepRow` or a list of
rows. Bump :data:`SCHEMA_VERSION` whenever a documented key changes meaning
or disappears (adding keys keeps the version).

>>> cli_document("copy.c", "CSX.yml", [])["schema_version"]
1
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping, Sequence, TextIO

from kerncraft.userfiles import append_output, display_name, write_output

__all__ = ["SCHEMA_VERSION", "cli_document", "point_document", "to_json", "write_json"]

SCHEMA_VERSION = 1


def point_document(defines: Mapping[str, int], models: Mapping[str, Mapping[str, Any]],
                   comparison: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """One -D point: its constants, ``{model name: result.to_dict()}`` and, with
    ``-p Benchmark`` and a predicting model, the comparison rows.

    >>> point_document({"N": 10}, {"LC": {}})
    {'defines': {'N': 10}, 'models': {'LC': {}}}
    """
    point: dict[str, Any] = {"defines": dict(defines),
                             "models": {name: dict(data) for name, data in models.items()}}
    if comparison:
        point["comparison"] = [dict(row) for row in comparison]
    return point


def cli_document(kernel: str | None, machine: str | None,
                 points: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The document ``--json`` writes (``docs/json.md``)."""
    return {"schema_version": SCHEMA_VERSION, "kernel": kernel, "machine": machine,
            "points": list(points)}


def _plain(obj: Any) -> Any:
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, (list, tuple)):
        return [_plain(item) for item in obj]
    return obj


def to_json(obj: Any, indent: int | None = 2) -> str:
    """JSON text of a result, a sweep row or a list of them (numbers as the
    results hold them; anything else JSON cannot hold becomes its ``str``).

    >>> from kerncraft.models.results import ScalingRow
    >>> to_json([ScalingRow(1, 2.0, 2.0, False)], indent=None)
    '[{"cores": 1, "cycles_per_cl": 2.0, "value": 2.0, "memory_bound": false}]'
    """
    return json.dumps(finite_or_null(_plain(obj)), indent=indent, default=str,
                      allow_nan=False)


def write_json(target: str, document: Mapping[str, Any], out: TextIO) -> None:
    """Write ``document`` to the file ``target``, or to ``out`` for ``-``.

    Non-finite numbers (an unbounded arithmetic intensity of a level that moves
    no bytes) are written as ``null``: JSON has no such numbers (``docs/json.md``).
    """
    text = json.dumps(finite_or_null(document), indent=2, sort_keys=False, default=str,
                      allow_nan=False)
    if target == "-":
        print(text, file=out)
        return
    # atomically: a full disk must not leave an empty or truncated file behind
    write_output(target, text + "\n", f"JSON file {display_name(target)}")


def finite_or_null(obj: Any) -> Any:
    """``obj`` with every non-finite float (inf, -inf, nan) replaced by None,
    in dicts, lists and tuples at any depth; other values are kept as they are.

    >>> finite_or_null({"a": float("inf"), "b": [1.5, float("nan")]})
    {'a': None, 'b': [1.5, None]}
    """
    import math

    kind = type(obj)        # exact types first: sweeps convert ~300 values per point
    if kind is float:
        return obj if math.isfinite(obj) else None
    if kind is dict:
        return {key: finite_or_null(value) for key, value in obj.items()}
    if kind is list or kind is tuple:
        return [finite_or_null(item) for item in obj]
    if kind is int or kind is str or kind is bool or obj is None:
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {key: finite_or_null(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_or_null(item) for item in obj]
    if hasattr(obj, "to_dict"):
        return finite_or_null(obj.to_dict())
    return obj


def append_json_line(target: str, document: Mapping[str, Any]) -> None:
    """Append ``document`` as one line to ``target`` (JSON Lines; ``--store``).

    Kerncraft's ``--store`` collects the results of many runs in one file; ours appends
    one compact JSON document per run (whole or, on a full disk, not at all) and never
    rewrites what is there, so runs of a study accumulate (read them with one
    ``json.loads`` per line).
    """
    text = json.dumps(finite_or_null(document), separators=(",", ":"), default=str,
                      allow_nan=False)
    # a failed append (full disk) leaves the runs stored so far complete
    append_output(target, text + "\n", f"the store file {display_name(target)}")

