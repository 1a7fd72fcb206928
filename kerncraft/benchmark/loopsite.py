"""Where the measured loop sits in the benchmark executable.

The in-core report can only say that a small loop *may* be fetch-bound
(:mod:`kerncraft.incore.codeblocks`): where the linker puts it is unknown
before linking. The benchmark executable is linked, so for a measurement the
question has an answer. This module finds the benchmark's innermost loop (the
block :func:`kerncraft.compilation.asm_block.select_block` picks in the benchmark's own
assembly) in ``objdump -d`` output of the executable, by the backward branch
that closes it and the sequence of mnemonics, and counts the code blocks it
spans. :func:`loop_site_note` turns that into a note for the Benchmark report
when it can explain the measurement.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from kerncraft.errors import ToolError
from kerncraft.incore.codeblocks import blocks_spanned

if TYPE_CHECKING:
    from kerncraft.benchmark.program import BenchmarkProgram
    from kerncraft.kernel.model import KernelModel

__all__ = ["LoopSite", "locate_loop", "measured_loop_site", "loop_site_note"]

_OBJDUMP_LINE = re.compile(r"^\s*([0-9a-f]+):\s+([a-z][a-z0-9]*)\s*(.*)$")
_TARGET = re.compile(r"([0-9a-f]+)")


@dataclass(frozen=True)
class LoopSite:
    address: int
    size: int
    blocks: int                    # code blocks of ``block_bytes`` the body spans
    block_bytes: int
    iterations_per_asm_iteration: float


def _normalise(mnemonic: str) -> str:
    """AT&T size suffixes as objdump drops them (``addq`` -> ``add``)."""
    m = mnemonic.lower()
    if not m.startswith(("v", "j")) and len(m) > 3 and m[-1] in "bwlq":
        m = m[:-1]
    return {"sal": "shl", "movabs": "mov"}.get(m, m)


def locate_loop(disassembly: str, mnemonics: Sequence[str]) -> tuple[int, int] | None:
    """(start address, bytes) of the loop whose body has ``mnemonics`` (in order, the
    last one the backward branch) in ``objdump -d --no-show-raw-insn`` output; None if
    no loop matches all but at most one mnemonic."""
    code = [(int(m.group(1), 16), m.group(2), m.group(3))
            for m in map(_OBJDUMP_LINE.match, disassembly.splitlines()) if m]
    want = [_normalise(m) for m in mnemonics]
    best = None
    for k, (address, mnemonic, operands) in enumerate(code):
        target = _TARGET.match(operands)
        if not mnemonic.startswith("j") or mnemonic == "jmp" or not target:
            continue
        start = int(target.group(1), 16)
        if start >= address or k + 1 >= len(code):
            continue
        first = next((j for j in range(k, -1, -1) if code[j][0] == start), None)
        if first is None or k - first + 1 != len(want):
            continue
        score = sum(_normalise(code[first + j][1]) == w for j, w in enumerate(want))
        if best is None or score > best[0]:
            best = (score, start, code[k + 1][0] - start)
    if best is None or best[0] < len(want) - 1:
        return None
    return best[1], best[2]


def measured_loop_site(program: BenchmarkProgram, kernel: KernelModel, block_bytes: int
                       ) -> LoopSite | None:
    """The benchmark loop's site in ``program``.

    Raises :class:`ToolError` when objdump is missing or fails; None when the
    loop is not found (the benchmark's loop differs from what its assembly shows).
    """
    from kerncraft.compilation.asm_block import select_block
    from kerncraft.compilation.compiler import compile_to_assembly
    from kerncraft.incore.x86.parser import parse_x86

    objdump = shutil.which("objdump")
    if objdump is None:
        raise ToolError("'objdump' (binutils) is not installed")
    flags = list(program.flags) + (["-fopenmp"] if program.threads > 1 else [])
    assembly = compile_to_assembly(program.source, program.compiler, flags).assembly
    selection = select_block(parse_x86(assembly), kernel)
    try:
        out = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(program.executable)],
                             capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolError(f"objdump failed: {exc}") from None
    if out.returncode != 0:
        raise ToolError(f"objdump failed: {out.stderr.strip()[:200]}")
    found = locate_loop(out.stdout, [i.mnemonic for i in selection.instructions])
    if found is None:
        return None
    address, size = found
    return LoopSite(address, size, blocks_spanned(address % block_bytes, size, block_bytes),
                    block_bytes, float(selection.iterations_per_asm_iteration))


def loop_site_note(site: LoopSite | None, iterations_per_cacheline: float,
                   measured_cy_per_cl: float, arch: str) -> str | None:
    """A note when the fetch bound of the measured loop is close to the measurement."""
    if site is None or site.blocks < 2:
        return None
    bound = site.blocks * iterations_per_cacheline / site.iterations_per_asm_iteration
    if bound < 0.8 * measured_cy_per_cl:
        return None
    return (f"the measured loop body is {site.size} B at {site.address:#x} and spans "
            f"{site.blocks} {site.block_bytes}-B code blocks; {arch} fetches one block per "
            f"cycle, so this build cannot run faster than {site.blocks} cy per assembly "
            f"iteration ({bound:.2f} cy/CL)")
