"""The measured loop's site in the benchmark executable (kerncraft/benchmark/loopsite.py)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import kerncraft
from kerncraft.benchmark import loopsite as ls
# A 9-byte loop (addq 4 B, cmpq 3 B, jne 2 B) 60 bytes into a 16-B aligned function.
PROGRAM = """\
    .text
    .p2align 4
    .globl main
    .type main, @function
main:
    .skip 60, 0x90
.L2:
    addq $8, %rax
    cmpq %rax, %rdx
    jne .L2
    xorl %eax, %eax
    ret
    .section .note.GNU-stack,"",@progbits
"""


def _disassemble(tmp_path: Path) -> str:
    source, exe = tmp_path / "p.s", tmp_path / "p"
    source.write_text(PROGRAM)
    subprocess.run(["gcc", str(source), "-o", str(exe)], check=True, capture_output=True)
    return subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(exe)], check=True,
                          capture_output=True, text=True).stdout


@pytest.mark.skipif(any(shutil.which(t) is None for t in ("gcc", "objdump")),
                    reason="needs gcc and objdump")
def test_locate_loop_in_a_linked_executable(tmp_path):
    text = _disassemble(tmp_path)
    address, size = ls.locate_loop(text, ["addq", "cmpq", "jne"])
    assert size == 9
    assert (address - 60) % 16 == 0           # the function is 16-B aligned in the link
    assert ls.locate_loop(text, ["vmulpd", "vaddpd", "jne"]) is None


def test_note_only_when_the_fetch_bound_can_explain_the_measurement():
    site = ls.LoopSite(address=0x1270, size=20, blocks=2, block_bytes=64,
                       iterations_per_asm_iteration=1.0)
    # 2 blocks per iteration x 8 iterations per CL = 16 cy/CL
    note = ls.loop_site_note(site, 8, 17.0, "ICX")
    assert note == ("the measured loop body is 20 B at 0x1270 and spans 2 64-B code blocks; "
                    "ICX fetches one block per cycle, so this build cannot run faster than 2 "
                    "cy per assembly iteration (16.00 cy/CL)")
    assert ls.loop_site_note(site, 8, 30.0, "ICX") is None        # 16 < 0.8 * 30
    one = ls.LoopSite(0x1280, 20, 1, 64, 1.0)
    assert ls.loop_site_note(one, 8, 17.0, "ICX") is None
    assert ls.loop_site_note(None, 8, 17.0, "ICX") is None


def test_benchmark_notes_use_the_site_only_where_the_database_has_a_block(monkeypatch):
    from kerncraft.benchmark import kernel_run as bm
    site = ls.LoopSite(0x1270, 20, 2, 64, 1.0)
    monkeypatch.setattr(ls, "measured_loop_site", lambda program, kernel, block: site)
    kernel = kerncraft.parse_kernel("double a[N], b[N];\nfor (int i = 0; i < N; ++i)\n"
                                    "    a[i] = b[i];\n", "copy.c").bind({"N": 1024})
    host, csx = kerncraft.load_machine("ICX-VM"), kerncraft.load_machine("CSX")
    assert bm._code_block_notes(kernel, host, None, 8, 17.0) == [
        ls.loop_site_note(site, 8, 17.0, "ICX")]
    assert bm._code_block_notes(kernel, csx, None, 8, 17.0) == []   # CSX: no fetch block
