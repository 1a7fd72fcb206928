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

from kerncraft.cache.lc_hierarchy import DEFAULT_FILL_FACTOR, LevelCapacity, level_capacities
from kerncraft.cache.lc_point import (LCPoint, PlainCode, PlainCondition, PlainGroup, PlainLadder,
                                      PlainPoint, PlainRegime, PlainStreams)
from kerncraft.cache.lc_streams import StreamAnalysis, Vector, analyze_streams
from kerncraft.cache.nontemporal import without_streamed_stores
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
    # arrays whose innermost-loop stores bypass the caches (cache/nontemporal.py); the
    # conditions above are those of the kernel without these stores
    nontemporal: tuple[str, ...] = ()
    # the same ladder as plain data: every point is evaluated through it (cache/lc_point.py)
    plain: PlainLadder | None = field(repr=False, compare=False, default=None)

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
        return self.plain.numeric(bindings)

    def evaluate(self, bindings: Mapping[str, int] | None = None,
                 notes: bool = True) -> TrafficResult:
        """Traffic per unit of work at the -D point ``bindings`` (no sympy solving);
        ``notes=False`` leaves out the report notes (the ECM scaling rows need numbers
        only, and the notes cost more than the numbers)."""
        return self.evaluate_point(bindings or {}, notes).traffic

    def evaluate_point(self, bindings: Mapping[str, int] | None = None,
                       notes: bool = True) -> LCPoint:
        """Like :meth:`evaluate`, plus footprints and the holding condition per level."""
        return self.plain.evaluate_point(bindings or {}, notes)


def _compile(kernel, streams: StreamAnalysis, regimes: Sequence[Regime],
             symbols: Sequence[sympy.Symbol], nontemporal_rate: sympy.Expr = sympy.Integer(0)
             ) -> tuple[Callable, dict[str, slice]]:
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
    add("nontemporal", [nontemporal_rate])
    return CompiledExpressions(tuple(symbols), tuple(sympy.sympify(e) for e in exprs)), aux


class CompiledExpressions:
    """The expressions of a point as one ``lambdify``-ed function. Picklable (a result
    sent from a sweep's worker): the expressions travel, the function is made again
    where it is first called."""

    def __init__(self, symbols: tuple[sympy.Symbol, ...], exprs: tuple[sympy.Expr, ...]):
        self.symbols, self.exprs = symbols, exprs or (sympy.Integer(0),)
        self._function: Callable | None = None

    def __call__(self, *args: float) -> list:
        if self._function is None:
            self._function = sympy.lambdify(list(self.symbols), list(self.exprs),
                                            modules="math")
        return self._function(*args)

    def __getstate__(self) -> dict:
        return {"symbols": self.symbols, "exprs": self.exprs, "_function": None}

    def plain_code(self) -> PlainCode | None:
        """The function as Python source over ``math`` (cache/lc_point.py), or None."""
        if self._function is None:
            self._function = sympy.lambdify(list(self.symbols), list(self.exprs),
                                            modules="math")
        return PlainCode.of(self._function)


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
    nontemporal: tuple[str, ...] = ()
    plain: dict = field(default_factory=dict, compare=False, repr=False)


def _symbolic_core(kernel, cl: int, repeated: bool,
                   nontemporal: tuple[str, ...] = ()) -> _SymbolicCore:
    if not kernel.loops:
        raise KerncraftError("layer conditions need at least one loop in the kernel")
    unit = iterations_per_cacheline(kernel, cl)    # of the whole kernel, streamed stores too
    kernel, rate = without_streamed_stores(kernel, nontemporal, cl)
    streams = analyze_streams(kernel, cl, repeated)
    regimes = tuple(build_regimes(streams))
    symbols = tuple(c.symbol for c in kernel.unbound_constants())
    texts = tuple((str(r.threshold), str(r.footprint)) for r in regimes)
    fn, aux = _compile(kernel, streams, regimes, symbols, rate)
    return _SymbolicCore(kernel, streams, regimes, symbols, unit, texts, fn, aux,
                         nontemporal=nontemporal, plain=_plain_parts(kernel, streams, regimes))


