"""The cache-simulation traffic predictor (``-P SIM``).

Procedure
---------
1. Build the per-core cache hierarchy from the machine file
   (:func:`kerncraft.cache.sim_levels.level_specs_from_machine`; shared levels
   get the share of ``cores`` cores).
2. Walk the kernel from the middle of its iteration space
   (:class:`kerncraft.cache.addresses.UnitGenerator`), a chunk of units of
   work at a time (:func:`kerncraft.cache.line_chunks.line_chunks`: repeated
   rows are moved copies of a template), fed to the generated fast engine
   :meth:`CacheSimulator.feed`.
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

Set sampling
------------
Long simulations of dense streams run steps 2-5 for a few classes of cache
sets only (:mod:`kerncraft.cache.sim_sampling`): each class is simulated
exactly, the first one decides the warm-up and window (in chunks) and the
others replay them, and classes are added until their estimates agree
(standard error 0.2 %); the counts of the classes simulated are summed and
divided by their share of the units of work. A note says which share of the
sets was simulated. In a warm-up with sampling, a level counts as filled when
the class's sets are, checked as often as a full run would check.

Sharing
-------
The unit generator and the row templates of the last kernel are kept
(:func:`_access_stream`), so ECM's simulations of one kernel for several core
counts build them once; the engine is compiled once per hierarchy
(:func:`kerncraft.cache.cache_sim_engine.make_engine`) and the symbolic index
analysis once per index expression (:mod:`kerncraft.cache.addresses`), which
a ``-D`` sweep reuses.

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

Non-temporal stores (``nontemporal``) never reach the simulated caches: they are
taken out of the access stream and counted through write-combining buffers
(:class:`kerncraft.cache.nontemporal.WriteCombining`), in the window only.
"""
from __future__ import annotations

import dataclasses
import functools
import operator
from dataclasses import dataclass
from typing import Sequence

from kerncraft.cache.addresses import UnitGenerator, reuse_span
from kerncraft.cache.line_chunks import Coverage, LineClass, RowTemplates, line_chunks
from kerncraft.cache.cache_sim import MEMORY, CacheSimulator, LevelStats
from kerncraft.cache.sim_levels import LevelSpec, level_specs_from_machine
from kerncraft.cache.sim_sampling import line_classes, precise_enough, sampling_modulus
from kerncraft.cache.traffic import (LevelTraffic, NontemporalStores, TrafficResult,
                                     iterations_per_cacheline)

CHUNK_UNITS = 128        # units of work per engine call (stop granularity)
COVERAGE_TOLERANCE = 0.005   # sampled accesses / their share vs all accesses (window)


def _warm_up(sim: CacheSimulator, chunks, span: int | None, fallback_lines: int,
             lines: LineClass | None = None) -> tuple[int, str, int]:
    """Feed chunks until the steady state (module doc, rules A-D); with set sampling
    only the sets of the class of ``lines`` simulated must fill.

    Returns the iterations simulated, which rule ended the warm-up and the chunks fed.
    """
    nlevels = len(sim.levels)
    stage = 0                                   # levels [0, stage) are settled
    pending = sim.unfilled_sets(0, _class_sets(sim.specs[0], lines))
    scale = 1 if lines is None else lines.modulus // len(lines.residues)
    countdown = 0                               # chunks until the next fill check
    settled_at = 0 if nlevels == 1 else None    # iterations when stage reached n-1
    touched: set[int] = set()
    update = touched.update
    feed = sim.feed
    iterations = ends = fed = 0
    for seq, its, sweep_end in chunks:
        feed(seq)
        update(map(abs, seq))
        iterations += its
        ends += sweep_end
        fed += 1
        countdown -= 1
        while stage < nlevels and countdown <= 0:
            pending = sim.unfilled_sets(stage, pending)
            if pending:
                # a check costs one look per pending set: amortize to <= 64 per chunk
                # (counted in all sets, so that sampling checks as often as a full run)
                countdown = len(pending) * scale // 64
                break
            stage += 1
            if stage < nlevels:
                sim.clear_level(stage)
                ends = 0
                pending = sim.unfilled_sets(stage, _class_sets(sim.specs[stage], lines))
                countdown = len(pending) * scale // 64
            if stage == nlevels - 1:
                settled_at = iterations
        if stage == nlevels:
            return iterations, "all levels filled", fed
        if span is not None and settled_at is not None and iterations - settled_at >= span:
            return iterations, f"levels above the last filled + reuse span {span} iterations", fed
        if ends >= 2:
            return iterations, "one full sweep since the last level was emptied", fed
        if len(touched) >= fallback_lines:
            return iterations, "distinct lines reached the fallback limit", fed
    raise AssertionError("unit generator ended")   # pragma: no cover (endless)


