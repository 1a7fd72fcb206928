"""Code layout of the loop body (kerncraft/incore/codeblocks.py)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import kerncraft
from kerncraft.errors import ToolError
from kerncraft.incore import codeblocks as cb

ROOT = Path(__file__).parent.parent
needs_tools = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("nm") is None,
                                 reason="needs gcc and nm (binutils)")

# addq $8,%rax = 48 83 c0 08 (4 B), cmpq %rax,%rdx = 48 39 c2 (3 B), jne rel8 = 75 xx (2 B)
ASM = """\
    .text
    .p2align 4
    .globl f
    .type f, @function
f:
    .skip 60, 0x90
.L2:
    addq $8, %rax
    cmpq %rax, %rdx
    jne .L2
    ret
    .section .note.GNU-stack,"",@progbits
"""


def test_blocks_spanned():
    assert cb.blocks_spanned(0, 20, 64) == 1
    assert cb.blocks_spanned(44, 20, 64) == 1          # bytes 44..63
    assert cb.blocks_spanned(45, 20, 64) == 2          # bytes 45..64
    assert cb.blocks_spanned(63, 2, 64) == 2
    assert cb.blocks_spanned(10, 130, 64) == 3


def test_section_alignment():
    lines = ASM.splitlines()
    assert cb.section_alignment(lines, 8) == 16
    assert cb.section_alignment(["    .text", ".L2:", "    addq $8, %rax"], 3) == 1


@needs_tools
def test_layout_of_a_hand_assembled_loop():
    """9-byte body at offset 60 of a 16-B aligned section: the section may start at
    0, 16, 32 or 48 mod 64, so the body starts at 60, 12, 28 or 44 mod 64 and spans
    2, 1, 1, 1 blocks."""
    layout = cb.loop_layout(ASM, 8, 10, shutil.which("gcc"))
    assert (layout.size, layout.offset, layout.alignment) == (9, 60, 16)
    assert layout.blocks == (2, 1, 1, 1)
    assert (layout.min_blocks, layout.max_blocks, layout.straddling) == (1, 2, 1)
    note = cb.code_block_note(layout, 1.0, "ICX")
    assert "9 B at offset 60 of a 16-B aligned section" in note
    assert "in 1 of 4 placements it may run at 2 cy per assembly iteration instead of 1.00" \
        in note
    assert cb.code_block_note(layout, 2.0, "ICX") is None     # the prediction is already 2


@needs_tools
def test_assembler_errors_are_tool_errors():
    with pytest.raises(ToolError, match="assembling the loop failed"):
        cb.loop_layout(ASM.replace("addq $8, %rax", "addq %nosuchreg, %rax"), 8, 10,
                       shutil.which("gcc"))
    with pytest.raises(ToolError, match="outside the assembly"):
        cb.loop_layout(ASM, 8, 99, shutil.which("gcc"))


@needs_tools
def test_pipeline_note_only_where_the_database_knows_the_block(cache_dir):
    """ICX-VM (ICX database, code_block_bytes 64) with a small -O2 loop: the note; CSX
    (no code_block_bytes): none. The layout survives the persistent result cache."""
    from kerncraft.memo import incore_analyses as rc
    from kerncraft.models import incore_prediction as ip

    kernel = kerncraft.parse_kernel((ROOT / "kernels" / "copy.c").read_text(),
                                    "copy.c").bind({"N": 1000})
    flags = "-O2 -march=cascadelake -ffreestanding"
    host = kerncraft.load_machine("ICX-VM")
    cold = ip.predict_incore(kernel, host, flags=flags, iterations_per_cacheline=8)
    layout = cold.analysis.loop_layout
    assert layout is not None and layout.block_bytes == 64 and layout.alignment == 16
    assert 10 < layout.size < 40
    assert layout.blocks == tuple(cb.blocks_spanned((layout.offset + p) % 64, layout.size, 64)
                                  for p in (0, 16, 32, 48))
    # gcc 12 here: 20 B at offset 112 = 48 mod 64 -> (2, 1, 1, 1); the loop is predicted
    # at 1 cy per asm iteration (T_OL 8 cy/CL, 8 iterations per CL)
    per_asm = max(cold.t_ol, cold.t_nol) / 8
    expected = cb.code_block_note(layout, per_asm, "ICX")
    assert layout.max_blocks == 2 and per_asm == pytest.approx(1.0)
    assert expected is not None and expected in cold.notes
    ip._analyse_source.cache_clear()
    warm = ip.predict_incore(kernel, host, flags=flags, iterations_per_cacheline=8)
    assert isinstance(warm.analysis, rc.CachedAnalysis)
    assert warm.analysis.loop_layout == layout and warm.notes == cold.notes
    csx = ip.predict_incore(kernel, kerncraft.load_machine("CSX"), flags=flags,
                            iterations_per_cacheline=8)
    assert csx.analysis.loop_layout is None
    assert not any("code blocks" in n for n in csx.notes)
