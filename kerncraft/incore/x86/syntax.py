"""Which x86 assembly syntax a text is in, and the parser for it.

``parse_x86_any(text, syntax='auto')`` reads AT&T or Intel syntax, compiler output
or ``objdump -d`` disassembly, into the same :class:`~kerncraft.incore.model.AsmLine`
list. The syntax is, in this order:

1. the one asked for (``syntax='att'`` or ``'intel'``; ``kerncraft-incore --syntax``);
2. the first ``.intel_syntax`` / ``.att_syntax`` directive (gcc and clang write
   ``.intel_syntax noprefix`` at the top of ``-masm=intel`` output);
3. a vote of the instruction lines: ``%reg`` and ``$imm`` count for AT&T;
   ``PTR``/``BCST`` sizes, ``[`` addresses, ``OFFSET FLAT:`` and a bare register
   as first operand count for Intel; a tie is AT&T (the compilers' default).

Both parsers also follow later syntax directives of the file.
"""
from __future__ import annotations

import re

from kerncraft.errors import AssemblyError
from kerncraft.incore.model import AsmLine
from kerncraft.incore.x86 import objdump
from kerncraft.incore.x86.intel_parser import parse_intel
from kerncraft.incore.x86.parser import parse_x86

__all__ = ["SYNTAXES", "detect_syntax", "parse_x86_any"]

#: The values of ``kerncraft-incore --syntax``.
SYNTAXES = ("auto", "att", "intel")

_DIRECTIVE_RE = re.compile(r"^[ \t]*\.(intel|att)_syntax\b", re.MULTILINE | re.IGNORECASE)
_INTEL_DIRECTIVE_RE = re.compile(r"^[ \t]*\.intel_syntax\b", re.MULTILINE | re.IGNORECASE)
_LEADING_LABEL_RE = re.compile(r"^\s*[\w.$]+:(?!:)")
_ATT_RE = re.compile(r"%[a-z]|\$[-\w.(]", re.IGNORECASE)
_INTEL_RE = re.compile(r"\b(?:byte|word|dword|qword|tbyte|oword|[xyz]?mmword|fword)\s+"
                       r"(?:ptr|bcst)\b|\[|\boffset\s+flat\s*:", re.IGNORECASE)
_BARE_REGISTER_RE = re.compile(
    r"^(?:\{\w+\}\s*)?[a-z][\w.]*\s+(?:r(?:\d+[dwb]?|[abcd]x|[sd]i|[sb]p)|e(?:[abcd]x|[sd]i|[sb]p)"
    r"|[abcd]l|[xyz]mm\d+|k[0-7])\s*(?:[,{]|$)", re.IGNORECASE)
#: Lines with a signal needed before the vote stops reading (keeps a large file cheap).
_ENOUGH = 50


def _vote(statements: list[str] | str) -> str:
    """'intel' or 'att' by the majority of instruction lines with a signal."""
    lines = statements.splitlines() if isinstance(statements, str) else statements
    att = intel = 0
    for line in lines:
        code = line.split("#", 1)[0]
        label = _LEADING_LABEL_RE.match(code)
        code = (code[label.end():] if label else code).strip()
        if not code or code.startswith("."):
            continue                        # directives may hold '%' in strings
        if _ATT_RE.search(code):
            att += 1
        elif _INTEL_RE.search(code) or _BARE_REGISTER_RE.match(code):
            intel += 1
        if att + intel >= _ENOUGH and abs(att - intel) > _ENOUGH // 2:
            break
    return "intel" if intel > att else "att"


def detect_syntax(text: str) -> str:
    """'att' or 'intel': the first syntax directive, else the vote of the lines
    (objdump output: of its instruction fields)."""
    if objdump.is_objdump(text):
        return _vote(objdump.instruction_fields(text))
    m = _DIRECTIVE_RE.search(text)
    if m:
        return m.group(1).lower()
    return _vote(text)


def parse_x86_any(text: str, filename: str | None = None, syntax: str = "auto") -> list[AsmLine]:
    """Parse x86-64 assembly in ``syntax`` ('auto', 'att' or 'intel'); see the module
    docstring. Raises :class:`AssemblyError` (``file:line:col``) on a line that is
    not valid in the syntax in force there."""
    if syntax not in SYNTAXES:
        raise AssemblyError(f"unknown assembly syntax {syntax!r}; expected one of "
                            f"{', '.join(SYNTAXES)}")
    if objdump.is_objdump(text):
        return objdump.parse_objdump(text, filename,
                                     detect_syntax(text) if syntax == "auto" else syntax)
    if syntax == "att":
        return parse_x86(text, filename)
    if syntax == "auto":
        first = _DIRECTIVE_RE.search(text)
        start = _vote(text[:first.start()] if first else text)
        if start == "att" and not _INTEL_DIRECTIVE_RE.search(text):
            return parse_x86(text, filename)     # plain AT&T: the common, fast path
        return parse_intel(text, filename, start)
    return parse_intel(text, filename, "intel")