def _class_sets(spec: LevelSpec, lines: LineClass | None) -> list[int] | range:
    """The sets of a level that the class ``lines`` reaches (all if None)."""
    if lines is None:
        return range(spec.sets)
    residues = sorted(lines.residues)
    return [base + r for base in range(0, spec.sets, lines.modulus) for r in residues]


def _measure(sim: CacheSimulator, chunks, window_lines: int,
             min_iterations: int) -> tuple[int, int]:
    """Feed the measurement window (module doc, step 4); return its iterations and chunks."""
    touched: set[int] = set()
    update = touched.update
    feed = sim.feed
    iterations = fed = 0
    for seq, its, sweep_end in chunks:
        feed(seq)
        update(map(abs, seq))
        iterations += its
        fed += 1
        if iterations >= min_iterations and (sweep_end or len(touched) >= window_lines):
            return iterations, fed
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
    :func:`simulate_traffic` (``nontemporal``: arrays whose stores bypass the caches).
    """
    result = simulate_traffic(kernel, level_specs_from_machine(machine, cores), **options)
    notes = [f"shared caches split for {cores} core(s) as the machine file implies"]
    notes += [f"{lvl.name}: replacement policy {lvl.geometry.replacement_policy!r} "
              "simulated as LRU" for lvl in machine.cache_levels
              if str(lvl.geometry.replacement_policy).upper() != "LRU"]
    return dataclasses.replace(result, notes=tuple(notes) + result.notes)


@dataclass(frozen=True)
class _Plan:
    """What every simulation pass of one prediction shares."""

    templates: RowTemplates    # rows of the access stream, shared by all passes
    nontemporal: tuple[str, ...]
    fallback_lines: int        # rule D, in distinct lines of all sets
    window_lines: int          # in distinct lines of all sets
    min_iterations: int
    span: int | None


@dataclass(frozen=True)
class _Run:
    """Counts of one simulation pass (before dividing by the units of work)."""

    levels: tuple[LevelStats, ...]     # window differences, write-backs settled
    warm_iterations: int
    rule: str
    iterations: int
    streamed_lines: int                # non-temporal lines written in the window
    coverage: float                    # kept / share / all accesses in the window
    bounds: tuple[int, int]            # chunks of the warm-up and of the window


def _replay(sim: CacheSimulator, chunks, count: int) -> int:
    """Feed ``count`` chunks; return their iterations."""
    iterations = 0
    for _ in range(count):
        seq, its, _ = next(chunks)
        sim.feed(seq)
        iterations += its
    return iterations


def _simulate(gen: UnitGenerator, levels: Sequence[LevelSpec], plan: _Plan,
              lines: LineClass | None = None, bounds: tuple[int, int] | None = None) -> _Run:
    """Warm up and measure (module doc, steps 1-5) the sets of one class of ``lines`` (all
    sets if None); ``bounds``: the warm-up and window of an earlier class, in chunks."""
    sim = CacheSimulator(levels)
    coverage = Coverage()
    chunks = line_chunks(gen, CHUNK_UNITS, lines, plan.templates, coverage)
    share = 1.0 if lines is None else len(lines.residues) / lines.modulus
    combining = None
    if plan.nontemporal:
        from kerncraft.cache.nontemporal import WriteCombining

        combining = WriteCombining.for_arrays(gen.layout, plan.nontemporal, gen.cl)
        chunks = combining.filter(chunks)
    if bounds is None:
        warm_iterations, rule, warm_chunks = _warm_up(
            sim, chunks, plan.span, int(plan.fallback_lines * share), lines)
    else:
        warm_chunks, rule = bounds[0], "as the first class of sets"
        warm_iterations = _replay(sim, chunks, warm_chunks)
    before = sim.stats()
    if combining is not None:
        combining.counting = True
    total, kept = coverage.total, coverage.kept
    if bounds is None:
        iterations, window_chunks = _measure(sim, chunks, max(1, int(plan.window_lines * share)),
                                             plan.min_iterations)
    else:
        window_chunks = bounds[1]
        iterations = _replay(sim, chunks, window_chunks)
    after = sim.stats()
    total, kept = coverage.total - total, coverage.kept - kept
    return _Run(tuple(_settle(after[s.name] - before[s.name], s) for s in sim.specs),
                warm_iterations, rule, iterations,
                0 if combining is None else combining.lines,
                kept / share / total if total else 1.0, (warm_chunks, window_chunks))


def _sampled(gen: UnitGenerator, levels: Sequence[LevelSpec], plan: _Plan, modulus: int,
             per_unit: int) -> tuple[_Run, float]:
    """Simulate classes of sets until their estimates agree (:mod:`sim_sampling`); return
    the summed run and the share of all sets it simulated."""
    runs: list[_Run] = []
    estimates: list[list[float]] = []
    classes = line_classes(modulus)
    for lines in classes:
        run = _simulate(gen, levels, plan, lines, runs[0].bounds if runs else None)
        if not runs and abs(run.coverage - 1.0) > COVERAGE_TOLERANCE:
            return _simulate(gen, levels, plan), 1.0      # lines not uniform over sets
        runs.append(run)
        work = run.iterations / per_unit / len(classes)
        estimates.append([getattr(st, q) / work for st in run.levels for q in ("loads", "stores")]
                         + [run.streamed_lines / work])
        if precise_enough(estimates, len(classes)):
            break
    first = runs[0]
    summed = tuple(functools.reduce(operator.add, per_level) for per_level in
                   zip(*(r.levels for r in runs)))
    return dataclasses.replace(first, levels=summed,
                               streamed_lines=sum(r.streamed_lines for r in runs)), \
        len(runs) / len(classes)


_RECENT: list[tuple] = []      # [(kernel, cl, per_unit, start, generator, templates)]


def _access_stream(kernel, cl: int, per_unit: int, start: float
                   ) -> tuple[UnitGenerator, RowTemplates]:
    """The kernel's unit generator and row templates; the last kernel's are kept, so
    that the simulations of one kernel for several core counts (ECM's scaling table:
    only the shares of the shared caches differ) build them once."""
    for entry in _RECENT:
        if entry[0] is kernel and entry[1:4] == (cl, per_unit, start):
            return entry[4], entry[5]
    gen = UnitGenerator(kernel, cl, per_unit, start=start)
    _RECENT[:] = [(kernel, cl, per_unit, start, gen, RowTemplates(cl, per_unit))]
    return gen, _RECENT[0][5]


def simulate_traffic(kernel, levels: Sequence[LevelSpec], *, warmup_factor: float = 2.0,
                     window_factor: float = 1.0, max_window_lines: int = 1 << 16,
                     min_window_units: int = 64, start: float = 0.5,
                     nontemporal: Sequence[str] = (), sample: int | None = None
                     ) -> TrafficResult:
    """Simulate a *bound* kernel on an explicit hierarchy (L1 first).

    ``warmup_factor`` sizes the fallback warm-up (rule D of the module doc) and
    ``window_factor`` the window, in multiples of the total capacity (distinct
    lines); ``max_window_lines`` caps the window (4 MiB of 64 B lines by
    default: a bigger window only averages more of the same steady state),
    ``min_window_units`` is the least number of units measured, ``start`` the
    fraction of the outermost loop's range where the walk begins (see module
    doc); the innermost-loop stores to the arrays ``nontemporal`` names bypass the
    caches (module doc); ``sample``: the modulus of set sampling
    (:mod:`kerncraft.cache.sim_sampling`; ``None`` chooses, 1 simulates every set).
    """
    levels = tuple(levels)
    cl = levels[0].cl_size
    per_unit = iterations_per_cacheline(kernel, cl)
    gen, templates = _access_stream(kernel, cl, per_unit, start)
    bound = reuse_span(kernel, cl, gen.layout, gen.streams)
    capacity = sum(s.lines for s in levels)
    plan = _Plan(templates, tuple(nontemporal), int(warmup_factor * capacity),
                 max(1, min(int(window_factor * capacity), max_window_lines)),
                 min_window_units * per_unit,
                 bound.span if bound is not None and bound.sweep_lines >= 2 * capacity else None)
    modulus = sampling_modulus(levels, gen) if sample is None else sample
    run, share = _sampled(gen, levels, plan, modulus, per_unit) if modulus > 1 else \
        (_simulate(gen, levels, plan), 1.0)
    return _result(run, levels, per_unit, share, nontemporal)


def _result(run: _Run, levels: Sequence[LevelSpec], per_unit: int, share: float,
            nontemporal: Sequence[str]) -> TrafficResult:
    cl = levels[0].cl_size
    work = run.iterations / per_unit * share      # units of work of the sets simulated
    streamed = NontemporalStores(tuple(nontemporal), run.streamed_lines / work) \
        if nontemporal else None
    result_levels = tuple(_level_traffic(stats, work, cl) for stats in run.levels)
    sizes = ", ".join(f"{s.name} {s.size / 1024:g} KiB" for s in levels)
    sampled = f", {share:.3g} of the sets simulated (set sampling)" if share < 1 else ""
    notes = (
        f"simulated caches: {sizes}{sampled}",
        f"warm-up {run.warm_iterations} iterations ({run.rule}), window {run.iterations} "
        f"iterations ({run.iterations / per_unit:g} units of {per_unit} iterations)",
        "memory per unit: {:g} CL loaded, {:g} CL stored".format(
            *(sum(dict(getattr(lvl, attr)).get(MEMORY, 0.0) for lvl in result_levels)
              + (streamed.lines if streamed is not None and attr == "store_targets" else 0.0)
              for attr in ("load_sources", "store_targets"))),
    )
    return TrafficResult(unit_of_work_iterations=per_unit, cacheline_size=cl,
                         levels=result_levels, predictor="SIM", notes=notes,
                         nontemporal=streamed)
