"""The kernel model: a frozen, typed description of a restricted-C99 loop kernel.

Produced by :func:`kerncraft.kernel.parser.parse_kernel`; read by every later
stage (code generation, data traffic, models). All sizes, bounds and indices are
sympy expressions in the kernel's constants (``Constant.symbol``) and loop
indices (``Loop.symbol``); :meth:`KernelModel.bind` substitutes -D values.

Conventions
-----------
* ``Loop.end`` is *exclusive* and the loop runs ``start, start+step, ...`` while
  ``< end`` (``step > 0``) or ``> end`` (``step < 0``). ``for (i=1; i<=N; ++i)``
  is stored as start 1, end N+1.
* Arrays are row-major (C order). ``Access.linear_index`` is the flattened
  element index ``sum_k idx_k * prod(dims[k+1:])``.
* ``Access.offset`` is ``linear_index`` minus the same expression with all
  loop indices set to zero *and* constant terms removed, i.e. the constant
  element offset of the access relative to the "loop center"; e.g. for
  ``a[j-1][i]`` in a j,i nest with ``double a[M][N]``: linear ``(j-1)*N + i``,
  offset ``-N``. In other words the offset is ``linear_index`` with every
  loop index set to zero (the part of the address that does not move with
  the loop); direct accesses such as ``a[0][i]`` simply contribute their
  constant part.
* ``KernelModel.accesses`` is in source order statement by statement; within
  one statement the reads come in evaluation order and the write last (a
  compound ``x += y`` is read x, read y, write x), which is the order a
  cache simulator should replay them in.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Literal, Mapping

import sympy

from kerncraft.errors import KernelError, SourceLocation

ELEMENT_SIZES: Mapping[str, int] = {"double": 8, "float": 4, "int": 4, "long": 8}
"""Bytes per element of the supported C element types."""

AccessKind = Literal["read", "write"]


@dataclass(frozen=True)
class Constant:
    """A symbolic constant of the kernel (e.g. ``N``); bound with -D.

    ``line``/``col`` locate its first use, so that an unbound constant can be
    reported where the user wrote it.
    """

    name: str
    symbol: sympy.Symbol
    line: int | None = None
    col: int | None = None


@dataclass(frozen=True)
class Loop:
    """One ``for`` loop of the nest, outermost first in ``KernelModel.loops``."""

    index: str                 # loop variable name, e.g. "i"
    symbol: sympy.Symbol       # sympy symbol for the index (integer=True)
    start: sympy.Expr          # may depend on constants and outer indices
    end: sympy.Expr            # exclusive bound (see module doc)
    step: int                  # +-k, never 0
    line: int | None = None

    def trip_count(self) -> sympy.Expr:
        """Number of iterations (symbolic, may contain outer indices)."""
        if isinstance(self.start, sympy.Integer) and isinstance(self.end, sympy.Integer):
            # bound kernel: integer arithmetic, as sympy.Max would give, ~100x faster
            # (the models ask for it per core count of every -D point)
            lo, hi = int(self.start), int(self.end)
            n = (hi - lo + self.step - 1) // self.step if self.step > 0 else \
                (lo - hi - self.step - 1) // (-self.step)
            return sympy.Integer(max(0, n))
        if self.step > 0:
            n = (self.end - self.start + self.step - 1) // self.step
        else:
            n = (self.start - self.end + (-self.step) - 1) // (-self.step)
        return sympy.Max(0, n)


@dataclass(frozen=True)
class Array:
    """A declared array (``dimensions`` non-empty) or scalar (``dimensions == ()``)."""

    name: str
    ctype: str                           # 'double', 'float', 'int', 'long'
    element_size: int                    # bytes, from ELEMENT_SIZES
    dimensions: tuple[sympy.Expr, ...]   # sizes in elements, outermost first
    line: int | None = None
    col: int | None = None
    # stores to it bypass the caches (``#pragma nontemporal``, kernel/nontemporal.py)
    nontemporal: bool = False

    @property
    def is_scalar(self) -> bool:
        return len(self.dimensions) == 0

    def total_elements(self) -> sympy.Expr:
        return sympy.Mul(*self.dimensions) if self.dimensions else sympy.Integer(1)

    def total_bytes(self) -> sympy.Expr:
        return self.total_elements() * self.element_size


@dataclass(frozen=True)
class Access:
    """One array (or scalar) access in the innermost loop body."""

    array: str
    kind: AccessKind
    indices: tuple[sympy.Expr, ...]   # per dimension, in loop index symbols + constants
    linear_index: sympy.Expr          # flattened element index (row-major)
    offset: sympy.Expr                # constant element offset (see module doc)
    line: int | None = None
    col: int | None = None


@dataclass(frozen=True)
class KernelModel:
    """Everything the later stages need to know about a kernel.

    ``flops`` counts floating-point operations per innermost iteration by
    operator (keys among '+', '-', '*', '/'); ``math_calls`` counts calls like
    'sqrt' separately (not included in ``flops``). ``source`` is the original
    text (code generation re-parses it); ``pragmas`` lists ignored #pragma lines.
    """

    filename: str | None
    source: str
    constants: tuple[Constant, ...]
    arrays: Mapping[str, Array]                 # includes scalars
    loops: tuple[Loop, ...]                     # outermost first
    accesses: tuple[Access, ...]                # innermost-loop body, in source order
    flops: Mapping[str, int]
    math_calls: Mapping[str, int]
    pragmas: tuple[str, ...] = ()
    bindings: Mapping[str, int] = field(default_factory=dict)  # -D values applied
    # Accesses of statements outside the innermost loop (e.g. ``s = 0.;``
    # before an inner loop or ``b[j] = s;`` after it). They run once per
    # outer iteration, so they are kept apart and never count as flops.
    outer_accesses: tuple[Access, ...] = ()
    # ``swap(a, b);`` after the nest (time stepping in Kerncraft's examples): the pairs,
    # in order; a sweep is analysed once, so the swaps change nothing the models see
    swaps: tuple[tuple[str, str], ...] = ()
    # The model this one was bound from (None for a parsed model): later stages
    # that analyse symbolically once per sweep start from it instead of parsing
    # the source again.
    unbound: "KernelModel | None" = field(default=None, repr=False, compare=False)

    # --- convenience views -------------------------------------------------
    @property
    def total_flops(self) -> int:
        return sum(self.flops.values())

    def reads(self, array: str | None = None) -> tuple[Access, ...]:
        return tuple(a for a in self.accesses if a.kind == "read"
                     and (array is None or a.array == array))

    def writes(self, array: str | None = None) -> tuple[Access, ...]:
        return tuple(a for a in self.accesses if a.kind == "write"
                     and (array is None or a.array == array))

    @property
    def loop_symbols(self) -> tuple[sympy.Symbol, ...]:
        """Loop index symbols, outermost first."""
        return tuple(loop.symbol for loop in self.loops)

    @property
    def constant_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.constants)

    def unbound_constants(self) -> tuple[Constant, ...]:
        """Constants that :meth:`bind` has not given a value yet."""
        return tuple(c for c in self.constants if c.name not in self.bindings)

    def iteration_count(self) -> sympy.Expr:
        """Total innermost iterations of the nest (sums over triangular bounds).

        Rectangular levels multiply their ``trip_count()`` (clamped at zero, so
        the value is exact once all constants are bound). A level whose inner
        count depends on its own index (triangular nest) is summed with
        ``sympy.summation``; there the inner trip counts are assumed
        non-negative over the summation range (true for every sensible
        triangular nest), which lets sympy find a closed form such as
        ``N*(N + 1)/2``. If none exists an unevaluated ``Sum`` is returned
        (evaluated to a number automatically once all constants are bound).
        """
        count: sympy.Expr = sympy.Integer(1)
        for loop in reversed(self.loops):
            if not count.has(loop.symbol):
                count = loop.trip_count() * count
                continue
            count = _strip_zero_max(count)
            if loop.step == 1:
                count = sympy.summation(count, (loop.symbol, loop.start, loop.end - 1))
            elif loop.step == -1:
                count = sympy.summation(count, (loop.symbol, loop.end + 1, loop.start))
            else:
                t = sympy.Dummy("t", integer=True, nonnegative=True)
                trips = _strip_zero_max(loop.trip_count())
                count = sympy.summation(count.subs(loop.symbol, loop.start + loop.step * t),
                                        (t, 0, trips - 1))
            count = sympy.expand(count)
        if not count.free_symbols and not count.is_number:
            count = count.doit()   # bound kernel: evaluate a remaining Sum exactly
        return count

    def bind(self, values: Mapping[str, int], partial: bool = False) -> "KernelModel":
        """Return a copy with constants substituted (and validated > 0 for sizes).

        ``values`` may hold names the kernel does not use (ignored, so one set
        of -D values can serve several kernels). Unless ``partial`` is true,
        every constant must get a value; a missing one raises
        :class:`~kerncraft.errors.KernelError` located at its first use. An
        array dimension that is not positive after binding raises at the
        array's declaration.
        """
        return _bind(self, values, partial)


def _strip_zero_max(expr: sympy.Expr) -> sympy.Expr:
    """Replace ``Max(0, x)`` by ``x`` (see :meth:`KernelModel.iteration_count`)."""
    return expr.replace(
        lambda e: isinstance(e, sympy.Max) and len(e.args) == 2 and sympy.S.Zero in e.args,
        lambda e: e.args[1] if e.args[0] == 0 else e.args[0])


# --- binding -D values (KernelModel.bind) --------------------------------------------
def _bind(kernel: KernelModel, values: Mapping[str, int], partial: bool) -> KernelModel:
    """``kernel`` with the constants named in ``values`` substituted.

    Validation happens here rather than at parse time because sizes such as
    ``N-2`` are only known to be positive once N has a value.
    """
    subs: dict[sympy.Symbol, sympy.Integer] = {}
    bound: dict[str, int] = dict(kernel.bindings)
    for const in kernel.constants:
        if const.name not in values:
            continue
        value = values[const.name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise KernelError(f"value for constant '{const.name}' must be an integer, "
                              f"got {value!r}", _const_location(kernel, const))
        subs[const.symbol] = sympy.Integer(value)
        bound[const.name] = value
    if not partial:
        missing = [c for c in kernel.constants if c.name not in bound]
        if missing:
            names = ", ".join(c.name for c in missing)
            first = missing[0]
            raise KernelError(f"constant '{first.name}' has no value (unbound: {names}); "
                              f"pass -D {first.name} VALUE", _const_location(kernel, first))
    origin = kernel.unbound if kernel.unbound is not None else kernel
    if not subs:
        return dataclasses.replace(kernel, bindings=bound, unbound=origin)

    def sub(expr: sympy.Expr) -> sympy.Expr:
        return sympy.expand(expr.xreplace(subs)) if expr.free_symbols else expr

    arrays = {name: _bind_array(kernel.filename, arr, sub, bound)
              for name, arr in kernel.arrays.items()}
    loops = tuple(dataclasses.replace(lp, start=sub(lp.start), end=sub(lp.end))
                  for lp in kernel.loops)
    return dataclasses.replace(
        kernel, arrays=arrays, loops=loops,
        accesses=tuple(_bind_access(a, sub) for a in kernel.accesses),
        outer_accesses=tuple(_bind_access(a, sub) for a in kernel.outer_accesses),
        bindings=bound, unbound=origin)


def _bind_array(filename: str | None, arr: Array, sub: Callable[[sympy.Expr], sympy.Expr],
                bound: Mapping[str, int]) -> Array:
    if arr.is_scalar:
        return arr
    dims = tuple(sub(d) for d in arr.dimensions)
    for pos, (orig, dim) in enumerate(zip(arr.dimensions, dims), start=1):
        if dim.is_number and dim <= 0:
            raise KernelError(
                f"array '{arr.name}' dimension {pos} ({orig}) is {dim} after binding "
                f"{binding_text(bound, orig)}; array sizes must be positive",
                SourceLocation(filename, arr.line, arr.col))
    return dataclasses.replace(arr, dimensions=dims)


def _bind_access(acc: Access, sub: Callable[[sympy.Expr], sympy.Expr]) -> Access:
    return dataclasses.replace(acc, indices=tuple(sub(i) for i in acc.indices),
                               linear_index=sub(acc.linear_index), offset=sub(acc.offset))


def binding_text(bound: Mapping[str, int], expr: sympy.Expr) -> str:
    """The -D values of the constants in ``expr`` for an error message: 'M=20, N=10'
    ('?' for a constant without a value; 'constants' if ``expr`` has none)."""
    names = sorted(s.name for s in expr.free_symbols)
    return ", ".join(f"{n}={bound.get(n, '?')}" for n in names) or "constants"


def _const_location(kernel: KernelModel, const: Constant) -> SourceLocation:
    return SourceLocation(kernel.filename, const.line, const.col)
