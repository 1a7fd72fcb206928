"""Working sets at which ``kerncraft-machine`` measures each memory level.

From the size sweep's plateaus (:func:`~kerncraft.measure.streams.find_plateaus`) and
the CPUID cache sizes, :func:`choose_working_sets` picks one working set per level
(:class:`LevelChoice`); cache levels below the first are measured at three sizes
around it (:meth:`LevelChoice.working_sets`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from kerncraft.measure.streams import Plateau
from kerncraft.measure.topology import CacheInfo
from kerncraft.units import format_machine_size as _size
from kerncraft.validation.sizes import level_centre

__all__ = ["LevelChoice", "choose_working_sets", "level_names"]


@dataclass(frozen=True)
class LevelChoice:
    """Working set used to measure one memory level, per core count."""

    level: str
    shared: bool                           # total working set split over the cores
    total_single: int                      # bytes for one core
    source: str                            # 'plateau' or 'cpuid'
    plateau: Plateau | None = None
    ceiling: int = 0                       # largest size still clear of the step (0: total_single)

    def size_per_core(self, cores: int) -> int:
        return self.total_single // cores if self.shared else self.total_single

    def working_sets(self) -> tuple[int, ...]:
        """Working sets (one core) to measure: for L2, L3, ... three sizes an octave
        wide around the chosen one (moved down when it is at the ceiling), whose median
        is the level's bandwidth. A plateau need not be flat: on the Zen 5 VM copy takes
        5.2-5.5 cy/CL in L3 at 3-6 MB and 4.4-4.5 at 8-12 MB, and one size would stand
        for either."""
        if self.source != "plateau" or self.plateau is None or self.level in ("L1", "MEM"):
            return (self.total_single,)
        high = min(int(round(self.total_single * math.sqrt(2))), self.ceiling or self.total_single)
        high = max(high, self.total_single)
        low = max(high // 2, min(self.plateau.first, self.total_single))
        return tuple(sorted({low, int(round(math.sqrt(low * high))), high}))


def _share(cache: CacheInfo, threads_per_core: int) -> int:
    """Bytes of one cache instance per core sharing it."""
    return cache.size // max(1, len(cache.shared_cpus) // max(1, threads_per_core))


def level_names(caches: Sequence[CacheInfo]) -> list[str]:
    return [c.name for c in caches] + ["MEM"]


def choose_working_sets(caches: Sequence[CacheInfo], plateaus: Sequence[Plateau],
                        largest: int, threads_per_core: int = 1
                        ) -> tuple[tuple[LevelChoice, ...], tuple[str, ...]]:
    """Pick a working set per level from the sweep's plateaus (CPUID as fallback).

    Cache level k takes, among the plateaus not used by a smaller level, the
    one overlapping most (in log size) with (half the CPUID size of level
    k-1, CPUID size of level k]. Its ceiling is the size two thirds up the
    plateau, capped at 3/4 of the CPUID size. L1 is measured at the ceiling;
    L2, L3, ... at the level's typical working set (:func:`level_centre`, the
    size ``kerncraft-validate`` puts a kernel in that level at), kept on the
    plateau and under the ceiling. Main memory gets the last plateau beyond
    the last cache. A level without a plateau falls back to half its CPUID
    size (memory: ``largest``). Returns the choices and notes on what was found.
    """
    notes: list[str] = []
    choices: list[LevelChoice] = []
    start = 0                      # plateaus before this index belong to smaller levels
    previous: CacheInfo | None = None
    for cache in caches:
        low, high = (max(1, previous.size // 2) if previous else 1), cache.size

        def overlap(p: Plateau) -> float:
            top, bottom = min(p.last, high), max(p.first, low)
            return math.log2(top / bottom) if top >= bottom else -1.0

        candidates = [i for i in range(start, len(plateaus)) if overlap(plateaus[i]) >= 0]
        shared = len(cache.shared_cpus) > 1
        if candidates:
            best = max(candidates, key=lambda i: (overlap(plateaus[i]), plateaus[i].points))
            start = best + 1
            plateau = plateaus[best]
            ceiling = min(plateau.upper_third, cache.size * 3 // 4)
            size = ceiling
            if previous is not None:
                centre = level_centre(_share(previous, threads_per_core),
                                      _share(cache, threads_per_core), cache.size)
                size = max(min(centre, ceiling), min(plateau.first, ceiling))
            choices.append(LevelChoice(cache.name, shared, size, "plateau", plateau, ceiling))
            step = plateau.step_after
            notes.append(f"{cache.name}: plateau {_size(plateau.first)} .. {_size(plateau.last)} "
                         f"at {plateau.bandwidth / 1e9:.1f} GB/s; step at ~"
                         f"{_size(step) if step else '?'} (CPUID size {_size(cache.size)})")
        else:
            choices.append(LevelChoice(cache.name, shared, cache.size // 2, "cpuid"))
            notes.append(f"{cache.name}: no plateau found; working set = half the CPUID size")
        previous = cache
    last_cache = caches[-1].size if caches else 0
    rest = [p for p in plateaus[start:] if p.last > last_cache // 2]
    if rest:
        mem = rest[-1]
        choices.append(LevelChoice("MEM", True, max(mem.upper_third, mem.first * 2), "plateau", mem))
        notes.append(f"MEM: plateau from {_size(mem.first)} at {mem.bandwidth / 1e9:.1f} GB/s")
        for p in rest[:-1]:
            why = ("below the CPUID size of the last-level cache: one core gets less of a "
                   "shared LLC than CPUID says" if p.first < last_cache else "not assigned")
            notes.append(f"extra plateau {_size(p.first)} .. {_size(p.last)} at "
                         f"{p.bandwidth / 1e9:.1f} GB/s ({why})")
    else:
        choices.append(LevelChoice("MEM", True, largest, "cpuid"))
        notes.append("MEM: no plateau beyond the last cache; using the largest swept size")
    return tuple(choices), tuple(notes)
