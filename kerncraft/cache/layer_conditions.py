"""Layer-condition (LC) data-traffic predictor.

Method (Kerncraft paper, Sect. 4.5, generalized; the full derivation is in
``docs/layer-conditions.md``): every reference of the innermost loop body
either re-touches data that was touched a known number of iterations earlier
(its *reuse vector*, :mod:`kerncraft.cache.lc_streams`), or brings in new
cache lines. The reuse hits in a cache level if everything touched during
that window - the level's *footprint* for the window - still fits. Sorting
the distinct reuse windows gives a ladder of **layer conditions**, one per
window ``W``::

    footprint(W) = sum over reference groups of
                   rate * (dur(W) * #members not reused within W
                           + sum of dur(gap) over member gaps within W)
                   <= usable size of the level

where ``rate`` is the bytes of new lines per iteration of one member stream
and ``dur`` converts an iteration vector into innermost iterations. Under
condition ``W`` every reference whose reuse window is at most ``W`` hits;
the others are misses. The analysis is symbolic in the kernel's unbound
constants and is done once; :meth:`LayerConditionAnalysis.evaluate` only
evaluates one compiled (``lambdify``) function per -D point, which is what
makes sweeps cheap.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import sympy

from kerncraft.cache.lc_hierarchy import (DEFAULT_FILL_FACTOR, LevelCapacity, RegimeRates,
                                          hierarchy_traffic, level_capacities)
from kerncraft.cache.lc_streams import StreamAnalysis, Vector, analyze_streams
from kerncraft.cache.traffic import TrafficResult, iterations_per_cacheline
from kerncraft.errors import DefineError, KerncraftError

__all__ = ["DEFAULT_FILL_FACTOR", "LayerCondition", "LayerConditionAnalysis", "LCPoint",
           "cached_lc_analysis", "lc_analysis", "predict_traffic_lc"]


@dataclass(frozen=True)
class Regime:
    """One rung of the layer-condition ladder, common to all levels.

    Regime 0 (``window is None``) is "no reuse kept"; regime ``r`` keeps every
    reference whose reuse window is at most ``window``. Rates are lines per
    *innermost iteration* (sympy, in the unbound constants).
    """

    index: int
    window: Vector | None
    threshold: sympy.Expr          # duration of the window, innermost iterations
    footprint: sympy.Expr          # bytes that must stay cached
    hits: tuple[str, ...]
    misses: tuple[str, ...]
    read_misses: sympy.Expr
    write_misses: sympy.Expr
    dirty: sympy.Expr


@dataclass(frozen=True)
class LayerCondition:
    """A regime seen from one cache level: its inequality and its traffic.

    ``hits`` / ``miss_accesses`` name the references kept / not kept;
    ``misses`` are demand misses (lines per unit of work, write-allocate
    fills included when the level allocates on writes), ``stores`` the dirty
    lines written back, ``evictions`` the lines the level sends below (all
    replaced lines for a victim-cache owner, else the dirty ones).
    """

    level: str
    index: int
    threshold: sympy.Expr
    inequality: sympy.Basic
    hits: tuple[str, ...]
    misses: sympy.Expr
    stores: sympy.Expr
    evictions: sympy.Expr
    footprint: sympy.Expr = sympy.Integer(0)
    capacity: float = 0.0
    window: str = "-"
    miss_accesses: tuple[str, ...] = ()
    # Printed once here: sympy's printer is far slower than evaluating a point.
    inequality_text: str = ""
    threshold_text: str = ""
    footprint_text: str = ""


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


def _sym_rate(x: sympy.Expr) -> sympy.Expr:
    return sympy.nsimplify(sympy.expand(x)) if not x.free_symbols else sympy.expand(x)


def build_regimes(streams: StreamAnalysis) -> tuple[Regime, ...]:
    """All regimes, ordered by window (lexicographically = by duration)."""
    windows = sorted({st.vector for p in streams.points for st in p.steps
                      if streams.groups[p.group].kind == "stream"})
    regimes = []
    for index, window in enumerate([None] + windows):
        regimes.append(_regime(streams, index, window))
    return tuple(regimes)


def _regime(streams: StreamAnalysis, index: int, window: Vector | None) -> Regime:
    cl = streams.cacheline_size
    hits, misses = [], []
    rm = wm = dirty = sympy.Integer(0)
    footprint = sympy.Integer(0)
    for g in streams.groups:
        footprint += _group_footprint(streams, g, window)
        if g.kind == "invariant":
            if g.read:
                rm += g.amortized_lines
            else:
                wm += g.amortized_lines
            if g.written:
                dirty += g.amortized_lines
            hits.extend(streams.points[i].label for i in g.points)
            continue
        lines = g.rate / cl
        for i in g.points:
            p = streams.points[i]
            frac = p.miss_fraction(window)
            if frac == 1:
                misses.append(p.label)
            elif frac == 0:
                hits.append(p.label)
            else:
                hits.append(f"{p.label} ({frac} of lines new)")
            miss = lines * _rational(frac)
            if p.reads:
                rm += miss
            else:
                wm += miss
        if g.written:
            dirty += lines * _rational(streams.points[g.points[0]].miss_fraction(window))
    return Regime(index, window, streams.duration(window), sympy.expand(footprint),
                  tuple(hits), tuple(misses), _sym_rate(rm), _sym_rate(wm), _sym_rate(dirty))


def _rational(x) -> sympy.Rational:
    return sympy.Rational(x.numerator, x.denominator)


def _group_footprint(streams: StreamAnalysis, g, window: Vector | None) -> sympy.Expr:
    """Bytes the group occupies over ``window`` (union of the members' intervals).

    Beyond a temporal self-reuse the group only revisits its data, so the
    footprint stops growing there; beyond a spatial self-reuse it grows by
    the shifted-in share of lines only.
    """
    if window is None:
        return sympy.Integer(0)
    if g.kind == "invariant":
        return sympy.Integer(streams.cacheline_size * len(g.points))
    steps = g.self_steps
    if not steps or window < steps[0].vector:
        return _union_bytes(streams, g, window)
    first = steps[0]
    base = _union_bytes(streams, g, first.vector)
    if first.miss_fraction == 0:
        return base
    end = window if len(steps) < 2 or window < steps[1].vector else steps[1].vector
    growth = streams.duration(end) - streams.duration(first.vector)
    return base + g.rate * _rational(first.miss_fraction) * growth


def _union_bytes(streams: StreamAnalysis, g, w: Vector) -> sympy.Expr:
    span = streams.duration(w)
    far = 1 + sum(1 for gap in g.gaps if gap > w)
    near = sum((streams.duration(gap) for gap in g.gaps if gap <= w), sympy.Integer(0))
    return g.rate * (span * far + near)


@dataclass(frozen=True)
class LayerConditionAnalysis:
    """Symbolic layer conditions of one kernel on one machine (done once).

    ``conditions[level]`` lists the :class:`LayerCondition` ladder of every
    cache level; :meth:`evaluate` gives the traffic at a -D point.
    """

    kernel: Any
    machine: Any
    cores: int
    capacities: tuple[LevelCapacity, ...]
    streams: StreamAnalysis
    regimes: tuple[Regime, ...]
    conditions: Mapping[str, tuple[LayerCondition, ...]]
    symbols: tuple[sympy.Symbol, ...]
    unit_of_work: int
    _compiled: Callable = field(repr=False, compare=False, default=None)
    _aux: Mapping[str, slice] = field(repr=False, compare=False, default_factory=dict)

    @property
    def constant_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.symbols)

    def limit(self, cap: LevelCapacity, regime: int) -> float:
        """Bytes condition ``regime`` may fill in level ``cap``: the usable size, or for
        the whole working set of a repeated kernel the larger ``cap.sweep_usable``."""
        if self.streams.is_whole_sweep(self.regimes[regime].window):
            return cap.sweep_usable
        return cap.usable

    def numeric(self, bindings: Mapping[str, int]) -> list[float]:
        """All compiled expressions at one point (footprints, rates, flag inputs)."""
        args = []
        for name in self.constant_names:
            if name not in bindings:
                raise DefineError(f"constant '{name}' has no value; pass -D {name} VALUE")
            args.append(bindings[name])
        try:
            return [float(v) for v in self._compiled(*args)]
        except (ZeroDivisionError, OverflowError, ValueError) as exc:
            raise DefineError(f"layer conditions cannot be evaluated at "
                              f"{dict(bindings)}: {exc}") from exc

    def evaluate(self, bindings: Mapping[str, int] | None = None,
                 notes: bool = True) -> TrafficResult:
        """Traffic per unit of work at the -D point ``bindings`` (no sympy solving);
        ``notes=False`` leaves out the report notes (the ECM scaling rows need numbers
        only, and the notes cost more than the numbers)."""
        return self.evaluate_point(bindings or {}, notes).traffic

    def evaluate_point(self, bindings: Mapping[str, int] | None = None,
                       notes: bool = True) -> LCPoint:
        """Like :meth:`evaluate`, plus footprints and the holding condition per level."""
        from kerncraft.cache.lc_flags import point_notes

        bindings = dict(bindings or {})
        vals = self.numeric(bindings)
        nreg = len(self.regimes)
        foot = [0.0] + vals[self._aux["footprints"]]
        rm, wm, dr = (vals[self._aux[k]] for k in ("read", "write", "dirty"))
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
        levels = hierarchy_traffic(self.capacities, rates, self.machine.cacheline_size)
        text = point_notes(self, vals, self._aux, foot, holding) if notes else ()
        traffic = TrafficResult(self.unit_of_work, self.machine.cacheline_size, levels, "LC",
                                tuple(text))
        return LCPoint(bindings, tuple(foot), holding, traffic, tuple(zip(rm, wm, dr)))


def _compile(kernel, streams: StreamAnalysis, regimes: Sequence[Regime],
             symbols: Sequence[sympy.Symbol]) -> tuple[Callable, dict[str, slice]]:
    """One ``lambdify``-ed function returning every number a point needs."""
    from kerncraft.cache.lc_flags import flag_expressions

    exprs: list[sympy.Expr] = []
    aux: dict[str, slice] = {}

    def add(key: str, items: Sequence[sympy.Expr]) -> None:
        aux[key] = slice(len(exprs), len(exprs) + len(items))
        exprs.extend(items)

    add("footprints", [r.footprint for r in regimes[1:]])
    add("read", [r.read_misses for r in regimes])
    add("write", [r.write_misses for r in regimes])
    add("dirty", [r.dirty for r in regimes])
    add("thresholds", [r.threshold for r in regimes[1:]])
    for key, items in flag_expressions(streams, kernel).items():
        add(key, items)
    fn = sympy.lambdify(list(symbols), [sympy.sympify(e) for e in exprs] or [0], modules="math")
    return fn, aux


def _level_conditions(cap: LevelCapacity, regimes: Sequence[Regime], streams: StreamAnalysis,
                      u: int, texts, memo: dict | None = None) -> tuple[LayerCondition, ...]:
    """The condition ladder of one level. ``memo`` shares the traffic expressions,
    which depend only on the regime and the write-allocate policy, between levels
    and core counts (only the inequality depends on the level's capacity)."""
    memo = {} if memo is None else memo
    out = []
    for reg in regimes:
        key = (reg.index, cap.write_allocate)
        if key not in memo:
            memo[key] = (sympy.expand(u * (reg.read_misses
                                           + (reg.write_misses if cap.write_allocate else 0))),
                         sympy.expand(u * reg.dirty))
        misses, stores = memo[key]
        evictions = misses if cap.role == "victim-owner" else stores
        limit = cap.sweep_usable if streams.is_whole_sweep(reg.window) else cap.usable
        usable = int(limit) if limit == int(limit) else round(limit, 3)
        if reg.window is None:
            ineq, ineq_text = sympy.true, "True"
        else:   # text built from the cached footprint text: printing sympy is slow
            ineq = sympy.Le(reg.footprint, sympy.sympify(usable), evaluate=False)
            ineq_text = f"{texts[reg.index][1]} <= {usable}"
        out.append(LayerCondition(cap.name, reg.index, reg.threshold, ineq, reg.hits, misses,
                                  stores, evictions, reg.footprint, cap.usable,
                                  streams.describe(reg.window), reg.misses, ineq_text,
                                  texts[reg.index][0], texts[reg.index][1]))
    return tuple(out)


@dataclass(frozen=True)
class _SymbolicCore:
    """The part of the analysis that depends on neither the core count nor the
    cache sizes: streams, regimes and the compiled evaluator (the expensive,
    sympy-heavy part, shared by every core count of an ECM scaling table)."""

    kernel: Any
    streams: StreamAnalysis
    regimes: tuple[Regime, ...]
    symbols: tuple[sympy.Symbol, ...]
    unit_of_work: int
    texts: tuple[tuple[str, str], ...]
    evaluator: Callable
    aux: dict
    memo: dict = field(default_factory=dict, compare=False, repr=False)


def _symbolic_core(kernel, cl: int, repeated: bool) -> _SymbolicCore:
    if not kernel.loops:
        raise KerncraftError("layer conditions need at least one loop in the kernel")
    streams = analyze_streams(kernel, cl, repeated)
    regimes = tuple(build_regimes(streams))
    symbols = tuple(c.symbol for c in kernel.unbound_constants())
    texts = tuple((str(r.threshold), str(r.footprint)) for r in regimes)
    fn, aux = _compile(kernel, streams, regimes, symbols)
    return _SymbolicCore(kernel, streams, regimes, symbols, iterations_per_cacheline(kernel, cl),
                         texts, fn, aux)


def _analysis(core: _SymbolicCore, machine, cores: int,
              fill: float | Mapping[str, float] | None) -> LayerConditionAnalysis:
    caps = level_capacities(machine, cores, fill)
    conditions = {cap.name: _level_conditions(cap, core.regimes, core.streams,
                                              core.unit_of_work, core.texts, core.memo)
                  for cap in caps}
    return LayerConditionAnalysis(core.kernel, machine, cores, caps, core.streams,
                                  core.regimes, conditions, core.symbols,
                                  core.unit_of_work, core.evaluator, core.aux)


def lc_analysis(kernel, machine, cores: int = 1,
                fill: float | Mapping[str, float] | None = None,
                repeated: bool = True) -> LayerConditionAnalysis:
    """Symbolic layer-condition analysis of ``kernel`` (bound, unbound or partly bound).

    ``fill`` is the share of each cache a condition may fill (a number for all
    levels or a per-level mapping; default :data:`DEFAULT_FILL_FACTOR`).
    ``repeated`` adds the top condition "the whole working set fits" for a
    kernel that is called repeatedly (see :func:`analyze_streams`).
    """
    core = _symbolic_core(kernel, int(machine.cacheline_size), repeated)
    return _analysis(core, machine, cores, fill)


_CACHE: dict[tuple, LayerConditionAnalysis] = {}
_CORES: dict[tuple, _SymbolicCore] = {}
_CACHE_LIMIT = 32


def _remember(cache: dict, key: tuple, value):
    if len(cache) >= _CACHE_LIMIT:
        cache.pop(next(iter(cache)))
    cache[key] = value
    return value


def cached_lc_analysis(kernel, machine, cores: int = 1,
                       fill: float | Mapping[str, float] | None = None,
                       repeated: bool = True) -> LayerConditionAnalysis:
    """:func:`lc_analysis` of ``kernel``'s *unbound* form, cached across -D points.

    A bound kernel no longer carries its constants as symbols, so its source
    is parsed again to recover them; the analysis is then shared by every
    point of a sweep (and shows the conditions symbolically), and its
    symbolic core by every core count. Kernels without source, or whose
    source does not reproduce their accesses, are analysed as they are. The
    cache holds a reference to the machine, so its ``id`` cannot be reused
    while cached.
    """
    fill_key = tuple(sorted(fill.items())) if isinstance(fill, Mapping) else fill
    cl = int(machine.cacheline_size)
    core_key = (kernel.source, kernel.filename, len(kernel.accesses), cl, repeated)
    key = core_key + (id(machine), cores, fill_key)
    if not kernel.source:
        return lc_analysis(kernel, machine, cores, fill, repeated)
    if key in _CACHE:
        return _CACHE[key]
    core = _CORES.get(core_key)
    if core is None:
        core = _remember(_CORES, core_key, _symbolic_core(_unbound_form(kernel), cl, repeated))
    return _remember(_CACHE, key, _analysis(core, machine, cores, fill))


def _unbound_form(kernel):
    if not kernel.source or not kernel.bindings:
        return kernel
    if kernel.unbound is not None and not kernel.unbound.bindings:
        return kernel.unbound
    from kerncraft.kernel.parser import parse_kernel
    try:
        parsed = parse_kernel(kernel.source, kernel.filename)
    except KerncraftError:
        return kernel
    same = (len(parsed.accesses) == len(kernel.accesses)
            and set(parsed.constant_names) <= set(kernel.bindings) | set(kernel.constant_names))
    return parsed if same else kernel


def predict_traffic_lc(kernel, machine, cores: int = 1,
                       fill: float | Mapping[str, float] | None = None,
                       repeated: bool = True, notes: bool = True) -> TrafficResult:
    """Traffic of a *bound* kernel (the symbolic analysis is cached per source).

    Sweeps (ECM, Roofline over a -D range) call this once per point; the
    analysis of the kernel's unbound form is reused (:func:`cached_lc_analysis`).
    """
    unbound = kernel.unbound_constants()
    if unbound:
        raise DefineError(f"constant '{unbound[0].name}' has no value; "
                          f"pass -D {unbound[0].name} VALUE")
    analysis = cached_lc_analysis(kernel, machine, cores, fill, repeated)
    return analysis.evaluate({name: kernel.bindings[name] for name in analysis.constant_names},
                             notes)
