"""Memory issue order in a calibration (:mod:`kerncraft.dbtools.calibration_run`): time
loads and stores in grouped and interleaved orders, and write the database's
``memory_issue`` limits (:mod:`kerncraft.incore.memissue`) where the order matters on
the host.

Microbenchmark (:mod:`kerncraft.dbtools.microbench`'s clock-calibrated harness): for
each order of :data:`ORDERS` (``L`` a 16-byte ``vmovupd`` load, ``S`` a 16-byte store),
a loop body of the order repeated to at least :data:`MIN_OPERATIONS` memory operations.
Loads fill 12 rotating registers from consecutive 16-byte slots of the lower half of
one page, stores write a register no load touches to the upper half of another page
(no store ever matches a later load in the low 12 bits: no 4K aliasing, no
forwarding). No operation depends on another, so only the issue of the loads and
stores can bind. Time per order = cycles per instruction x the order's length.

Fit: every candidate of :data:`CANDIDATES` (limits on loads, stores and operations per
cycle, and the window) predicts each order with :func:`~kerncraft.incore.memissue.
issue_bound`; the candidate with the smallest mean relative error wins (ties: the
widest window, then the largest limits -- the least restrictive rule that fits as
well). The order *matters* when that candidate explains orders that the best candidate
whose window holds every order (which packs loads and stores optimally, as port
balancing does) cannot: at least :data:`MIN_EXPLAINED` orders it predicts within
``tolerance`` where the other misses by more, and none the other way round. Written only
then, and only when its mean error is within the tolerance; the record says what was
measured either way. On the Zen 5 host (2026-11-28, 0.9 s) the fit is 2 loads, 2 stores,
3 per cycle among the 4 oldest, mean error 6.0 % against 10.4 % without an order effect;
it explains the four grouped orders (16 loads then 8 stores 9.82 cy: 10.0 against 8.0).
"""
from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from kerncraft.incore.calibration import MeasuredEntry
from kerncraft.incore.memissue import LOAD, MemoryIssue, issue_bound

__all__ = ["ORDERS", "MIN_OPERATIONS", "CANDIDATES", "OrderTiming", "MemoryIssueFit",
           "order_body", "measure_order_timings", "fit_memory_issue",
           "decide_memory_issue", "default_order_measure"]

#: Orders timed: the compilers' grouped unrolled bodies (loads first, stores last) and
#: the same operations interleaved, at several load:store ratios; plain streams of one
#: kind give the per-cycle limits.
ORDERS = ("LLLL", "SSSS", "LS", "LLS", "LLLS",
          "LLLLSS", "LLLLSSSS", "LLLLLLLLSSSS", "LLLLLLSSS", "LLLLLLLLLLLLLLLLSSSSSSSS",
          "LLLLLLLLLLLLSSSS")
#: Orders the fit must explain (and optimal packing miss) before it is written.
MIN_EXPLAINED = 2
#: Memory operations per loop body at least (the order repeated).
MIN_OPERATIONS = 48
#: Window sizes tried; the last holds every order (no order effect).
WINDOWS = (2, 3, 4, 5, 6, 8, 12, 64)
CANDIDATES = tuple(MemoryIssue(loads, stores, total, window)
                   for loads, stores, total, window in itertools.product(
                       (1, 2, 3, 4), (1, 2, 3), (2, 3, 4, 5, 6), WINDOWS)
                   if max(loads, stores) <= total <= loads + stores)

_LOAD_BASE = 4096           # the harness's 64-KiB buffer: loads in this page's lower half
_STORE_BASE = 16384 + 2048  # stores in another page's upper half
_SLOT = 16

Measure = Callable[[str], float]      # order -> cycles per order (one run)


@dataclass(frozen=True)
class OrderTiming:
    """Median cycles per repetition of one order over the runs, and their spread."""

    order: str
    cycles: float
    spread: float


@dataclass(frozen=True)
class MemoryIssueFit:
    """The best candidate and the best without an order effect, with their relative
    errors per timed order."""

    limits: MemoryIssue
    errors: tuple[float, ...]
    unordered: MemoryIssue
    unordered_errors: tuple[float, ...]

    @property
    def error(self) -> float:
        """Mean relative error of the best candidate."""
        return statistics.fmean(self.errors)

    @property
    def unordered_error(self) -> float:
        return statistics.fmean(self.unordered_errors)

    @property
    def unordered_worst(self) -> float:
        """Largest relative error of one order without an order effect."""
        return max(self.unordered_errors)


