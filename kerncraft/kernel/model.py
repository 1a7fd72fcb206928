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
  offset ``-N``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping

import sympy

ELEMENT_SIZES: Mapping[str, int] = {"double": 8, "float": 4, "int": 4, "long": 8}
"""Bytes per element of the supported C element types."""

AccessKind = Literal["read", "write"]


@dataclass(frozen=True)
class Constant:
    """A symbolic constant of the kernel (e.g. ``N``); bound with -D."""

    name: str
    symbol: sympy.Symbol


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

    def iteration_count(self) -> sympy.Expr:
        """Total innermost iterations of the nest (sums over triangular bounds)."""
        raise NotImplementedError  # provided by the parser module's implementation

    def bind(self, values: Mapping[str, int]) -> "KernelModel":
        """Return a copy with constants substituted (and validated > 0 for sizes)."""
        raise NotImplementedError
