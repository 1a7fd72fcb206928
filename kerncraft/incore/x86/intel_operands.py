"""Operands of x86-64 assembly in Intel syntax: registers, immediates, memory.

The forms that compilers, assemblers and disassemblers write:

* registers without ``%`` (``rax``, ``ymm3``, ``k1``, ``st(1)``; with ``%`` under
  ``.intel_syntax prefix``);
* immediates without ``$`` (``4``, ``-1``, ``0x6f``, ``0FFh``), and addresses as
  immediates: ``OFFSET FLAT:.LC0`` (gcc), ``offset sym`` (clang);
* memory, with an optional size (``QWORD PTR``; objdump's broadcast ``QWORD BCST``)
  and segment (``fs:``), as gcc writes it (``QWORD PTR -8[rbp]``, ``a[0+rax*4]``,
  ``.LC0[rip]``), as clang does (``qword ptr [rdi + 8*rax + 16]``,
  ``[rip + .LCPI0_0]``) and as objdump does (``[rcx+rdx*1+0x8]``, ``ds:0x0``);
* a bare symbol: a code label for jumps and calls, an absolute memory address
  elsewhere (as gas reads Intel syntax).

The result is the same :class:`~kerncraft.incore.model.Operand` the AT&T parser
makes of the equivalent operand; the access size written in the operand comes
alongside (:class:`IntelOperand`), since AT&T spells it in the mnemonic instead.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from kerncraft.incore import registers
from kerncraft.incore.model import Immediate, Label, Memory, Operand, Register
from kerncraft.incore.x86.operands import make_register

__all__ = ["IntelOperand", "parse_intel_operand", "SIZE_BITS", "parse_int"]

#: Bits of each size keyword (``QWORD PTR``).
SIZE_BITS = {"byte": 8, "word": 16, "dword": 32, "fword": 48, "qword": 64, "mmword": 64,
             "tbyte": 80, "oword": 128, "xmmword": 128, "ymmword": 256, "zmmword": 512}

_SIZE_RE = re.compile(r"(%s)\s+(ptr|bcst)\b\s*" % "|".join(SIZE_BITS), re.IGNORECASE)
_SEGMENT_RE = re.compile(r"%?([c-gs]s)\s*:\s*", re.IGNORECASE)
_OFFSET_RE = re.compile(r"offset\s+(?:flat\s*:\s*)?", re.IGNORECASE)
_REGISTER_RE = re.compile(r"%?([a-z][a-z0-9]*|st\s*\(\s*[0-7]\s*\))", re.IGNORECASE)
_INT_RE = re.compile(r"[-+]?(?:0x[0-9a-f]+|0b[01]+|[0-9][0-9a-f]*h|\d+)", re.IGNORECASE)
_TERM_RE = re.compile(r"([+-]?)([^+-]+)")
_SCALED_RE = re.compile(r"(?:(%?\w+)\*(\d+)|(\d+)\*(%?\w+))")
_SYMBOLIC = re.compile(r"[A-Za-z_.$][\w.$@]*")
_LOCAL_LABEL = re.compile(r"\d+[bf]")          # gas numeric local labels: 1b, 2f


@dataclass(frozen=True)
class IntelOperand:
    """One parsed operand: the operand, and what the text says about its size."""

    operand: Operand
    size: int | None = None          # bits of a ``SIZE PTR`` / ``SIZE BCST`` memory operand
    bcst: bool = False               # objdump's ``SIZE BCST``: an embedded broadcast


def parse_int(text: str) -> int | None:
    """An integer literal as gas reads it in Intel syntax (``0x1f``, ``1fh``,
    ``0b101``, decimal), or None."""
    text = text.strip()
    if not _INT_RE.fullmatch(text):
        return None
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-").lower()
    if body.startswith("0x"):
        return sign * int(body, 16)
    if body.startswith("0b"):
        return sign * int(body[2:], 2)
    if body.endswith("h"):
        return sign * int(body[:-1], 16)
    return sign * int(body, 10) if body.isdigit() else None


def _register(text: str) -> Register | None:
    """The register ``text`` names (``rax``, ``%rax``, ``st(1)``), else None."""
    m = _REGISTER_RE.fullmatch(text)
    if m is None:
        return None
    name = m.group(1).lower().replace(" ", "")
    if not registers.is_register(name.replace("(", "").replace(")", ""), "x86"):
        return None
    return make_register("%" + name)


@functools.lru_cache(maxsize=8192)
def parse_intel_operand(text: str, branch: bool = False) -> IntelOperand:
    """Parse one Intel operand (decorations ``{k1}`` already removed); memoised.

    ``branch``: the operand of a jump or call, where a bare symbol or number is a
    code label. Raises ``ValueError`` with a short reason on malformed input.
    """
    core = text.strip()
    offset = _OFFSET_RE.match(core)
    if offset:
        expr = core[offset.end():].strip()
        if not expr:
            raise ValueError(f"OFFSET without a symbol in '{core}'")
        value = parse_int(expr)
        return IntelOperand(Immediate(value) if value is not None else Immediate(None, expr))
    size = bcst = None
    m = _SIZE_RE.match(core)
    if m:
        size, bcst = SIZE_BITS[m.group(1).lower()], m.group(2).lower() == "bcst"
        core = core[m.end():]
    segment = None
    m = _SEGMENT_RE.match(core)
    if m:
        segment, core = m.group(1).lower(), core[m.end():]
    if "[" in core or "]" in core:
        return IntelOperand(_memory(core, segment, text), size, bool(bcst))
    if size is None and segment is None:
        plain = _plain(core, branch)
        if plain is not None:
            return IntelOperand(plain)
    if not core:
        raise ValueError(f"cannot parse operand '{text.strip()}'")
    displacement, symbol = _displacement(core, text)
    return IntelOperand(Memory(displacement=displacement, symbol=symbol, segment=segment),
                        size, bool(bcst))


def _plain(core: str, branch: bool) -> Operand | None:
    """A register, an immediate or a branch target; None for a memory symbol."""
    if not core:
        return None
    reg = _register(core)
    if reg is not None:
        return reg
    if branch:
        head = re.split(r"[+-]", core, 1)[0]
        if not (_SYMBOLIC.fullmatch(head) or _LOCAL_LABEL.fullmatch(core)
                or parse_int(head) is not None):
            raise ValueError(f"cannot parse branch target '{core}'")
        return Label(core)
    value = parse_int(core)
    if value is not None:
        return Immediate(value)
    return None


def _memory(core: str, segment: str | None, text: str) -> Memory:
    """``disp[inner]`` (gcc), ``[inner]`` (clang, objdump), ``a[rax][8]`` (MASM)."""
    start = core.find("[")
    if start < 0 or core.count("[") != core.count("]"):
        raise ValueError(f"unbalanced brackets in '{text.strip()}'")
    outer = core[:start].strip()
    inner_parts = []
    rest = core[start:]
    while rest:
        if not rest.startswith("["):
            raise ValueError(f"unexpected '{rest}' after ']' in '{text.strip()}'")
        end = rest.find("]")
        inner_parts.append(rest[1:end])
        rest = rest[end + 1:].strip()
    if outer and _register(outer) is not None:
        raise ValueError(f"register '{outer}' outside the brackets in '{text.strip()}'")
    terms = "+".join(p for p in [outer] + inner_parts if p.strip())
    return _address(terms, segment, text)


def _address(expr: str, segment: str | None, text: str) -> Memory:
    """Base, index, scale and displacement of the terms of an address."""
    compact = re.sub(r"\s+", "", expr)
    if not compact:
        raise ValueError(f"empty address in '{text.strip()}'")
    if "".join(s + t for s, t in _TERM_RE.findall(compact)) != compact:
        raise ValueError(f"cannot parse address '{expr.strip()}'")
    base = index = None
    scale = 1
    other: list[str] = []
    for sign, term in _TERM_RE.findall(compact):
        scaled = _SCALED_RE.fullmatch(term)
        reg = _register(term) if scaled is None else \
            _register(scaled.group(1) or scaled.group(4))
        if reg is None:
            other.append(sign + term)
            continue
        if sign == "-":
            raise ValueError(f"a register cannot be subtracted in '{text.strip()}'")
        if scaled is not None:
            if index is not None:
                raise ValueError(f"two index registers in '{text.strip()}'")
            index, scale = reg, int(scaled.group(2) or scaled.group(3))
        elif base is None:
            base = reg
        elif index is None:
            index = reg
        else:
            raise ValueError(f"too many registers in '{text.strip()}'")
    if scale not in (1, 2, 4, 8):
        raise ValueError(f"scale must be 1, 2, 4 or 8 in '{text.strip()}'")
    if index is not None and scale == 1 and index.name in ("rsp", "esp") and base is not None:
        base, index = index, base       # rsp cannot be an index: the assembler swaps
    displacement, symbol = _displacement("".join(other), text) if other else (0, None)
    return Memory(base=base, index=index, scale=scale, displacement=displacement,
                  symbol=symbol, segment=segment)


def _displacement(expr: str, text: str) -> tuple[int, str | None]:
    """(number, symbol) of a displacement: numbers are summed, one added symbol is
    the symbol; anything else is kept whole as the symbol (as the AT&T parser does)."""
    compact = re.sub(r"\s+", "", expr)
    number, symbols = 0, []
    for sign, term in _TERM_RE.findall(compact):
        value = parse_int(term)
        if value is not None:
            number += -value if sign == "-" else value
        elif _SYMBOLIC.fullmatch(term):
            symbols.append(sign + term)
        else:
            raise ValueError(f"cannot parse displacement '{expr}' in '{text.strip()}'")
    if not symbols:
        return number, None
    if len(symbols) == 1 and not symbols[0].startswith("-"):
        return number, symbols[0].lstrip("+")
    return 0, compact.lstrip("+")
