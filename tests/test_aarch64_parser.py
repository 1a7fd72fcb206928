"""Tests of the AArch64 parser and register tables (expectations by hand).

Recorded gcc/clang output (``data/asm_aarch64``) is parsed always; when the
cross compiler ``aarch64-linux-gnu-gcc`` is installed, every bundled kernel is
compiled through the pipeline's code generator at -O2 and -O3 for ThunderX2
and parsed as well.
"""
from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kerncraft.errors import AssemblyError
from kerncraft.incore import registers
from kerncraft.incore.aarch64 import A64Register, Condition, Shift, detect_isa, parse_aarch64
from kerncraft.incore.aarch64.parser import parse_operand
from kerncraft.incore.aarch64.semantics import dataflow
from kerncraft.incore.markers import extract_kernel, find_marked_region, select_kernel
from kerncraft.incore.model import Immediate, Label, Memory

DATA = Path(__file__).parent / "data" / "asm_aarch64"
KERNEL_DIR = Path(__file__).parents[1] / "kernels"
BUNDLED = sorted(p.stem for p in KERNEL_DIR.glob("*.c"))
CROSS = "aarch64-linux-gnu-gcc"
needs_cross = pytest.mark.skipif(shutil.which(CROSS) is None, reason=f"{CROSS} not installed")


def R(name: str, lane: str | None = None) -> A64Register:
    return A64Register(name, lane)


def instr(text: str):
    (line,) = parse_aarch64(text)
    assert line.instruction is not None, text
    return line.instruction


# --------------------------------------------------------------------------- registers

@pytest.mark.parametrize("name, cls, root, width", [
    ("x0", "x", "x0", 64), ("w0", "w", "x0", 32), ("x30", "x", "x30", 64),
    ("sp", "x", "sp", 64), ("wsp", "w", "sp", 32), ("xzr", "x", "xzr", 64),
    ("wzr", "w", "xzr", 32), ("v3", "v", "v3", 128), ("q3", "q", "v3", 128),
    ("d3", "d", "v3", 64), ("s3", "s", "v3", 32), ("h3", "h", "v3", 16),
    ("b3", "b", "v3", 8), ("z3", "z", "v3", 2048), ("p2", "p", "p2", 256),
    ("X7", "x", "x7", 64),
])
def test_register_table(name, cls, root, width):
    assert registers.register_class(name, "aarch64") == cls
    assert registers.alias_root(name, "aarch64") == root
    assert registers.register_width(name, "aarch64") == width


def test_sp_is_aarch64_only_with_the_isa_or_the_operand_class():
    assert registers.register_class("sp") == "r16"            # x86 first without an ISA
    assert registers.register_class("sp", "aarch64") == "x"
    assert R("sp").type == "x"


@pytest.mark.parametrize("reg, cls", [
    (R("v0", "2d"), "v2d"), (R("v1", "16b"), "v16b"), (R("v1", "d[1]"), "v.d"),
    (R("v2"), "v"), (R("z0", "d"), "zd"), (R("z0", "d[1]"), "z.d"), (R("p0", "/z"), "p"),
    (R("p1", "d"), "p"), (R("q0"), "q"), (R("w3"), "w"),
])
def test_operand_classes_include_the_arrangement(reg, cls):
    assert reg.type == cls


# --------------------------------------------------------------------------- operands

