"""What the models require of a bound kernel beyond binding it.

:meth:`KernelModel.bind <kerncraft.kernel.model.KernelModel.bind>` substitutes -D
values and accepts a loop without iterations or an array too large to address;
the models call :func:`check_bound_kernel` (or :func:`check_loops_run`) before
they predict anything.
"""
from __future__ import annotations

import sympy

from kerncraft.errors import KernelError, SourceLocation
from kerncraft.kernel.model import KernelModel, binding_text


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
                f"{binding_text(kernel.bindings, declared)}; at most 2**62 bytes (4 EiB) "
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
                f"{binding_text(kernel.bindings, orig.start - orig.end)} (from {loop.start} "
                f"to {loop.end}, step {loop.step}); every loop must run at least once",
                SourceLocation(kernel.filename, loop.line))
