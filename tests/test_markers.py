"""Tests of kernel selection: comment/byte markers and loop finding."""
from __future__ import annotations

from pathlib import Path

import pytest

from kerncraft.errors import AssemblyError
from kerncraft.incore.markers import (extract_kernel, find_loops, find_marked_region,
                                      kernel_lines, select_kernel)
from kerncraft.incore.x86.parser import parse_x86

DATA = Path(__file__).parent / "data" / "asm"

BODY = """\
.L3:
\tvmovupd\t(%rsi,%rax), %ymm0
\tvaddpd\t(%rdx,%rax), %ymm0, %ymm0
\tvmovupd\t%ymm0, (%rdi,%rax)
\taddq\t$32, %rax
\tcmpq\t%rax, %rcx
\tjne\t.L3
"""


def mnemonics(instrs):
    return [i.mnemonic for i in instrs]


LOOP_MNEMONICS = ["vmovupd", "vaddpd", "vmovupd", "addq", "cmpq", "jne"]


@pytest.mark.parametrize("begin, end", [
    ("# OSACA-BEGIN", "# OSACA-END"),
    ("# LLVM-MCA-BEGIN", "# LLVM-MCA-END"),
    ("# LLVM-MCA-BEGIN triad", "# LLVM-MCA-END triad"),
    ("movl $111, %ebx # IACA START MARKER\n.byte 100,103,144 # IACA START MARKER",
     "movl $222, %ebx # IACA END MARKER\n.byte 100,103,144 # IACA END MARKER"),
    ("mov $111, %ebx\n\n  .byte 100,103,144", "mov $222, %ebx\n.byte 100, 103, 144"),
])
def test_single_marker_kinds(begin, end):
    src = f"xorl %eax, %eax\n{begin}\n{BODY}{end}\nret\n"
    lines = parse_x86(src)
    start, stop = find_marked_region(lines)
    assert mnemonics(extract_kernel(lines)) == LOOP_MNEMONICS
    assert lines[start].label == ".L3"          # marker lines are excluded
    assert lines[stop - 1].instruction.mnemonic == "jne"


def test_marked_region_need_not_be_a_loop():
    src = "# OSACA-BEGIN\naddq %rax, %rbx\nimulq %rbx, %rcx\n# OSACA-END\n"
    assert mnemonics(extract_kernel(parse_x86(src))) == ["addq", "imulq"]


def test_nested_markers_choose_innermost():
    lines = parse_x86((DATA / "nested_markers.s").read_text())
    block = select_kernel(lines)
    assert block.kind == "LLVM-MCA"
    # no vxorpd before the inner markers, no marker instructions
    assert mnemonics(extract_kernel(lines)) == ["vmovupd", "vfmadd213pd", "vmovupd", "addq",
                                                "cmpq", "jne"]


def test_nested_markers_other_way_round():
    src = ("# OSACA-BEGIN\nvxorpd %xmm1, %xmm1, %xmm1\n"
           "movl $111, %ebx\n.byte 100,103,144\n" + BODY +
           "movl $222, %ebx\n.byte 100,103,144\n# OSACA-END\n")
    lines = parse_x86(src)
    assert select_kernel(lines).kind == "IACA"
    assert mnemonics(extract_kernel(lines)) == LOOP_MNEMONICS


def test_no_markers():
    assert find_marked_region(parse_x86(BODY)) is None


def test_iaca_mov_without_bytes_is_not_a_marker():
    lines = parse_x86("movl $111, %ebx\naddq %rax, %rbx\nmovl $222, %ebx\n")
    assert find_marked_region(lines) is None


@pytest.mark.parametrize("src, message", [
    ("# OSACA-BEGIN\naddq %rax, %rbx\n", "without end"),
    ("addq %rax, %rbx\n# LLVM-MCA-END\n", "without begin"),
    ("movl $111, %ebx\n.byte 100,103,144\naddq %rax, %rbx\n", "without end"),
    ("# OSACA-BEGIN\n# OSACA-BEGIN\n# OSACA-END\n", "inside another"),
])
def test_unbalanced_markers(src, message):
    with pytest.raises(AssemblyError, match=message) as info:
        find_marked_region(parse_x86(src), "k.s")
    assert str(info.value).startswith("k.s:")


def test_empty_marked_region():
    with pytest.raises(AssemblyError, match="no instruction"):
        extract_kernel(parse_x86("# OSACA-BEGIN\n# just a comment\n# OSACA-END\n"))


