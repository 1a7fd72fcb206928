"""Effective cache capacities: the size sweep's plateaus against the CPUID sizes.

Two figures of a machine file come from here: a level's ``size per group``
(:func:`effective_capacity`) and the share of it a swept working set may fill
(``whole working set fill``, :func:`fill_lines`).

Why
---
CPUID gives the size of the chip's cache, and in a VM whatever the hypervisor
passes through; one core may get much less of a cache others share. A Golden
Cove guest reported a 480 MB L3 while one core's load sweep left the L3 plateau
at 81-91 MB. The layer conditions and ``kerncraft-validate``'s working sets
follow ``size per group``, so with the CPUID figure every working set between
~90 and 320 MB was predicted from L3 and measured from memory.

The rule
--------
A level gets its *measured* size when even the first swept size after its
plateau lies below :data:`AGREEMENT` (3/4) of the CPUID size: the step lies
between the plateau's last point and that size, so it is well below the CPUID
size whatever the sweep's resolution (two or three sizes per octave). The size
written is then the plateau's last point (the largest working set measured at
the level's speed, a lower bound), with the sets scaled to it (rounded up) so the
geometry stays consistent. Otherwise the CPUID size is kept: the plateau agrees, the
sweep ended on it (nothing to read), or the level has no plateau.

Only a cache that several cores share, or the last level, can shrink so: private
L1 and L2 are the core's own, and a plateau that ends early there is a noisy or
uneven sweep (the Zen 5 VM's load sweep left its 1 MB L2 plateau at 406 kB while a
finer sweep stayed at L2 speed to 896 kB), not a smaller cache.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from kerncraft.measure.streams import Plateau
from kerncraft.measure.topology import CacheInfo
from kerncraft.units import format_machine_size as _size

__all__ = ["Capacity", "effective_capacity", "fill_lines", "AGREEMENT"]

#: The first size after the plateau must reach this share of the CPUID size for the
#: two to agree (the step may then lie at 3/4 of the level or above).
AGREEMENT = 0.75


@dataclass(frozen=True)
class Capacity:
    """The size a machine file writes for one cache level, and where it comes from."""

    level: str
    cpuid: int                     # bytes per instance, as CPUID says
    size: int                      # bytes written as 'size per group'
    sets: int                      # sets written ('cache per group'), scaled with the size
    measured: bool                 # size from the sweep, not CPUID
    plateau_last: int | None = None
    next_swept: int | None = None  # first swept size after the plateau

    def note(self) -> str:
        """The comment of a measured size, with both numbers."""
        return (f"[measured] effective size: the load sweep stays on the {self.level} plateau "
                f"up to {_size(self.plateau_last or 0)} and is off it at "
                f"{_size(self.next_swept or 0)}; CPUID says {_size(self.cpuid)}")


def effective_capacity(cache: CacheInfo, plateau: Plateau | None, swept: Sequence[int],
                       shared_or_last: bool) -> Capacity:
    """The size to write for ``cache`` from its ``plateau`` (None: no plateau) and the
    swept sizes; ``shared_or_last``: several cores share the level, or it is the last
    cache (see the module doc)."""
    kept = Capacity(cache.name, cache.size, cache.size, cache.sets, False)
    if plateau is None or cache.size <= 0 or not shared_or_last:
        return kept
    after = [s for s in swept if s > plateau.last]
    if not after or after[0] >= AGREEMENT * cache.size:
        return kept
    # sets rounded up with 1 % to spare: the file writes the size with two decimals, and
    # the loader wants it between half the geometry and all of it
    per_set = max(1, cache.ways * cache.line_size)
    sets = max(1, math.ceil(1.01 * plateau.last / per_set))
    return Capacity(cache.name, cache.size, plateau.last, sets, True, plateau.last, after[0])


def fill_lines(level: str, size: int, plateau: Plateau | None) -> list[str]:
    """'whole working set fill' of a level of ``size`` bytes (as written) from the end of
    its plateau in the load sweep.

    The last swept size still on the plateau, as a share of the size, is how much of the
    level a repeatedly swept working set may fill and still run at its speed
    (kerncraft/cache/lc_hierarchy.py). It is a lower bound (the real step lies between
    that size and the next swept one). A share below the layer conditions' fill factor
    1/2 is not written: where :func:`effective_capacity` keeps the CPUID size (a private
    level), that is more likely a noisy sweep, and the default is safer.
    """
    if plateau is None or size <= 0:
        return []
    share = math.floor(min(1.0, plateau.last / size) * 100) / 100
    where = (f"the load sweep stays on the {level} plateau up to {_size(plateau.last)}"
             f" of {_size(size)}")
    if share < 0.5:
        return [f"    # [measured] {where} ({share:.0%}): below 1/2, not used (default kept)"]
    return [f"    whole working set fill: {share:.2f}   # [measured] {where}"]
