"""Parser for x86-64 assembly in AT&T syntax (gcc, clang, icc, ifort output).

Design: a line is first split with plain string/regex operations into
``label: statement # comment`` (:mod:`kerncraft.incore.x86.lines`, shared with the
Intel-syntax parser; that split is the same for every line and is the hot path), and only the operand list of an instruction goes through a pyparsing
grammar (:mod:`kerncraft.incore.x86.operands`). Operand strings repeat a lot in
compiler output (``%rax``, ``(%rdi,%rax,8)``), so parsed operands are memoised; a 2,000-line gcc file then parses in a few
tens of milliseconds instead of the ~1 s a full per-line pyparsing grammar needs.

The parser records what is written and resolves nothing: directive arguments are
kept as strings, symbols are not looked up, mnemonics are kept with their AT&T
size suffix (``addq``), lower-cased. Performance-relevant prefixes (``rep``,
``lock`` and their variants) become part of the mnemonic (``'rep stosq'``,
``'lock addl'``) so that the port-model database cannot mistake a locked RMW
for a plain one; prefixes without a performance meaning (``notrack``, ``bnd``,
``data16``, ``{vex}``, branch hints ...) are dropped.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from typing import Iterable

from kerncraft.errors import AssemblyError
from kerncraft.incore import registers
from kerncraft.incore.asmtext import find_unquoted, split_top_level  # noqa: F401 (re-export)
from kerncraft.incore.model import AsmLine, Instruction, Memory, Operand, Register
from kerncraft.incore.x86.lines import (DROPPED_PREFIXES, KEPT_PREFIXES,  # noqa: F401
                                        comment_state, LineError, located_error, parse_line,
                                        split_prefixes)
# the operand parsers, re-exported: callers and tests import them from here
from kerncraft.incore.x86.operands import (SYMBOL, make_register, parse_operand,  # noqa: F401
                                           parse_operand_full)

__all__ = ["parse_x86", "parse_operand", "parse_instruction", "BRANCH_MNEMONICS",
           "is_branch_mnemonic", "check_displacement", "REP_NOOP_BEFORE", "Decorations",
           "strip_decorations"]

_MNEMONIC_RE = re.compile(r"([A-Za-z][\w.]*)(?:,(p[tn]))?(?=\s|$)")

#: Prefixes that are no-ops in front of these mnemonics (gcc's ``rep ret``).
REP_NOOP_BEFORE = frozenset({"ret", "retq", "retl"})

#: Mnemonics whose bare-symbol operand is a code label, not an absolute address.
BRANCH_MNEMONICS = frozenset({
    "jmp", "jmpq", "jmpl", "call", "callq", "calll", "loop", "loope", "loopz",
    "loopne", "loopnz", "jcxz", "jecxz", "jrcxz", "xbegin", "ljmp", "lcall",
    "ja", "jae", "jb", "jbe", "jc", "je", "jg", "jge", "jl", "jle", "jna", "jnae",
    "jnb", "jnbe", "jnc", "jne", "jng", "jnge", "jnl", "jnle", "jno", "jnp", "jns",
    "jnz", "jo", "jp", "jpe", "jpo", "js", "jz",
})


def is_branch_mnemonic(mnemonic: str) -> bool:
    """True for jumps, calls and loop instructions (operand is a code target)."""
    return mnemonic in BRANCH_MNEMONICS


# ---------------------------------------------------------------------------
# Decorations: {%k1} {z} {1to8} {rn-sae} {sae}
# ---------------------------------------------------------------------------

_DECORATION_RE = re.compile(r"\{([^}]*)\}")
_ROUNDING = frozenset({"rn-sae", "rd-sae", "ru-sae", "rz-sae", "sae"})


@functools.lru_cache(maxsize=8192)
def strip_decorations(text: str) -> tuple[str, tuple[str, ...]]:
    """Remove ``{...}`` groups from an operand; return (core, decorations), the
    decorations lower-cased without blanks."""
    if "{" not in text:
        return text, ()
    decorations = tuple(d.strip().lower().replace(" ", "")
                         for d in _DECORATION_RE.findall(text))
    return _DECORATION_RE.sub("", text).strip(), decorations


# ---------------------------------------------------------------------------
# Statements
# ---------------------------------------------------------------------------

@dataclass
class Decorations:
    """AVX-512 decorations collected over the operands of one instruction."""

    mask: Register | None = None
    zeroing: bool = False
    rounding: str | None = None

    def take(self, decorations: tuple[str, ...]) -> str | None:
        """Record mask/zeroing/rounding; return a broadcast ('1to8') if any."""
        broadcast = None
        for deco in decorations:
            if deco.startswith("%"):
                self.mask = _make_register_or_fail(deco)
                if registers.register_class(self.mask.name, "x86") != "k":
                    raise LineError(f"write mask must be a k register, not '{deco}'")
            elif deco == "z":
                self.zeroing = True
            elif deco in _ROUNDING:
                self.rounding = deco
            elif _BROADCAST_RE.fullmatch(deco):
                broadcast = deco
            else:
                raise LineError(f"unknown decoration '{{{deco}}}'")
        return broadcast


_BROADCAST_RE = re.compile(r"1to\d+")


_DISP32 = (-2**31, 2**31 - 1)
_ABS64 = (-2**63, 2**64 - 1)


def check_displacement(op: Memory, mnemonic: str, core: str, text: str) -> None:
    """Reject a displacement the instruction cannot encode: x86-64 addressing has a
    signed 32-bit displacement; only ``movabs`` takes a 64-bit absolute address
    (no base, no index). An out-of-range value would silently model code that no
    assembler accepts."""
    absolute = op.base is None and op.index is None
    low, high = _ABS64 if absolute and mnemonic.startswith("movabs") else _DISP32
    if low <= op.displacement <= high:
        return
    what = ("a 64-bit absolute address" if (low, high) == _ABS64 else
            "a signed 32-bit displacement" + (" (a 64-bit absolute address only with "
                                              "movabs)" if absolute else ""))
    raise LineError(f"displacement {op.displacement} is out of range: x86-64 allows {what}",
                     text.find(core) + 1 if core in text else None)


def _parse_operands(operand_text: str, branch: bool, text: str, decor: Decorations,
                    mnemonic: str = "") -> tuple[Operand, ...]:
    """Parse a comma-separated operand list; decorations go to ``decor``."""
    operands: list[Operand] = []
    for part in split_top_level(operand_text):
        core, decorations = strip_decorations(part)
        broadcast = decor.take(decorations)
        if not core:
            if decorations:
                continue        # a standalone '{rn-sae}' operand
            raise LineError(f"empty operand in '{operand_text}'")
        try:
            op = parse_operand(core, branch)
        except ValueError as exc:
            raise LineError(str(exc), text.find(core) + 1 if core in text else None) from None
        if isinstance(op, Memory):
            check_displacement(op, mnemonic, core, text)
        if broadcast is not None:
            if not isinstance(op, Memory):
                raise LineError(f"broadcast {{{broadcast}}} on a non-memory operand")
            op = dataclasses.replace(op, broadcast=broadcast)
        operands.append(op)
    return tuple(operands)


def parse_instruction(statement: str, line_number: int, text: str) -> Instruction:
    """Parse an AT&T ``[prefixes] mnemonic [operand, ...]`` into an :class:`Instruction`;
    ``text`` is the stripped source line (columns of errors count in it).
    Raises :class:`~kerncraft.incore.x86.lines.LineError`."""
    prefixes, rest = split_prefixes(statement)
    m = _MNEMONIC_RE.match(rest)
    if m is None:
        raise LineError(f"cannot parse instruction '{statement}'")
    mnemonic = m.group(1).lower()
    kept = [p for p in prefixes if p in KEPT_PREFIXES]
    if mnemonic in REP_NOOP_BEFORE:
        kept = [p for p in kept if not p.startswith("rep")]
    branch = mnemonic in BRANCH_MNEMONICS
    if kept:
        mnemonic = " ".join(kept + [mnemonic])
    decor = Decorations()
    operand_text = rest[m.end():].strip()
    operands = (_parse_operands(operand_text, branch, text, decor, m.group(1).lower())
                if operand_text else ())
    return Instruction(mnemonic=mnemonic, operands=operands, line_number=line_number,
                       text=text, mask=decor.mask, zeroing=decor.zeroing,
                       rounding=decor.rounding)


def _make_register_or_fail(text: str) -> Register:
    try:
        return make_register(text)
    except ValueError as exc:
        raise LineError(str(exc)) from None


def parse_x86(text: str, filename: str | None = None) -> list[AsmLine]:
    """Parse AT&T x86-64 assembly into one :class:`AsmLine` per input line.

    (Intel syntax, and files that switch with ``.intel_syntax``/``.att_syntax``:
    :func:`kerncraft.incore.x86.syntax.parse_x86_any`.) Every line is kept (blank, comment-only and directive lines too) so that
    line numbers and marker comments survive for the loop finder and for error
    messages. Raises :class:`AssemblyError` with ``file:line:col`` on a line that
    is not valid AT&T syntax.
    """
    state = comment_state()
    result: list[AsmLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        try:
            line = parse_line(raw, number, state, parse_instruction)
        except (LineError, AssemblyError) as exc:
            raise located_error(exc, raw, number, filename) from None
        if line.directive is not None and line.directive[0] == ".intel_syntax":
            raise located_error(LineError(
                "Intel syntax in an AT&T file: read it with --syntax auto or intel"),
                raw, number, filename)
        result.append(line)
    return result


def instructions(lines: Iterable[AsmLine]) -> list[Instruction]:
    """The instructions of ``lines`` in order (convenience for callers/tests)."""
    return [ln.instruction for ln in lines if ln.instruction is not None]