def test_no_kernel_at_all():
    with pytest.raises(AssemblyError, match="no loop"):
        extract_kernel(parse_x86("addq %rax, %rbx\nret\n"), "k.s")


# --------------------------------------------------------------------------- loops

def test_two_loops_gcc_O1():
    """gcc -O1 of a 2-deep nest: the outer latch ('jg .L4', line 30) jumps back
    into the inner loop, whose own latch is 'jne .L4' (line 22)."""
    lines = parse_x86((DATA / "two_loops_gcc12_O1.s").read_text())
    loops = find_loops(lines)
    assert [(lp.label, lines[lp.first].line_number, lines[lp.last].line_number)
            for lp in loops] == [(".L4", 15, 30), (".L4", 15, 22)]
    outer, inner = loops
    assert outer.contains_loop and outer.depth == 0
    assert inner.innermost and inner.depth == 1
    assert inner.n_instructions == 7
    assert inner.n_vector == 4          # movapd, mulsd, addsd, movsd
    assert (inner.n_loads, inner.n_stores) == (2, 1)
    assert mnemonics(extract_kernel(lines)) == [
        "movapd", "mulsd", "addsd", "movsd", "addq", "cmpq", "jne"]


def test_vector_loop_preferred_over_scalar_remainder():
    """triad (ymm main loop, no remainder loop) and count (zmm main loop)."""
    lines = parse_x86((DATA / "triad_count_gcc12_O3_csx.s").read_text())
    loops = find_loops(lines)
    assert [lp.label for lp in loops] == [".L4", ".L23"]
    assert all(lp.innermost for lp in loops)
    triad = loops[0]
    assert (triad.n_instructions, triad.n_vector, triad.n_loads, triad.n_stores) == (6, 3, 2, 1)
    block = select_kernel(lines)
    assert block.kind == "loop" and block.label == ".L23"   # 8 vector instrs > 3


def test_selection_tie_break_by_instruction_count_then_order():
    scalar = ".L1:\naddq $1, %rax\naddq $1, %rbx\ncmpq %rax, %rcx\njne .L1\n"
    vector = ".L2:\nvaddpd %ymm0, %ymm1, %ymm1\ncmpq %rax, %rcx\njne .L2\n"
    big_vec = (".L3:\nvaddpd %ymm0, %ymm1, %ymm1\naddq $1, %rax\naddq $1, %rax\n"
               "cmpq %rax, %rcx\njne .L3\n")
    assert select_kernel(parse_x86(scalar + vector)).label == ".L2"
    assert select_kernel(parse_x86(vector + big_vec)).label == ".L3"
    assert select_kernel(parse_x86(vector + vector.replace(".L2", ".L4"))).label == ".L2"


def test_forward_and_unconditional_branches_are_not_loops():
    src = "jmp .L2\n.L1:\naddq $1, %rax\n.L2:\ncmpq %rax, %rcx\njne .L5\njmp .L1\n.L5:\nret\n"
    assert find_loops(parse_x86(src)) == []


def test_second_latch_without_label_extends_loop():
    src = (".L1:\naddq $1, %rax\ncmpq %rax, %rcx\njne .L1\n"
           "addq $1, %rbx\ncmpq %rbx, %rcx\njl .L1\nret\n")
    (loop,) = find_loops(parse_x86(src))
    assert loop.n_instructions == 6


def test_numeric_local_labels():
    src = "1:\naddq $1, %rax\ncmpq %rax, %rcx\njne 1b\n"
    (loop,) = find_loops(parse_x86(src))
    assert loop.label == "1" and loop.n_instructions == 3


def test_icc_style_loop():
    lines = parse_x86((DATA / "icc_style_sample.s").read_text())
    block = select_kernel(lines)
    assert block.label == "..B1.4"
    assert mnemonics(extract_kernel(lines)) == ["vmovupd", "vfmadd231pd", "vmovupd", "addq",
                                                "cmpq", "jb"]
    assert kernel_lines(lines)[0].label == "..B1.4"


def test_clang_sample_loops():
    lines = parse_x86((DATA / "clang14_O3_spr_kernels.s").read_text())
    loops = find_loops(lines)
    assert loops and all(lp.label.startswith(".LBB") for lp in loops)
    kernel = extract_kernel(lines)
    assert kernel[-1].mnemonic.startswith("j")
