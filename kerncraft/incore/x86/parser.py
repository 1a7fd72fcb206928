"""Parser for x86-64 assembly in AT&T syntax (gcc, clang, icc, ifort output).

Design: a line is first split with plain string/regex operations into
``label: statement # comment`` (that split is the same for every line and is the
hot path), and only the operand list of an instruction goes through a pyparsing
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

from kerncraft.errors import AssemblyError, SourceLocation
from kerncraft.incore import registers
from kerncraft.incore.asmtext import find_unquoted, split_top_level  # noqa: F401 (re-export)
from kerncraft.incore.model import AsmLine, Instruction, Memory, Operand, Register
# the operand parsers, re-exported: callers and tests import them from here
from kerncraft.incore.x86.operands import (SYMBOL, make_register, parse_operand,  # noqa: F401
                                           parse_operand_full)

__all__ = ["parse_x86", "parse_operand", "BRANCH_MNEMONICS", "is_branch_mnemonic"]

# ---------------------------------------------------------------------------
# Line-level splitting (regex fast path)
# ---------------------------------------------------------------------------

_LABEL_RE = re.compile(rf'\s*({SYMBOL}|\d+|"[^"]*")\s*:(?!:)')
_MNEMONIC_RE = re.compile(r"([A-Za-z][\w.]*)(?:,(p[tn]))?(?=\s|$)")
_PSEUDO_PREFIX_RE = re.compile(r"\{(?:vex|vex2|vex3|evex|load|store|disp8|disp32)\}\s*",
                               re.IGNORECASE)
_ASSIGN_RE = re.compile(rf"({SYMBOL})\s*=\s*(.+)")

#: Prefixes that change what the instruction costs; they stay in the mnemonic.
KEPT_PREFIXES = frozenset({"rep", "repe", "repz", "repne", "repnz", "lock"})
#: Prefixes that only change encoding / security checks; they are dropped.
DROPPED_PREFIXES = frozenset({"notrack", "bnd", "data16", "data32", "addr16", "addr32",
                              "rex", "rex64", "rex.w", "xacquire", "xrelease",
                              "cs", "ds", "es", "ss", "fs", "gs"})
#: Prefixes that are no-ops in front of these mnemonics (gcc's ``rep ret``).
_REP_NOOP_BEFORE = frozenset({"ret", "retq", "retl"})

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
def _strip_decorations(text: str) -> tuple[str, tuple[str, ...]]:
    """Remove ``{...}`` groups from an operand; return (core, decorations)."""
    if "{" not in text:
        return text, ()
    decorations = tuple(d.strip().lower().replace(" ", "")
                         for d in _DECORATION_RE.findall(text))
    return _DECORATION_RE.sub("", text).strip(), decorations


# ---------------------------------------------------------------------------
# Statements
# ---------------------------------------------------------------------------

class _LineError(Exception):
    """Internal: a parse problem at a column; converted to AssemblyError."""

    def __init__(self, message: str, col: int | None = None):
        super().__init__(message)
        self.col = col


def _split_prefixes(statement: str) -> tuple[list[str], str]:
    """Peel ``rep``/``lock``/``notrack``/``{vex}``... off the front of a statement.

    A word counts as a prefix only if something follows it, so a lone ``lock``
    or a mnemonic that happens to be spelled like a segment is left alone.
    """
    prefixes: list[str] = []
    rest = _PSEUDO_PREFIX_RE.sub("", statement.strip())
    while True:
        parts = rest.split(None, 1)
        if len(parts) < 2:
            return prefixes, rest
        word = parts[0].lower()
        if word not in KEPT_PREFIXES and word not in DROPPED_PREFIXES:
            return prefixes, rest
        prefixes.append(word)
        rest = parts[1]


@dataclass
class _Decorations:
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
                    raise _LineError(f"write mask must be a k register, not '{deco}'")
            elif deco == "z":
                self.zeroing = True
            elif deco in _ROUNDING:
                self.rounding = deco
            elif _BROADCAST_RE.fullmatch(deco):
                broadcast = deco
            else:
                raise _LineError(f"unknown decoration '{{{deco}}}'")
        return broadcast


_BROADCAST_RE = re.compile(r"1to\d+")


_DISP32 = (-2**31, 2**31 - 1)
_ABS64 = (-2**63, 2**64 - 1)


def _check_displacement(op: Memory, mnemonic: str, core: str, text: str) -> None:
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
    raise _LineError(f"displacement {op.displacement} is out of range: x86-64 allows {what}",
                     text.find(core) + 1 if core in text else None)


def _parse_operands(operand_text: str, branch: bool, text: str, decor: _Decorations,
                    mnemonic: str = "") -> tuple[Operand, ...]:
    """Parse a comma-separated operand list; decorations go to ``decor``."""
    operands: list[Operand] = []
    for part in split_top_level(operand_text):
        core, decorations = _strip_decorations(part)
        broadcast = decor.take(decorations)
        if not core:
            if decorations:
                continue        # a standalone '{rn-sae}' operand
            raise _LineError(f"empty operand in '{operand_text}'")
        try:
            op = parse_operand(core, branch)
        except ValueError as exc:
            raise _LineError(str(exc), text.find(core) + 1 if core in text else None) from None
        if isinstance(op, Memory):
            _check_displacement(op, mnemonic, core, text)
        if broadcast is not None:
            if not isinstance(op, Memory):
                raise _LineError(f"broadcast {{{broadcast}}} on a non-memory operand")
            op = dataclasses.replace(op, broadcast=broadcast)
        operands.append(op)
    return tuple(operands)


def _parse_instruction(statement: str, line_number: int, text: str) -> Instruction:
    """Parse ``[prefixes] mnemonic [operand, ...]`` into an :class:`Instruction`."""
    prefixes, rest = _split_prefixes(statement)
    m = _MNEMONIC_RE.match(rest)
    if m is None:
        raise _LineError(f"cannot parse instruction '{statement}'")
    mnemonic = m.group(1).lower()
    kept = [p for p in prefixes if p in KEPT_PREFIXES]
    if mnemonic in _REP_NOOP_BEFORE:
        kept = [p for p in kept if not p.startswith("rep")]
    branch = mnemonic in BRANCH_MNEMONICS
    if kept:
        mnemonic = " ".join(kept + [mnemonic])
    decor = _Decorations()
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
        raise _LineError(str(exc)) from None


def _parse_directive(statement: str) -> tuple[str, tuple[str, ...]]:
    """``.p2align 4,,10`` -> ('.p2align', ('4', '', '10')).

    Arguments are split at top-level commas only; whitespace-separated arguments
    (``.loc 1 5 3``) stay one string, since their meaning is per directive.
    """
    parts = statement.split(None, 1)
    args = parts[1].strip() if len(parts) > 1 else ""
    return parts[0].lower(), tuple(split_top_level(args)) if args else ()


class _CommentState:
    """Tracks ``/* ... */`` comments across lines (clang may emit them)."""

    def __init__(self) -> None:
        self.open = False

    def strip(self, line: str) -> tuple[str, list[str]]:
        """Return the line without block comments and the comment texts."""
        comments: list[str] = []
        out = []
        rest = line
        while rest:
            if self.open:
                end = rest.find("*/")
                if end < 0:
                    comments.append(rest.strip())
                    return "".join(out), comments
                comments.append(rest[:end].strip())
                rest = rest[end + 2:]
                self.open = False
            start = find_unquoted(rest, "/") if "/*" in rest else -1
            while start >= 0 and rest[start:start + 2] != "/*":
                nxt = find_unquoted(rest[start + 1:], "/")
                start = start + 1 + nxt if nxt >= 0 else -1
            if start < 0:
                out.append(rest)
                break
            hash_pos = find_unquoted(rest, "#")
            if 0 <= hash_pos < start:     # '/*' inside a '#' comment
                out.append(rest)
                break
            out.append(rest[:start] + " ")
            rest = rest[start + 2:]
            self.open = True
        return "".join(out), comments


def _parse_line(raw: str, line_number: int, state: _CommentState) -> AsmLine:
    """Parse one physical line into an :class:`AsmLine`."""
    text = raw.strip()
    code = raw
    comments: list[str] = []
    if state.open or "/*" in raw:
        code, comments = state.strip(raw)
    pos = find_unquoted(code, "#")
    if pos >= 0:
        comments.append(code[pos + 1:].strip())
        code = code[:pos]
    comment = " ".join(c for c in comments if c) if comments else None
    label = None
    m = _LABEL_RE.match(code)
    if m:
        label = m.group(1)
        code = code[m.end():]
        if _LABEL_RE.match(code):
            raise _LineError("more than one label on a line is not supported")
    code = code.strip()
    directive = None
    instruction = None
    if code:
        statements = split_top_level(code, ";") if ";" in code else [code]
        statements = [s for s in statements if s]
        if len(statements) > 1:
            statements = _merge_prefix_statements(statements)
        stmt = statements[0] if statements else ""
        if stmt.startswith("."):
            directive = _parse_directive(stmt)
            if directive[0] == ".intel_syntax":
                raise _LineError("Intel syntax is not supported; compile with AT&T syntax "
                                 "(gcc/clang default, icc -masm=att)")
        elif (am := _ASSIGN_RE.fullmatch(stmt)) is not None:
            directive = ("=", (am.group(1), am.group(2).strip()))
        elif stmt:
            instruction = _parse_instruction(stmt, line_number, text)
    return AsmLine(line_number=line_number, text=text, label=label, directive=directive,
                   instruction=instruction, comment=comment)


def _merge_prefix_statements(statements: list[str]) -> list[str]:
    """``rep; movsb`` is one instruction; other multi-statement lines are refused
    because an :class:`AsmLine` holds a single instruction."""
    merged: list[str] = []
    pending = ""
    for stmt in statements:
        word = stmt.strip().lower()
        if word in KEPT_PREFIXES or word in DROPPED_PREFIXES:
            pending += word + " "
            continue
        merged.append(pending + stmt)
        pending = ""
    if pending:
        merged.append(pending.strip())
    if len(merged) > 1:
        raise _LineError("several statements on one line are not supported")
    return merged


def parse_x86(text: str, filename: str | None = None) -> list[AsmLine]:
    """Parse AT&T x86-64 assembly into one :class:`AsmLine` per input line.

    Every line is kept (blank, comment-only and directive lines too) so that
    line numbers and marker comments survive for the loop finder and for error
    messages. Raises :class:`AssemblyError` with ``file:line:col`` on a line that
    is not valid AT&T syntax.
    """
    state = _CommentState()
    result: list[AsmLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        try:
            result.append(_parse_line(raw, number, state))
        except _LineError as exc:
            # columns are counted in the stripped line: add the indentation back
            col = exc.col + len(raw) - len(raw.lstrip()) if exc.col is not None else None
            raise AssemblyError(f"{exc}: {raw.strip()!r}",
                                SourceLocation(filename, number, col)) from None
        except AssemblyError as exc:   # e.g. unknown register from the registry
            raise AssemblyError(f"{exc.message}: {raw.strip()!r}",
                                SourceLocation(filename, number)) from None
    return result


def instructions(lines: Iterable[AsmLine]) -> list[Instruction]:
    """The instructions of ``lines`` in order (convenience for callers/tests)."""
    return [ln.instruction for ln in lines if ln.instruction is not None]