@pytest.mark.parametrize("text, expected", [
    ("x0", (R("x0"),)),
    ("V0.2D", (R("v0", "2d"),)),
    ("v1.d[1]", (R("v1", "d[1]"),)),
    ("z3.s", (R("z3", "s"),)),
    ("p0/z", (R("p0", "/z"),)),
    ("p1/m", (R("p1", "/m"),)),
    ("{v0.2d, v1.2d}", (R("v0", "2d"), R("v1", "2d"))),
    ("{v0.4s-v3.4s}", tuple(R(f"v{i}", "4s") for i in range(4))),
    ("{v31.2d-v1.2d}", (R("v31", "2d"), R("v0", "2d"), R("v1", "2d"))),
    ("{v0.d}[1]", (R("v0", "d[1]"),)),
    ("#16", (Immediate(16),)),
    ("16", (Immediate(16),)),
    ("-64", (Immediate(-64),)),
    ("#0x3ffffffffffffffc", (Immediate(0x3ffffffffffffffc),)),
    ("#1.0", (Immediate(1.0),)),
    ("2.5e+0", (Immediate(2.5),)),
    (":lo12:.LC0", (Immediate(None, ":lo12:.LC0"),)),
    ("lsl #3", (Shift("lsl", 3),)),
    ("lsl 24", (Shift("lsl", 24),)),
    ("sxtw", (Shift("sxtw"),)),
    ("[x0]", (Memory(base=R("x0")),)),
    ("[sp, 16]", (Memory(base=R("sp"), displacement=16),)),
    ("[x0, #-8]", (Memory(base=R("x0"), displacement=-8),)),
    ("[x0, #16]!", (Memory(base=R("x0"), displacement=16, pre_index=True),)),
    ("[x1, x2, lsl #3]", (Memory(base=R("x1"), index=R("x2"), scale=8),)),
    ("[x1, w2, sxtw #3]", (Memory(base=R("x1"), index=R("w2"), scale=8),)),
    ("[x1, w2, uxtw]", (Memory(base=R("x1"), index=R("w2")),)),
    ("[x19, x2]", (Memory(base=R("x19"), index=R("x2")),)),
    ("[x0, #:lo12:.LC0]", (Memory(base=R("x0"), symbol=":lo12:.LC0"),)),
    ("[x0, #1, mul vl]", (Memory(base=R("x0"), displacement=1, symbol="mul vl"),)),
])
def test_parse_operand(text, expected):
    assert parse_operand(text) == expected


def test_bare_symbols_depend_on_the_instruction():
    assert parse_operand(".L4", "branch") == (Label(".L4"),)
    assert parse_operand("1b", "branch") == (Label("1b"),)
    assert parse_operand(".LC0", "memory") == (Memory(symbol=".LC0"),)
    assert parse_operand("ne", "cond") == (Condition("ne"),)
    assert parse_operand("pldl1keep") == (Immediate(None, "pldl1keep"),)
    assert parse_operand("=0x1234", "memory") == (Memory(symbol="=0x1234"),)   # literal pool
    assert parse_operand(".LC0+8", "memory") == (Memory(symbol=".LC0+8"),)
    assert parse_operand("a+16") == (Immediate(None, "a+16"),)


def test_post_index_is_folded_into_the_memory_operand():
    ins = instr("ldr q24, [x22], 32")
    assert ins.operands == (R("q24"), Memory(base=R("x22"), post_index=32))
    assert ins.form_key == "ldr q,mem"
    ins = instr("ldp x29, x30, [sp], #80")
    assert ins.operands[2] == Memory(base=R("sp"), post_index=80)
    ins = instr("ld1 {v0.2d}, [x0], x2")          # register post-increment
    assert ins.operands == (R("v0", "2d"), Memory(base=R("x0"), post_index=0), R("x2"))
    ins = instr("stp x29, x30, [sp, -80]!")
    assert ins.operands[2] == Memory(base=R("sp"), displacement=-80, pre_index=True)