def order_body(order: str) -> list[str]:
    """The loop body of ``order`` (module doc); ``%r14`` is the harness's buffer."""
    repeats = -(-MIN_OPERATIONS // len(order))
    body, loads, stores = [], 0, 0
    for kind in order * repeats:
        if kind == LOAD:
            slot = _LOAD_BASE + (loads * _SLOT) % 2048
            body.append(f"        vmovupd {slot}(%r14), %xmm{loads % 12}")
            loads += 1
        else:
            slot = _STORE_BASE + (stores * _SLOT) % 2048
            body.append(f"        vmovupd %xmm13, {slot}(%r14)")
            stores += 1
    return body


def measure_order_timings(orders: Sequence[str], measure: Measure, runs: int,
                          progress: Callable[[str], None] | None = None) -> list[OrderTiming]:
    """Median and spread over ``runs`` (all orders once, then again)."""
    found: dict[str, list[float]] = {}
    for run in range(runs):
        if progress:
            progress(f"[memory issue order {run + 1}/{runs}] {len(orders)} orders")
        for order in orders:
            found.setdefault(order, []).append(measure(order))
    out = []
    for order in orders:
        values = found[order]
        median = statistics.median(values)
        spread = (max(values) - min(values)) / median if median > 0 else 0.0
        out.append(OrderTiming(order, median, spread))
    return out


def _errors(limits: MemoryIssue, timings: Sequence[OrderTiming]) -> tuple[float, ...]:
    return tuple(abs(issue_bound(t.order, limits) - t.cycles) / t.cycles for t in timings)


def _best(candidates: Sequence[MemoryIssue], timings: Sequence[OrderTiming]
          ) -> tuple[MemoryIssue, tuple[float, ...]]:
    """The candidate with the smallest mean error (ties: module doc) and its errors."""
    def rank(scored):
        c, errors = scored
        return round(statistics.fmean(errors), 6), -c.window, -c.total, -c.loads, -c.stores
    return min(((c, _errors(c, timings)) for c in candidates), key=rank)


def fit_memory_issue(timings: Sequence[OrderTiming]) -> MemoryIssueFit:
    """The best candidate of :data:`CANDIDATES` and the best with the widest window."""
    limits, errors = _best(CANDIDATES, timings)
    unordered, unordered_errors = _best(
        [c for c in CANDIDATES if c.window == WINDOWS[-1]], timings)
    return MemoryIssueFit(limits, errors, unordered, unordered_errors)


def _entries(fit: MemoryIssueFit, timings: Sequence[OrderTiming], prior: MemoryIssue | None,
             written: bool, reason: str = "") -> list[MeasuredEntry]:
    """One record per order: measured cycles, the prior's pick (0: none), the fit's."""
    out = []
    for t in timings:
        before = issue_bound(t.order, prior) if prior is not None else 0.0
        now = issue_bound(t.order, fit.limits)
        out.append(MeasuredEntry(t.order, "memory_issue", round(t.cycles, 3),
                                 round(before, 3), round(now, 3) if written else None,
                                 round(t.spread, 3), reason=reason))
    return out


def decide_memory_issue(prior: MemoryIssue | None, timings: Sequence[OrderTiming],
                        tolerance: float, source: str
                        ) -> tuple[dict[str, Any] | None, list[MeasuredEntry],
                                   list[MeasuredEntry], MemoryIssueFit]:
    """(the header table to write or None, written records, not-written records, fit)."""
    fit = fit_memory_issue(timings)
    pairs = list(zip(fit.errors, fit.unordered_errors))
    explained = sum(mine <= tolerance < other for mine, other in pairs)
    spoiled = sum(other <= tolerance < mine for mine, other in pairs)
    matters = explained >= MIN_EXPLAINED and not spoiled
    if not matters:
        return None, [], _entries(fit, timings, prior, False,
                                  "the order of loads and stores makes no measurable "
                                  "difference on this host"), fit
    if fit.error > tolerance:
        return None, [], _entries(fit, timings, prior, False,
                                  f"no candidate fits within the tolerance (best "
                                  f"{100 * fit.error:.1f} % mean error)"), fit
    if prior is not None and replace(prior, source="") == fit.limits:
        return None, [], [], fit          # the prior's limits: nothing to write
    limits = fit.limits
    table = {"source": f"{source}; mean error {100 * fit.error:.1f} % over "
                       f"{len(timings)} orders (without an order effect "
                       f"{100 * fit.unordered_error:.1f} %)",
             "loads": limits.loads, "stores": limits.stores, "total": limits.total,
             "window": limits.window}
    return table, _entries(fit, timings, prior, True), [], fit


def default_order_measure(clock: Callable[[], float], cpu: int | None, quick: bool,
                          realtime: bool) -> Measure:
    """One run of one order with the clock-calibrated harness (cycles per order)."""
    from kerncraft.dbtools.microbench import measure_body

    def run(order: str) -> float:
        body = order_body(order)
        per_instruction = measure_body(body, core_hz=clock(), width="xmm", cpu=cpu,
                                       quick=quick, realtime=realtime)
        return per_instruction * len(body) / (len(body) // len(order))
    return run


def describe_fit(fit: MemoryIssueFit, timings: Sequence[OrderTiming]) -> Mapping[str, Any]:
    """Counts for the calibration record."""
    return {"memory_issue_orders": len(timings),
            "memory_issue_error_pct": round(100 * fit.error, 1),
            "memory_issue_unordered_error_pct": round(100 * fit.unordered_error, 1)}
