"""``-i OSACA``: the Open Source Architecture Code Analyzer as in-core backend.

The machine file's ``in-core model: OSACA:`` entry is OSACA's architecture
code (``--arch CSX``). The selected block is marked with ``# OSACA-BEGIN`` /
``# OSACA-END`` and analysed once. From the *Combined Analysis Report* we take,
in cycles per assembly iteration:

* the column sums of every port (the line under the table; ports left blank
  there are 0), located by the character columns of the table header
  (``|  0   - 0DV  |  1   | ... ||  CP  | LCD  |``);
* the critical path (``CP`` column sum) and the loop-carried dependency
  (``LCD`` column sum), and the chains of the *Loop-Carried Dependencies
  Analysis Report*;
* throughput: the busiest port (OSACA's optimal port balancing).

Instructions OSACA has no data for are flagged ``X`` in the table; they are an
error (listed) unless ``--ignore-unknown`` is given, which is passed on to
OSACA. One exception: the loop's own conditional branch (``jne``, ``b.ne``,
``cbnz`` ...) when it is the only unknown form. OSACA 0.7.1's SNB database has no
jumps at all, so every Sandy Bridge loop would otherwise need
``--ignore-unknown``; the branch is counted as zero cycles with a note saying so
(on Sandy Bridge it macro-fuses with the ``cmp``/``test`` before it, whose uop
OSACA does count). Detection: ``$KERNCRAFT_OSACA``, else ``osaca`` on PATH.

The markers are comments of the block's ISA (:func:`block_text`): ``#`` for x86,
``//`` for AArch64, whose OSACA parser reads no ``#`` comments (``#`` starts an
immediate there).
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from kerncraft.errors import KerncraftError, SourceLocation, ToolError, UnknownInstructionError
from kerncraft.incore.backends.result import BackendAnalysis
from kerncraft.incore.backends.tool_run import find_versioned, marked_block, run_tool

if TYPE_CHECKING:
    from kerncraft.incore.protocols import SelectedBlock

NAME = "OSACA"
BEGIN, END = "OSACA-BEGIN", "OSACA-END"
NOT_FOUND = "osaca not found; install OSACA (pip install osaca) or use -i kerncraft"


def find_tool() -> str:
    path = find_versioned("osaca", "KERNCRAFT_OSACA")
    if path is None:
        raise ToolError(NOT_FOUND)
    return path


def command(path: str, arch: str, ignore_unknown: bool) -> list[str]:
    arch = str(arch).strip()
    if not re.fullmatch(r"[A-Za-z0-9_]+", arch):
        raise KerncraftError(f"machine file's in-core model OSACA entry must be one OSACA "
                             f"architecture code (e.g. 'OSACA: CSX'), got {arch!r}")
    cmd = [path, "--arch", arch]
    if ignore_unknown:
        cmd.append("--ignore-unknown")
    return cmd + ["{dir}/kernel.s"]


#: OSACA's comment leader per ISA (its AArch64 parser takes '#' for an immediate).
COMMENT = {"x86": "#", "aarch64": "//"}
# Conditional branches (x86 jcc, AArch64 b.cond / b<cond> / cbz / tbz): a loop's own branch.
_BRANCH = re.compile(r"^(j(?!mp\b)[a-z]{1,4}|b\.[a-z]+|b(?:eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls"
                     r"|ge|lt|gt|le)|cbn?z|tbn?z)\s", re.I)


def block_text(asm_text: str, selection: SelectedBlock) -> str:
    """The marked block OSACA gets, its markers in the comment syntax of the ISA."""
    from kerncraft.incore.aarch64.parser import detect_isa

    return marked_block(asm_text, selection, BEGIN, END, COMMENT[detect_isa(asm_text)])


def only_loop_branch_unknown(unknown_forms: tuple[str, ...], last_mnemonic: str) -> bool:
    """True if the one instruction OSACA has no data for is a conditional branch with
    the mnemonic of the block's last instruction (the loop's own branch)."""
    if len(unknown_forms) != 1 or not _BRANCH.match(unknown_forms[0] + " "):
        return False
    return unknown_forms[0].split()[0].lower() == last_mnemonic.lower()


def analyse(asm_text: str, selection: SelectedBlock, arch: str, *, ignore_unknown: bool = False,
            tool: str | None = None) -> BackendAnalysis:
    """Run OSACA on the selected block and parse its report."""
    path = tool or find_tool()
    cmd = command(path, arch, ignore_unknown)
    output = run_tool(cmd, "osaca", {"kernel.s": block_text(asm_text, selection)})
    result = parse_output(output, arch, command=tuple(a.replace("{dir}/", "") for a in cmd))
    last = max(selection.instructions, key=lambda ins: ins.line_number).mnemonic
    if not ignore_unknown and only_loop_branch_unknown(result.unknown_forms, last):
        branch = result.unknown_forms[0]
        fused = " (it macro-fuses with the compare before it)" if branch[:1] in "jJ" else ""
        kept = tuple(n for n in result.notes if "unknown to OSACA counted as zero" not in n)
        return replace(result, notes=kept + (
            f"the loop branch '{branch}' is not in OSACA's {arch} database: counted as zero "
            f"cycles without --ignore-unknown{fused}",))
    if result.unknown_forms and not ignore_unknown:
        raise UnknownInstructionError(
            f"{len(result.unknown_forms)} instruction(s) not in OSACA's {arch} database: "
            + "; ".join(result.unknown_forms) + " (use --ignore-unknown to count them as zero)",
            SourceLocation(file="<generated assembly>"))
    return result


# ------------------------------------------------------------------ parsing
def _fields(header: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of every column of the table header.

    Columns are separated by ``|`` and, inside a port group, by `` - ``.
    """
    seps = [i for i, ch in enumerate(header)
            if ch == "|" or (ch == "-" and header[i - 1:i] == " " and header[i + 1:i + 2] == " ")]
    fields = []
    for a, b in zip(seps, seps[1:]):
        name = header[a + 1:b].strip()
        if name:
            fields.append((name, a + 1, b))
    return fields


