"""Intel-syntax assembly (gcc/clang ``-masm=intel``, ``objdump -d -M intel``) for the
in-core analyzer: the same instructions, and so the same analysis, as AT&T syntax.

Data: ``tests/data/asm_intel/`` (``generate.sh`` there: gcc 12.2 ``-O3
-march=skylake-avx512 -S`` with ``-masm=att`` and ``-masm=intel`` of each ``*.c``, and
``objdump -d -M intel`` of the assembled ``iaca_loop.intel.s``).
"""
from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest

from kerncraft.cli.incore import main as incore_main
from kerncraft.errors import AssemblyError
from kerncraft.incore.analysis import analyze_text
from kerncraft.incore.markers import select_kernel
from kerncraft.incore.model import Immediate, Label, Memory, Register
from kerncraft.incore.x86.parser import parse_x86
from kerncraft.incore.x86.syntax import detect_syntax, parse_x86_any

DATA = Path(__file__).parent / "data" / "asm_intel"
KERNELS = ("triad", "sum", "stencil", "gather", "masked", "convert", "globals", "intsext")


def _analysis_numbers(result):
    """What must not depend on the syntax: TP, CP, LCD, port pressure, front end."""
    return (result.throughput, result.critical_path, result.lcd, dict(result.port_totals),
            [dict(p) for p in result.port_pressure], result.frontend,
            [c.latency for c in result.lcd_chains], result.unknown_forms)


def _bare(instr):
    """An instruction without its source text and line (those differ by syntax)."""
    return dataclasses.replace(instr, text="", line_number=0)


def _assert_twins(att_text: str, intel_text: str, name: str) -> None:
    assert detect_syntax(att_text) == "att" and detect_syntax(intel_text) == "intel"
    att = analyze_text(att_text, "SKX", filename=f"{name}.att.s")
    intel = analyze_text(intel_text, "SKX", filename=f"{name}.intel.s")
    assert [_bare(i) for i in intel.instructions] == [_bare(i) for i in att.instructions]
    assert _analysis_numbers(intel) == _analysis_numbers(att)


# --------------------------------------------------------------------- gcc twins
@pytest.mark.parametrize("name", KERNELS)
def test_gcc_intel_output_analyses_as_its_att_twin(name):
    # The same compiler run in both syntaxes is the same machine code, so every number
    # of the analysis must agree; the instructions themselves too (operands reversed,
    # suffixes, movsx -> movslq, {k1}{z}, {1to2}, .LC1[rip] ...).
    _assert_twins((DATA / f"{name}.att.s").read_text(), (DATA / f"{name}.intel.s").read_text(),
                  name)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
@pytest.mark.parametrize("name", ["triad", "gather", "masked"])
def test_installed_gcc_intel_output_analyses_as_its_att_twin(name, tmp_path):
    texts = {}
    for syntax in ("att", "intel"):
        out = tmp_path / f"{name}.{syntax}.s"
        subprocess.run(["gcc", "-O3", "-march=skylake-avx512", "-S", f"-masm={syntax}",
                        str(DATA / f"{name}.c"), "-o", str(out)], check=True, timeout=120)
        texts[syntax] = out.read_text()
    _assert_twins(texts["att"], texts["intel"], name)


def test_sum_reduction_lcd_is_four_chained_adds():
    # gcc -O3 (no -ffast-math) keeps the order of the additions: the loop .L4 adds four
    # elements one after another into xmm0 (vaddsd xmm0, xmm0, QWORD PTR ...), so the
    # loop-carried chain is 4 x vaddsd latency = 4 x 4 cy = 16 cy per assembly iteration
    # (SKX.yml: "v{add|...}{sd|ss} xmm,xmm,xmm": lat 4; the loads are off the chain).
    result = analyze_text((DATA / "sum.intel.s").read_text(), "SKX")
    assert [i.mnemonic for i in result.instructions].count("vaddsd") == 4
    assert result.lcd == 16.0


