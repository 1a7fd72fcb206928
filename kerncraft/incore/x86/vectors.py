"""Facts about single x86 instructions that several stages need: vector width,
bytes of a packed memory access, floating-point work.

Used by the loop-block selection (:mod:`kerncraft.compilation.asm_block`: SIMD width and
work per assembly iteration) and the cache-line-split estimate
(:mod:`kerncraft.incore.linesplit`: which memory operands are vector streams).
"""
from __future__ import annotations

import re

from kerncraft.errors import AssemblyError
from kerncraft.incore import registers
from kerncraft.incore.model import Instruction, Memory, Register
from kerncraft.incore.x86.semantics import mnemonic_core

__all__ = ["VECTOR_BYTES", "core_of", "register_class", "vector_width", "packed_access_bytes",
           "is_packed_arithmetic", "flops"]

VECTOR_BYTES = {"xmm": 16, "ymm": 32, "zmm": 64}
# Scalar-element forms: they move or compute one element even in a vector
# register. Integer SIMD mnemonics (p...) are packed even if they end in 'sd'
# (vpminsd), except the element inserts/extracts/broadcasts.
# Matched against the mnemonic core without the VEX 'v'.
_SCALAR_RE = re.compile(r"^(?:[a-oq-z]\w*s[sd]|movq|movd|movddup|\w*broadcast\w*|"
                        r"pinsr\w|pextr\w|insertps|extractps|movhp[sd]|movlp[sd])$")
_FLOP1_RE = re.compile(r"^v?(add|sub|mul|div|sqrt|min|max)(p|s)([sd])$")
_FLOP2_RE = re.compile(r"^v?f(n?m(add|sub)|maddsub|msubadd)(\d{3})?(p|s)([sd])$")


def core_of(instr: Instruction) -> str:
    """The mnemonic without size suffix (:func:`~kerncraft.incore.x86.semantics.mnemonic_core`)."""
    return mnemonic_core(instr.mnemonic)


def register_class(name: str) -> str:
    """``registers.register_class``, or '' for a name that is no register."""
    try:
        return registers.register_class(name)
    except AssemblyError:
        return ""


def vector_width(instr: Instruction) -> int:
    """Bytes of the widest vector register operand (0 without one)."""
    widths = [VECTOR_BYTES.get(register_class(op.name), 0) for op in instr.operands
              if isinstance(op, Register)]
    return max(widths, default=0)


def packed_access_bytes(instr: Instruction) -> int:
    """Bytes of a packed (vector) memory access, 0 for scalar or no access."""
    if not any(isinstance(op, Memory) for op in instr.operands) or core_of(instr).startswith(
            ("lea", "prefetch")):
        return 0
    core = core_of(instr)
    if _SCALAR_RE.match(core[1:] if core.startswith("v") else core):
        return 0
    return vector_width(instr)


def is_packed_arithmetic(instr: Instruction) -> bool:
    """Packed FP arithmetic (any width) or any non-move ymm/zmm instruction."""
    match = _FLOP1_RE.match(core_of(instr)) or _FLOP2_RE.match(core_of(instr))
    if match:
        return "p" in match.groups()[-2:]
    return vector_width(instr) > 16 and "mov" not in core_of(instr)


def flops(instr: Instruction) -> tuple[int, int]:
    """(1 if FP arithmetic else 0, floating-point operations incl. lanes)."""
    core = core_of(instr)
    m1, m2 = _FLOP1_RE.match(core), _FLOP2_RE.match(core)
    if not (m1 or m2):
        return 0, 0
    packed, precision = (m1.group(2), m1.group(3)) if m1 else (m2.group(4), m2.group(5))
    lanes = 1
    if packed == "p":
        lanes = max(vector_width(instr), 16) // (8 if precision == "d" else 4)
    return 1, lanes * (2 if m2 else 1)
