"""A run whose -D values leave constants symbolic (Kerncraft's ``-D . 0``).

Kerncraft users write ``kerncraft -p LC -D . 0 ...`` to see the layer conditions as
inequalities in the kernel's constants. A value 0 cannot be bound (sizes are
positive), so such a run does not go through :func:`kerncraft.runner.run.run_models`:
only ``-p LC`` can report it, and it prints text only.
"""
from __future__ import annotations

from typing import Mapping, Sequence, TextIO

from kerncraft.errors import DefineError
from kerncraft.kernel.defines import symbolic_names

__all__ = ["run_symbolic_lc"]


def run_symbolic_lc(models: Sequence[str], kernel, machine,
                    bindings: Sequence[Mapping[str, int]], options, out: TextIO, *,
                    outputs: Sequence[str] = ()) -> int:
    """Print the symbolic layer conditions of every point (each has a constant at 0).

    ``outputs`` names the options that write files (``--json`` ...), which such a
    run refuses: their documents hold numbers per point.
    """
    from kerncraft.models.lc import compute_lc_symbolic
    from kerncraft.report.lc_symbolic import format_lc_symbolic
    from kerncraft.runner.points import print_header

    names = symbolic_names(bindings)
    given = " ".join(f"-D {name} 0" for name in names)
    others = [m for m in models if m != "LC"]
    if others:
        raise DefineError(f"{given} leaves {', '.join(names)} symbolic (Kerncraft's -D . 0), "
                          f"which only -p LC reports; -p {others[0]} needs sizes")
    if outputs:
        raise DefineError(f"{given}: symbolic layer conditions are printed only; drop "
                          f"{outputs[0]}")
    for point in bindings:
        print_header(point, len(bindings), out)
        print(format_lc_symbolic(compute_lc_symbolic(kernel, machine, point, options),
                                 options.verbose), file=out)
    out.flush()
    return 0
