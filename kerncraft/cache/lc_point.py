"""The layer conditions of one kernel as plain data: a -D point costs arithmetic.

:class:`~kerncraft.cache.layer_conditions.LayerConditionAnalysis` derives the
ladder symbolically (sympy) once per kernel; what a point needs of it -- the
capacities, the hits and misses of each rung, the texts of the notes and every
expression as Python source (the text ``lambdify`` generates for the ``math``
module, executed here with ``math`` only) -- is a :class:`PlainLadder`. It
pickles without sympy, so a point plan kept on disk (:mod:`kerncraft.memo.point_plans`)
evaluates new points without importing sympy. The symbolic analysis evaluates its
points through the same ladder, so the two cannot differ.
"""
from __future__ import annotations

import builtins
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from kerncraft.cache.lc_hierarchy import LevelCapacity, RegimeRates, hierarchy_traffic
from kerncraft.cache.traffic import NontemporalStores, TrafficResult
from kerncraft.errors import DefineError

__all__ = ["LCPoint", "PlainCode", "PlainCondition", "PlainGroup", "PlainLCAnalysis",
           "PlainLadder", "PlainPoint",
           "PlainRegime", "PlainStreams"]


@dataclass(frozen=True)
class LCPoint:
    """Everything the LC predictor knows about one -D point."""

    bindings: Mapping[str, int]
    footprints: tuple[float, ...]              # per regime, bytes (regime 0: 0)
    holding: Mapping[str, int]                  # level -> index of the condition that holds
    traffic: TrafficResult
    rates: tuple[tuple[float, float, float], ...] = ()  # per regime: read/write misses, dirty
    # (lines per innermost iteration, before write-allocate and hierarchy rules)

    def condition_values(self, level: "LevelCapacity", index: int,
                         unit_of_work: int) -> tuple[float, float, float]:
        """Misses, stores, evictions (lines per unit of work) of one condition."""
        rm, wm, dr = self.rates[index]
        misses = unit_of_work * (rm + (wm if level.write_allocate else 0.0))
        stores = unit_of_work * dr
        return misses, stores, (misses if level.role == "victim-owner" else stores)



@dataclass(frozen=True)
class PlainCode:
    """A generated Python function of the constants (``source`` defines ``name``) and
    the ``math`` names it uses; compiled on first call, not pickled compiled."""

    source: str
    name: str
    math_names: tuple[str, ...] = ()
    _function: list = field(default_factory=list, compare=False, repr=False)

    def __call__(self, *args: float) -> Any:
        if not self._function:
            namespace: dict[str, Any] = {n: getattr(math, n) for n in self.math_names}
            exec(compile(self.source, f"<{self.name}>", "exec"), namespace)  # noqa: S102
            self._function.append(namespace[self.name])
        return self._function[0](*args)

    def __getstate__(self) -> dict:
        return {"source": self.source, "name": self.name, "math_names": self.math_names,
                "_function": []}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    @staticmethod
    def of(function: Callable) -> "PlainCode | None":
        """The plain form of a function ``lambdify(..., modules="math")`` made, or None
        if it uses a name that is neither in ``math`` nor a builtin."""
        import inspect

        source = inspect.getsource(function)
        used = []
        for name in function.__code__.co_names:
            value = function.__globals__.get(name)
            if value is not None and getattr(math, name, None) is value:
                used.append(name)
            elif not hasattr(builtins, name):
                return None
        return PlainCode(source, function.__name__, tuple(used))


@dataclass(frozen=True)
class PlainRegime:
    """A rung of the ladder as a point reads it (``layer_conditions.Regime``)."""

    window: str | None          # None: "no reuse kept"; else the window, described
    hits: tuple[str, ...]
    misses: tuple[str, ...]
    whole_sweep: bool


