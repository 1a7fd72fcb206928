"""Consumer-dependent latencies of a calibration: forwarding groups from pair chains.

A form's chain into itself (:mod:`kerncraft.dbtools.calibrate`) measures its latency to
a consumer of the same kind. Some cores forward faster inside a group of forms than to
anything else (Zen 5: FADD -> FADD 2 cy, FADD -> FMUL/FMA/store 3 cy; the database
says ``bypass: fadd, lat_other: 3``, see :mod:`kerncraft.incore.forwarding`). The
pairs of forms the bundled kernels pass registers between
(:func:`kerncraft.dbtools.pair_check.kernel_pairs`) are timed as chains ``P, C, P, C``
whose period is latency(P -> C) + latency(C -> P), and compared with the period the
calibrated model gives (the analyzer's loop-carried dependency of the same loop).

Where a pair differs by ``delta`` cycles, the difference is put on the one form of the
two that can carry a consumer-dependent latency:

* a form whose entry already has a forwarding group the other form is not in: its
  ``lat_other`` becomes ``lat_other + delta``;
* a form without a group whose latency the calibration *lowered* (its chain into itself
  is faster than the prior said, so the prior's figure may be the latency to other
  consumers): it joins the group :data:`MEASURED_GROUP` with ``lat_other = lat + delta``.

When neither or both forms qualify, the difference is recorded, not written. Per form
the median of the implied values counts, rounded to whole cycles.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable, Collection, Mapping, Sequence

from kerncraft.dbtools.calibrate import WHOLE_CYCLE, table_key
from kerncraft.dbtools.calibration_file import EntryChange
from kerncraft.errors import KerncraftError
from kerncraft.incore.calibration import MeasuredEntry

__all__ = ["MEASURED_GROUP", "PairMeasurement", "measure_pairs", "model_periods",
           "pair_differs", "forwarding_changes"]

#: Forwarding group of forms that a calibration found forwarding faster to each other.
MEASURED_GROUP = "measured"

Pair = tuple[str, str]
MeasureChain = Callable[[list[str], "str | None"], float]


@dataclass(frozen=True)
class PairMeasurement:
    """Median chain period of one producer -> consumer pair, and the model's."""

    producer: str
    consumer: str
    period: float
    model: float
    runs: int = 1
    spread: float = 0.0

    @property
    def delta(self) -> float:
        return self.period - self.model


def measure_pairs(pairs: Collection[Pair], measure: MeasureChain, runs: int,
                  progress: Callable[[str], None] | None = None
                  ) -> tuple[dict[Pair, tuple[list[str], list[float]]], dict[Pair, str]]:
    """({pair: (chain lines, periods of the runs)}, {pair: why not measured})."""
    from kerncraft.dbtools.pair_check import pair_chain
    chains: dict[Pair, tuple[list[str], str | None]] = {}
    skipped: dict[Pair, str] = {}
    for pair in pairs:
        try:
            chains[pair] = pair_chain(*pair)
        except KerncraftError as exc:
            skipped[pair] = str(exc).splitlines()[0]
    periods: dict[Pair, tuple[list[str], list[float]]] = {p: (c[0], []) for p, c in chains.items()}
    total, done = len(chains) * runs, 0
    for _ in range(runs):
        for pair, (lines, width) in chains.items():
            done += 1
            if progress:
                progress(f"[{done}/{total}] {pair[0]} -> {pair[1]}")
            periods[pair][1].append(measure(list(lines), width))
    return periods, skipped


def model_periods(model: Any, periods: Mapping[Pair, tuple[list[str], list[float]]]
                  ) -> list[PairMeasurement]:
    """The measured pairs with the period ``model`` gives for each chain."""
    from kerncraft.dbtools.pair_check import check_pairs
    medians = {tuple(lines): statistics.median(values) for lines, values in periods.values()}
    check = check_pairs(model, {pair: "" for pair in periods}, core_hz=0.0,
                        measure=lambda lines, width: medians[tuple(lines)])
    out = []
    for p in check.pairs:
        if p.skipped or p.measured is None or p.db is None:
            continue
        values = periods[(p.producer, p.consumer)][1]
        spread = (max(values) - min(values)) / p.measured if p.measured > 0 else 0.0
        out.append(PairMeasurement(p.producer, p.consumer, p.measured, p.db, len(values),
                                   spread))
    return out


def pair_differs(m: PairMeasurement, tolerance: float) -> bool:
    """The measured period is off the model's by more than 0.5 cy and ``tolerance``."""
    gap = abs(m.delta)
    return gap > 0.5 and gap > tolerance * max(m.period, m.model)


def _carrier(model: Any, x: str, y: str, lowered: Collection[str]) -> float | None:
    """Latency of entry ``x`` to entry ``y`` if ``x`` can carry a consumer-dependent
    latency towards ``y`` (module doc), else None."""
    ex, ey = model.forms[x], model.forms[y]
    if ex.bypass is not None and ex.latency_other is not None:
        return float(ex.latency_other) if ey.bypass != ex.bypass else None
    return float(ex.latency) if x in lowered else None