# ------------------------------------------------------------ hand-derived loop
LOOP = """\
.L2:
	vaddpd	ymm0, ymm0, YMMWORD PTR [rdi+rax*8]
	add	rax, 4
	cmp	rax, rsi
	jne	.L2
"""


def _check_hand_derived(result):
    # SKX.yml: vaddpd ymm,ymm,ymm lat 4 on [0,1]; ymm loads 7 cy on ports 2/3 (+2D/3D);
    # add/cmp r64 on [0,1,5,6]; taken jcc on [6].
    # LCD: ymm0 feeds the next vaddpd -> 4 cy (the rax chain, add rax, is 1 cy).
    assert result.lcd == 4.0
    # CP: load (7 cy, ymm) then the add (4 cy) = 11 cy.
    assert result.critical_path == 11.0
    # TP: vaddpd, add, cmp, jne are 4 uops that fit on the 4 ports 0,1,5,6 one each
    # (jne on 6, vaddpd on 0 or 1); the load takes 0.5 cy on each of ports 2 and 3.
    assert result.throughput == 1.0
    assert result.port_totals["6"] == 1.0 and result.port_totals["2"] == 0.5


def test_hand_derived_intel_loop_without_directive():
    # no .intel_syntax: 'PTR [' and the bare registers decide
    assert detect_syntax(LOOP) == "intel"
    result = analyze_text(LOOP, "SKX", filename="loop.s")
    assert [i.mnemonic for i in result.instructions] == ["vaddpd", "addq", "cmpq", "jne"]
    assert result.instructions[1].operands == (Immediate(4), Register("rax"))
    _check_hand_derived(result)


def test_objdump_intel_listing_with_iaca_markers():
    # iaca_loop.objdump: objdump -d -M intel of the assembled iaca_loop.intel.s; the
    # marker bytes 64 67 90 show as 'fs addr32 nop', the back branch as
    # 'jne e <kernel+0xe>', the immediates in hex ('add rax,0x4').
    text = (DATA / "iaca_loop.objdump").read_text()
    lines = parse_x86_any(text, "iaca_loop.objdump")
    block = select_kernel(lines)
    assert block.kind == "IACA"
    body = [ln.instruction for ln in lines[block.start:block.stop] if ln.instruction]
    assert [i.mnemonic for i in body] == ["vaddpd", "addq", "cmpq", "jne"]
    assert body[1].operands == (Immediate(4), Register("rax"))
    assert body[3].operands == (Label("kernel+0xe"),)
    # the branch target labels the vaddpd line (address 0xe)
    assert lines[block.start].label == "kernel+0xe"
    _check_hand_derived(analyze_text(text, "SKX", filename="iaca_loop.objdump"))


def test_objdump_unsigned_immediates_are_signed_as_gcc_writes_them():
    # objdump prints 'and rax,-4' as 0xfffffffffffffffc (64-bit) and 'and edx,-8' as
    # 0xfffffff8 (32-bit); gcc's AT&T output has andq $-4 / andl $-8.
    text = ("0000000000000000 <f>:\n"
            "   0:\t48 83 e0 fc          \tand    rax,0xfffffffffffffffc\n"
            "   4:\t83 e2 f8             \tand    edx,0xfffffff8\n")
    ins = [ln.instruction for ln in parse_x86_any(text) if ln.instruction]
    assert ins[0].operands[0] == Immediate(-4) and ins[0].mnemonic == "andq"
    assert ins[1].operands[0] == Immediate(-8) and ins[1].mnemonic == "andl"


