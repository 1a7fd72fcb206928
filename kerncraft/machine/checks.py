"""Range and consistency checks of a machine file, each error located.

:mod:`kerncraft.machine.loader` checks types while it builds the
:class:`~kerncraft.machine.model.MachineModel`; this module checks that the
values make sense, so that no model computes with a zero clock, a negative
bandwidth or a cache line larger than a cache (those gave zero, negative or
infinite predictions, or a ZeroDivisionError deep inside a model). Every error
is a :class:`~kerncraft.errors.MachineFileError` at the offending node
(``file:line:col: yaml path: message``).

The rules
---------
* ``clock``: finite, between 1 MHz and 1 THz.
* ``cores per socket``, ``sockets``: at most :data:`MAX_CORES_PER_SOCKET` (1024) and
  :data:`MAX_SOCKETS` (16). The ECM scaling table has a row per core count up to
  the requested one, and more cores than the file describes are refused
  (:func:`kerncraft.models.transfers.check_core_count`), so the largest table
  has 16,384 rows (about 6 s with the layer conditions); 100,000 cores per socket
  made that search run for minutes.
* ``cacheline size`` and every ``cl_size``: a power of two from
  :data:`MIN_LINE` (one double) to :data:`MAX_LINE` bytes, and not larger than
  the cache it belongs to.
* ``load_from``, ``store_to``, ``victims_to``: a level below the one they belong to;
  the last level (main memory) is called ``MEM``.
* compiler flags: split by shell rules (no unclosed quote).
* cache sizes (``size per group``): positive; each cache level at least as large as
  the one above it; where the geometry is given, ``size per group`` must lie
  between half of ``sets * ways * cl_size`` and that product (a published
  Ivy Bridge file gives 21 MiB for a 25 MiB geometry, so equality is not asked for).
* ``upstream throughput``, measured bandwidths, ``FLOPs per cycle`` totals: finite
  and positive (``ADD``/``MUL``/``FMA``: finite and not negative).
* penalty cycles (the latency surcharges per stream and per line): finite and not
  negative.

Fields the loader leaves out (``INFORMATION_REQUIRED`` placeholders) are not
checked here; a model that needs one fails with :func:`missing_field_error`.
"""
from __future__ import annotations

import math
from pathlib import Path

from kerncraft.errors import MachineFileError, SourceLocation
from kerncraft.machine.yamlnodes import Field

__all__ = ["MIN_LINE", "MAX_LINE", "MAX_CORES_PER_SOCKET", "MAX_SOCKETS", "line_size", "byte_count",
           "check_machine", "missing_field_error"]

MIN_LINE = 8
MAX_LINE = 1 << 16
MAX_CORES_PER_SOCKET = 1024
MAX_SOCKETS = 16
_MIN_CLOCK, _MAX_CLOCK = 1e6, 1e12


def line_size(field: Field) -> int:
    """A cache-line size in bytes: a power of two in [MIN_LINE, MAX_LINE]."""
    value = field.as_quantity("B")
    if not math.isfinite(value) or value != int(value) or not MIN_LINE <= value <= MAX_LINE \
            or int(value) & (int(value) - 1):
        raise field.error(f"a cache line must be a power of two from {MIN_LINE} to "
                          f"{MAX_LINE} B, got {field.value()!r}")
    return int(value)


def byte_count(field: Field) -> int:
    """A size in bytes: finite, positive and whole (rounded to the byte)."""
    value = field.as_quantity("B")
    if not math.isfinite(value) or value < 1 or value > 2 ** 62:
        raise field.error(f"a size must be a positive number of bytes below 2**62, "
                          f"got {field.value()!r}")
    return int(round(value))


def _positive(field: Field | None, value: float, what: str) -> None:
    if field is not None and not (math.isfinite(value) and value > 0):
        raise field.error(f"{what} must be a finite positive number, got {value}")


def _not_negative(field: Field | None, value: float, what: str) -> None:
    if field is not None and not (math.isfinite(value) and value >= 0):
        raise field.error(f"{what} must be finite and not negative, got {value}")


def check_machine(root: Field, machine) -> None:
    """Check the values of a built machine model against the rules of the module doc."""
    clock = root.require("clock")
    if not _MIN_CLOCK <= machine.clock <= _MAX_CLOCK:
        raise clock.error(f"clock must be between 1 MHz and 1 THz, got {machine.clock:g} Hz")
    if machine.cores_per_socket > MAX_CORES_PER_SOCKET:
        raise root.require("cores per socket").error(
            f"at most {MAX_CORES_PER_SOCKET} cores per socket are supported")
    if machine.sockets > MAX_SOCKETS:
        raise root.require("sockets").error(f"at most {MAX_SOCKETS} sockets are supported")
    _check_flops(root.get("FLOPs per cycle"), machine)
    _check_compiler_flags(root.get("compiler"))
    entries = root.require("memory hierarchy").items()
    if machine.memory_level.name != "MEM":
        raise entries[-1].require("level").error(
            f"the last level is main memory and must be named MEM (the models refer to it "
            f"by that name), got {machine.memory_level.name!r}")
    previous = None
    names = [level.name for level in machine.memory_hierarchy]
    for position, (entry, level) in enumerate(zip(entries, machine.memory_hierarchy)):
        _check_level(entry, level, machine.cacheline_size)
        _check_references(entry, names[position + 1:])
        if level.size_per_group is not None:
            if previous is not None and level.size_per_group < previous.size_per_group:
                raise _size_field(entry).error(
                    f"level {level.name} ({level.size_per_group} B) is smaller than the level "
                    f"above it, {previous.name} ({previous.size_per_group} B); levels must be "
                    "listed from L1 down to memory")
            previous = level
    _check_measurements(root.get("benchmarks"))