def _plain_parts(kernel, streams: StreamAnalysis, regimes: Sequence[Regime]) -> dict:
    """The fields of a :class:`PlainLadder` that do not depend on the machine."""
    from kerncraft.cache.addresses import PAGE_SIZE, STAGGER
    from kerncraft.cache.lc_flags import array_bytes_expressions

    plain_streams = PlainStreams(
        tuple(lp.index for lp in streams.loops), streams.cacheline_size,
        tuple(PlainGroup(g.kind, bool(g.sparse), g.array) for g in streams.groups),
        tuple(PlainPoint(p.group, p.label) for p in streams.points), tuple(streams.notes))
    return {"regimes": tuple(PlainRegime(None if r.window is None else streams.describe(r.window),
                                         r.hits, r.misses, streams.is_whole_sweep(r.window))
                             for r in regimes),
            "streams": plain_streams, "layout": (PAGE_SIZE, STAGGER),
            "array_names": tuple(name for name, _ in array_bytes_expressions(kernel))}


def _plain_ladder(core: _SymbolicCore, machine, caps, conditions) -> PlainLadder:
    code = core.plain.get("code")
    if code is None:    # the generated source, or the symbolic function if it has none
        code = core.plain["code"] = core.evaluator.plain_code() or core.evaluator
    return PlainLadder(
        tuple(s.name for s in core.symbols), code, core.aux, core.unit_of_work,
        int(machine.cacheline_size), tuple(caps), core.plain["regimes"],
        {level: tuple(PlainCondition(c.window, c.threshold_text, c.index, c.inequality_text,
                                     c.footprint_text, tuple(c.hits), tuple(c.miss_accesses))
                      for c in ladder)
         for level, ladder in conditions.items()},
        core.plain["streams"], core.plain["array_names"], core.plain["layout"],
        core.nontemporal)


def _analysis(core: _SymbolicCore, machine, cores: int,
              fill: float | Mapping[str, float] | None) -> LayerConditionAnalysis:
    caps = level_capacities(machine, cores, fill)
    conditions = {cap.name: _level_conditions(cap, core.regimes, core.streams,
                                              core.unit_of_work, core.texts, core.memo)
                  for cap in caps}
    return LayerConditionAnalysis(core.kernel, machine, cores, caps, core.streams,
                                  core.regimes, conditions, core.symbols,
                                  core.unit_of_work, core.evaluator, core.aux, core.nontemporal,
                                  _plain_ladder(core, machine, caps, conditions))


def lc_analysis(kernel, machine, cores: int = 1,
                fill: float | Mapping[str, float] | None = None,
                repeated: bool = True, nontemporal: Sequence[str] = ()
                ) -> LayerConditionAnalysis:
    """Symbolic layer-condition analysis of ``kernel`` (bound, unbound or partly bound).

    ``fill`` is the share of each cache a condition may fill (a number for all
    levels or a per-level mapping; default :data:`DEFAULT_FILL_FACTOR`).
    ``repeated`` adds the top condition "the whole working set fits" for a
    kernel that is called repeatedly (see :func:`analyze_streams`).
    ``nontemporal`` names the arrays whose stores bypass the caches
    (:mod:`kerncraft.cache.nontemporal`).
    """
    core = _symbolic_core(kernel, int(machine.cacheline_size), repeated, tuple(nontemporal))
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
                       repeated: bool = True, nontemporal: Sequence[str] = ()
                       ) -> LayerConditionAnalysis:
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
    nontemporal = tuple(nontemporal)
    core_key = (kernel.source, kernel.filename, len(kernel.accesses), cl, repeated, nontemporal)
    key = core_key + (id(machine), cores, fill_key)
    if not kernel.source:
        return lc_analysis(kernel, machine, cores, fill, repeated, nontemporal)
    if key in _CACHE:
        return _CACHE[key]
    core = _CORES.get(core_key)
    if core is None:
        core = _remember(_CORES, core_key, _symbolic_core(_unbound_form(kernel), cl, repeated,
                                                          nontemporal))
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
                       repeated: bool = True, notes: bool = True,
                       nontemporal: Sequence[str] = ()) -> TrafficResult:
    """Traffic of a *bound* kernel (the symbolic analysis is cached per source).

    Sweeps (ECM, Roofline over a -D range) call this once per point; the
    analysis of the kernel's unbound form is reused (:func:`cached_lc_analysis`).
    ``nontemporal``: arrays whose stores bypass the caches (cache/nontemporal.py).
    """
    unbound = kernel.unbound_constants()
    if unbound:
        raise DefineError(f"constant '{unbound[0].name}' has no value; "
                          f"pass -D {unbound[0].name} VALUE")
    analysis = cached_lc_analysis(kernel, machine, cores, fill, repeated, nontemporal)
    return analysis.evaluate({name: kernel.bindings[name] for name in analysis.constant_names},
                             notes)
