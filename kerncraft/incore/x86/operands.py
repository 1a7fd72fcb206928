"""Operands of AT&T x86-64 assembly: registers, immediates, memory addresses.

Split from :mod:`kerncraft.incore.x86.parser` (which parses lines and statements):
an operand string goes through a regex fast path for the common forms and else
through a pyparsing grammar; both are memoised by the caller's lru_cache. pyparsing is
imported, and the grammar built, only when an operand needs it (~25 ms of a process
that analyses a compiled loop, whose operands the fast path all takes).
"""
from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from kerncraft.incore import registers
from kerncraft.incore.model import Immediate, Label, Memory, Operand, Register

if TYPE_CHECKING:
    import pyparsing as pp

__all__ = ["SYMBOL", "make_register", "parse_operand", "parse_operand_full"]

SYMBOL = r"[A-Za-z_.$][\w.$@]*"
"""A gas symbol name (labels, ``.LC0``, ``a@GOTPCREL``)."""

# ---------------------------------------------------------------------------
# Operand grammar (pyparsing, memoised)
# ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _operand_grammar() -> "pp.ParserElement":
    """Grammar of one operand without its ``{...}`` decorations.

    Forms: ``%reg``, ``%st(1)``, ``$imm``, ``[%seg:]disp(base,index,scale)`` with
    every part optional, ``[%seg:]disp`` (absolute address or branch target).
    The displacement is captured as raw text and interpreted afterwards, because
    compilers write it as a number, a symbol or ``symbol+/-number``.
    """
    import pyparsing as pp

    reg = pp.Combine(pp.Literal("%") + pp.Regex(r"[A-Za-z][A-Za-z0-9]*(\(\s*\d\s*\))?"))
    imm = pp.Combine(pp.Literal("$") + pp.Regex(r"[^\s].*"))("imm")
    scale = pp.Regex(r"\d+")("scale")
    addr = (pp.Suppress("(") + pp.Optional(reg("base"))
            + pp.Optional(pp.Suppress(",") + pp.Optional(reg("index"))
                          + pp.Optional(pp.Suppress(",") + pp.Optional(scale)))
            + pp.Suppress(")"))
    disp = pp.Regex(r"[^(%\s$*][^(]*")("disp")
    seg = reg("segment") + pp.Suppress(":")
    memory = pp.Optional(seg) + ((pp.Optional(disp) + addr) | disp)
    register = reg("register")
    return (imm | memory | register) + pp.StringEnd()


_UINT = r"(?:0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)"
_INT_RE = re.compile(rf"[-+]?{_UINT}")
_SYM_OFFSET_RE = re.compile(rf"({SYMBOL})\s*([-+])\s*({_UINT})")
_JUXTAPOSED_RE = re.compile(r"[\w.$@]\s+[\w.$@]")     # 'a b': no operator between
_OFFSET_SYM_RE = re.compile(rf"([-+]?{_UINT})\s*\+\s*({SYMBOL})")


def _to_int(text: str) -> int | None:
    """Parse an integer literal as gas does (decimal, 0x hex, 0b binary, 0 octal)."""
    if not _INT_RE.fullmatch(text):
        return None
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-").lower()
    if body.startswith("0x"):
        return sign * int(body, 16)
    if body.startswith("0b"):
        return sign * int(body[2:], 2)
    if len(body) > 1 and body.startswith("0"):
        return sign * int(body, 8)
    return sign * int(body)


def _split_displacement(text: str) -> tuple[int, str | None]:
    """Split a displacement expression into (number, symbol).

    ``-8`` -> (-8, None); ``a+16`` -> (16, 'a'); ``.LC0`` -> (0, '.LC0');
    anything more complex is kept whole as the symbol with displacement 0.
    """
    text = text.strip()
    if not text:
        return 0, None
    value = _to_int(text)
    if value is not None:
        return value, None
    m = _SYM_OFFSET_RE.fullmatch(text)
    if m:
        number = _to_int(m.group(3))
        assert number is not None
        return (number if m.group(2) == "+" else -number), m.group(1)
    m = _OFFSET_SYM_RE.fullmatch(text)
    if m:
        number = _to_int(m.group(1))
        assert number is not None
        return number, m.group(2)
    if _JUXTAPOSED_RE.search(text):
        raise ValueError(f"cannot parse displacement '{text}'")
    return 0, text