@pytest.mark.parametrize("text, key", [
    ("fmla v0.2d, v1.2d, v3.2d", "fmla v2d,v2d,v2d"),
    ("fmla v0.2d, v1.2d, v2.d[1]", "fmla v2d,v2d,v.d"),
    ("dup v3.2d, v2.d[0]", "dup v2d,v.d"),
    ("ldr q1, [x19, x2]", "ldr q,mem"),
    ("ldp d0, d1, [x1, #16]", "ldp d,d,mem"),
    ("add x0, x1, x2, lsl #3", "add x,x,x,lsl"),
    ("add x0, x1, w2, sxtw", "add x,x,w,sxtw"),
    ("sbfiz x1, x1, 3, 32", "sbfiz x,x,imm,imm"),
    ("csel x0, x1, x2, ne", "csel x,x,x,cc"),
    ("cset w0, eq", "cset w,cc"),
    ("bne .L4", "bne lbl"),
    ("b.ne .LBB0_6", "b.ne lbl"),
    ("tbz x23, 0, .L2", "tbz x,imm,lbl"),
    ("cbnz w3, 1b", "cbnz w,lbl"),
    ("ret", "ret"),
    ("movi v0.4s, 0x3f, lsl 24", "movi v4s,imm,lsl"),
    ("fmov d0, 2.5e+0", "fmov d,imm"),
    ("adrp x0, .LC0", "adrp x,imm"),
    ("ldr d0, .LC0", "ldr d,mem"),
    ("prfm pldl1keep, [x0, 64]", "prfm imm,mem"),
    ("ld1 {v0.2d, v1.2d}, [x0], #32", "ld1 v2d,v2d,mem"),
    ("st1 {v0.d}[1], [x0]", "st1 v.d,mem"),
    ("ld1d z0.d, p0/z, [x0, x1, lsl #3]", "ld1d zd,p,mem"),
    ("fmla z0.d, p0/m, z1.d, z2.d", "fmla zd,p,zd,zd"),
    ("whilelo p0.d, x1, x2", "whilelo p,x,x"),
])
def test_form_keys(text, key):
    assert instr(text).form_key == key


# --------------------------------------------------------------------------- lines

def test_labels_directives_and_comments():
    src = "\n".join([
        "\t.arch armv8.1-a+crypto+crc",
        "\t.section\t.text.startup,\"ax\",@progbits",
        "\t.type\tmain, %function",
        "main:",
        ".LFB5:\t// function start",
        "\t.cfi_offset 29, -80",
        "1:\tadd\tx0, x0, #1 // count",
        "# a gas comment line",
        "\tsub x1, x1, #1 /* block",
        "   still the block */ add x2, x2, #1",
        "",
        "\tb.ne\t1b",
    ])
    lines = parse_aarch64(src)
    assert lines[0].directive == (".arch", ("armv8.1-a+crypto+crc",))
    assert lines[1].directive == (".section", (".text.startup", '"ax"', "@progbits"))
    assert lines[2].directive == (".type", ("main", "%function"))
    assert lines[3].label == "main" and lines[3].instruction is None
    assert lines[4].label == ".LFB5" and lines[4].comment == "function start"
    assert lines[5].directive == (".cfi_offset", ("29", "-80"))
    assert lines[6].label == "1" and lines[6].instruction.mnemonic == "add"
    assert lines[6].comment == "count"
    assert lines[7].instruction is None and lines[7].comment == "a gas comment line"
    assert lines[8].instruction.mnemonic == "sub" and lines[8].comment == "block"
    assert lines[9].instruction.mnemonic == "add" and lines[9].comment == "still the block"
    assert lines[10].instruction is None and lines[10].text == ""
    assert lines[11].instruction.operands == (Label("1b"),)
    assert [ln.line_number for ln in lines] == list(range(1, 13))


def test_comment_and_byte_markers_select_the_region():
    body = "\tldr d0, [x1], #8\n\tfadd d1, d1, d0\n"
    src = f"\tmov x2, #0\n// OSACA-BEGIN\n{body}// OSACA-END\n\tret\n"
    assert [i.mnemonic for i in extract_kernel(parse_aarch64(src), None, dataflow)] == \
        ["ldr", "fadd"]
    src = ("\tmov x1, #111\n\t.byte 213,3,32,31\n" + body
           + "\tmov x1, #222\n\t.byte 213,3,32,31\n\tret\n")
    lines = parse_aarch64(src)
    assert find_marked_region(lines) == (2, 4)
    assert len(extract_kernel(lines, None, dataflow)) == 2


