"""The line level of x86 assembly, common to AT&T and Intel syntax.

Both syntaxes share gas's line structure: ``label: statement # comment``, ``/* */``
block comments (clang), ``;`` statement separators, ``.directives`` and
``symbol = value`` assignments; only an instruction statement differs. This module
splits a line into those parts and hands the instruction statement to the parser of
the syntax in use (:mod:`kerncraft.incore.x86.parser` for AT&T,
:mod:`kerncraft.incore.x86.intel_parser` for Intel).
"""
from __future__ import annotations

import re
from typing import Callable

from kerncraft.errors import AssemblyError, SourceLocation
from kerncraft.incore.asmtext import BlockComments, find_unquoted, split_top_level
from kerncraft.incore.model import AsmLine, Instruction
from kerncraft.incore.x86.operands import SYMBOL

__all__ = ["LineError", "comment_state", "KEPT_PREFIXES", "DROPPED_PREFIXES",
           "split_prefixes", "parse_directive", "parse_line", "located_error",
           "StatementParser"]

#: ``parse(statement, line_number, stripped_line_text)`` -> the instruction.
StatementParser = Callable[[str, int, str], Instruction]

_LABEL_RE = re.compile(rf'\s*({SYMBOL}|\d+|"[^"]*")\s*:(?!:)')
_PSEUDO_PREFIX_RE = re.compile(r"\{(?:vex|vex2|vex3|evex|load|store|disp8|disp32)\}\s*",
                               re.IGNORECASE)
_ASSIGN_RE = re.compile(rf"({SYMBOL})\s*=\s*(.+)")

#: Prefixes that change what the instruction costs; they stay in the mnemonic.
KEPT_PREFIXES = frozenset({"rep", "repe", "repz", "repne", "repnz", "lock"})
#: Prefixes that only change encoding / security checks; they are dropped.
DROPPED_PREFIXES = frozenset({"notrack", "bnd", "data16", "data32", "addr16", "addr32",
                              "rex", "rex64", "rex.w", "xacquire", "xrelease",
                              "cs", "ds", "es", "ss", "fs", "gs"})


class LineError(Exception):
    """A parse problem in one line, at 1-based column ``col`` of the stripped line
    (None: the whole line); :func:`located_error` turns it into an AssemblyError."""

    def __init__(self, message: str, col: int | None = None):
        super().__init__(message)
        self.col = col


def split_prefixes(statement: str) -> tuple[list[str], str]:
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


def parse_directive(statement: str) -> tuple[str, tuple[str, ...]]:
    """``.p2align 4,,10`` -> ('.p2align', ('4', '', '10')).

    Arguments are split at top-level commas only; whitespace-separated arguments
    (``.loc 1 5 3``) stay one string, since their meaning is per directive.
    """
    parts = statement.split(None, 1)
    args = parts[1].strip() if len(parts) > 1 else ""
    return parts[0].lower(), tuple(split_top_level(args)) if args else ()


def comment_state() -> BlockComments:
    """Tracks ``/* ... */`` comments across lines; ``#`` starts a line comment."""
    return BlockComments(lambda text: find_unquoted(text, "#"))


def parse_line(raw: str, line_number: int, state: BlockComments,
               parse_instruction: StatementParser) -> AsmLine:
    """Parse one physical line into an :class:`AsmLine`; an instruction statement
    goes to ``parse_instruction``. Raises :class:`LineError`."""
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
            raise LineError("more than one label on a line is not supported")
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
            directive = parse_directive(stmt)
        elif (am := _ASSIGN_RE.fullmatch(stmt)) is not None:
            directive = ("=", (am.group(1), am.group(2).strip()))
        elif stmt:
            instruction = parse_instruction(stmt, line_number, text)
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
        raise LineError("several statements on one line are not supported")
    return merged


def located_error(exc: LineError | AssemblyError, raw: str, line_number: int,
                  filename: str | None) -> AssemblyError:
    """The one-line ``file:line:col: message: 'line'`` error of a failed line."""
    if isinstance(exc, AssemblyError):     # e.g. unknown register from the registry
        return AssemblyError(f"{exc.message}: {raw.strip()!r}",
                             SourceLocation(filename, line_number))
    # columns are counted in the stripped line: add the indentation back
    col = exc.col + len(raw) - len(raw.lstrip()) if exc.col is not None else None
    return AssemblyError(f"{exc}: {raw.strip()!r}", SourceLocation(filename, line_number, col))
