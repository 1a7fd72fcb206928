"""Substitution of -D constant values into a :class:`KernelModel`.

Kept apart from ``model.py`` so the model module stays a plain description of
the data; :meth:`KernelModel.bind` delegates here.
"""
from __future__ import annotations

import dataclasses
from typing import Mapping

import sympy

from kerncraft.errors import KernelError, SourceLocation
from kerncraft.kernel.model import Access, Array, Constant, KernelModel


def bind_kernel(kernel: KernelModel, values: Mapping[str, int],
                partial: bool = False) -> KernelModel:
    """Return ``kernel`` with the constants named in ``values`` substituted.

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

    arrays = {name: _bind_array(kernel.filename, arr, sub, bound) for name, arr in kernel.arrays.items()}
    loops = tuple(dataclasses.replace(lp, start=sub(lp.start), end=sub(lp.end))
                  for lp in kernel.loops)
    return dataclasses.replace(
        kernel, arrays=arrays, loops=loops,
        accesses=tuple(_bind_access(a, sub) for a in kernel.accesses),
        outer_accesses=tuple(_bind_access(a, sub) for a in kernel.outer_accesses),
        bindings=bound, unbound=origin)


def _bind_array(filename: str | None, arr: Array, sub, bound: Mapping[str, int]) -> Array:
    if arr.is_scalar:
        return arr
    dims = tuple(sub(d) for d in arr.dimensions)
    for pos, (orig, dim) in enumerate(zip(arr.dimensions, dims), start=1):
        if dim.is_number and dim <= 0:
            raise KernelError(
                f"array '{arr.name}' dimension {pos} ({orig}) is {dim} after binding "
                f"{_binding_text(bound, orig)}; array sizes must be positive",
                SourceLocation(filename, arr.line, arr.col))
    return dataclasses.replace(arr, dimensions=dims)


def _bind_access(acc: Access, sub) -> Access:
    return dataclasses.replace(acc, indices=tuple(sub(i) for i in acc.indices),
                               linear_index=sub(acc.linear_index), offset=sub(acc.offset))


def _binding_text(bound: Mapping[str, int], expr: sympy.Expr) -> str:
    names = sorted(s.name for s in expr.free_symbols)
    return ", ".join(f"{n}={bound.get(n, '?')}" for n in names) or "constants"


def _const_location(kernel: KernelModel, const: Constant) -> SourceLocation:
    return SourceLocation(kernel.filename, const.line, const.col)



#: Largest array a model accepts, in bytes (4 EiB: addresses must fit 64 bits).
MAX_ARRAY_BYTES = 1 << 62


def check_bound_kernel(kernel: KernelModel) -> None:
    """What the models need of a bound kernel beyond binding (which allows both):
    every loop runs (:func:`check_loops_run`) and every array fits in
    :data:`MAX_ARRAY_BYTES` (``-D N 10**20`` overflowed the cache simulation)."""
    check_loops_run(kernel)
    origin = kernel.unbound if kernel.unbound is not None else kernel
    for arr in kernel.arrays.values():
        size = sympy.Integer(arr.element_size) * sympy.Mul(*arr.dimensions)
        if size.is_number and size > MAX_ARRAY_BYTES:
            declared = sympy.Mul(*origin.arrays[arr.name].dimensions)
            raise KernelError(
                f"array '{arr.name}' has {float(size):.3g} bytes with "
                f"{_binding_text(kernel.bindings, declared)}; at most 2**62 bytes (4 EiB) "
                "can be addressed", SourceLocation(kernel.filename, arr.line, arr.col))


def check_loops_run(kernel: KernelModel) -> None:
    """Refuse a bound kernel with a loop of no iteration (``j = 99; j < M`` with
    M = 20): it has no work to predict, and per-iteration figures would divide by
    zero. Binding allows it (the iteration count is then 0); the models call this.
    """
    origin = kernel.unbound if kernel.unbound is not None else kernel
    for orig, loop in zip(origin.loops, kernel.loops):
        trips = loop.trip_count()
        if trips.is_number and trips <= 0:
            raise KernelError(
                f"loop '{loop.index}' runs no iteration with "
                f"{_binding_text(kernel.bindings, orig.start - orig.end)} (from {loop.start} "
                f"to {loop.end}, step {loop.step}); every loop must run at least once",
                SourceLocation(kernel.filename, loop.line))