def _assign(line: str, fields: list[tuple[str, int, int]]) -> dict[str, float]:
    """Numbers of ``line`` by the header column they overlap most."""
    values: dict[str, float] = {}
    for match in re.finditer(r"\S+", line):
        try:
            number = float(match.group())
        except ValueError:
            continue
        s, e = match.span()
        best, overlap = None, 0
        for name, a, b in fields:
            ov = min(e, b) - max(s, a)
            if ov > overlap:
                best, overlap = name, ov
        if best is not None:
            values[best] = number
    return values


def parse_output(text: str, arch: str = "", *, command: tuple[str, ...] = ()) -> BackendAnalysis:
    """A :class:`BackendAnalysis` from OSACA's text report."""
    lines = text.splitlines()
    try:
        h = next(i for i, ln in enumerate(lines) if "||" in ln and re.search(r"\bCP\b", ln)
                 and re.search(r"\bLCD\b", ln))
    except StopIteration:
        raise ToolError("could not read OSACA's report (no 'Combined Analysis Report' table "
                        "header)") from None
    header = lines[h]
    fields = _fields(header)
    bar = header.index("||")
    ports = [name for name, a, _ in fields if a < bar]
    if not ports:
        raise ToolError("could not read OSACA's report (no ports in the table header)")
    row_end = len(lines)
    rows: list[str] = []
    for i in range(h + 2, len(lines)):     # skip the dashed line under the header
        if not lines[i].strip() or lines[i].lstrip().startswith("-"):
            row_end = i
            break
        rows.append(lines[i])
    unknown: list[str] = []
    sums = {p: 0.0 for p in ports}
    cp_sum = 0.0
    for row in rows:
        last = row.rfind("|")
        marker, instruction = row[last + 1:last + 3].strip(), row[last + 3:].strip()
        if marker == "X":
            unknown.append(instruction)
        values = _assign(row[:last + 1], fields)
        for p in ports:
            sums[p] += values.get(p, 0.0)
        cp_sum += values.get("CP", 0.0)
    summary = None
    for ln in lines[row_end:]:
        if "Loop-Carried Dependencies" in ln:
            break
        tokens = ln.split()
        if tokens and all(re.fullmatch(r"-?\d+(\.\d+)?", t) for t in tokens):
            summary = _assign(ln, fields)
            break
    notes = []
    if summary is not None:
        totals = {p: summary.get(p, 0.0) for p in ports}
        cp = summary.get("CP", 0.0)
        lcd = summary.get("LCD", 0.0)
    else:
        # No final line (OSACA refuses without --ignore-unknown): sum the rows.
        totals = {p: round(v, 4) for p, v in sums.items()}
        cp, lcd = round(cp_sum, 4), None
        notes.append("OSACA gave no final summary line; port sums taken from the table rows")
    chains = _lcd_chains(lines)
    if lcd is None and chains:
        lcd = max(c for c, _ in chains)
    if unknown:
        notes.append(f"{len(unknown)} instruction(s) unknown to OSACA counted as zero: "
                     + "; ".join(unknown))
    throughput = max(totals.values(), default=0.0)
    return BackendAnalysis(NAME, arch, totals, throughput, cp, lcd if lcd is not None else 0.0,
                           None, None, tuple(chains), tuple(unknown), tuple(notes), text,
                           command)


def _lcd_chains(lines: list[str]) -> list[tuple[float, str]]:
    """(cycles, 'line N: instruction [lines]') of the loop-carried dependency report."""
    try:
        start = next(i for i, ln in enumerate(lines) if "Loop-Carried Dependencies" in ln)
    except StopIteration:
        return []
    chains = []
    for ln in lines[start + 1:]:
        match = re.match(r"^\s*(\d+)\s*\|\s*([\d.]+)\s*\|(.*)\|\s*(\[[\d,\s]*\])\s*$", ln)
        if match:
            chains.append((float(match.group(2)),
                           f"line {match.group(1)}: {' '.join(match.group(3).split())} "
                           f"{match.group(4)}"))
        elif chains and not ln.strip():
            break
    return chains
