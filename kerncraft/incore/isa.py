"""The instruction sets the in-core analyzer reads: for each, the parser of its
assembly text and the dataflow rules of its instructions (:func:`isa_support`).

The ISA packages (:mod:`kerncraft.incore.x86`, :mod:`kerncraft.incore.aarch64`) are
imported on first use: a run on one ISA never loads the other's tables.
"""
from __future__ import annotations

from typing import Callable

from kerncraft.errors import AssemblyError
from kerncraft.incore.model import AsmLine, DataFlow, Instruction

__all__ = ["AssemblyParser", "InstructionDataflow", "isa_support"]

#: ``parse(text, filename=None)``: one :class:`AsmLine` per line of assembly text (the
#: x86 parser also takes ``syntax='auto'|'att'|'intel'``).
AssemblyParser = Callable[..., list[AsmLine]]
#: The registers and memory an instruction reads and writes.
InstructionDataflow = Callable[[Instruction], DataFlow]


def isa_support(isa: str) -> tuple[AssemblyParser, InstructionDataflow]:
    """(parser, dataflow) of an ISA: AArch64 for a name starting with 'aarch64' or
    'arm', x86 for any other. AssemblyError if the ISA's modules cannot be loaded."""
    isa = isa.lower()
    try:
        if isa.startswith("aarch64") or isa.startswith("arm"):
            from kerncraft.incore.aarch64 import parser as a64_parser
            from kerncraft.incore.aarch64 import semantics as a64_sem
            return a64_parser.parse_aarch64, a64_sem.dataflow
        from kerncraft.incore.x86.semantics import dataflow as x86_dataflow
        from kerncraft.incore.x86.syntax import parse_x86_any   # AT&T, Intel, objdump
        return parse_x86_any, x86_dataflow
    except ImportError as exc:
        raise AssemblyError(f"no assembly support for ISA {isa!r} ({exc})") from None