# ------------------------------------------------------- statement equivalences
# Each Intel statement and the AT&T statement gas assembles to the same bytes (the AT&T
# side as gcc 12 writes it).
EQUIVALENT = [
    ("add rax, 4", "addq $4, %rax"),
    ("add QWORD PTR [rax], 1", "addq $1, (%rax)"),
    ("mov DWORD PTR -4[rbp], edi", "movl %edi, -4(%rbp)"),
    ("lea rdx, 0[0+rax*8]", "leaq 0(,%rax,8), %rdx"),
    ("vmovsd xmm0, QWORD PTR .LC0[rip]", "vmovsd .LC0(%rip), %xmm0"),
    ("vmovsd xmm0, qword ptr [rip + .LCPI0_0]", "vmovsd .LCPI0_0(%rip), %xmm0"),
    ("vmovupd ymm1, ymmword ptr [rdi + 8*rax + 32]", "vmovupd 32(%rdi,%rax,8), %ymm1"),
    ("mov eax, DWORD PTR a[0+rax*4]", "movl a(,%rax,4), %eax"),
    ("mov rax, QWORD PTR fs:40", "movq %fs:40, %rax"),
    ("mov eax, OFFSET FLAT:.LC0", "movl $.LC0, %eax"),
    ("movsx rcx, DWORD PTR [rdi+rcx*4]", "movslq (%rdi,%rcx,4), %rcx"),
    ("movsxd rcx, edx", "movslq %edx, %rcx"),
    ("movzx ecx, BYTE PTR [rsi+rax]", "movzbl (%rsi,%rax), %ecx"),
    ("movsx r8d, WORD PTR 2[rdx+r10]", "movswl 2(%rdx,%r10), %r8d"),
    ("cdqe", "cltq"), ("cqo", "cqto"), ("cdq", "cltd"),
    ("sal rax, cl", "salq %cl, %rax"), ("shl DWORD PTR [rdi], 3", "shll $3, (%rdi)"),
    ("test sil, 3", "testb $3, %sil"),
    ("push rbp", "pushq %rbp"),
    ("vcvtsi2sd xmm1, xmm0, QWORD PTR [rsi+rax*8]", "vcvtsi2sdq (%rsi,%rax,8), %xmm0, %xmm1"),
    ("vcvtsi2sd xmm2, xmm0, DWORD PTR [rdx+rax*4]", "vcvtsi2sdl (%rdx,%rax,4), %xmm0, %xmm2"),
    ("cvttsd2si eax, QWORD PTR [rdi]", "cvttsd2sil (%rdi), %eax"),
    ("vcvtpd2ps xmm0, YMMWORD PTR [rdi]", "vcvtpd2psy (%rdi), %xmm0"),
    ("crc32 eax, BYTE PTR [rsi]", "crc32b (%rsi), %eax"),
    ("sarx r8d, DWORD PTR [r9+rax*4], r10d", "sarx %r10d, (%r9,%rax,4), %r8d"),
    ("rep stos QWORD PTR es:[rdi], rax", "rep stosq"),
    ("vpsrad ymm1, YMMWORD PTR 32[rdi+rax*2], 2", "vpsrad $2, 32(%rdi,%rax,2), %ymm1"),
    ("vpgatherdd ymm0{k2}, [rcx+ymm3*4]", "vpgatherdd (%rcx,%ymm3,4), %ymm0{%k2}"),
    ("vmulps ymm2{k1}{z}, ymm0, ymm0", "vmulps %ymm0, %ymm0, %ymm2{%k1}{z}"),
    ("vmovups YMMWORD PTR [rdi+rax]{k1}, ymm2", "vmovups %ymm2, (%rdi,%rax){%k1}"),
    ("vaddpd zmm0{k1}, zmm1, QWORD PTR [rsi]{1to8}", "vaddpd (%rsi){1to8}, %zmm1, %zmm0{%k1}"),
    ("vaddpd zmm0, zmm1, QWORD BCST [rsi]", "vaddpd (%rsi){1to8}, %zmm1, %zmm0"),
    ("vaddpd zmm0{k1}{z}, zmm0, zmm1, {rz-sae}",
     "vaddpd {rz-sae}, %zmm1, %zmm0, %zmm0{%k1}{z}"),
    ("vcmpps k1, ymm0, ymm1, 14", "vcmpps $14, %ymm1, %ymm0, %k1"),
    ("jmp rax", "jmp *%rax"),
    ("call QWORD PTR [rax+8]", "call *8(%rax)"),
    ("lock add DWORD PTR [rdi], 1", "lock addl $1, (%rdi)"),
    ("kmovb eax, k0", "kmovb %k0, %eax"),
]