def _size_field(entry: Field) -> Field:
    cache = entry.get("cache per group")
    return entry.get("size per group") or (cache.require("sets") if cache else entry)


def _check_level(entry: Field, level, cacheline: int) -> None:
    cache = entry.get("cache per group")
    if cache is not None:
        line_size(cache.require("cl_size"))
        geometry = level.geometry.size
        size = level.size_per_group
        _positive(entry.get("size per group"), size, "size per group")
        if not geometry / 2 <= size <= geometry:
            raise entry.require("size per group").error(
                f"{size} B does not fit the geometry: sets * ways * cl_size = {geometry} B "
                "(allowed: half of that up to all of it)")
        if max(cacheline, level.geometry.cl_size) > size:
            raise _size_field(entry).error(
                f"the cache ({size} B) is smaller than its cache line "
                f"({max(cacheline, level.geometry.cl_size)} B)")
    upstream = entry.get("upstream throughput")
    if level.upstream_throughput is not None and level.upstream_throughput.bytes_per_cycle \
            is not None:
        head = upstream.items()[0] if upstream.node.id == "sequence" else upstream
        _positive(head, level.upstream_throughput.bytes_per_cycle, "upstream throughput")
    for key in ("penalty cycles per read stream", "penalty cycles per cacheline load",
                "penalty cycles per cacheline store", "penalty cycles per cachlinie store"):
        field = entry.get(key)
        if field is not None:
            _not_negative(field, field.as_float(), key)


def _check_references(entry: Field, below: list[str]) -> None:
    """``load_from``, ``store_to`` and ``victims_to`` must name a level below this one
    (a level above or itself made the traffic predictors loop or index past the end)."""
    cache = entry.get("cache per group")
    for key in ("load_from", "store_to", "victims_to"):
        field = None if cache is None else cache.get(key)
        if field is not None and field.as_str() not in below:
            raise field.error(f"must name a level below {entry.require('level').as_str()} "
                              f"({', '.join(below) or 'none'}), got {field.as_str()!r}")


def _check_compiler_flags(compilers: Field | None) -> None:
    """Flags are split with shell quoting: an unclosed quote is an error here."""
    import shlex

    for _, flags in ([] if compilers is None else compilers.pairs()):
        if not flags.is_null:
            try:
                shlex.split(flags.as_str())
            except ValueError as exc:
                raise flags.error(f"compiler flags: {str(exc).lower()}") from None


def _check_flops(field: Field | None, machine) -> None:
    if field is None:
        return
    for precision, entry in field.pairs():
        if str(precision) not in machine.flops_per_cycle:
            continue  # a placeholder entry, left out by the loader
        for key in ("ADD", "MUL", "FMA"):
            value = entry.get(key)
            if value is not None:
                _not_negative(value, value.as_float(), f"FLOPs per cycle {key}")
        total = entry.require("total")
        _positive(total, total.as_float(), "FLOPs per cycle total")


def _check_measurements(benchmarks: Field | None) -> None:
    measurements = None if benchmarks is None else benchmarks.get("measurements")
    if measurements is None:
        return
    for _, per_tpc in measurements.pairs():
        for _, entry in per_tpc.pairs():
            for _, values in entry.require("results").pairs():
                for value in values.items():
                    _positive(value, value.as_quantity("B/s"), "a measured bandwidth")


def missing_field_error(path: str | None, keys: tuple[str, ...], message: str
                        ) -> MachineFileError:
    """A located error for a field a model needs but the machine file lacks.

    The model only keeps values, so the file is composed again to find the
    field (or, when it is missing, the deepest of its parents that exists).
    """
    yaml_path = ".".join(keys)
    if path is None or not Path(path).is_file():
        return MachineFileError(message, SourceLocation(path), yaml_path=yaml_path)
    from kerncraft.machine.yamlnodes import blank_unused_blocks, compose
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    node = compose(blank_unused_blocks(text), path)
    field = Field(node, "", path)
    for key in keys:
        if field.node.id != "mapping":
            break
        child = next((value for name, value in field.pairs() if str(name) == key), None)
        if child is None:
            break
        field = child
    return field.error(message, yaml_path)
