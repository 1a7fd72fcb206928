"""Problem sizes for the validation: one working set per memory level, from the machine file.

For one kernel and one level (``L1``, ``L2``, ``L3``, ``MEM``) a *target*
working set (all arrays together) is taken from the machine file's cache sizes
(:func:`level_targets`):

* L1: half of the L1 size;
* L2, L3, ...: the geometric mean of the previous level's size and this level's
  per-core share (size per group / cores per group): far from both edges;
* MEM: ``max(8 x last-level cache, 256 MiB)``.

The kernel's constants are then set by a shape rule (:func:`shape_defines`) to the
size closest to the target, and the layer-condition traffic prediction checks
where the data comes from (:func:`source_level`). If that is not the intended
level, neighbouring sizes (steps of 2^(1/4) inside the level's range) are tried,
nearest first, and the first that the model puts in the intended level is kept;
if none does, the target size is kept and the result says ``matched=False``.

Shape rules (those of the former ``benchmarks/validation_table.py``): one
constant (1D): a multiple of 4 KiB per array (keeps the arrays at fixed page
offsets); several constants and a halo in the inner loop (stencils): outer
constants ``M``, inner ``8 M`` (long rows); no halo (matvec): all equal, ``N x N``.
Every inner trip count is a multiple of 16 (no vector remainder loop).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from kerncraft.errors import KerncraftError

__all__ = ["LEVELS", "SIGNIFICANT_LINES", "SizeChoice", "level_centre", "level_targets", "level_range",
           "shape_defines", "working_set", "source_level", "choose_size"]

LEVELS = ("L1", "L2", "L3", "MEM")
#: A link counts as a data source when it carries at least this many cache lines per
#: cache line of work: half a stream. Below it is per-row leftovers, e.g. matvec's y[i]
#: (one line per 8 rows) that the layer conditions send to memory even when all fits L1.
SIGNIFICANT_LINES = 0.5
MIB = 1024 ** 2
#: Steps between tried sizes, and how many on each side of the target.
STEP = 2 ** 0.25
MAX_STEPS = 12


@dataclass(frozen=True)
class SizeChoice:
    """The size chosen for one kernel and level, and where the model puts its data."""

    level: str                      # intended level
    defines: Mapping[str, int]
    working_set: int                # bytes, all arrays
    target: int                     # bytes, the level's target working set
    model_level: str                # level the layer conditions serve the data from
    matched: bool                   # model_level == level
    tries: int                      # sizes evaluated with the traffic predictor


def _share(level) -> int:
    return int(level.size_per_group) // max(1, level.cores_per_group or 1)


def level_centre(previous_share: int, share: int, size: int) -> int:
    """Typical working set of a cache level below the first (bytes): the geometric mean
    of the level above's per-core share and this level's per-core ``share``. A shared
    level whose share is not well above the level above (many cores per L3) takes its
    whole ``size`` as the upper edge. ``kerncraft-machine`` measures around the same
    size, so both tools mean the same thing by "a working set in L3"."""
    upper = share if share >= 2 * previous_share else size
    return int(math.sqrt(previous_share * upper))


def level_targets(machine) -> dict[str, int]:
    """Target working set (bytes) per level name, caches first and ``MEM`` last."""
    caches = [lvl for lvl in machine.cache_levels if lvl.size_per_group]
    if not caches:
        raise KerncraftError("the machine file describes no cache sizes")
    targets = {caches[0].name: _share(caches[0]) // 2}
    for previous, level in zip(caches, caches[1:]):
        targets[level.name] = level_centre(_share(previous), _share(level),
                                           int(level.size_per_group))
    targets["MEM"] = max(8 * int(caches[-1].size_per_group), 256 * MIB)
    return targets


def level_range(machine, level: str) -> tuple[int, int]:
    """Working sets (bytes) searched for ``level`` when the target is not in it."""
    caches = [lvl for lvl in machine.cache_levels if lvl.size_per_group]
    names = [lvl.name for lvl in caches]
    if level == "MEM":
        target = level_targets(machine)["MEM"]
        return target, 2 * target
    index = names.index(level)
    upper = int(caches[index].size_per_group)
    lower = _share(caches[index - 1]) if index else upper // 16
    return lower, upper


def working_set(kernel) -> int:
    """Bytes of all (non-scalar) arrays of a bound kernel."""
    return int(sum(a.total_bytes() for a in kernel.arrays.values() if not a.is_scalar))


def _inner_constants(kernel) -> set[str]:
    names = set(kernel.constant_names)
    return {str(s) for s in kernel.loops[-1].end.free_symbols if str(s) in names}


def _halo(kernel) -> int:
    start = kernel.loops[-1].start
    return int(start) if getattr(start, "is_number", False) else 0


def shape_defines(kernel, p: int) -> dict[str, int]:
    """The constants of ``kernel`` at size parameter ``p >= 1`` (module doc)."""
    names = list(kernel.constant_names)
    if not names:
        raise KerncraftError("the kernel has no size constants to choose")
    arrays = [a for a in kernel.arrays.values() if not a.is_scalar]
    if len(names) == 1:
        element = max((a.element_size for a in arrays), default=8)
        return {names[0]: p * (4096 // element)}
    inner, halo = _inner_constants(kernel), _halo(kernel)
    if halo:
        outer = max(p, 2 * halo + 1)     # at least one interior point per dimension
        long_row = 16 * max(1, round((8 * outer - 2 * halo) / 16)) + 2 * halo
        return {n: long_row if n in inner else outer for n in names}
    return {n: 16 * p for n in names}


def _size_for(kernel, target: int) -> tuple[dict[str, int], int]:
    """Defines (and working set) of the shape whose working set is nearest ``target``
    on a log scale; the working set grows with ``p``, so double then bisect."""
    def size(p: int) -> int:
        return working_set(kernel.bind(shape_defines(kernel, p)))

    high = 1
    while size(high) < target and high < 1 << 40:
        high *= 2
    low = max(1, high // 2)
    while low < high:
        mid = (low + high) // 2
        if size(mid) < target:
            low = mid + 1
        else:
            high = mid
    best = min({max(1, high - 1), high}, key=lambda p: abs(math.log(size(p) / target)))
    return shape_defines(kernel, best), size(best)


def source_level(traffic) -> str:
    """Deepest level that serves at least :data:`SIGNIFICANT_LINES` per CL of work
    (``L1`` if none): where the layer conditions put the kernel's data."""
    from kerncraft.cache.traffic import transfer_volumes

    level = "L1"
    for link in transfer_volumes(traffic):
        if link.total >= SIGNIFICANT_LINES:
            level = link.lower
    return level


