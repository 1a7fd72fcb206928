"""The JSON schema of ``kerncraft --json`` (version 1), as data, and a checker.

``docs/json.md`` documents every key; this module states the same as types so
a test can check real output against it. The notation:

* a Python type: ``str``, ``int``, ``bool``; :data:`NUMBER` is an int or a
  float (JSON has one number type; ``Infinity`` appears where an arithmetic
  intensity is unbounded), never a bool;
* ``[spec]``: a list whose items match ``spec``;
* ``{"key": spec}``: an object with exactly these keys; a key wrapped in
  :class:`Optional` may be missing; unknown keys are errors, so a new key
  cannot appear without being documented;
* :class:`MapOf`: an object with free keys (level, port or link names) and
  values matching one spec; :class:`AnyOf`: one of several specs.

There is one schema per model (:data:`ECM`, :data:`ECM_DATA`, ...); the table of
models (:mod:`kerncraft.runner.table`) says whose it is, and
:func:`document_schema` builds the whole document from them.

>>> check({"x": 1.5}, {"x": NUMBER})
[]
>>> check({"x": "1.5", "y": 2}, {"x": NUMBER})
["$.x: expected number, got str '1.5'", "$: unknown key 'y'"]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

__all__ = ["NUMBER", "Optional", "MapOf", "AnyOf", "check", "document_schema", "ECM", "ECM_DATA",
           "ECM_CPU", "ROOFLINE_FLOP", "ROOFLINE_ASM", "LC", "BENCHMARK", "COMPARISON_ROW"]


class _Number:
    """int or float, but not bool."""

    def __repr__(self) -> str:
        return "number"


NUMBER = _Number()
NONE = type(None)


@dataclass(frozen=True)
class Optional:
    """A key that may be missing (as a dictionary key of a schema)."""

    key: str


@dataclass(frozen=True)
class MapOf:
    """An object with free keys whose values match ``value``."""

    value: Any


@dataclass(frozen=True)
class AnyOf:
    """Matches if one of ``options`` matches."""

    options: tuple

    def __init__(self, *options: Any) -> None:
        object.__setattr__(self, "options", options)


def _type_name(value: Any) -> str:
    return {bool: "bool", int: "int", float: "float", str: "str", list: "list",
            dict: "object", NONE: "null"}.get(type(value), type(value).__name__)


def _check_object(value: dict, spec: dict, path: str) -> list[str]:
    errors = []
    keys = {}
    for key, item in spec.items():
        name = key.key if isinstance(key, Optional) else key
        keys[name] = item
        if name not in value and not isinstance(key, Optional):
            errors.append(f"{path}: missing key {name!r}")
    for name, item in value.items():
        if name not in keys:
            errors.append(f"{path}: unknown key {name!r}")
        else:
            errors += check(item, keys[name], f"{path}.{name}")
    return errors


def check(value: Any, spec: Any, path: str = "$") -> list[str]:
    """Every place where ``value`` does not match ``spec`` (empty: it matches)."""
    if spec is NUMBER:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return []
        return [f"{path}: expected number, got {_type_name(value)} {value!r}"]
    if isinstance(spec, AnyOf):
        if any(not check(value, option) for option in spec.options):
            return []
        return [f"{path}: {_type_name(value)} {value!r} matches none of {spec.options}"]
    if isinstance(spec, MapOf):
        if not isinstance(value, dict):
            return [f"{path}: expected object, got {_type_name(value)}"]
        return [e for key, item in value.items() for e in check(item, spec.value, f"{path}.{key}")]
    if isinstance(spec, list):
        if not isinstance(value, list):
            return [f"{path}: expected list, got {_type_name(value)}"]
        return [e for i, item in enumerate(value) for e in check(item, spec[0], f"{path}[{i}]")]
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            return [f"{path}: expected object, got {_type_name(value)}"]
        return _check_object(value, spec, path)
    if isinstance(value, spec) and not (spec is int and isinstance(value, bool)):
        return []
    return [f"{path}: expected {spec.__name__}, got {_type_name(value)} {value!r}"]


# ---------------------------------------------------------------- shared parts

MAYBE_NUMBER = AnyOf(NUMBER, NONE)

LEVEL_TRAFFIC = {
    "level": str, "loads": NUMBER, "stores": NUMBER, "misses": NUMBER, "evictions": NUMBER,
    "loads_bytes": NUMBER, "stores_bytes": NUMBER, "misses_bytes": NUMBER,
    "evictions_bytes": NUMBER, Optional("hits"): NUMBER,
    Optional("load_sources"): MapOf(NUMBER), Optional("store_targets"): MapOf(NUMBER)}

TRAFFIC = {
    "predictor": str, "unit_of_work_iterations": NUMBER, "cacheline_size": int,
    "levels": [LEVEL_TRAFFIC],
    "transfers": [{"upper": str, "lower": str, "loads": NUMBER, "stores": NUMBER,
                   "loads_bytes": NUMBER, "stores_bytes": NUMBER, "total_bytes": NUMBER}],
    "notes": [str]}

LINK = {
    "link": str, "name": str, "loads_cl": NUMBER, "stores_cl": NUMBER, "bytes": NUMBER,
    "bytes_per_cycle": NUMBER, "duplex": str, "cycles_per_cl": NUMBER,
    Optional("benchmark_kernel"): str, Optional("measured_bandwidth"): NUMBER}

LINE_SPLITS = {
    "line_size": int, "assumption": str, "extra_cycles_per_port": MapOf(NUMBER),
    "accesses": [{"kind": str, "vector_bytes": int, "count": int, "split_fraction": NUMBER,
                  "cycles_per_split": MAYBE_NUMBER, "ports": AnyOf([str], NONE)}]}

INCORE = {
    "arch": str, "compiler": str, "flags": str, "iterations_per_asm_iteration": NUMBER,
    "unroll": int, "simd_width": int, "pointer_increment": AnyOf(int, NONE),
    "T_OL": NUMBER, "T_nOL": NUMBER, "T_OL_source": str, "throughput_cy_per_cl": NUMBER,
    "critical_path_cy_per_cl": MAYBE_NUMBER, "lcd_cy_per_cl": MAYBE_NUMBER,
    "frontend_cy_per_cl": NUMBER, "memory_issue_cy_per_cl": MAYBE_NUMBER,
    "port_cycles_per_cl": MapOf(NUMBER), "non_overlapping_ports": [str], Optional("line_splits"): LINE_SPLITS,
    Optional("model_notes"): [str],
    Optional("incore_calibration"): {     # the machine file's 'kerncraft calibration'
        "file": str, "prior": str, "host": str, "date": str, "runs": int,
        "forms_measured": int, "entries": [MapOf(AnyOf(str, NUMBER))],
        "not_written": [MapOf(AnyOf(str, NUMBER))]},
    Optional("l1_streaming_limit"): {
        "level": str, "bytes_per_cl": NUMBER, "benchmark": str, "bandwidth": NUMBER,
        "cycles_per_cl": NUMBER, "ports_cycles_per_cl": NUMBER, "binds": bool},
    # external in-core backends (-i LLVM-MCA / OSACA) only
    Optional("incore_model"): str, Optional("simulated_cy_per_cl"): MAYBE_NUMBER,
    Optional("notes"): [str]}

ROOFLINE_LEVEL = {"level": str, "bytes": NUMBER, "bandwidth": NUMBER, "benchmark_kernel": str,
                  "cycles_per_cl": NUMBER, "arithmetic_intensity": MAYBE_NUMBER}

# ---------------------------------------------------------------- one per model

ECM = {
    "predictor": str, "unit": str, "cores": int, "T_OL": NUMBER, "T_nOL": NUMBER,
    "contributions": MapOf(NUMBER), "T_penalty": NUMBER, "overlapping": [str],
    "predictions": MapOf(NUMBER), "predictions_in_unit": MapOf(NUMBER), "saturation_cores": AnyOf(int, NONE),
    "saturated_T_L3MEM": NUMBER, "memory_term": {"basis": str, "reason": str,
                                                     "penalty_left_out": NUMBER,
                                                     "measured_cores": AnyOf(str, NONE)},
    "scaling": [{"cores": int, "cycles_per_cl": NUMBER, "value": NUMBER, "memory_bound": bool}],
    "prediction": NUMBER, "incore": INCORE, "links": [LINK], "traffic": TRAFFIC}

ECM_DATA = {"predictor": str, "cores": int, "unit": str, "iterations_per_cacheline": NUMBER,
            "links": [LINK], "values": MapOf(NUMBER), "traffic": TRAFFIC}

ECM_CPU = {"unit": str, **INCORE}

ROOFLINE_FLOP = {
    "predictor": str, "cores": int, "unit": str, "precision": str,
    "peak_flops_per_cycle": NUMBER, "compute_cycles_per_cl": NUMBER,
    "levels": [ROOFLINE_LEVEL], "bottleneck": str, "arithmetic_intensity": MAYBE_NUMBER,
    "cycles_per_cl": NUMBER, "performance": NUMBER, "traffic": TRAFFIC}

ROOFLINE_ASM = {
    "predictor": str, "cores": int, "unit": str, "incore_cycles_per_cl": NUMBER,
    "levels": [ROOFLINE_LEVEL], "bottleneck": str, "cycles_per_cl": NUMBER,
    "performance": NUMBER, "incore": INCORE, "traffic": TRAFFIC}

LC_CONDITION = {
    "index": int, "window": str, "threshold": str, "inequality": AnyOf(str, NONE),
    "footprint": str, "footprint_bytes": NUMBER, "fits": bool, "hits": [str],
    "misses": [str], "miss_lines": NUMBER, "store_lines": NUMBER, "eviction_lines": NUMBER}

LC = {"cores": int, "unit_of_work_iterations": NUMBER, "traffic": TRAFFIC,
      "levels": [{"level": str, "usable_bytes": NUMBER, "size_bytes": NUMBER,
                  "fill_factor": NUMBER, "role": str, "holds": int,
                  "conditions": [LC_CONDITION]}]}

BENCHMARK = {
    "unit": str, "value": MAYBE_NUMBER, "backend": str, "backend_reason": str,
    "clock_hz": NUMBER, "clock_source": str, "machine_clock_hz": NUMBER, "cores": int,
    "cpus": [int], "compiler": str, "flags": [str], "repetitions": int,
    "iterations_per_repetition": int, "iterations_per_cacheline": NUMBER,
    "cachelines": NUMBER, "seconds": NUMBER, "cycles": NUMBER, "time_source": str,
    "runs": int, "cycles_per_cl": NUMBER, "cycles_per_it": NUMBER,
    "iterations_per_s": NUMBER, "flops_per_s": NUMBER,
    "volumes": [{"level": str, "metric": str, "measured": NUMBER,
                 "predicted": MAYBE_NUMBER}],
    "notes": [str]}

COMPARISON_ROW = {"model": str, "predicted_cy_per_cl": NUMBER, "measured_cy_per_cl": NUMBER,
                  "relative_error": NUMBER}


def document_schema(model_schemas: Mapping[str, Any]) -> dict[str, Any]:
    """The whole ``--json`` document, given the schema of every model by its name (the
    table of models, :data:`kerncraft.runner.table.MODELS`, pairs each with its schema).

    >>> check({"schema_version": 1, "kernel": None, "machine": None, "points": [
    ...     {"defines": {"N": 8}, "models": {"ECMCPU": {}}}]}, document_schema({"ECM": ECM}))
    ["$.points[0].models: unknown key 'ECMCPU'"]
    """
    return {
        "schema_version": int, "kernel": AnyOf(str, NONE), "machine": AnyOf(str, NONE),
        "points": [{"defines": MapOf(int),
                    "models": {Optional(name): spec for name, spec in model_schemas.items()},
                    Optional("comparison"): [COMPARISON_ROW]}]}