def forwarding_changes(model: Any, pairs: Sequence[PairMeasurement], lowered: Collection[str],
                       tolerance: float = 0.1, prior: Any = None
                       ) -> tuple[dict[str, EntryChange], list[MeasuredEntry], list[MeasuredEntry]]:
    """({entry key: new forwarding group and lat_other}, written, not written) for the
    pairs that differ from ``model`` (module doc). ``lowered``: entries whose latency the
    calibration lowered; ``prior``: the uncalibrated database, for the prior values of
    the record (default ``model``)."""
    prior = prior or model
    implied, forms, not_written = _implied_latencies(model, pairs, lowered, tolerance)
    changes: dict[str, EntryChange] = {}
    written: list[MeasuredEntry] = []
    for key, values in implied.items():
        entry = model.forms[key]
        value = statistics.median(values)
        before = prior.forms.get(key, entry)
        prior_value = float(before.latency_other if before.latency_other is not None
                            else before.latency)
        if abs(value - round(value)) > WHOLE_CYCLE or round(value) < entry.latency:
            not_written.append(MeasuredEntry(key, "lat_other", round(value, 3), prior_value,
                                             form=forms[key], reason="the pairs imply no "
                                             "whole-cycle latency above the form's own"))
            continue
        group = entry.bypass or MEASURED_GROUP
        changes[key] = EntryChange(bypass=group, latency_other=float(round(value)))
        written.append(MeasuredEntry(key, "lat_other", round(value, 3), prior_value,
                                     float(round(value)), form=forms[key]))
    written += _join_fast_partners(model, pairs, lowered, tolerance, prior, changes)
    return changes, written, not_written


def _implied_latencies(model: Any, pairs: Sequence[PairMeasurement], lowered: Collection[str],
                       tolerance: float
                       ) -> tuple[dict[str, list[float]], dict[str, str], list[MeasuredEntry]]:
    """({carrier entry: its latencies to other consumers the pairs imply}, {entry: a
    pair that showed it}, pairs no single form explains)."""
    implied: dict[str, list[float]] = {}
    forms: dict[str, str] = {}
    unexplained: list[MeasuredEntry] = []
    for m in pairs:
        if not pair_differs(m, tolerance):
            continue
        keys = (table_key(model, m.producer), table_key(model, m.consumer))
        carriers = [] if None in keys or keys[0] == keys[1] else [
            (x, lat) for x, y in (keys, keys[::-1])
            if (lat := _carrier(model, x, y, lowered)) is not None]
        name = f"{m.producer} -> {m.consumer}"
        if len(carriers) != 1:
            unexplained.append(MeasuredEntry(name, "period", round(m.period, 3), m.model,
                                             reason="cannot tell which of the two forms "
                                                    "forwards at another latency"))
            continue
        key, current = carriers[0]
        implied.setdefault(key, []).append(current + m.delta)
        forms.setdefault(key, name)
    return implied, forms, unexplained


def _join_fast_partners(model: Any, pairs: Sequence[PairMeasurement], lowered: Collection[str],
                        tolerance: float, prior: Any, changes: dict[str, EntryChange]
                        ) -> list[MeasuredEntry]:
    """A lowered form without a group whose pair with a member of a (new) group ran at
    the fast latencies joins that group, with the prior's latency as ``lat_other`` (the
    figure the prior had was the one to other consumers). Updates ``changes``."""
    def group(key: str) -> str | None:
        return (changes[key].bypass if key in changes else None) or model.forms[key].bypass

    def latency(x: str, y: str) -> float:
        entry, change = model.forms[x], changes.get(x)
        other = change.latency_other if change else entry.latency_other
        if group(x) is None or other is None or group(y) == group(x):
            return float(entry.latency)
        return float(other)

    joined: list[MeasuredEntry] = []
    for m in pairs:
        keys = (table_key(model, m.producer), table_key(model, m.consumer))
        if None in keys or keys[0] == keys[1]:
            continue
        predicted = latency(*keys) + latency(*keys[::-1])
        gap = predicted - m.period
        if gap <= 0.5 or gap <= tolerance * predicted:
            continue
        for x, y in (keys, keys[::-1]):
            if group(x) and group(y) is None and y in lowered:
                other = float(prior.forms.get(y, model.forms[y]).latency)
                changes[y] = EntryChange(bypass=group(x), latency_other=other)
                joined.append(MeasuredEntry(
                    y, "lat_other", other, other, other, form=f"{m.producer} -> {m.consumer}",
                    reason=f"joins forwarding group '{group(x)}' (this pair ran at "
                           f"{m.period:.2f} cy); lat_other is the prior's latency"))
                break
    return joined