@pytest.mark.parametrize("intel, att", EQUIVALENT)
def test_intel_statement_is_its_att_equivalent(intel, att):
    (i,) = [ln.instruction for ln in parse_x86_any(f".intel_syntax noprefix\n\t{intel}\n")
            if ln.instruction]
    (a,) = [ln.instruction for ln in parse_x86(f"\t{att}\n") if ln.instruction]
    assert _bare(i) == _bare(a)


def test_memory_operand_parts():
    # clang writes the scale first; the address is base rdi + index rax * 8 + 16
    (line,) = parse_x86_any("\tvaddpd ymm0, ymm0, ymmword ptr [rdi + 8*rax + 16]",
                            syntax="intel")
    assert line.instruction.operands[0] == Memory(base=Register("rdi"), index=Register("rax"),
                                                  scale=8, displacement=16)


def test_intel_prefix_registers():
    # '.intel_syntax prefix': registers keep their '%', the rest is Intel
    text = ".intel_syntax prefix\n\tvaddpd %ymm0, %ymm0, YMMWORD PTR [%rdi+%rax*8]\n"
    (i,) = [ln.instruction for ln in parse_x86_any(text) if ln.instruction]
    (a,) = [ln.instruction for ln in parse_x86("vaddpd (%rdi,%rax,8), %ymm0, %ymm0")
            if ln.instruction]
    assert _bare(i) == _bare(a)


# ------------------------------------------------------------- syntax detection
def test_detection_and_syntax_switches():
    assert detect_syntax("\t.intel_syntax noprefix\n\tret\n") == "intel"
    assert detect_syntax("\taddq $4, %rax\n\tjne .L2\n") == "att"
    assert detect_syntax('\t.string "%d"\n\tadd rax, 4\n') == "intel"    # strings don't vote
    # an .att_syntax region inside an Intel file is read as AT&T, and back
    text = (".intel_syntax noprefix\n\tadd rax, 4\n.att_syntax prefix\n\taddq $4, %rax\n"
            ".intel_syntax noprefix\n\tadd rax, 4\n")
    ins = [ln.instruction for ln in parse_x86_any(text) if ln.instruction]
    assert len({_bare(i) for i in ins}) == 1


def test_llvm_mca_markers_in_intel_syntax():
    text = (".intel_syntax noprefix\n\txor eax, eax\n# LLVM-MCA-BEGIN\n"
            "\tvaddpd ymm0, ymm0, YMMWORD PTR [rdi+rax*8]\n\tadd rax, 4\n"
            "# LLVM-MCA-END\n\tret\n")
    lines = parse_x86_any(text)
    block = select_kernel(lines)
    assert (block.kind, block.start, block.stop) == ("LLVM-MCA", 3, 5)


# ------------------------------------------------------------------------ errors
def test_unreadable_intel_operand_names_line_and_column():
    # line 2 is '\tvaddpd\tymm0, ymm0, YMMWORD PTR [rdi+rax*3]': the operand starts after
    # the tab (1), 'vaddpd\t' (7) and two 'ymm0, ' (6 each): column 1 + 1 + 7 + 12 = 21
    text = ".intel_syntax noprefix\n\tvaddpd\tymm0, ymm0, YMMWORD PTR [rdi+rax*3]\n"
    with pytest.raises(AssemblyError) as info:
        parse_x86_any(text, "k.s")
    message = str(info.value)
    assert message.startswith("k.s:2:21: scale must be 1, 2, 4 or 8")
    assert "\n" not in message


def test_cli_syntax_option(tmp_path, capsys):
    path = tmp_path / "loop.s"
    path.write_text(LOOP)
    assert incore_main(["--arch", "SKX", "--syntax", "intel", str(path)]) == 0
    assert "LCD 4.00 cy" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        incore_main(["--arch", "SKX", "--syntax", "att", str(path)])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"kerncraft-incore: error: {path}:2:")