def test_backward_conditional_branches_make_loops():
    src = ".L3:\n\tldr q0, [x0], 16\n\tsubs x2, x2, #1\n\tbne .L3\n" \
          ".LBB0_6:\n\tldp q1, q2, [x1]\n\tcbnz x3, .LBB0_6\n"
    lines = parse_aarch64(src)
    # both innermost with one vector instruction each: the longer one wins
    assert select_kernel(lines, None, dataflow).label == ".L3"


@pytest.mark.parametrize("text, fragment", [
    ("\tadd x0, x31, #1", "unknown register 'x31'"),
    ("\tfadd v40.2d, v1.2d, v2.2d", "unknown register 'v40'"),
    ("\tldr x0, [#8]", "memory base must be a register"),
    ("\tadd x0, x0, #1 ; add x1, x1, #1", "several statements"),
    ("\tldr x0, [x1", "unbalanced memory operand"),
    ("\tadd x0, x1, @x", "cannot parse operand"),
])
def test_errors_name_the_line(text, fragment):
    with pytest.raises(AssemblyError, match=fragment) as info:
        parse_aarch64("\tnop\n" + text + "\n", filename="k.s")
    assert info.value.location.line == 2
    assert info.value.location.file == "k.s"


def test_detect_isa():
    assert detect_isa("\tmovq %rax, %rbx\n") == "x86"
    assert detect_isa("\tldr x0, [x1]\n") == "aarch64"
    assert detect_isa("\t.arch armv8-a\n") == "aarch64"
    assert detect_isa((DATA / "triad_clang14_O3_tx2.s").read_text()) == "aarch64"
    assert detect_isa("") == "x86"


# --------------------------------------------------------------------------- real output

RECORDED = sorted(p.name for p in DATA.glob("*.s"))


def _check_complete(text: str, name: str) -> list:
    """Every line parses; every code line is an instruction, directive or label."""
    lines = parse_aarch64(text, filename=name)
    assert len(lines) == len(text.splitlines())
    for ln in lines:
        code = ln.text.split("//", 1)[0].strip()
        if code and not code.startswith("#"):
            assert ln.instruction or ln.directive or ln.label, ln.text
        if ln.instruction is not None:
            assert ln.instruction.form_key
    return lines


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_files_parse_completely(name):
    lines = _check_complete((DATA / name).read_text(), name)
    kernel = extract_kernel(lines, name, dataflow)
    assert kernel and any(i.mnemonic.startswith(("b", "cb")) for i in kernel[-1:])


def test_recorded_main_loop_of_gcc_triad():
    lines = parse_aarch64((DATA / "triad_gcc12_O3_tx2.s").read_text())
    kernel = extract_kernel(lines, None, dataflow)
    assert [i.text.split()[0] for i in kernel] == ["ldr", "ldr", "fmla", "str", "add", "cmp",
                                                   "bne"]


@pytest.fixture(scope="module")
def cross_compiled() -> dict:
    """gcc -O2/-O3 -mcpu=thunderx2t99 output of every bundled kernel, through the
    pipeline's code generator and compiler driver (compiled in parallel)."""
    from kerncraft.compilation.codegen import generate_c
    from kerncraft.compilation.compiler import compile_to_assembly
    from kerncraft.kernel.parser import parse_kernel

    def one(job):
        name, opt = job
        kernel = parse_kernel((KERNEL_DIR / f"{name}.c").read_text(), f"{name}.c")
        flags = f"{opt} -mcpu=thunderx2t99 -ffreestanding"
        return job, compile_to_assembly(generate_c(kernel), CROSS, flags).assembly

    jobs = [(k, o) for k in BUNDLED for o in ("-O2", "-O3")]
    with ThreadPoolExecutor(4) as pool:
        return dict(pool.map(one, jobs))


@needs_cross
@pytest.mark.parametrize("opt", ["-O2", "-O3"])
@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_kernel_parses(cross_compiled, name, opt):
    text = cross_compiled[name, opt]
    assert detect_isa(text) == "aarch64"
    lines = _check_complete(text, f"{name}{opt}.s")
    assert extract_kernel(lines, name, dataflow)
