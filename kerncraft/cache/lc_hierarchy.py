"""Cache capacities for layer conditions, and per-level flows of the hierarchy.

Layer conditions judge each level on its own ("does the reuse window fit
into this level?"). This module supplies the capacity each level may fill and
turns the per-level hit/miss verdicts into the line flows of
:class:`~kerncraft.cache.traffic.LevelTraffic`, honouring the machine file's
``load_from`` / ``victims_to`` / ``write_allocate`` semantics exactly as the
cache simulator (:mod:`kerncraft.cache.cache_sim`) counts them.

Cache-fill assumption (why 1/2)
-------------------------------
A layer condition compares the data that must survive between a reference and
its reuse with a cache size. Using the full size is too optimistic in
practice: with LRU and limited associativity the streams do not spread
evenly over the sets, hardware prefetchers bring in lines ahead of use, and
stack, code and other data share the cache. The established rule of thumb of
layer-condition analyses is to let the window occupy at most **half** of a
cache; we apply it to every level (``DEFAULT_FILL_FACTOR``), overridable per
level. An idealized fully-associative LRU cache keeps reuse up to the full
size, so between 1/2 and 1 of a level the LC predictor is deliberately
pessimistic (the near-threshold note says so when a point lands there).

The whole working set of a repeated kernel (why 2/3)
---------------------------------------------------
The top condition of a kernel that runs repeatedly (benchmark, ECM steady
state) is different: no new data streams through the cache, the same working
set is swept again and again. Prefetchers then bring in nothing that is not
part of it, and LRU keeps a cyclically swept set that fits. Measured on the
development host (Ice Lake-SP, 48 kB L1, 1.25 MB L2): triad runs at L1 speed
up to a 44 kB working set (92 % of L1), and the load kernel's size sweep
(three sizes per octave) steps down from the L1 plateau at ~45 kB (94 %) and
from the L2 plateau between 1.0 and 1.26 MB (80-100 %; last size on it 813 kB)
(benchmarks/host_machine_notes.md). The whole-sweep condition may therefore
fill ``WHOLE_SWEEP_FILL`` = 2/3 of a level (or the fill factor, if larger),
below all of these measurements and below the AMD Zen 2 observation that a 24 KiB
working set (75 % of its 32 KiB L1) still runs from L1. This is a default: a
machine file may give the measured share per level (``whole working set fill:
0.9``, written by ``kerncraft-machine`` from the end of the level's bandwidth
plateau), which then replaces it for that level.

Shared caches
-------------
A level with ``cores per group > 1`` is shared. With ``cores=1`` the single
active core may use the whole group's cache. With more cores, the group's
size is split evenly among the active cores of the group,
``min(cores, cores_per_group)`` (cores are assumed to fill one group before
the next). An exclusive victim cache (the target of another level's
``victims_to``) holds lines *not* in the level above, so a reuse window can be
spread over both: its usable capacity is ``fill * (own share + owner share)``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Mapping, Sequence

from kerncraft.cache.traffic import MEMORY_LEVEL, LevelTraffic
from kerncraft.errors import KerncraftError

DEFAULT_FILL_FACTOR = 0.5
"""Share of a cache a layer condition may fill (see module doc for why 1/2)."""

WHOLE_SWEEP_FILL = 2 / 3
"""Share of a cache the whole working set of a repeated kernel may fill (module doc)."""

Role = Literal["regular", "victim-owner", "victim-target"]


@dataclass(frozen=True)
class LevelCapacity:
    """What one cache level offers to layer conditions."""

    name: str
    size: int                 # bytes per group (machine file)
    cores_per_group: int
    active_cores: int
    share: float              # bytes available to one active core
    fill: float
    usable: float             # bytes a layer condition may fill
    role: Role
    partner: str | None       # victim target (for an owner) or owner (for a target)
    write_allocate: bool
    load_from: str | None
    victims_to: str | None
    sets: int
    ways: int
    cl_size: int
    sweep_fill: float = WHOLE_SWEEP_FILL   # the machine file's 'whole working set fill'

    @property
    def sweep_usable(self) -> float:
        """Bytes the whole working set of a repeated kernel may fill (module doc)."""
        return self.usable / self.fill * max(self.fill, self.sweep_fill)

    def describe(self) -> str:
        text = f"{self.name}: {_kb(self.usable)} usable = {self.fill:g} x "
        if self.role == "victim-target":
            text += f"({_kb(self.share)} + {self.partner} share, exclusive victim cache)"
        else:
            text += _kb(self.share)
        if self.sweep_usable != self.usable:
            text += f" (whole working set: {_kb(self.sweep_usable)})"
        if self.cores_per_group > 1:
            text += (f" [shared by {self.cores_per_group} cores, {self.active_cores} active: "
                     f"{_kb(self.size)} / {self.active_cores}]")
        return text


def _kb(nbytes: float) -> str:
    if nbytes >= 1 << 20:
        return f"{nbytes / (1 << 20):.2f} MB"
    return f"{nbytes / 1024:.2f} kB"


def fill_factor_for(name: str, fill: float | Mapping[str, float] | None) -> float:
    """Resolve the fill factor of level ``name`` from a number or per-level mapping."""
    if fill is None:
        value = DEFAULT_FILL_FACTOR
    elif isinstance(fill, Mapping):
        value = float(fill.get(name, DEFAULT_FILL_FACTOR))
    else:
        value = float(fill)
    if not 0.0 < value <= 1.0:
        raise KerncraftError(f"cache fill factor for {name} must be in (0, 1], got {value}")
    return value


def level_capacities(machine, cores: int = 1,
                     fill: float | Mapping[str, float] | None = None) -> tuple[LevelCapacity, ...]:
    """Usable capacity of every cache level (L1 first) for ``cores`` active cores."""
    if cores < 1:
        raise KerncraftError(f"cores must be >= 1, got {cores}")
    levels = machine.cache_levels
    if not levels:
        raise KerncraftError("machine file has no cache levels for layer conditions")
    owners = {lvl.geometry.victims_to: lvl.name for lvl in levels
              if lvl.geometry.victims_to and lvl.geometry.load_from is None}
    shares: dict[str, float] = {}
    out: list[LevelCapacity] = []
    for lvl in levels:
        geo = lvl.geometry
        size = int(lvl.size_per_group or geo.size)
        cpg = int(lvl.cores_per_group or 1)
        active = min(cores, cpg)
        shares[lvl.name] = size / active
    for lvl in levels:
        geo = lvl.geometry
        f = fill_factor_for(lvl.name, fill)
        share = shares[lvl.name]
        if lvl.name in owners:
            role: Role = "victim-target"
            partner = owners[lvl.name]
            usable = f * (share + shares.get(partner, 0.0))
        elif geo.load_from is None and geo.victims_to:
            role, partner, usable = "victim-owner", geo.victims_to, f * share
        else:
            role, partner, usable = "regular", None, f * share
        cpg = int(lvl.cores_per_group or 1)
        out.append(LevelCapacity(lvl.name, int(lvl.size_per_group or geo.size), cpg,
                                 min(cores, cpg), share, f, usable, role, partner,
                                 geo.write_allocate, geo.load_from, geo.victims_to, geo.sets,
                                 geo.ways, geo.cl_size,
                                 lvl.whole_working_set_fill or WHOLE_SWEEP_FILL))
    return tuple(out)


@dataclass(frozen=True)
class RegimeRates:
    """Lines per unit of work of one regime (inclusive view, before hierarchy rules).

    ``read_misses``: lines of read (or read+write) references not kept;
    ``write_misses``: lines of write-only references not kept (write-allocate
    turns them into loads); ``dirty``: written lines leaving the level.
    """

    read_misses: float
    write_misses: float
    dirty: float


def hierarchy_traffic(caps: Sequence[LevelCapacity], rates: Sequence[RegimeRates],
                      cacheline_size: int) -> tuple[LevelTraffic, ...]:
    """Per-level :class:`LevelTraffic` from each level's regime rates (same order).

    Counting follows :mod:`kerncraft.cache.traffic`: a victim owner (empty
    ``load_from``, ``victims_to`` set) loads its misses from the victim level
    when the victim level's condition keeps them and from memory otherwise,
    and sends *every* replaced line to the victim level (steady state:
    replaced lines = filled lines). The victim level itself is never filled
    from below (``loads == 0``); its hits/misses are the owner's lookups and
    its stores are its dirty lines going to memory.

    A level below a write-allocating one receives that level's write-allocate
    fills as ordinary loads, whatever its own ``write_allocate`` says (Zen's
    non-allocating L3 still fetches the line that L2 allocates for a store).
    A regular level with ``victims_to`` (a ``load_from`` level that also takes
    victims, as in the Zen files) sends every replaced line there: stores =
    fills.
    """
    by_name = {c.name: i for i, c in enumerate(caps)}
    out: list[LevelTraffic] = []
    prev_loads: float | None = None
    prev_serves_me = False
    for i, cap in enumerate(caps):
        r = rates[i]
        misses = r.read_misses + r.write_misses
        allocated_above = any(c.write_allocate for c in caps[:i])
        loads = r.read_misses + (r.write_misses if cap.write_allocate or allocated_above
                                 else 0.0)
        if prev_loads is not None:            # never more requests than the level above sent
            loads = min(loads, prev_loads) if prev_serves_me else loads
            misses = min(misses, prev_loads) if prev_serves_me else misses
        hits = max(0.0, prev_loads - misses) if (prev_serves_me and prev_loads is not None) else None
        if cap.role == "victim-owner":
            target = rates[by_name[cap.partner]]
            tcap = caps[by_name[cap.partner]]
            from_mem = min(loads, target.read_misses
                           + (target.write_misses if cap.write_allocate else 0.0))
            lt = LevelTraffic(cap.name, loads, loads, misses, loads, cacheline_size, hits,
                              _nonzero((tcap.name, loads - from_mem), (MEMORY_LEVEL, from_mem)),
                              _nonzero((tcap.name, loads)))
        elif cap.role == "victim-target":
            owner = out[by_name[cap.partner]]
            from_mem = dict(owner.load_sources).get(MEMORY_LEVEL, owner.loads)
            lt = LevelTraffic(cap.name, 0.0, r.dirty, from_mem, r.dirty, cacheline_size,
                              max(0.0, owner.loads - from_mem))
        else:
            sources: tuple = ()
            if cap.load_from is not None and i + 1 < len(caps) and cap.load_from != caps[i + 1].name:
                sources = ((cap.load_from, loads),)
            stores = max(loads, r.dirty) if cap.victims_to else r.dirty
            lt = LevelTraffic(cap.name, loads, stores, misses, stores, cacheline_size, hits,
                              sources)
        out.append(lt)
        prev_loads = lt.loads
        prev_serves_me = cap.load_from is not None and i + 1 < len(caps) \
            and cap.load_from == caps[i + 1].name
    return tuple(out)


def _nonzero(*parts: tuple[str, float]) -> tuple[tuple[str, float], ...]:
    """Breakdown entries with traffic (the simulator leaves empty sources out too)."""
    return tuple(p for p in parts if p[1] > 0)