@dataclass(frozen=True)
class PlainCondition:
    """A rung seen from one level, as the notes and the ``-p LC`` report write it."""

    window: str
    threshold_text: str
    index: int = 0
    inequality_text: str = ""
    footprint_text: str = ""
    hits: tuple[str, ...] = ()
    miss_accesses: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlainLCAnalysis:
    """What the ``-p LC`` report and its JSON read of the analysis (the rest is the
    point's), as plain data: a point plan's stand-in for
    :class:`~kerncraft.cache.layer_conditions.LayerConditionAnalysis`."""

    unit_of_work: int
    cores: int
    capacities: tuple[LevelCapacity, ...]
    conditions: Mapping[str, tuple[PlainCondition, ...]]


@dataclass(frozen=True)
class PlainGroup:
    kind: str
    sparse: bool
    array: str


@dataclass(frozen=True)
class PlainPoint:
    group: int
    label: str


@dataclass(frozen=True)
class PlainStreams:
    """What the notes read of the stream analysis."""

    loops: tuple[str, ...]
    cacheline_size: int
    groups: tuple[PlainGroup, ...]
    points: tuple[PlainPoint, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class PlainLadder:
    """Everything a point of the layer-condition predictor needs, without sympy."""

    constant_names: tuple[str, ...]
    code: Any                       # PlainCode, or the symbolic CompiledExpressions
    aux: Mapping[str, slice]
    unit_of_work: int
    cacheline_size: int
    capacities: tuple[LevelCapacity, ...]
    regimes: tuple[PlainRegime, ...]
    conditions: Mapping[str, tuple[PlainCondition, ...]]
    streams: PlainStreams
    array_names: tuple[str, ...]
    layout: tuple[int, int]         # (page size, stagger) of cache/addresses.py
    nontemporal: tuple[str, ...] = ()

    def limit(self, cap: LevelCapacity, regime: int) -> float:
        """Bytes condition ``regime`` may fill in level ``cap``: the usable size, or for
        the whole working set of a repeated kernel the larger ``cap.sweep_usable``."""
        return cap.sweep_usable if self.regimes[regime].whole_sweep else cap.usable

    def numeric(self, bindings: Mapping[str, int]) -> list[float]:
        """All expressions at one point (footprints, rates, flag inputs)."""
        args = []
        for name in self.constant_names:
            if name not in bindings:
                raise DefineError(f"constant '{name}' has no value; pass -D {name} VALUE")
            args.append(bindings[name])
        try:
            return [float(v) for v in self.code(*args)]
        except (ZeroDivisionError, OverflowError, ValueError) as exc:
            raise DefineError(f"layer conditions cannot be evaluated at "
                              f"{dict(bindings)}: {exc}") from exc

    def evaluate_point(self, bindings: Mapping[str, int], notes: bool = True):
        """The :class:`~kerncraft.cache.layer_conditions.LCPoint` at ``bindings``."""
        from kerncraft.cache.lc_flags import point_notes

        bindings = dict(bindings)
        vals = self.numeric(bindings)
        nreg = len(self.regimes)
        foot = [0.0] + vals[self.aux["footprints"]]
        rm, wm, dr = (vals[self.aux[k]] for k in ("read", "write", "dirty"))
        holding: dict[str, int] = {}
        rates: list[RegimeRates] = []
        floor = 0
        for cap in self.capacities:
            r = max((i for i in range(nreg) if foot[i] <= self.limit(cap, i)), default=0)
            r = max(r, floor)
            floor = r
            holding[cap.name] = r
            u = self.unit_of_work
            rates.append(RegimeRates(u * rm[r], u * wm[r], u * dr[r]))
        levels = hierarchy_traffic(self.capacities, rates, self.cacheline_size)
        text = point_notes(self, vals, self.aux, foot, holding) if notes else ()
        streamed = NontemporalStores(self.nontemporal, self.unit_of_work * vals[
            self.aux["nontemporal"]][0]) if self.nontemporal else None
        traffic = TrafficResult(self.unit_of_work, self.cacheline_size, levels, "LC",
                                tuple(text), streamed)
        return LCPoint(bindings, tuple(foot), holding, traffic, tuple(zip(rm, wm, dr)))
