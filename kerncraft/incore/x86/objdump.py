"""Disassembly as ``objdump -d`` prints it (``-M intel`` or AT&T), read as assembly.

    0000000000000000 <sum>:
      30:	c5 fb 58 00          	vaddsd xmm0,xmm0,QWORD PTR [rax]
      4a:	75 e4                	jne    30 <sum+0x30>

Each instruction line loses its address and bytes; the statement goes to the
parser of its syntax. Branch targets are addresses, so the lines they point to
get labels: the name objdump shows in ``<...>`` (``sum+0x30``), else ``0x30``;
a function header (``<sum>:``) labels its own line. The IACA marker bytes
``64 67 90`` (objdump shows ``fs addr32 nop``) become the ``.byte 100,103,144``
directive that the marker finder knows. Other lines (file header, section titles,
relocations of ``-r``, source of ``-S``) are kept as empty lines, so that line
numbers match the file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from kerncraft.errors import AssemblyError
from kerncraft.incore.asmtext import find_unquoted
from kerncraft.incore.model import AsmLine
from kerncraft.incore.x86 import parser as att
from kerncraft.incore.x86.intel_parser import parse_intel_instruction, signed_immediates
from kerncraft.incore.x86.lines import LineError, located_error

__all__ = ["is_objdump", "instruction_fields", "parse_objdump"]

_HEADER_RE = re.compile(r"^([0-9a-fA-F]+) <(.+)>:\s*$")
_INSN_RE = re.compile(r"^\s*([0-9a-fA-F]+):\t(.*)$")
_BYTES_RE = re.compile(r"(?:[0-9a-f]{2} )*[0-9a-f]{2}")
_TARGET_RE = re.compile(r"^(?P<head>.*\s)(?P<addr>[0-9a-fA-F]+)(?:\s*<(?P<name>[^>]+)>)?\s*$")
_SECTION_RE = re.compile(r"^Disassembly of section ", re.MULTILINE)
_IACA_BYTES = "64 67 90"
_NAME_RE = re.compile(r"[A-Za-z_.$][\w.$@]*(?:[+-]0x[0-9a-f]+)?")   # else named by address


@dataclass(frozen=True)
class _Row:
    """One objdump line: an instruction (address, bytes, statement, comment) or not."""

    address: int | None = None
    raw_bytes: str = ""
    statement: str = ""
    comment: str | None = None
    header: str | None = None        # function name of a '<name>:' line


def _row(raw: str) -> _Row:
    m = _HEADER_RE.match(raw)
    if m:
        return _Row(address=int(m.group(1), 16), header=m.group(2))
    m = _INSN_RE.match(raw)
    if m is None:
        return _Row()
    fields = m.group(2).split("\t", 1)
    if _BYTES_RE.fullmatch(fields[0].strip()):
        raw_bytes, insn = fields[0].strip(), (fields[1] if len(fields) > 1 else "")
    else:
        raw_bytes, insn = "", m.group(2)     # --no-show-raw-insn
    comment = None
    pos = find_unquoted(insn, "#")
    if pos >= 0:
        insn, comment = insn[:pos], insn[pos + 1:].strip()
    return _Row(int(m.group(1), 16), raw_bytes, insn.strip(), comment)


def is_objdump(text: str) -> bool:
    """True for objdump output: a 'Disassembly of section' title, or (a pasted
    excerpt) at least half of the non-blank lines are ``address:<TAB>`` lines."""
    if _SECTION_RE.search(text):
        return True
    lines = [ln for ln in text.splitlines() if ln.strip()]
    hits = sum(1 for ln in lines if _INSN_RE.match(ln))
    return bool(lines) and hits * 2 >= len(lines)


def instruction_fields(text: str) -> list[str]:
    """The instruction statements of objdump output (for syntax detection)."""
    return [r.statement for r in map(_row, text.splitlines()) if r.statement]


def _branch_target(statement: str) -> tuple[str, int, str | None] | None:
    """(statement before the target, target address, name in <>) of a direct
    jump or call, else None."""
    m = _TARGET_RE.match(statement)
    if m is None:
        return None
    words = m.group("head").split()
    if not words or words[-1].lower() not in att.BRANCH_MNEMONICS:
        return None
    return m.group("head"), int(m.group("addr"), 16), m.group("name")


def _labels(rows: list[_Row]) -> dict[int, str]:
    """Label names of the branch-target addresses (first name seen wins)."""
    names: dict[int, str] = {}
    for row in rows:
        target = _branch_target(row.statement) if row.statement else None
        if target is not None:
            name = target[2] if target[2] and _NAME_RE.fullmatch(target[2]) else None
            names.setdefault(target[1], name or f"0x{target[1]:x}")
    return names


def parse_objdump(text: str, filename: str | None = None, syntax: str = "intel") -> list[AsmLine]:
    """Parse objdump output whose instructions are in ``syntax`` ('intel' or 'att');
    one :class:`AsmLine` per line. Raises :class:`AssemblyError` (``file:line:col``)."""
    statement_parser = parse_intel_instruction if syntax == "intel" else att.parse_instruction
    raws = text.splitlines()
    rows = [_row(raw) for raw in raws]
    names = _labels(rows)
    headers = {row.address for row in rows if row.header is not None}
    result: list[AsmLine] = []
    for number, (raw, row) in enumerate(zip(raws, rows), start=1):
        stripped = raw.strip()
        if row.header is not None:
            result.append(AsmLine(number, stripped, label=row.header))
            continue
        label = names.get(row.address) if row.address not in headers else None
        if row.raw_bytes == _IACA_BYTES:
            result.append(AsmLine(number, stripped, label=label,
                                  directive=(".byte", ("100", "103", "144"))))
            continue
        if not row.statement:
            result.append(AsmLine(number, stripped, label=label, comment=row.comment))
            continue
        statement = row.statement
        target = _branch_target(statement)
        if target is not None:
            statement = target[0] + names[target[1]]
        try:
            instr = statement_parser(statement, number, stripped)
        except (LineError, AssemblyError) as exc:
            raise located_error(exc, raw, number, filename) from None
        instr = replace(signed_immediates(instr), text=row.statement)
        result.append(AsmLine(number, stripped, label=label, instruction=instr,
                              comment=row.comment))
    return result
