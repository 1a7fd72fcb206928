"""The loop nest as a function of pointer arguments (``--aliasing pointers``).

By default (:mod:`kerncraft.compilation.codegen`) the nest runs in ``main`` on arrays that
``aligned_alloc`` returned, so the compiler knows that no two of them overlap and
vectorises without run-time alias checks, as it does for separately allocated arrays
in an application. Kerncraft instead compiles the kernel as a function whose arrays
are pointer arguments without ``restrict``: the compiler must assume that they may
overlap, so it adds run-time overlap checks (and a scalar fallback loop) or does not
vectorise at all (3d-27pt, uxx and matvec stay scalar with gcc). Neither is wrong;
this module gives the second choice:

* ``void kc_kernel(...)`` takes the run-time constants by value, the arrays as
  ``T *name`` and the scalars as ``T *kc_scalar_name``; scalars are copied into
  locals on entry and written back on exit (a reduction ``s += ...`` stays in a
  register, as it would in a real function), literal constants and initialised
  scalars are declared inside, so their values stay visible to the compiler;
* ``main`` calls it through a ``volatile`` function pointer, so the compiler cannot
  inline it back into ``main`` (where it would again know the arrays apart) and the
  assembly holds exactly one copy of the nest, the function's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

__all__ = ["KernelParameter", "kernel_function"]

ALIASING_CHOICES = ("distinct", "pointers")


@dataclass(frozen=True)
class KernelParameter:
    """One variable of the nest as ``main`` holds it."""

    name: str
    ctype: str                 # C type of the variable or of the array's elements
    kind: str                  # 'runtime' constant, 'literal' constant, 'array', 'scalar'
    init: str | None = None    # literal value or scalar initialiser (kept inside)


def kernel_function(nest: Sequence[str],
                    params: Sequence[KernelParameter]) -> tuple[list[str], list[str]]:
    """(definition lines of ``kc_kernel``, lines of ``main`` that call it)."""
    signature, args, types, prologue, epilogue = [], [], [], [], []
    for p in params:
        if p.kind == "runtime":
            signature.append(f"const long {p.name}")
            types.append("long")
            args.append(p.name)
        elif p.kind == "literal":
            prologue.append(f"const long {p.name} = {p.init};")
        elif p.kind == "array":
            signature.append(f"{p.ctype} *{p.name}")
            types.append(f"{p.ctype} *")
            args.append(p.name)
        elif p.init is not None:          # initialised scalar: its value stays visible
            prologue.append(f"{p.ctype} {p.name} = {p.init};")
        else:
            signature.append(f"{p.ctype} *kc_scalar_{p.name}")
            types.append(f"{p.ctype} *")
            args.append(f"&{p.name}")
            prologue.append(f"{p.ctype} {p.name} = *kc_scalar_{p.name};")
            epilogue.append(f"*kc_scalar_{p.name} = {p.name};")
    definition = [f"void kc_kernel({', '.join(signature) or 'void'})", "{"]
    definition += ["    " + line for line in [*prologue, *nest, *epilogue]]
    definition += ["}", ""]
    call = [f"void (*volatile kc_call)({', '.join(types) or 'void'}) = kc_kernel;",
            f"kc_call({', '.join(args)});"]
    return definition, call