def _model_level(kernel, machine, defines: Mapping[str, int], cores: int) -> str:
    from kerncraft.models.transfers import predict_traffic
    return source_level(predict_traffic(kernel.bind(defines), machine, "LC", cores=cores))


def _candidates(target: int, lower: int, upper: int) -> list[int]:
    """The target, then sizes a step smaller and larger in turn, within the range."""
    sizes = [target]
    for step in range(1, MAX_STEPS + 1):
        for sign in (-1, 1):
            size = int(target * STEP ** (sign * step))
            if lower <= size <= upper:
                sizes.append(size)
    return sizes


def choose_size(kernel, machine, level: str, cores: int = 1,
                target: int | None = None) -> SizeChoice:
    """Size of ``kernel`` (unbound) whose data the model serves from ``level``;
    ``target`` replaces the level's target working set of :func:`level_targets`."""
    targets = level_targets(machine)
    if level not in targets:
        raise KerncraftError(f"level {level} is not in the machine file "
                             f"(levels: {', '.join(targets)})")
    target = target or targets[level]
    lower, upper = level_range(machine, level)
    seen: dict[tuple, tuple[dict[str, int], int, str]] = {}
    for candidate in _candidates(target, lower, upper):
        defines, size = _size_for(kernel, candidate)
        key = tuple(sorted(defines.items()))
        if key in seen:
            continue
        seen[key] = (defines, size, _model_level(kernel, machine, defines, cores))
        if seen[key][2] == level:
            return SizeChoice(level, defines, size, target, level, True, len(seen))
    defines, size, model = next(iter(seen.values()))
    return SizeChoice(level, defines, size, target, model, False, len(seen))
