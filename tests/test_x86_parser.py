"""Tests of the AT&T x86 parser and the register tables (expectations by hand)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from kerncraft.errors import AssemblyError
from kerncraft.incore import registers
from kerncraft.incore.model import Immediate, Label, Memory, Register
from kerncraft.incore.x86.parser import parse_operand, parse_operand_full, parse_x86

DATA = Path(__file__).parent / "data" / "asm"


def instr(text: str):
    """Parse one line and return its instruction."""
    (line,) = parse_x86(text)
    assert line.instruction is not None, text
    return line.instruction


def R(name: str) -> Register:
    return Register(name)


# --------------------------------------------------------------------------- registers

@pytest.mark.parametrize("name, cls, root, width", [
    ("al", "r8", "rax", 8), ("ah", "r8", "rax", 8), ("ax", "r16", "rax", 16),
    ("eax", "r32", "rax", 32), ("rax", "r64", "rax", 64),
    ("r8b", "r8", "r8", 8), ("r8w", "r16", "r8", 16), ("r8d", "r32", "r8", 32),
    ("r8", "r64", "r8", 64), ("sil", "r8", "rsi", 8), ("spl", "r8", "rsp", 8),
    ("xmm3", "xmm", "v3", 128), ("ymm3", "ymm", "v3", 256), ("zmm31", "zmm", "v31", 512),
    ("k1", "k", "k1", 64), ("rip", "rip", "rip", 64), ("fs", "seg", "fs", 16),
    ("%RAX", "r64", "rax", 64),
])
def test_register_tables(name, cls, root, width):
    assert registers.register_class(name) == cls
    assert registers.alias_root(name) == root
    assert registers.register_width(name) == width


def test_unknown_register_raises():
    with pytest.raises(AssemblyError, match="unknown register"):
        registers.register_class("xmm32")


def test_register_isa_hook():
    registers.register_isa("toy", lambda n: registers.RegisterInfo("t", "t0", 7)
                           if n == "t0" else None)
    assert registers.register_class("t0") == "t"
    assert registers.register_width("t0", "toy") == 7
    with pytest.raises(AssemblyError):
        registers.register_class("rax", "toy")


def test_register_type_property():
    assert Register("ymm2").type == "ymm"


# --------------------------------------------------------------------------- operands

@pytest.mark.parametrize("text, expected", [
    ("%rax", R("rax")),
    ("%XMM1", R("xmm1")),
    ("$1", Immediate(1)),
    ("$-8", Immediate(-8)),
    ("$0x1f", Immediate(31)),
    ("$.LC0", Immediate(None, ".LC0")),
    ("$a+8", Immediate(None, "a+8")),
    ("(%rax)", Memory(base=R("rax"))),
    ("-8(%rbp)", Memory(base=R("rbp"), displacement=-8)),
    ("-0x8(%rbp)", Memory(base=R("rbp"), displacement=-8)),
    ("16(%rsi,%rax,8)", Memory(base=R("rsi"), index=R("rax"), scale=8, displacement=16)),
    ("(%rsi,%rax)", Memory(base=R("rsi"), index=R("rax"))),
    ("(,%rax,8)", Memory(index=R("rax"), scale=8)),
    ("a+16(%rip)", Memory(base=R("rip"), displacement=16, symbol="a")),
    ("M-8(,%rax,8)", Memory(index=R("rax"), scale=8, displacement=-8, symbol="M")),
    (".LC0(%rip)", Memory(base=R("rip"), symbol=".LC0")),
    ("a.0+8(%rip)", Memory(base=R("rip"), displacement=8, symbol="a.0")),
    ("foo@GOTPCREL(%rip)", Memory(base=R("rip"), symbol="foo@GOTPCREL")),
    ("%fs:40", Memory(displacement=40, segment="fs")),
    ("%fs:0x28", Memory(displacement=40, segment="fs")),
    ("%fs:tl@tpoff", Memory(symbol="tl@tpoff", segment="fs")),
    ("%gs:(%rax)", Memory(base=R("rax"), segment="gs")),
    ("24(,%ymm13)", Memory(index=R("ymm13"), displacement=24)),
    ("foo", Memory(symbol="foo")),
    ("( %rax , %rbx , 4 )", Memory(base=R("rax"), index=R("rbx"), scale=4)),
])
def test_operand_forms(text, expected):
    assert parse_operand(text) == expected


def test_fast_path_agrees_with_grammar():
    """The regex shortcut must give what the pyparsing grammar gives."""
    for text in ("%rax", "$-8", "$0x1f", "(%rax)", "-8(%rbp)", "16(%rsi,%rax,8)",
                 "(,%rax,8)", "a+16(%rip)", ".LC0(%rip)", "24(,%ymm13)", "0(%rax,%rax,1)"):
        assert parse_operand(text) == parse_operand_full(text), text
    # bare symbols: a branch's label, else an absolute address; '$sym' stays an immediate
    for text, branch in ((".L3", True), (".L3", False), ("foo@GOTPCREL", False),
                         ("$foo", False), ("a", True)):
        assert parse_operand(text, branch) == parse_operand_full(text, branch), text


def test_every_operand_of_the_campaign_takes_the_fast_path_as_the_grammar_would():
    """All operands of the 712 recorded campaign blocks (gcc and clang, -O2/-O3, scalar
    to 512-bit): the fast path answers each as the grammar does, so analysing a compiled
    loop needs no pyparsing."""
    import json
    import re
    from kerncraft.incore.x86.operands import _fast_operand

    corpus = Path(__file__).resolve().parents[1] / "benchmarks" / "corpus" / "incore"
    texts = [json.loads(line)["block"] for path in corpus.rglob("blocks.jsonl")
             for line in path.read_text().splitlines() if line.strip()]
    assert len(texts) >= 300
    operands = set()
    for text in texts:
        for line in text.splitlines():
            parts = line.strip().split(None, 1)
            if len(parts) == 2 and not parts[0].endswith(":"):
                branch = parts[0].startswith("j") or parts[0].startswith("call")
                # decorations ({%k1}, {z}, {1to8}) are the line parser's, not operands
                operands.update((re.sub(r"\{[^}]*\}", "", op).strip(), branch)
                                for op in re.split(r",(?![^(]*\))", parts[1]))
    assert len(operands) > 500
    for text, branch in operands:
        core = text.lstrip("*").strip()
        fast = _fast_operand(core, branch and not text.startswith("*"))
        assert fast is not None, text
        assert fast == parse_operand_full(core, branch and not text.startswith("*")), text


def test_st_register():
    assert parse_operand("%st(1)") == R("st1")
    assert registers.register_class("st1") == "st"


@pytest.mark.parametrize("bad", ["%foo", "(%rax,%rbx,3)", "(%rax", "$", "a b"])
def test_bad_operands(bad):
    with pytest.raises((ValueError, AssemblyError)):
        parse_operand(bad)


# --------------------------------------------------------------------------- instructions

def test_mnemonic_suffix_and_case():
    i = instr("\tADDQ\t$8, %RAX")
    assert i.mnemonic == "addq"
    assert i.operands == (Immediate(8), R("rax"))
    assert i.form_key == "addq imm,r64"
    assert instr("addl %eax, (%rdx)").form_key == "addl r32,mem"


def test_line_text_and_number():
    lines = parse_x86("\n\n  vaddpd %ymm0, %ymm1, %ymm2  \n")
    ins = lines[2].instruction
    assert ins.line_number == 3 and ins.text == "vaddpd %ymm0, %ymm1, %ymm2"
    assert ins.form_key == "vaddpd ymm,ymm,ymm"


def test_avx512_mask_and_zeroing():
    i = instr("vaddpd %zmm1, %zmm2, %zmm3{%k1}{z}")
    assert i.mask == R("k1") and i.zeroing
    assert i.operands[-1] == R("zmm3")
    i = instr("vgatherdpd (%rcx,%ymm0,8), %zmm2 {%k2}")   # clang puts a blank
    assert i.mask == R("k2") and not i.zeroing
    assert i.operands[0] == Memory(base=R("rcx"), index=R("ymm0"), scale=8)


def test_avx512_broadcast():
    i = instr("vmulpd .LC2(%rip){1to8}, %zmm0, %zmm0")
    assert i.operands[0] == Memory(base=R("rip"), symbol=".LC2", broadcast="1to8")
    assert i.form_key == "vmulpd mem,zmm,zmm"


def test_avx512_rounding():
    i = instr("vaddpd {rn-sae}, %zmm1, %zmm2, %zmm3")
    assert i.rounding == "rn-sae"
    assert i.operands == (R("zmm1"), R("zmm2"), R("zmm3"))
    assert instr("vcmppd $1, {sae}, %zmm1, %zmm2, %k1{%k2}").rounding == "sae"


def test_mask_on_memory_destination():
    i = instr("vmovupd %zmm0, (%rax){%k1}")
    assert i.mask == R("k1") and i.operands[1] == Memory(base=R("rax"))


@pytest.mark.parametrize("text, mnemonic", [
    ("rep stosq", "rep stosq"),
    ("rep; movsb", "rep movsb"),
    ("lock addl $1, (%rax)", "lock addl"),
    ("lock; cmpxchgq %rcx, (%rdx)", "lock cmpxchgq"),
    ("notrack jmp *%rax", "jmp"),
    ("bnd ret", "ret"),
    ("rep ret", "ret"),
    ("data16 nopw %cs:0x0(%rax,%rax,1)", "nopw"),
    ("{vex} vpdpbusd %ymm1, %ymm2, %ymm3", "vpdpbusd"),
])
def test_prefixes(text, mnemonic):
    assert instr(text).mnemonic == mnemonic


def test_branch_targets():
    assert instr("jne .L3").operands == (Label(".L3"),)
    assert instr("call foo@PLT").operands == (Label("foo@PLT"),)
    assert instr("jb ..B1.4        # Prob 99%").operands == (Label("..B1.4"),)
    assert instr("jmp 1b").operands == (Label("1b"),)
    assert instr("jmp *%rax").operands == (R("rax"),)
    assert instr("jmp *.L4(,%rax,8)").operands == (Memory(index=R("rax"), scale=8,
                                                          symbol=".L4"),)
    assert instr("callq *8(%rax)").operands == (Memory(base=R("rax"), displacement=8),)
    assert instr("jne,pt .L3").mnemonic == "jne"


# --------------------------------------------------------------------------- other lines

def test_labels():
    src = ".L3:\n..B1.4:   # Preds ..B1.3\nmain:\nfoo$bar.1:\n1:\n.L5: incq %rax\n"
    lines = parse_x86(src)
    assert [ln.label for ln in lines] == [".L3", "..B1.4", "main", "foo$bar.1", "1", ".L5"]
    assert lines[1].comment == "Preds ..B1.3"
    assert lines[5].instruction.mnemonic == "incq"


@pytest.mark.parametrize("text, name, args", [
    ('.section .rodata,"a",@progbits', ".section", (".rodata", '"a"', "@progbits")),
    (".cfi_def_cfa_offset 16", ".cfi_def_cfa_offset", ("16",)),
    (".cfi_offset 6, -16", ".cfi_offset", ("6", "-16")),
    (".p2align 4,,10", ".p2align", ("4", "", "10")),
    (".type main,@function", ".type", ("main", "@function")),
    (".size\tsum, .-sum", ".size", ("sum", ".-sum")),
    (".globl\tmain", ".globl", ("main",)),
    (".long 0", ".long", ("0",)),
    (".quad .L4, .L5", ".quad", (".L4", ".L5")),
    (".byte 100,103,144", ".byte", ("100", "103", "144")),
    ('.string "x#y, z"', ".string", ('"x#y, z"',)),
    ('.ident\t"GCC: (Debian 12.2.0-14) 12.2.0"', ".ident", ('"GCC: (Debian 12.2.0-14) 12.2.0"',)),
    (".text", ".text", ()),
    (".align 16,0x90", ".align", ("16", "0x90")),
    (".loc 1 5 3", ".loc", ("1 5 3",)),
])
def test_directives(text, name, args):
    (line,) = parse_x86(text)
    assert line.directive == (name, args)
    assert line.instruction is None


def test_comments():
    lines = parse_x86("# OSACA-BEGIN\n"
                      "  addq %rax, %rbx   # icc: 5.3\n"
                      "  movl $1, %eax /* clang */ # more\n"
                      "/* a\n   b */ incq %rcx\n"
                      "\n")
    assert lines[0].comment == "OSACA-BEGIN" and lines[0].instruction is None
    assert lines[1].comment == "icc: 5.3" and lines[1].instruction.mnemonic == "addq"
    assert lines[2].instruction.operands == (Immediate(1), R("eax"))
    assert lines[2].comment == "clang more"
    assert lines[3].instruction is None and lines[3].comment == "a"
    assert lines[4].instruction.mnemonic == "incq"
    assert lines[5].comment is None and lines[5].instruction is None


def test_assignment_directive():
    (line,) = parse_x86("N = 100")
    assert line.directive == ("=", ("N", "100"))


@pytest.mark.parametrize("bad", [
    "addq %rax, %foo",
    "movl (%rax, %eax",
    "vaddpd %zmm1, %zmm2, %zmm3{%k9}",
    "addq %rax,, %rbx",
    "incq %rax; incq %rbx",
    "@@@",
    "vaddpd {1to8}%zmm0, %zmm1, %zmm2",
    "vaddpd %zmm1, %zmm2, %zmm3{%xmm1}",
    ".intel_syntax noprefix",
])
def test_unparseable_lines_report_location(bad):
    with pytest.raises(AssemblyError) as info:
        parse_x86(f".text\n{bad}\n", "kernel.s")
    assert str(info.value).startswith("kernel.s:2")


# --------------------------------------------------------------------------- real files

@pytest.mark.parametrize("name, n_instructions", [
    ("gcc12_O3_spr_kernels.s", None),
    ("clang14_O3_spr_kernels.s", None),
    ("two_loops_gcc12_O1.s", 24),
    ("triad_count_gcc12_O3_csx.s", None),
    ("icc_style_sample.s", None),
])
def test_real_samples_parse(name, n_instructions):
    text = (DATA / name).read_text()
    lines = parse_x86(text, name)
    assert len(lines) == len(text.splitlines())
    count = sum(1 for ln in lines if ln.instruction is not None)
    assert count > 0
    if n_instructions is not None:
        assert count == n_instructions


def test_gcc_sample_details():
    lines = parse_x86((DATA / "gcc12_O3_spr_kernels.s").read_text())
    by_text = {ln.text: ln for ln in lines}
    gather = by_text["vgatherdpd\t(%rcx,%xmm0,8), %ymm2{%k2}"].instruction
    assert gather.mask == R("k2")
    assert gather.operands[0].index == R("xmm0")
    clang = parse_x86((DATA / "clang14_O3_spr_kernels.s").read_text())
    gathers = [ln.instruction for ln in clang
               if ln.instruction and ln.instruction.mnemonic == "vgatherdpd"]
    assert len(gathers) == 4 and all(g.mask == R("k1") for g in gathers)


def _compile(tmp_path: Path, compiler: str, flags: list[str]) -> str:
    out = tmp_path / f"{compiler}{'_'.join(f.strip('-') for f in flags)}.s"
    subprocess.run([compiler, *flags, "-S", str(DATA / "many_loops.c"), "-o", str(out)],
                   check=True, capture_output=True)
    return out.read_text()


# Three representative builds keep the test under ~2 s; -march=cascadelake and
# -Ofast -march=znver3 output of the same file was checked when writing this.
@pytest.mark.parametrize("compiler, flags", [
    ("gcc", ["-O3", "-march=sapphirerapids"]),
    ("gcc", ["-O1"]),
    ("clang", ["-O3", "-march=sapphirerapids"]),
])
def test_generated_compiler_output_parses(tmp_path, compiler, flags):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    try:
        text = _compile(tmp_path, compiler, flags)
    except subprocess.CalledProcessError as exc:
        pytest.skip(f"{compiler} {' '.join(flags)} failed: {exc.stderr[:200]!r}")
    lines = parse_x86(text, "generated.s")
    assert len(lines) == len(text.splitlines())
    if flags[0] == "-O3" and compiler == "gcc":
        assert len(lines) >= 1500        # the "2,000-line real file" case
    assert sum(1 for ln in lines if ln.instruction) > 300


def test_quote_aware_scanning_shared_by_both_parsers():
    from kerncraft.incore.asmtext import find_unquoted, split_top_level, unquoted

    assert split_top_level('.ascii "a,b", 3') == ['.ascii "a,b"', "3"]
    assert split_top_level("8(%rax,%rbx,4), %xmm0") == ["8(%rax,%rbx,4)", "%xmm0"]
    assert split_top_level("[x0, #16]!, x1") == ["[x0, #16]!", "x1"]
    assert find_unquoted('.string "a#b" # c', "#") == 14
    assert find_unquoted("movb $'#, %al # c", "#") == 14     # gas character constant
    assert [i for i, _ in unquoted('a"\\"b"c')] == [0, 6]


# ------------------------------------------------------------ displacements (issue 29, 6)
# x86-64 encodes a signed 32-bit displacement; only movabs takes a 64-bit absolute
# address. Out-of-range values are assembler errors, located at the operand.

@pytest.mark.parametrize("line, message", [
    ("\tvmovupd -9223372036854775808(%rsi,%rax), %ymm0",
     "kernel.s:2:10: displacement -9223372036854775808 is out of range: x86-64 allows a "
     "signed 32-bit displacement: 'vmovupd -9223372036854775808(%rsi,%rax), %ymm0'"),
    ("movl 2147483648(%rax), %eax",
     "kernel.s:2:6: displacement 2147483648 is out of range: x86-64 allows a signed 32-bit "
     "displacement: 'movl 2147483648(%rax), %eax'"),
    ("  addq a+0x100000000(%rip), %rbx",
     "kernel.s:2:8: displacement 4294967296 is out of range: x86-64 allows a signed 32-bit "
     "displacement: 'addq a+0x100000000(%rip), %rbx'"),
    ("\tmovq 0x123456789, %rax",
     "kernel.s:2:7: displacement 4886718345 is out of range: x86-64 allows a signed 32-bit "
     "displacement (a 64-bit absolute address only with movabs): 'movq 0x123456789, %rax'"),
    ("movabsq 0x10000000000000000, %rax",
     "kernel.s:2:9: displacement 18446744073709551616 is out of range: x86-64 allows a 64-bit "
     "absolute address: 'movabsq 0x10000000000000000, %rax'"),
])
def test_out_of_range_displacements_are_located_errors(line, message):
    with pytest.raises(AssemblyError) as info:
        parse_x86(f".text\n{line}\n", "kernel.s")
    assert str(info.value) == message


def test_displacements_at_the_limits_are_accepted():
    lines = parse_x86("movl -2147483648(%rax), %eax\nmovl 2147483647(%rip), %eax\n"
                      "movabs 0xffffffffffffffff, %rax\nmovabsq -9223372036854775808, %rax\n")
    assert [ln.instruction.operands[0].displacement for ln in lines] == [
        -2**31, 2**31 - 1, 2**64 - 1, -2**63]


def test_columns_count_the_indentation():
    # the operand starts at column 10 of '\tvmovupd 8(...': the tab is a column
    with pytest.raises(AssemblyError) as info:
        parse_x86("\tvmovupd 8(%rsi,%rax,3), %ymm0\n", "k.s")
    assert str(info.value).startswith("k.s:1:10: scale must be 1, 2, 4 or 8")
