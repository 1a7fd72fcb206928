"""The cache-simulation traffic predictor (``-P SIM``).

Procedure
---------
1. Build the per-core cache hierarchy from the machine file
   (:func:`kerncraft.cache.sim_levels.level_specs_from_machine`; shared levels
   get the share of ``cores`` cores).
2. Walk the kernel from the middle of its iteration space
   (:class:`kerncraft.cache.addresses.UnitGenerator`), a chunk of units of
   work at a time (:meth:`~kerncraft.cache.addresses.UnitGenerator.chunks`,
   fed to the generated fast engine :meth:`CacheSimulator.feed`).
3. **Warm-up** (:func:`_warm_up`) until the cache state is the steady state,
   see below.
4. **Measurement window**: snapshot the counters, continue until the window
   has touched ``window_factor`` (default 1) times the total capacity in
   distinct lines (at most ``max_window_lines``), or reaches the end of the
   domain, but at least ``min_window_units`` units. Stopping at the domain
   end keeps the window of a large domain in the interior (no wrap-around
   transient); a small domain is measured over a whole sweep, boundaries
   included, as when a kernel is called repeatedly. The counter differences
   divided by the units of work in the window (iterations / iterations per
   unit) are the result.
5. **Settling write-backs**: evictions lag behind the stores that cause them;
   the window is charged with the write-backs it caused (:func:`_settle`), so
   e.g. a copy gives exactly 1.0 dirty line per unit at every level, whether
   or not the lower levels are full yet.

Warm-up rule
------------
The simulation starts with empty caches in the middle of the domain, while
the question is the traffic of a kernel that has been running (and called
repeatedly) for a long time. The warm-up ends as soon as one of these holds
(checked after every chunk of at most ``CHUNK_UNITS`` units; whether a level
is full is looked up for its not-yet-full sets only, at most every
``len(pending) / 64`` chunks, so the bookkeeping stays negligible):

(A) **Every level has been filled, top down.** Levels are filled in stages:
    when every set of level *k* has been full at least once, level *k* is
    *settled* and level *k+1* is emptied (:meth:`CacheSimulator.clear_level`)
    and must fill again. A set that has held ``ways`` lines all inserted after
    the events above it became exact can no longer hold anything older (LRU
    evicts older lines first, also in an exclusive victim cache), so from then
    on its content and LRU order are what a cache that had been running
    forever would hold; an emptied level receives exactly the steady-state
    stream of misses, write-backs and victims because every level above it
    is settled already. Once all levels are settled the whole hierarchy is in
    the steady state.
(B) **All levels but the last are settled and the longest reuse has been
    covered once**: ``span`` more iterations have been simulated since, where
    ``span`` bounds (for rectangular loop nests walked monotonically through
    every array, :func:`kerncraft.cache.addresses.reuse_span`) how long any
    line stays in use within a sweep (two planes plus a few rows for a 3D
    stencil). Every line touched in the window was then first touched after
    the upper levels became exact and after the last level was emptied, so
    its whole history - hits, misses, evictions, victim moves - is simulated,
    and a line a warm cache would still hold from before can only be a reuse
    a whole sweep later. (B) is used only when a sweep touches at least twice
    as many lines as all levels hold together (``sweep_lines``), so such a
    reuse misses in the steady state as well. The last level need not be
    full: what it would additionally hold is never touched again in the
    window, and its write-backs are settled by step 5.
(C) The walk has passed the end of the domain twice *since the last level was
    emptied*, i.e. simulated one full sweep of exact events: data that fits
    into the caches is then cached as in every later sweep.
(D) Fallback (kernels that never fill some sets, e.g. strides that use only
    part of a level, and are no monotone walk): ``warmup_factor`` (default 2)
    times the total capacity in distinct lines, the former rule.

(A) and (B) follow from how LRU caches work rather than from a safety
factor, so the warm-up length adapts to the kernel instead of being a fixed
multiple of the capacity. (What they leave open is the dirty bit of a line
that stays cached through the whole warm-up after a store before the start:
at most one write-back per such line - the few lines a kernel keeps hot
in cache, against windows of thousands of units.)
Results agree with the former rule to a few tenths of a percent (see
``benchmarks/RESULTS-traffic.md``). For a 3D 7-point stencil at N=500 on Cascade Lake
(1 core, 14 MB L3) (B) ends the warm-up after about 0.5 M iterations
(two planes) instead of the 1.7 M iterations of the former "2x total
capacity" rule; a 1D stream beyond the caches needs only to fill L1 and L2.

L1 ``hits`` count repeated *line* touches after the address generator has
collapsed element accesses into lines (see :mod:`kerncraft.cache.addresses`),
not load/store instructions; all other figures are unaffected by that.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

from kerncraft.cache.addresses import UnitGenerator, reuse_span
from kerncraft.cache.cache_sim import MEMORY, CacheSimulator, LevelStats
from kerncraft.cache.sim_levels import LevelSpec, level_specs_from_machine
from kerncraft.cache.traffic import LevelTraffic, TrafficResult, iterations_per_cacheline

CHUNK_UNITS = 128        # units of work per engine call (stop granularity)


def _warm_up(sim: CacheSimulator, chunks, span: int | None,
             fallback_lines: int) -> tuple[int, str]:
    """Feed chunks until the steady state (module doc, rules A-D).

    Returns the iterations simulated and which rule ended the warm-up.
    """
    nlevels = len(sim.levels)
    stage = 0                                   # levels [0, stage) are settled
    pending = sim.unfilled_sets(0)
    countdown = 0                               # chunks until the next fill check
    settled_at = 0 if nlevels == 1 else None    # iterations when stage reached n-1
    touched: set[int] = set()
    update = touched.update
    feed = sim.feed
    iterations = ends = 0
    for seq, its, sweep_end in chunks:
        feed(seq)
        update(map(abs, seq))
        iterations += its
        ends += sweep_end
        countdown -= 1
        while stage < nlevels and countdown <= 0:
            pending = sim.unfilled_sets(stage, pending)
            if pending:
                # a check costs one look per pending set: amortize to <= 64 per chunk
                countdown = len(pending) // 64
                break
            stage += 1
            if stage < nlevels:
                sim.clear_level(stage)
                ends = 0
                pending = sim.unfilled_sets(stage)
                countdown = len(pending) // 64
            if stage == nlevels - 1:
                settled_at = iterations
        if stage == nlevels:
            return iterations, "all levels filled"
        if span is not None and settled_at is not None and iterations - settled_at >= span:
            return iterations, f"levels above the last filled + reuse span {span} iterations"
        if ends >= 2:
            return iterations, "one full sweep since the last level was emptied"
        if len(touched) >= fallback_lines:
            return iterations, "distinct lines reached the fallback limit"
    raise AssertionError("unit generator ended")   # pragma: no cover (endless)


def _measure(sim: CacheSimulator, chunks, window_lines: int, min_iterations: int) -> int:
    """Feed the measurement window (module doc, step 4); return its iterations."""
    touched: set[int] = set()
    update = touched.update
    feed = sim.feed
    iterations = 0
    for seq, its, sweep_end in chunks:
        feed(seq)
        update(map(abs, seq))
        iterations += its
        if iterations >= min_iterations and (sweep_end or len(touched) >= window_lines):
            return iterations
    raise AssertionError("unit generator ended")   # pragma: no cover (endless)


def _settle(stats: LevelStats, spec: LevelSpec) -> LevelStats:
    """Charge the window with the write-backs it *caused*, not those it saw.

    A line dirtied (or, with ``victims_to``, cached) near the end of the window
    is written below only later, while lines from before the window are
    written inside it. In steady state both balance on average, but over a
    finite window the eviction count fluctuates with the phase of the sets
    (several percent for mixed streams). Adding the change in the number of
    lines the level still owes to the level below
    (:meth:`CacheSimulator.owed_lines`) turns the count into the write-back
    liability created by the window.
    """
    delta = stats.owed
    if not delta:
        return stats
    target = spec.victims_to or spec.store_to or MEMORY
    targets = dict(stats.store_targets)
    targets[target] = targets.get(target, 0) + delta
    return dataclasses.replace(stats, stores=stats.stores + delta,
                               evictions=stats.evictions + delta, store_targets=targets)


def _level_traffic(stats: LevelStats, units: float, cl: int) -> LevelTraffic:
    def per(mapping):
        return tuple(sorted(((k, v / units) for k, v in mapping.items() if v),
                            key=lambda kv: kv[0] == MEMORY))
    return LevelTraffic(level=stats.name, loads=stats.loads / units, stores=stats.stores / units,
                        misses=stats.misses / units, evictions=stats.evictions / units,
                        cacheline_size=cl, hits=stats.hits / units,
                        load_sources=per(stats.load_sources),
                        store_targets=per(stats.store_targets))


def predict_traffic_sim(kernel, machine, cores: int = 1, **options) -> TrafficResult:
    """Predict per-level traffic of a *bound* kernel by simulating ``machine``'s caches.

    ``cores`` selects the share of shared caches (see
    :mod:`kerncraft.cache.cache_sim`); ``options`` are those of
    :func:`simulate_traffic`.
    """
    result = simulate_traffic(kernel, level_specs_from_machine(machine, cores), **options)
    notes = [f"shared caches split for {cores} core(s) as the machine file implies"]
    notes += [f"{lvl.name}: replacement policy {lvl.geometry.replacement_policy!r} "
              "simulated as LRU" for lvl in machine.cache_levels
              if str(lvl.geometry.replacement_policy).upper() != "LRU"]
    return dataclasses.replace(result, notes=tuple(notes) + result.notes)


def simulate_traffic(kernel, levels: Sequence[LevelSpec], *, warmup_factor: float = 2.0,
                     window_factor: float = 1.0, max_window_lines: int = 1 << 16,
                     min_window_units: int = 64, start: float = 0.5) -> TrafficResult:
    """Simulate a *bound* kernel on an explicit hierarchy (L1 first).

    ``warmup_factor`` sizes the fallback warm-up (rule D of the module doc) and
    ``window_factor`` the window, in multiples of the total capacity (distinct
    lines); ``max_window_lines`` caps the window (4 MiB of 64 B lines by
    default: a bigger window only averages more of the same steady state),
    ``min_window_units`` is the least number of units measured, ``start`` the
    fraction of the outermost loop's range where the walk begins (see module
    doc).
    """
    sim = CacheSimulator(levels)
    cl = sim.cl_size
    per_unit = iterations_per_cacheline(kernel, cl)
    gen = UnitGenerator(kernel, cl, per_unit, start=start)
    chunks = gen.chunks(CHUNK_UNITS)
    capacity = sim.total_lines
    bound = reuse_span(kernel, cl, gen.layout)
    span = bound.span if bound is not None and bound.sweep_lines >= 2 * capacity else None
    warm_iterations, rule = _warm_up(sim, chunks, span, int(warmup_factor * capacity))
    before = sim.stats()
    window_lines = max(1, min(int(window_factor * capacity), max_window_lines))
    iterations = _measure(sim, chunks, window_lines, min_window_units * per_unit)
    after = sim.stats()
    work = iterations / per_unit
    result_levels = tuple(_level_traffic(_settle(after[s.name] - before[s.name], s), work, cl)
                          for s in sim.specs)
    sizes = ", ".join(f"{s.name} {s.size / 1024:g} KiB" for s in sim.specs)
    notes = (
        f"simulated caches: {sizes}",
        f"warm-up {warm_iterations} iterations ({rule}), window {iterations} iterations "
        f"({work:g} units of {per_unit} iterations)",
        "memory per unit: {:g} CL loaded, {:g} CL stored".format(
            *(sum(dict(getattr(lvl, attr)).get(MEMORY, 0.0) for lvl in result_levels)
              for attr in ("load_sources", "store_targets"))),
    )
    return TrafficResult(unit_of_work_iterations=per_unit, cacheline_size=cl,
                         levels=result_levels, predictor="SIM", notes=notes)