def make_register(text: str) -> Register:
    name = text[1:].lower().replace(" ", "")
    if name.startswith("st("):
        name = "st" + name[3:-1]
    if not registers.is_register(name, "x86"):
        raise ValueError(f"unknown register '{text}'")
    return Register(name)


_FAST_REGISTER_RE = re.compile(r"%([A-Za-z][A-Za-z0-9]*)")
_FAST_SYMBOL_RE = re.compile(SYMBOL)
_FAST_IMMEDIATE_RE = re.compile(rf"\$\s*({_INT_RE.pattern})")
_FAST_MEMORY_RE = re.compile(
    r"(?P<disp>[^(%\s*$][^(]*)?\(\s*(?:%(?P<base>[A-Za-z][A-Za-z0-9]*))?\s*"
    r"(?:,\s*(?:%(?P<index>[A-Za-z][A-Za-z0-9]*))?\s*(?:,\s*(?P<scale>\d+))?\s*)?\)")


def _fast_operand(core: str, branch: bool) -> Operand | None:
    """Regex shortcut for the common forms (``%reg``, ``$int``,
    ``disp(base,index,scale)``); None means 'ask the full grammar'.

    The pyparsing grammar costs ~1 ms per distinct operand, which dominated
    the parse time of large files; tests check both paths agree."""
    m = _FAST_REGISTER_RE.fullmatch(core)
    if m:
        return make_register(core)
    m = _FAST_IMMEDIATE_RE.fullmatch(core)
    if m:
        return Immediate(_to_int(m.group(1)))
    m = _FAST_MEMORY_RE.fullmatch(core)
    if m:
        return _memory_from(m.group("disp") or "", m.group("base"), m.group("index"),
                            m.group("scale"), None, core)
    if core[0] != "$" and _FAST_SYMBOL_RE.fullmatch(core):  # a branch target or an address
        return Label(core) if branch else _memory_from(core, None, None, None, None, core)
    return None


def _memory_from(disp: str, base: str | None, index: str | None, scale: str | None,
                 segment: str | None, text: str) -> Memory:
    """Build a :class:`Memory` from the textual parts of an AT&T address."""
    displacement, symbol = _split_displacement(disp)
    scale_value = int(scale) if scale else 1
    if scale_value not in (1, 2, 4, 8):
        raise ValueError(f"scale must be 1, 2, 4 or 8 in '{text}'")
    return Memory(base=make_register("%" + base) if base else None,
                  index=make_register("%" + index) if index else None,
                  scale=scale_value, displacement=displacement, symbol=symbol,
                  segment=make_register("%" + segment).name if segment else None)


@functools.lru_cache(maxsize=8192)
def parse_operand(text: str, branch: bool = False) -> Operand:
    """Parse one operand (decorations already removed); memoised.

    ``branch`` says the operand belongs to a jump/call, where a bare symbol is a
    :class:`Label`; elsewhere a bare symbol is an absolute memory address.
    A leading ``*`` (indirect jump/call) is accepted and dropped.
    Raises ``ValueError`` with a short reason on malformed input.
    """
    core = text.strip()
    if core.startswith("*"):
        core = core[1:].strip()
        branch = False      # '*foo' is a memory-indirect target, not a label
    fast = _fast_operand(core, branch)
    if fast is not None:
        return fast
    return parse_operand_full(core, branch)


def parse_operand_full(core: str, branch: bool = False) -> Operand:
    """Parse one operand with the pyparsing grammar (the reference path)."""
    from pyparsing import ParseBaseException

    try:
        res = _operand_grammar().parse_string(core)
    except ParseBaseException as exc:
        raise ValueError(f"cannot parse operand '{core}'") from exc
    if "imm" in res:
        expr = res["imm"][1:].strip()
        value = _to_int(expr)
        return Immediate(value) if value is not None else Immediate(None, expr)
    if "register" in res:
        return make_register(res["register"])
    disp_text = res.get("disp", "")
    if branch and "(" not in core and "segment" not in res:
        return Label(disp_text.strip())
    strip = (lambda r: r[1:] if r else None)
    return _memory_from(disp_text, strip(res.get("base")), strip(res.get("index")),
                        res.get("scale"), strip(res.get("segment")), core)
