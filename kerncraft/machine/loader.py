"""Load a Kerncraft-format machine file (YAML) into a typed :class:`MachineModel`.

Why the file is *composed* and not just loaded
----------------------------------------------
A machine file is written by hand, so errors must say where they are. We
compose the YAML into a node graph (each node knows its line and column),
walk it with :class:`_Field` cursors that remember their YAML path
(``memory hierarchy[1].cache per group.ways``), and convert each scalar
ourselves. Every error is a :class:`MachineFileError` carrying the file, the
1-based line of the offending node and that YAML path. Scalars are resolved
with the YAML 1.2 core schema (``yes`` stays a string, ``2D`` stays a string,
an empty value is null); ``!!omap`` is just a sequence of one-pair mappings
whose order we keep, so ``compiler: !!omap`` and ``in-core model: !!omap``
work like plain mappings.

Speed
-----
Composition uses libyaml through PyYAML's ``CSafeLoader`` when PyYAML is
installed, otherwise ruamel.yaml's safe composer (which itself uses libyaml
when ``ruamel.yaml.clib`` is installed, and pure Python otherwise). Both give
the same node interface; only the composer differs. Measured machine files
carry per-repetition ``stats`` and ``total size`` lists that no model uses and
that make up about 80 % of a 2000-line file; their lines are blanked before
parsing (line numbers are kept), which makes the pure-Python path ~5x faster.

Required fields (others are optional, with the defaults in brackets)
--------------------------------------------------------------------
* top level: ``clock``, ``cores per socket``, ``cacheline size``,
  ``memory hierarchy`` (non-empty list). [sockets 1, threads per core 1,
  NUMA domains per socket / cores per NUMA domain None, FLOPs per cycle {},
  compiler (), in-core model {}, ports {}, benchmarks none, measured cores None]
* every level: ``level`` (its name). All levels but the last are caches and
  need ``cache per group`` with ``sets``, ``ways``, ``cl_size``
  [replacement_policy LRU, write_allocate true, write_back true, load_from /
  store_to / victims_to None]. The last level is main memory and has no
  ``cache per group``. [size per group: sets*ways*cl_size for caches, None for
  memory; groups / cores / threads per group None; upstream throughput None;
  transfers overlap false; penalties 0; streaming limit 'ports']
* a benchmark kernel: ``read streams``, ``write streams``,
  ``read+write streams``, each with ``streams`` [bytes 0].
* a measurement: ``cores`` and ``results`` (one value per core count).

Semantics fixed here: an empty/absent ``load_from`` means the level's misses
are served by main memory (the victim-cache hierarchy of Skylake-SP and later:
L2 misses bypass L3). A ``FLOPs per cycle`` precision containing the
generator's placeholder ``INFORMATION_REQUIRED`` is omitted from
:attr:`MachineModel.flops_per_cycle`, so a model that needs it fails clearly
instead of computing with a placeholder.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Callable

from kerncraft.errors import MachineFileError, SourceLocation
from kerncraft.userfiles import decode_text
from kerncraft.machine.paths import (MACHINE_PATH_ENV, bundled_machine_dir,  # noqa: F401
                                     list_bundled_machines, machine_search_dirs,
                                     resolve_machine_path)
from kerncraft.machine.yamlnodes import Field as _Field
from kerncraft.machine.yamlnodes import Scalar as _Scalar
from kerncraft.machine.yamlnodes import blank_unused_blocks as _blank_unused_blocks
from kerncraft.machine.yamlnodes import compose as _compose
from kerncraft.machine.yamlnodes import names as _names
from kerncraft.machine.yamlnodes import optional as _opt
from kerncraft.machine.model import (
    BandwidthMeasurement, CacheGeometry, CacheLevel, FlopsPerCycle, MachineModel,
    MeasuredCores, StreamMix, UpstreamThroughput,
)

__all__ = ["MACHINE_PATH_ENV", "bundled_machine_dir", "list_bundled_machines",
           "machine_search_dirs", "resolve_machine_path", "load_machine",
           "parse_machine_text"]

_DUPLEX = ("half-duplex", "full-duplex")
_PLACEHOLDER = re.compile(r"INFOR\w*_REQUIRED")


def load_machine(path_or_name: str | os.PathLike[str]) -> MachineModel:
    """Load a machine file given as a path or a bundled/known name."""
    from kerncraft.machine.stored import load_stored, store_model

    path = resolve_machine_path(path_or_name)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MachineFileError(f"cannot read machine file: {exc}",
                               SourceLocation(file=str(path))) from exc
    stored = load_stored(data, str(path))
    if stored is not None:
        return stored
    # as a kernel file: a byte-order mark is dropped, a bad byte located
    machine = parse_machine_text(decode_text(data, path, MachineFileError), str(path))
    store_model(data, str(path), machine)
    return machine


def __getattr__(name: str):
    if name == "BACKENDS":      # the YAML composers available (machine/yamlnodes.py)
        from kerncraft.machine import yamlnodes
        return yamlnodes.BACKENDS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_machine_text(text: str, path: str | None = None) -> MachineModel:
    """Parse the text of a machine file; ``path`` is only used in messages."""
    from kerncraft.machine.checks import check_machine
    root = _compose(_blank_unused_blocks(text), path)
    if root is None:
        raise MachineFileError("machine file is empty", SourceLocation(path, 1))
    machine = _build_machine(_Field(root, "", path), path)
    check_machine(_Field(root, "", path), machine)
    return machine


# ------------------------------------------------------------ YAML nodes: machine/yamlnodes.py

# ------------------------------------------------------------ builders

def _build_machine(root: _Field, path: str | None) -> MachineModel:
    if root.node.id != "mapping":
        raise root.error("a machine file must be a mapping of 'field: value' entries")
    clock = root.require("clock").as_quantity("Hz")
    if not clock > 0:
        raise root.require("clock").error("clock must be positive")
    from kerncraft.machine.checks import line_size
    cacheline = line_size(root.require("cacheline size"))
    in_core = {str(k): v.as_str() for k, v in _opt(root, "in-core model", _Field.pairs, [])}
    hierarchy = _build_hierarchy(root.require("memory hierarchy"))
    kernels, measurements = _build_benchmarks(root.get("benchmarks"), hierarchy)
    return MachineModel(
        path=path,
        model_name=_opt(root, "model name", _Field.as_str, ""),
        model_type=_opt(root, "model type", _Field.as_str, ""),
        clock=clock,
        sockets=_opt(root, "sockets", lambda f: f.as_int(1), 1),
        cores_per_socket=root.require("cores per socket").as_int(1),
        threads_per_core=_opt(root, "threads per core", lambda f: f.as_int(1), 1),
        numa_domains_per_socket=_opt(root, "NUMA domains per socket", lambda f: f.as_int(1)),
        cores_per_numa_domain=_opt(root, "cores per NUMA domain", lambda f: f.as_int(1)),
        flops_per_cycle=_opt(root, "FLOPs per cycle", _build_flops, {}),
        compilers=tuple((str(name), "" if flags.is_null else flags.as_str())
                        for name, flags in _opt(root, "compiler", _Field.pairs, [])),
        in_core_model=in_core,
        isa=_opt(root, "isa", _Field.as_str),
        overlapping_ports=_build_ports(root, "overlapping", in_core),
        non_overlapping_ports=_build_ports(root, "non-overlapping", in_core),
        cacheline_size=cacheline,
        memory_hierarchy=hierarchy,
        benchmark_kernels=kernels,
        measurements=measurements,
        transparent_hugepage=_opt(root, "transparent hugepage", _Field.as_str),
        kerncraft_version=_opt(root, "kerncraft version", _Field.as_str),
        measured_cores=_opt(root, "measured cores", _measured_cores),
    )


def _measured_cores(field: _Field) -> MeasuredCores:
    """'N of M' with 1 <= N <= M (our extension 'measured cores', see MeasuredCores)."""
    match = re.fullmatch(r"\s*(\d+)\s+of\s+(\d+)\s*", str(field.value()))
    if match is None or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise field.error(f"'measured cores' is 'N of M' with 1 <= N <= M, got {field.value()!r}")
    return MeasuredCores(int(match.group(1)), int(match.group(2)))


def _build_flops(field: _Field) -> dict[str, FlopsPerCycle]:
    """FLOPs per cycle per precision; placeholder entries are left out."""
    result = {}
    for precision, entry in field.pairs():
        values = {name: entry.get(name) for name in ("ADD", "MUL", "FMA", "total")}
        if any(isinstance(v.value(), str) and _PLACEHOLDER.search(v.value())
               for v in values.values() if v is not None):
            continue
        if values["total"] is None:
            entry.require("total")
        add, mul, fma, total = (0.0 if v is None else v.as_float() for v in values.values())
        result[str(precision)] = FlopsPerCycle(add=add, mul=mul, fma=fma, total=total)
    return result


def _build_ports(root: _Field, kind: str, in_core: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """Ports per in-core tool from '<kind> model: ports:' (or old '<kind> ports: [..]')."""
    model = root.get(f"{kind} model")
    if model is not None:
        ports = model.get("ports")
        return {} if ports is None else {str(t): _names(p) for t, p in ports.pairs()}
    old = root.get(f"{kind} ports")
    if old is None:
        return {}
    return {tool: _names(old) for tool in (in_core or {"IACA": ""})}


def _build_hierarchy(field: _Field) -> tuple[CacheLevel, ...]:
    entries = field.items()
    if not entries:
        raise field.error("the memory hierarchy needs at least the main memory level")
    names: list[str] = []
    for entry in entries:
        name = entry.require("level").as_str()
        if name in names:
            raise entry.require("level").error(f"level {name!r} appears twice")
        names.append(name)
    levels = []
    for position, entry in enumerate(entries):
        is_last = position == len(entries) - 1
        cache = entry.get("cache per group")
        if is_last and cache is not None:
            raise cache.error("the last level is main memory and must not have a "
                              "'cache per group' (add a MEM level after the last cache)")
        if not is_last and cache is None:
            entry.require("cache per group")
        limit = entry.get("streaming limit")
        if position > 0 and limit is not None:
            raise limit.error("'streaming limit' describes register<->L1 transfers and "
                              "belongs to the first level of the memory hierarchy")
        memory_term = entry.get("ECM memory bandwidth")
        if not is_last and memory_term is not None:
            raise memory_term.error("'ECM memory bandwidth' chooses the memory term of the ECM "
                                    "model and belongs to the memory level (MEM)")
        levels.append(_build_level(entry, None if is_last else cache, names))
    return tuple(levels)


def _build_level(entry: _Field, cache: _Field | None, names: list[str]) -> CacheLevel:
    from kerncraft.machine.checks import byte_count
    geometry = None if cache is None else _build_geometry(cache, names)
    size = _opt(entry, "size per group", byte_count)
    if size is None and geometry is not None:
        size = geometry.size
    store_penalty = entry.get("penalty cycles per cacheline store") or \
        entry.get("penalty cycles per cachlinie store")   # spelling in the TX2 file
    metrics = entry.get("performance counter metrics")
    return CacheLevel(
        name=entry.require("level").as_str(),
        size_per_group=size,
        groups=_opt(entry, "groups", lambda f: f.as_int(1)),
        cores_per_group=_opt(entry, "cores per group", lambda f: f.as_int(1)),
        threads_per_group=_opt(entry, "threads per group", lambda f: f.as_int(1)),
        geometry=geometry,
        upstream_throughput=_opt(entry, "upstream throughput", _build_upstream),
        transfers_overlap=_opt(entry, "transfers overlap", _Field.as_bool, False),
        penalty_cycles_per_read_stream=_opt(entry, "penalty cycles per read stream",
                                            _Field.as_float, 0.0),
        performance_counter_metrics={} if metrics is None else
        {str(k): "" if v.is_null else v.as_str() for k, v in metrics.pairs()},
        penalty_cycles_per_cacheline_load=_opt(entry, "penalty cycles per cacheline load",
                                               _Field.as_float, 0.0),
        penalty_cycles_per_cacheline_store=0.0 if store_penalty is None
        else store_penalty.as_float(),
        whole_working_set_fill=_opt(entry, "whole working set fill", _share),
        streaming_limit=_opt(entry, "streaming limit", _streaming_limit, "ports"),
        ecm_memory_bandwidth=_opt(entry, "ECM memory bandwidth", _ecm_memory_bandwidth),
    )


def _ecm_memory_bandwidth(field: _Field) -> str:
    """'saturated' or 'single-core' (our extension 'ECM memory bandwidth', see CacheLevel)."""
    value = field.as_str()
    if value not in ("saturated", "single-core"):
        raise field.error(f"'ECM memory bandwidth' is 'saturated' or 'single-core', not {value!r}")
    return value


def _streaming_limit(field: _Field) -> str:
    """'ports' or 'measured' (our extension 'streaming limit', see CacheLevel)."""
    value = field.as_str()
    if value not in ("ports", "measured"):
        raise field.error(f"must be 'ports' or 'measured', got {value!r}")
    return value


def _share(field: _Field) -> float:
    """A share of a cache, 0 < x <= 1 (our extension 'whole working set fill')."""
    value = field.as_float()
    if not 0.0 < value <= 1.0:
        raise field.error(f"must be a share of the cache in (0, 1], got {value}")
    return value


def _build_geometry(cache: _Field, names: list[str]) -> CacheGeometry:
    def level_ref(key: str) -> str | None:
        field = cache.get(key)
        if field is None:
            return None
        name = field.as_str()
        if name not in names:
            raise field.error(f"unknown level {name!r} (levels: {', '.join(names)})")
        return name

    from kerncraft.machine.checks import line_size
    return CacheGeometry(
        sets=cache.require("sets").as_int(1),
        ways=cache.require("ways").as_int(1),
        cl_size=line_size(cache.require("cl_size")),
        replacement_policy=_opt(cache, "replacement_policy", _Field.as_str, "LRU"),
        write_allocate=_opt(cache, "write_allocate", _Field.as_bool, True),
        write_back=_opt(cache, "write_back", _Field.as_bool, True),
        load_from=level_ref("load_from"),
        store_to=level_ref("store_to"),
        victims_to=level_ref("victims_to"),
    )


def _build_upstream(field: _Field) -> UpstreamThroughput:
    """'[64 B/cy, half-duplex]', '[architecture code analyzer, [2D, 3D]]' or
    '[full socket memory bandwidth, half-duplex]'."""
    parts = field.items() if field.node.id == "sequence" else [field]
    if not 1 <= len(parts) <= 2:
        raise field.error("expected [throughput, duplex mode]")
    head, tail = parts[0], (parts[1] if len(parts) == 2 else None)
    if tail is not None and tail.node.id == "sequence":
        if "code analyzer" not in str(head.value()):
            raise head.error("a port list must follow 'architecture code analyzer'")
        return UpstreamThroughput(None, None, ports=_names(tail))
    duplex = None
    if tail is not None and not tail.is_null:
        duplex = tail.as_str()
        if duplex not in _DUPLEX:
            raise tail.error(f"expected one of {', '.join(_DUPLEX)}, got {duplex!r}")
    if isinstance(head.value(), str) and "memory bandwidth" in head.value():
        return UpstreamThroughput(None, duplex, from_benchmarks=True)
    return UpstreamThroughput(head.as_quantity("B/cy"), duplex)


def _build_benchmarks(field: _Field | None, hierarchy: tuple[CacheLevel, ...]
                      ) -> tuple[dict[str, StreamMix], tuple[BandwidthMeasurement, ...]]:
    if field is None:
        return {}, ()
    kernels = {str(name): _build_mix(entry)
               for name, entry in _opt(field, "kernels", _Field.pairs, [])}
    level_names = [lvl.name for lvl in hierarchy]
    measurements = []
    for level, per_tpc in _opt(field, "measurements", _Field.pairs, []):
        if str(level) not in level_names:
            raise per_tpc.error(f"measurements for unknown level {level!r}")
        for tpc_key, entry in per_tpc.pairs():
            measurements.append(_build_measurement(str(level), tpc_key, entry))
    return kernels, tuple(measurements)


def _build_mix(entry: _Field) -> StreamMix:
    def streams(key: str) -> tuple[int, float]:
        part = entry.require(key)
        return (part.require("streams").as_int(0),
                _opt(part, "bytes", lambda f: f.as_quantity("B"), 0.0))

    (read, read_bytes), (write, write_bytes), (both, both_bytes) = (
        streams("read streams"), streams("write streams"), streams("read+write streams"))
    return StreamMix(read, read_bytes, write, write_bytes, both, both_bytes,
                     flops_per_iteration=_opt(entry, "FLOPs per iteration", _Field.as_float, 0.0),
                     fastest_bench_kernel=_opt(entry, "fastest bench kernel", _Field.as_str))


def _build_measurement(level: str, tpc_key: _Scalar, entry: _Field) -> BandwidthMeasurement:
    tpc_field = entry.get("threads per core")
    if tpc_field is not None:
        tpc = tpc_field.as_int(1)
    elif isinstance(tpc_key, int):
        tpc = tpc_key
    else:
        raise entry.error("cannot tell the threads per core of this measurement "
                          "(key is not a number and 'threads per core' is missing)")
    cores_field = entry.require("cores")
    cores = tuple(c.as_int(1) for c in cores_field.items())

    def per_core(field: _Field, convert: Callable[[_Field], Any]) -> tuple[Any, ...]:
        values = tuple(convert(v) for v in field.items())
        if len(values) != len(cores):
            raise field.error(f"has {len(values)} values but 'cores' lists {len(cores)}")
        return values

    results = {str(k): per_core(v, lambda f: f.as_quantity("B/s"))
               for k, v in entry.require("results").pairs()}
    optional = {key: _opt(entry, key, lambda f: per_core(f, lambda g: g.as_quantity("B")), ())
                for key in ("size per core", "size per thread")}
    return BandwidthMeasurement(
        level=level, threads_per_core=tpc, cores=cores, results=results,
        size_per_core=optional["size per core"], size_per_thread=optional["size per thread"],
        threads=_opt(entry, "threads", lambda f: per_core(f, lambda g: g.as_int(1)), ()),
    )
