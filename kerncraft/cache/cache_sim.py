"""A set-associative, LRU, cache-line-granular hierarchy simulator in pure Python.

Why this design
---------------
The SIM predictor only needs *counts* of line transfers, so the simulator
works on cache-line numbers (``address // cl_size``; addresses are 64-bit
Python ints) and never on bytes or elements. Each set is a small ``dict``
mapping line -> dirty flag whose insertion order *is* the LRU order (oldest
first): a hit is ``pop`` + re-insert, a replacement evicts ``next(iter(set))``.
The address generator (:mod:`kerncraft.cache.addresses`) collapses element
accesses into line accesses before they reach the simulator.

Two engines with identical semantics
------------------------------------
* The *reference engine* (:meth:`CacheSimulator.load`, :meth:`~CacheSimulator.store`,
  :meth:`~CacheSimulator.access` and the ``_load``/``_fill``/``_evict``/``_put``/
  ``_store``/``_forward`` methods) is the readable statement of the semantics
  below, one small method per rule.
* The *fast engine* (:meth:`CacheSimulator.feed`) is generated from the same
  rules, specialised for one hierarchy: :func:`kerncraft.cache.cache_sim_engine.engine_source` unrolls the
  method calls for the concrete levels (their policies are constants then,
  so most branches vanish), keeps every counter in a local variable and
  processes a whole list of accesses per call. It is plain Python source,
  compiled once per hierarchy and cached. ``tests/test_cache_sim.py`` checks
  that both engines give identical counters and identical cache contents
  (LRU order included) on random traces over several hierarchies. The SIM
  predictor uses the fast engine (with set sampling, :mod:`kerncraft.cache.sim_sampling`,
  3D stencils at N=500 take about 0.2 s: ``benchmarks/bench_sim_speed.py``).

Semantics (honouring the Kerncraft machine-file keys)
-----------------------------------------------------
* ``load_from``: a demand miss fetches the line from that level (which
  allocates it too, i.e. a normal fill through the hierarchy). Empty
  ``load_from`` with ``victims_to`` set: the miss *looks up* the victim level;
  a hit there moves the line (with its dirty state) up and removes it from the
  victim cache (exclusive victim cache, ``victim_exclusive=True``); a miss
  there fetches from memory, bypassing the victim cache. Empty ``load_from``
  without ``victims_to``: fetch from memory.
* ``write_allocate``: a store from the core (or a partial store forwarded by a
  non-allocating level above) that misses fetches the line first. Full-line
  write-backs and victims never need a fetch: a level that write-allocates, or
  is the target of ``victims_to``, simply inserts them; other levels forward
  them to ``store_to`` (memory if empty).
* ``write_back``: stores mark lines dirty and dirty lines are written to
  ``store_to`` (memory if empty) when replaced. Without write-back (write
  through) every store is forwarded at once and lines stay clean.
* ``victims_to``: *every* replaced line, clean or dirty, is written there.
* Counting follows :mod:`kerncraft.cache.traffic`: ``loads`` are lines filled
  from below, ``stores`` lines sent below, ``misses``/``hits`` demand lookups,
  ``evictions`` replaced lines that had to be written below.

Shared caches
-------------
A level whose ``cores per group`` is larger than one is shared (the levels are
built in :mod:`kerncraft.cache.sim_levels`). With
``cores`` cores running the kernel, ``min(cores, cores_per_group)`` of them
share one group, and each gets that fraction of it (sets are scaled, ways
kept, rounded down, at least one set). A lone core (the default ``cores=1``)
gets the whole shared cache, e.g. all 14 MB of a Cascade Lake L3 group; ten
active cores get 1.4 MB each. The layer-condition predictor uses the same
convention, so LC and SIM answer the same question.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain, compress
from typing import Iterable, Mapping, Sequence

from kerncraft.cache.sim_levels import LevelSpec, level_specs_from_machine
from kerncraft.errors import KerncraftError

MEMORY = "MEM"


@dataclass(frozen=True)
class LevelStats:
    """Cumulative counters of one level, in cache lines (see module doc).

    Subtracting two snapshots gives the counts of the interval between them
    (``owed`` then is the change in pending write-backs).
    """

    name: str
    hits: int = 0
    misses: int = 0
    loads: int = 0
    stores: int = 0
    evictions: int = 0
    load_sources: Mapping[str, int] = field(default_factory=dict)
    store_targets: Mapping[str, int] = field(default_factory=dict)
    owed: int = 0              # lines that will still be written below (see ``owed_lines``)

    def __add__(self, other: "LevelStats") -> "LevelStats":
        """Counts of two disjoint sets of cache sets together (set sampling)."""
        def total(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
            return {k: a.get(k, 0) + b.get(k, 0) for k in set(a) | set(b)}
        return LevelStats(self.name, self.hits + other.hits, self.misses + other.misses,
                          self.loads + other.loads, self.stores + other.stores,
                          self.evictions + other.evictions,
                          total(self.load_sources, other.load_sources),
                          total(self.store_targets, other.store_targets),
                          self.owed + other.owed)

    def __sub__(self, other: "LevelStats") -> "LevelStats":
        def diff(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
            return {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b)}
        return LevelStats(self.name, self.hits - other.hits, self.misses - other.misses,
                          self.loads - other.loads, self.stores - other.stores,
                          self.evictions - other.evictions,
                          diff(self.load_sources, other.load_sources),
                          diff(self.store_targets, other.store_targets),
                          self.owed - other.owed)


class _Level:
    """Mutable state of one level; attributes are read in the hot loop, hence slots."""

    __slots__ = ("spec", "name", "nsets", "ways", "sets", "write_allocate", "write_back",
                 "load_from", "store_to", "victims_to", "victim_target",
                 "hits", "misses", "loads", "stores", "evictions",
                 "from_next", "from_victim", "to_victim", "to_store")

    def __init__(self, spec: LevelSpec):
        self.spec = spec
        self.name = spec.name
        self.nsets = spec.sets
        self.ways = spec.ways
        self.sets: list[dict[int, bool]] = [dict() for _ in range(spec.sets)]
        self.write_allocate = spec.write_allocate
        self.write_back = spec.write_back
        self.load_from: _Level | None = None
        self.store_to: _Level | None = None
        self.victims_to: _Level | None = None
        self.victim_target = False
        self.hits = self.misses = self.loads = self.stores = self.evictions = 0
        # loads by source (load_from level / victim level / rest: memory) and
        # stores by target (victims_to level / store_to level or memory)
        self.from_next = self.from_victim = self.to_victim = self.to_store = 0

    def stats(self, owed: int = 0) -> LevelStats:
        src: dict[str, int] = {}
        if self.from_next:
            src[self.load_from.name] = self.from_next
        if self.from_victim:
            src[self.victims_to.name] = self.from_victim
        if self.loads - self.from_next - self.from_victim:
            src[MEMORY] = self.loads - self.from_next - self.from_victim
        tgt: dict[str, int] = {}
        if self.to_victim:
            tgt[self.victims_to.name] = self.to_victim
        if self.to_store:
            tgt[MEMORY if self.store_to is None else self.store_to.name] = self.to_store
        return LevelStats(self.name, self.hits, self.misses, self.loads, self.stores,
                          self.evictions, src, tgt, owed)

    def add(self, hits: int, misses: int, loads: int, evictions: int, forwarded: int,
            from_victim: int) -> None:
        """Add the counters of one fast-engine call (see ``sim_engine.COUNTERS``)."""
        if self.write_allocate and not self.victim_target:
            loads = misses                  # every miss is a fill (not counted separately)
        self.hits += hits
        self.misses += misses
        self.loads += loads
        self.evictions += evictions
        self.stores += evictions + forwarded
        if self.load_from is not None:
            self.from_next += loads
        self.from_victim += from_victim
        if self.victims_to is not None:
            self.to_victim += evictions
            self.to_store += forwarded
        else:
            self.to_store += evictions + forwarded

    def dirty_lines(self) -> set[int]:
        return set(compress(chain.from_iterable(self.sets),
                            chain.from_iterable(map(dict.values, self.sets))))

    def resident_lines(self) -> set[int]:
        return set().union(*self.sets)



class CacheSimulator:
    """Simulate one core's accesses through the levels given (L1 first).

    Feed it line numbers with :meth:`access` (reads, then writes) or
    :meth:`load` / :meth:`store`; read counters with :meth:`stats`.
    """

    def __init__(self, levels: Sequence[LevelSpec], *, victim_exclusive: bool = True):
        if not levels:
            raise KerncraftError("cache simulator needs at least one level")
        self.specs = tuple(levels)
        self.cl_size = self.specs[0].cl_size
        self.victim_exclusive = victim_exclusive
        self.levels = [_Level(s) for s in self.specs]
        by_name = {lv.name: lv for lv in self.levels}
        for pos, lv in enumerate(self.levels):
            for attr in ("load_from", "store_to", "victims_to"):
                target = getattr(lv.spec, attr)
                if target is None:
                    continue
                if target not in by_name or self.specs.index(by_name[target].spec) <= pos:
                    raise KerncraftError(f"{lv.name}.{attr}: {target!r} is not a cache level "
                                         "below it")
                setattr(lv, attr, by_name[target])
            if lv.victims_to is not None:
                lv.victims_to.victim_target = True
        self.mem_loads = 0
        self.mem_stores = 0
        self._engine = None

    @classmethod
    def from_machine(cls, machine, cores: int = 1, **kwargs) -> "CacheSimulator":
        return cls(level_specs_from_machine(machine, cores), **kwargs)

    @property
    def total_lines(self) -> int:
        """Lines all levels can hold together (used to size warm-up and window)."""
        return sum(s.lines for s in self.specs)

    # --- statistics ----------------------------------------------------------
    def owed_lines(self) -> dict[str, set[int]]:
        """Per level, the lines it will still have to write below.

        Every line dirty in the level or in any level above it will eventually
        be written from this level (write-backs travel down the hierarchy and
        merge with a dirty copy already there); a level with ``victims_to``
        will also pass on every line it holds. Used to settle the eviction lag
        of a finite measurement window (see :mod:`kerncraft.cache.sim_predictor`).
        """
        out: dict[str, set[int]] = {}
        dirty_above: set[int] = set()
        for lv in self.levels:
            dirty_above |= lv.dirty_lines()
            out[lv.name] = (lv.resident_lines() | dirty_above if lv.victims_to is not None
                            else set(dirty_above))
        return out

    def stats(self) -> dict[str, LevelStats]:
        """Snapshot of the cumulative counters; ``MEM`` holds memory loads/stores."""
        owed = self.owed_lines()
        out = {lv.name: lv.stats(len(owed[lv.name])) for lv in self.levels}
        out[MEMORY] = LevelStats(MEMORY, loads=self.mem_loads, stores=self.mem_stores)
        return out

    def contents(self, name: str) -> list[list[int]]:
        """Lines per set of a level, LRU first (for tests and debugging)."""
        lv = next(lv for lv in self.levels if lv.name == name)
        return [list(s) for s in lv.sets]

    # --- fast engine ------------------------------------------------------------
    def feed(self, seq: Sequence[int]) -> None:
        """Process a list of accesses in order with the generated fast engine.

        ``seq`` holds *positive* line numbers; a read is ``line``, a write is
        ``-line``. The result is the same as :meth:`load` / :meth:`store` on
        each element (see module doc), only faster.
        """
        from kerncraft.cache.cache_sim_engine import COUNTERS, make_engine

        if self._engine is None:
            self._engine = make_engine(self.specs, self.victim_exclusive,
                                        [lv.sets for lv in self.levels])
        counts = self._engine(seq)
        width = len(COUNTERS)
        for k, lv in enumerate(self.levels):
            lv.add(*counts[k * width:(k + 1) * width])
        self.levels[0].hits += len(seq) - counts[1]   # L1 hits: accesses - misses
        self.mem_loads += counts[-2]
        self.mem_stores += counts[-1]

    # --- warm-up support ---------------------------------------------------------
    def clear_level(self, index: int) -> None:
        """Empty every set of level ``index`` (counters are kept, nothing is written back).

        Used by the SIM predictor's staged warm-up; see :mod:`kerncraft.cache.sim_predictor`.
        """
        for s in self.levels[index].sets:
            s.clear()

    def unfilled_sets(self, index: int, candidates: Iterable[int] | None = None) -> list[int]:
        """Indices (among ``candidates``, default all) of level ``index``'s sets not yet full."""
        lv = self.levels[index]
        sets, ways = lv.sets, lv.ways
        if candidates is None:
            candidates = range(lv.nsets)
        return [i for i in candidates if len(sets[i]) < ways]

    # --- public access API ---------------------------------------------------
    def load(self, line: int) -> None:
        """The core reads (part of) ``line``."""
        self._load(self.levels[0], line)

    def store(self, line: int) -> None:
        """The core writes (part of) ``line``."""
        self._store(self.levels[0], line)

    def access(self, reads: Iterable[int], writes: Iterable[int] = ()) -> None:
        """Process ``reads`` then ``writes`` (line numbers) with an inlined L1-hit path."""
        l1 = self.levels[0]
        sets, nsets = l1.sets, l1.nsets
        hits = 0
        for line in reads:
            s = sets[line % nsets]
            if line in s:
                s[line] = s.pop(line)
                hits += 1
            else:
                self._load(l1, line)
        if l1.write_back:
            for line in writes:
                s = sets[line % nsets]
                if line in s:
                    del s[line]
                    s[line] = True
                    hits += 1
                else:
                    self._store(l1, line)
        else:
            for line in writes:
                self._store(l1, line)
        l1.hits += hits

    # --- engine ----------------------------------------------------------------
    # The miss path is written out (fill and replacement inlined into _load)
    # because it runs for every line that leaves L1; see the module doc.
    def _load(self, lv: _Level, line: int) -> None:
        """Demand read at ``lv``; afterwards the line is cached in ``lv``."""
        s = lv.sets[line % lv.nsets]
        if line in s:
            lv.hits += 1
            s[line] = s.pop(line)
            return
        lv.misses += 1
        dirty = self._fill(lv, line)
        if len(s) >= lv.ways:
            victim = next(iter(s))
            vdirty = s.pop(victim)
            if vdirty or lv.victims_to is not None:
                self._evict(lv, victim, vdirty)
        s[line] = dirty

    def _fill(self, lv: _Level, line: int) -> bool:
        """Fetch a missing line for ``lv`` from below; return its dirty state."""
        lv.loads += 1
        src = lv.load_from
        if src is not None:
            lv.from_next += 1
            ss = src.sets[line % src.nsets]
            if line in ss:                  # inlined hit path of _load(src, line)
                src.hits += 1
                ss[line] = ss.pop(line)
            else:
                self._load(src, line)
            return False
        vt = lv.victims_to
        if vt is not None:
            vs = vt.sets[line % vt.nsets]
            if line in vs:
                vt.hits += 1
                lv.from_victim += 1
                if self.victim_exclusive:
                    return vs.pop(line)
                vs[line] = vs.pop(line)
                return False
            vt.misses += 1
        self.mem_loads += 1
        return False

    def _insert(self, lv: _Level, s: dict[int, bool], line: int, dirty: bool) -> None:
        """Place ``line`` as MRU in set ``s`` of ``lv``, replacing the LRU line if full."""
        if len(s) >= lv.ways:
            victim = next(iter(s))
            vdirty = s.pop(victim)
            if vdirty or lv.victims_to is not None:
                self._evict(lv, victim, vdirty)
        s[line] = dirty

    def _evict(self, lv: _Level, line: int, dirty: bool) -> None:
        """A replaced line that must go below: all lines with victims_to, else dirty ones."""
        lv.evictions += 1
        lv.stores += 1
        vt = lv.victims_to
        if vt is not None:
            lv.to_victim += 1
            self._put(vt, line, dirty)
            return
        lv.to_store += 1
        if lv.store_to is None:
            self.mem_stores += 1
        else:
            self._put(lv.store_to, line, True)

    def _forward(self, lv: _Level, line: int, full_line: bool) -> None:
        """Pass a store that ``lv`` does not keep to ``store_to`` (memory if None)."""
        lv.stores += 1
        lv.to_store += 1
        target = lv.store_to
        if target is None:
            self.mem_stores += 1
        elif full_line:
            self._put(target, line, True)
        else:
            self._store(target, line)

    def _put(self, lv: _Level, line: int, dirty: bool) -> None:
        """A full line (write-back or victim) arrives from above; no fetch is needed."""
        s = lv.sets[line % lv.nsets]
        if line in s:
            s[line] = (s.pop(line) or dirty) and lv.write_back
        elif lv.write_allocate or lv.victim_target:
            if len(s) >= lv.ways:           # inlined _insert
                victim = next(iter(s))
                vdirty = s.pop(victim)
                if vdirty or lv.victims_to is not None:
                    self._evict(lv, victim, vdirty)
            s[line] = dirty and lv.write_back
        else:
            if dirty:
                self._forward(lv, line, True)
            return
        if dirty and not lv.write_back:
            self._forward(lv, line, True)

    def _store(self, lv: _Level, line: int) -> None:
        """A partial-line store (from the core or a non-allocating level above)."""
        s = lv.sets[line % lv.nsets]
        if line in s:
            lv.hits += 1
            del s[line]
            s[line] = lv.write_back
        else:
            lv.misses += 1
            if not lv.write_allocate:
                self._forward(lv, line, False)
                return
            self._fill(lv, line)
            self._insert(lv, s, line, lv.write_back)
        if not lv.write_back:
            self._forward(lv, line, False)
