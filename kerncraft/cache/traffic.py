"""The data-traffic result shared by both cache predictors (LC and SIM).

Everything is expressed in **cache lines per unit of work** (floats, because
averages over a steady-state window or over partially used lines need not be
integral); the ``*_bytes`` properties multiply by the cache-line size.

Unit of work
------------
One unit of work is one cache line's worth of innermost-loop iterations::

    iterations_per_cacheline = cacheline_size // (max(element sizes) * |innermost step|)

where the maximum runs over the (non-scalar) arrays accessed in the innermost
loop body. We take the *largest* element size because then every stream of
the widest type advances by exactly one full cache line per unit, so a
``double`` copy reports the familiar "1 CL loaded per stream", and the unit is
a whole number of iterations that also covers an integral fraction of a line
for every narrower type (element sizes are powers of two). A ``float`` stream
in a kernel that also touches ``double`` arrays therefore shows up as 0.5 CL
per unit. Using the smallest size would instead make double streams count two
lines per unit and would disagree with the usual ECM cy/CL figures; the
largest-type convention is also the one Kerncraft users expect.

Per-level quantities (level ``Lk``, "below" means towards main memory)
----------------------------------------------------------------------
``loads``
    Cache lines filled *into* ``Lk`` from below (from the next level, or
    straight from memory when misses bypass a victim cache). A write-allocate
    fill caused by a store miss counts as a load.
``stores``
    Cache lines sent *from* ``Lk`` down the hierarchy: dirty write-backs, all
    victims (clean or dirty) when the level has ``victims_to``, and stores
    forwarded by a write-through or non-write-allocate level.
``misses``
    Demand requests (loads, and stores coming from the level above / the core)
    that did not find their line in ``Lk``. Full-line write-backs arriving
    from above are not counted as requests.
``evictions``
    Lines removed from ``Lk`` that had to be written below: dirty lines of a
    write-back cache, and, with ``victims_to``, every replaced line. Clean
    lines silently dropped are not evictions.
``hits`` (optional)
    Demand requests that found their line in ``Lk`` (``None`` if unknown).
``load_sources`` / ``store_targets`` (optional)
    Break ``loads`` / ``stores`` down by the level that supplied / received
    the lines, e.g. on Cascade Lake ``L2.load_sources == (("L3", hits_in_L3),
    ("MEM", rest))`` because L2 misses bypass the victim L3. Empty means
    "all from / to the next level below" (or ``MEM`` after the last cache).

Transfer volumes (:func:`transfer_volumes`)
-------------------------------------------
ECM needs the volume on each link between adjacent levels ``L1<->L2``,
``L2<->L3``, ``L3<->MEM``. A transfer is charged to the link directly above
the level that *serves* it (for loads) or *receives* it (for stores) - the link
whose bandwidth is the ``upstream throughput`` of that level in the machine
file. Hence on Cascade Lake a line loaded from memory straight into L2 is
charged to ``L3<->MEM`` only, an L3 hit to ``L2<->L3``, and every L2 victim to
``L2<->L3``.

Non-temporal stores (:class:`NontemporalStores`)
------------------------------------------------
Stores marked non-temporal (``#pragma nontemporal``, ``--nontemporal-stores``, or
detected in the compiled loop) bypass the hierarchy: the per-level figures above
do not contain them (no write-allocate fill, no write-back), and their lines
are charged once to the ``Llast<->MEM`` link as stores.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal, Mapping

from kerncraft.errors import KerncraftError

Predictor = Literal["LC", "SIM"]
MEMORY_LEVEL = "MEM"
_REL_TOL = 1e-9


def iterations_per_cacheline(kernel, cacheline_size: int) -> int:
    """Innermost-loop iterations that make up one unit of work.

    Uses the largest element size among the non-scalar arrays accessed in the
    innermost loop (see module doc for why the largest); falls back to all
    declared arrays, then to 8 bytes, for kernels without array accesses.
    """
    arrays = kernel.arrays
    sizes = [arrays[a.array].element_size for a in kernel.accesses
             if a.array in arrays and not arrays[a.array].is_scalar]
    if not sizes:
        sizes = [arr.element_size for arr in arrays.values()] or [8]
    # A loop stepping by s moves s elements per iteration (Kerncraft's convention too:
    # a 2-way manually unrolled loop has half as many iterations per cache line).
    step = abs(kernel.loops[-1].step) if kernel.loops else 1
    return max(1, int(cacheline_size) // (max(sizes) * max(step, 1)))


def _pairs(value) -> tuple[tuple[str, float], ...]:
    if isinstance(value, Mapping):
        value = value.items()
    return tuple((str(k), float(v)) for k, v in value)


@dataclass(frozen=True)
class LevelTraffic:
    """Traffic of one cache level in cache lines per unit of work (see module doc)."""

    level: str
    loads: float
    stores: float
    misses: float
    evictions: float
    cacheline_size: int = 64
    hits: float | None = None
    load_sources: tuple[tuple[str, float], ...] = ()
    store_targets: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        # Accept mappings for the breakdowns but store hashable tuples.
        object.__setattr__(self, "load_sources", _pairs(self.load_sources))
        object.__setattr__(self, "store_targets", _pairs(self.store_targets))
        for name, total, parts in (("load_sources", self.loads, self.load_sources),
                                   ("store_targets", self.stores, self.store_targets)):
            if parts and abs(sum(v for _, v in parts) - total) > _REL_TOL * max(1.0, abs(total)):
                raise ValueError(f"{self.level}: {name} do not add up to {total}")

    # --- byte views --------------------------------------------------------
    @property
    def loads_bytes(self) -> float:
        return self.loads * self.cacheline_size

    @property
    def stores_bytes(self) -> float:
        return self.stores * self.cacheline_size

    @property
    def misses_bytes(self) -> float:
        return self.misses * self.cacheline_size

    @property
    def evictions_bytes(self) -> float:
        return self.evictions * self.cacheline_size

    def to_dict(self) -> dict:
        """JSON-ready view (lines and bytes per unit of work)."""
        out = {
            "level": self.level,
            "loads": self.loads, "stores": self.stores,
            "misses": self.misses, "evictions": self.evictions,
            "loads_bytes": self.loads_bytes, "stores_bytes": self.stores_bytes,
            "misses_bytes": self.misses_bytes, "evictions_bytes": self.evictions_bytes,
        }
        if self.hits is not None:
            out["hits"] = self.hits
        if self.load_sources:
            out["load_sources"] = dict(self.load_sources)
        if self.store_targets:
            out["store_targets"] = dict(self.store_targets)
        return out


@dataclass(frozen=True)
class NontemporalStores:
    """Stores that go to memory directly: ``lines`` per unit of work, from ``arrays``.

    ``reason`` says why they are non-temporal (set by the model that chose them:
    the option, the kernel's pragma or the instruction found in the compiled loop).
    """

    arrays: tuple[str, ...]
    lines: float
    reason: str = ""

    def describe(self) -> str:
        why = f" ({self.reason})" if self.reason else ""
        return (f"non-temporal stores{why}: {', '.join(self.arrays)}; {self.lines:g} CL per "
                "unit of work written to memory directly (no write-allocate, no write-back "
                "through the caches)")


@dataclass(frozen=True)
class TrafficResult:
    """Predicted traffic of all cache levels (L1 first), per unit of work.

    ``unit_of_work_iterations`` is the number of innermost iterations in one
    unit (:func:`iterations_per_cacheline`); ``notes`` carries human-readable
    remarks of the predictor (window sizes, shared-cache split, ...).
    """

    unit_of_work_iterations: float
    cacheline_size: int
    levels: tuple[LevelTraffic, ...]
    predictor: Predictor
    notes: tuple[str, ...] = ()
    nontemporal: NontemporalStores | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "levels", tuple(self.levels))
        object.__setattr__(self, "notes", tuple(self.notes))
        if self.predictor not in ("LC", "SIM"):
            raise ValueError(f"unknown predictor {self.predictor!r}")

    def level(self, name: str) -> LevelTraffic:
        for lvl in self.levels:
            if lvl.level == name:
                return lvl
        raise KeyError(name)

    @property
    def level_names(self) -> tuple[str, ...]:
        return tuple(lvl.level for lvl in self.levels)

    def per_iteration(self, value_in_lines: float) -> float:
        """Convert a lines-per-unit figure into bytes per innermost iteration."""
        return value_in_lines * self.cacheline_size / self.unit_of_work_iterations

    def to_dict(self) -> dict:
        return {
            "predictor": self.predictor,
            "unit_of_work_iterations": self.unit_of_work_iterations,
            "cacheline_size": self.cacheline_size,
            "levels": [lvl.to_dict() for lvl in self.levels],
            "transfers": [t.to_dict() for t in transfer_volumes(self)],
            # the text reports print the non-temporal line themselves, JSON has it here
            "notes": list(self.notes) + ([self.nontemporal.describe()]
                                         if self.nontemporal is not None else []),
        }

    def with_nontemporal_reason(self, reason: str) -> "TrafficResult":
        """The same traffic, its non-temporal stores (if any) labelled with ``reason``."""
        if self.nontemporal is None:
            return self
        return dataclasses.replace(self, nontemporal=dataclasses.replace(self.nontemporal,
                                                                         reason=reason))


@dataclass(frozen=True)
class LinkTransfer:
    """Lines per unit of work crossing the link between ``upper`` and ``lower``.

    ``loads`` flow up (lower -> upper), ``stores`` flow down. The link is the
    one whose bandwidth the machine file gives as ``lower``'s upstream
    throughput.
    """

    upper: str
    lower: str
    loads: float
    stores: float
    cacheline_size: int = 64

    @property
    def total(self) -> float:
        return self.loads + self.stores

    @property
    def loads_bytes(self) -> float:
        return self.loads * self.cacheline_size

    @property
    def stores_bytes(self) -> float:
        return self.stores * self.cacheline_size

    @property
    def total_bytes(self) -> float:
        return self.total * self.cacheline_size

    def to_dict(self) -> dict:
        return {"upper": self.upper, "lower": self.lower,
                "loads": self.loads, "stores": self.stores,
                "loads_bytes": self.loads_bytes, "stores_bytes": self.stores_bytes,
                "total_bytes": self.total_bytes}


def transfer_volumes(result: TrafficResult) -> tuple[LinkTransfer, ...]:
    """Volumes on the links ``L1<->L2, ..., Llast<->MEM`` (see module doc).

    A load is charged to the link just above its source level, a store to the
    link just above its target level; missing breakdowns default to the next
    level (``MEM`` after the last cache).
    """
    names = list(result.level_names) + [MEMORY_LEVEL]
    loads = {n: 0.0 for n in names[1:]}
    stores = {n: 0.0 for n in names[1:]}
    for pos, lvl in enumerate(result.levels):
        below = names[pos + 1]
        for target, flows, parts, total in ((loads, "load source", lvl.load_sources, lvl.loads),
                                            (stores, "store target", lvl.store_targets, lvl.stores)):
            for other, lines in (parts or ((below, total),)):
                if other not in target or names.index(other) <= pos:
                    raise KerncraftError(
                        f"traffic of {lvl.level}: {flows} {other!r} is not a level below it")
                target[other] += lines
    if result.nontemporal is not None and MEMORY_LEVEL in stores:   # core -> memory
        stores[MEMORY_LEVEL] += result.nontemporal.lines
    return tuple(LinkTransfer(upper=names[i], lower=names[i + 1],
                              loads=loads[names[i + 1]], stores=stores[names[i + 1]],
                              cacheline_size=result.cacheline_size)
                 for i in range(len(names) - 1))
