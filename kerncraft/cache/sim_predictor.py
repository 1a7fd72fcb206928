"""The cache-simulation traffic predictor (``-P SIM``).

Procedure
---------
1. Build the per-core cache hierarchy from the machine file
   (:func:`kerncraft.cache.simulator.level_specs_from_machine`; shared levels
   get the share of ``cores`` cores).
2. Walk the kernel from the middle of its iteration space
   (:class:`kerncraft.cache.addresses.UnitGenerator`), one unit of work at a
   time.
3. **Warm-up by bytes streamed**: simulate until the number of *distinct*
   cache lines touched reaches ``warmup_factor`` (default 2) times the number
   of lines all simulated levels hold together, or until the walk has passed
   the end of the domain twice, i.e. completed one full sweep from the
   domain's start (smaller data is then cached as in every later sweep). With
   LRU, a set's content depends only on the last ``ways`` distinct lines
   mapped to it, so after streaming twice the total capacity the state no
   longer depends on where the simulation started. Counting distinct lines
   (not iterations) makes the warm-up adapt to the kernel: a 3D stencil at
   N=500 warms up within a few hundred rows, a 1D stream within some ten
   thousand units.
4. **Measurement window**: snapshot the counters, continue until the window
   has touched ``window_factor`` (default 1) times the total capacity in
   distinct lines (at most ``max_window_lines``), or reaches the end of the
   domain, but at least ``min_window_units`` units. Stopping at the domain end keeps the window of
   a large domain in the interior (no wrap-around transient); a small domain
   is measured over a whole sweep, boundaries included, as when a kernel is
   called repeatedly. The counter differences divided by the units of work in
   the window (iterations / iterations per unit) are the result.
5. **Settling write-backs**: evictions lag behind the stores that cause them;
   the window is charged with the write-backs it caused (:func:`_settle`), so
   e.g. a copy gives exactly 1.0 dirty line per unit at every level.

L1 ``hits`` count repeated *line* touches after the address generator has
collapsed element accesses into lines (see :mod:`kerncraft.cache.addresses`),
not load/store instructions; all other figures are unaffected by that.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

from kerncraft.cache.addresses import UnitGenerator
from kerncraft.cache.simulator import (MEMORY, CacheSimulator, LevelSpec, LevelStats,
                                       level_specs_from_machine)
from kerncraft.cache.traffic import LevelTraffic, TrafficResult, iterations_per_cacheline


def _run_until(sim: CacheSimulator, units, target_lines: int, min_units: int,
               sweeps: int) -> int:
    """Feed units until ``target_lines`` distinct lines or ``sweeps`` sweep ends.

    Never stops before ``min_units`` units; returns the iterations simulated.
    """
    touched: set[int] = set()
    iterations = done_units = ends = 0
    access = sim.access
    for reads, writes, n, sweep_end in units:
        access(reads, writes)
        touched.update(reads)
        touched.update(writes)
        iterations += n
        done_units += 1
        ends += sweep_end
        if done_units >= min_units and (ends >= sweeps or len(touched) >= target_lines):
            break
    return iterations


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
    :mod:`kerncraft.cache.simulator`); ``options`` are those of
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

    ``warmup_factor`` / ``window_factor`` size warm-up and window in multiples
    of the total capacity (distinct lines), ``max_window_lines`` caps the
    window (4 MiB of 64 B lines by default: a bigger window only averages more
    of the same steady state), ``min_window_units`` is the least number of
    units measured, ``start`` the fraction of the outermost loop's
    range where the walk begins (see module doc).
    """
    sim = CacheSimulator(levels)
    cl = sim.cl_size
    per_unit = iterations_per_cacheline(kernel, cl)
    units = UnitGenerator(kernel, cl, per_unit, start=start).units()
    capacity = sim.total_lines
    warm_iterations = _run_until(sim, units, int(warmup_factor * capacity), 1, 2)
    before = sim.stats()
    window_lines = max(1, min(int(window_factor * capacity), max_window_lines))
    iterations = _run_until(sim, units, window_lines, min_window_units, 1)
    after = sim.stats()
    work = iterations / per_unit
    result_levels = tuple(_level_traffic(_settle(after[s.name] - before[s.name], s), work, cl)
                          for s in sim.specs)
    sizes = ", ".join(f"{s.name} {s.size / 1024:g} KiB" for s in sim.specs)
    notes = (
        f"simulated caches: {sizes}",
        f"warm-up {warm_iterations} iterations, window {iterations} iterations "
        f"({work:g} units of {per_unit} iterations)",
        "memory per unit: {:g} CL loaded, {:g} CL stored".format(
            *(sum(dict(getattr(lvl, attr)).get(MEMORY, 0.0) for lvl in result_levels)
              for attr in ("load_sources", "store_targets"))),
    )
    return TrafficResult(unit_of_work_iterations=per_unit, cacheline_size=cl,
                         levels=result_levels, predictor="SIM", notes=notes)
