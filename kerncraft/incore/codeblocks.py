"""Where a loop body sits relative to the 64-byte blocks of code the front end fetches.

On the development host (Ice Lake-SP) a loop runs at no more than one 64-byte
block of code per cycle: the same 20-byte copy loop takes 1.1 cycles per
iteration inside one block and 2.0 when it straddles two
(benchmarks/RESULTS-incore-validation.md). Whether it straddles depends on the
loop's address, which the assembly text does not give: the assembler knows
the loop's offset inside its section, the linker picks the section's address
(only its alignment is fixed). This module assembles the compiler's output
once with two labels around the loop body and reports the size, the offset
and the number of blocks spanned for every placement the section's alignment
allows; the model then says when that may dominate (a note, not a bound:
which placement a user's binary gets is not known).

Databases opt in with ``code_block_bytes`` (ICX: 64, measured); others get no
note.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from kerncraft.errors import ToolError

__all__ = ["LoopLayout", "loop_layout", "code_block_note"]

BEGIN, END = "kc_loop_begin_", "kc_loop_end_"
_SECTION = re.compile(r"^\s*(\.text\b|\.section\b)")
_P2ALIGN = re.compile(r"^\s*\.p2align\s+(\d+)\s*$")       # without a max-skip: guaranteed
_NM_LINE = re.compile(r"^([0-9a-fA-F]+)\s+\w\s+(\S+)$")


@dataclass(frozen=True)
class LoopLayout:
    """Size and position of a loop body; ``blocks`` per possible section placement."""

    size: int                 # bytes of the loop body
    offset: int               # offset of its first instruction in the section
    alignment: int            # guaranteed alignment of the section, bytes
    block_bytes: int
    blocks: tuple[int, ...]   # blocks spanned, one entry per placement modulo block_bytes

    @property
    def min_blocks(self) -> int:
        return min(self.blocks)

    @property
    def max_blocks(self) -> int:
        return max(self.blocks)

    @property
    def straddling(self) -> int:
        """Placements in which the body spans more blocks than it must."""
        return sum(b > self.min_blocks for b in self.blocks)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["blocks"] = list(self.blocks)
        return data


def blocks_spanned(start: int, size: int, block: int) -> int:
    """Number of ``block``-byte blocks that ``size`` bytes starting at ``start`` touch."""
    first = start // block
    last = (start + max(size, 1) - 1) // block
    return last - first + 1


def section_alignment(lines: list[str], first_line: int) -> int:
    """Guaranteed alignment of the section the loop (line ``first_line``, 1-based) is in:
    the first ``.p2align N`` (without max-skip) after the last section directive."""
    start = 0
    for pos in range(first_line - 2, -1, -1):
        if _SECTION.match(lines[pos]):
            start = pos
            break
    for line in lines[start + 1:first_line - 1]:
        match = _P2ALIGN.match(line)
        if match:
            return 1 << int(match.group(1))
        if line.strip() and not line.strip().startswith((".", "#")) and not line.rstrip().endswith(":"):
            break                                  # an instruction: the directive is not first
    return 1


def loop_layout(assembly: str, first_line: int, last_line: int, compiler_path: str,
                block_bytes: int = 64) -> LoopLayout:
    """Assemble ``assembly`` with labels around lines ``first_line``..``last_line``
    (1-based, the loop body's first and last instruction) and measure the body.

    Raises :class:`ToolError` if the assembler or ``nm`` fails or is missing.
    """
    lines = assembly.splitlines()
    if not 1 <= first_line <= last_line <= len(lines):
        raise ToolError(f"loop lines {first_line}-{last_line} are outside the assembly")
    marked = (lines[:first_line - 1] + [f"{BEGIN}:"] + lines[first_line - 1:last_line]
              + [f"{END}:"] + lines[last_line:])
    nm = shutil.which("nm")
    if nm is None:
        raise ToolError("'nm' (binutils) is not installed: the loop's code size is unknown")
    with tempfile.TemporaryDirectory(prefix="kerncraft-blocks-") as tmp:
        source, obj = Path(tmp) / "loop.s", Path(tmp) / "loop.o"
        source.write_text("\n".join(marked) + "\n")
        _run([compiler_path, "-c", str(source), "-o", str(obj)], "assembling the loop")
        symbols = _symbols(_run([nm, str(obj)], "reading the loop's labels"))
    if BEGIN not in symbols or END not in symbols:
        raise ToolError("the assembled object has no loop labels")
    offset, size = symbols[BEGIN], symbols[END] - symbols[BEGIN]
    alignment = min(section_alignment(lines, first_line), block_bytes)
    placements = range(0, block_bytes, alignment)
    blocks = tuple(blocks_spanned((offset + p) % block_bytes, size, block_bytes)
                   for p in placements)
    return LoopLayout(size, offset, alignment, block_bytes, blocks)


def _run(argv: list[str], what: str) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolError(f"{what} failed: {exc}") from None
    if out.returncode != 0:
        raise ToolError(f"{what} failed ({' '.join(argv[:2])} ...): "
                        f"{out.stderr.strip().splitlines()[:1]}")
    return out.stdout


def _symbols(nm_output: str) -> dict[str, int]:
    found = {}
    for line in nm_output.splitlines():
        match = _NM_LINE.match(line.strip())
        if match:
            found[match.group(2)] = int(match.group(1), 16)
    return found


def code_block_note(layout: LoopLayout | None, per_asm_iteration: float,
                    arch: str) -> str | None:
    """The report note when the loop may be fetch-bound (None otherwise)."""
    if layout is None or layout.max_blocks <= per_asm_iteration + 1e-9:
        return None
    placements = len(layout.blocks)
    slow = sum(b > per_asm_iteration + 1e-9 for b in layout.blocks)
    return (f"the loop body is {layout.size} B at offset {layout.offset} of a "
            f"{layout.alignment}-B aligned section and spans {layout.min_blocks}-"
            f"{layout.max_blocks} {layout.block_bytes}-B code blocks, depending on where the "
            f"linker puts it; {arch} fetches one block per cycle (measured), so in {slow} of "
            f"{placements} placements it may run at {layout.max_blocks} cy per assembly "
            f"iteration instead of {per_asm_iteration:.2f}")
