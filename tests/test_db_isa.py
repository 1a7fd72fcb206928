"""Each database's forms against its core's ISA (issue 28, item 2).

HSW and BDW extend Skylake-SP's file and inherited its AVX-512 forms (``kmovb``),
which Haswell and Broadwell cannot execute; A64FX and V2 lacked ``ld1sw`` and SVE
``fsqrt``. Now every database names its core's ISA extensions (header ``extensions``),
every form is classified (:mod:`kerncraft.incore.isa_extensions`), inherited forms of
missing extensions are dropped, and an instruction of one is refused with an error
naming the extension. The classifications below are the instruction-set manuals'
(Intel SDM vol. 2 "CPUID feature flag" of each instruction, Arm ARM); the classifier
was also checked against GNU as 2.40 ``-march=generic64+EXT`` and llvm-mc 16
``-mattr=+EXT`` on every bundled form (all agree, except ``endbr64``, a NOP on cores
without CET by design, kept in the base set).
"""
from __future__ import annotations

import pytest

from kerncraft.errors import KerncraftError, UnknownInstructionError
from kerncraft.incore.analysis import analyze_text, load_model
from kerncraft.incore.database import available_databases, load_database
from kerncraft.incore.isa_extensions import (expand_extensions, extensions_isa,
                                             form_extensions)


@pytest.mark.parametrize("form, needs", [
    ("kmovb k,r32", {"AVX512DQ"}),               # SDM: KMOVB, CPUID AVX512DQ
    ("kmovw k,r32", {"AVX512F"}),
    ("kmovd r32,k", {"AVX512BW"}),
    ("kaddw k,k,k", {"AVX512DQ"}),
    ("vaddpd zmm,zmm,zmm", {"AVX512F"}),
    ("vxorpd zmm,zmm,zmm", {"AVX512DQ"}),        # 512-bit FP logic is DQ, not F
    ("vpaddw zmm,zmm,zmm", {"AVX512BW"}),
    ("vpternlogd imm,ymm,ymm,ymm", {"AVX512F", "AVX512VL"}),   # EVEX on ymm: + VL
    ("vpmullq xmm,xmm,xmm", {"AVX512DQ", "AVX512VL"}),
    ("vrcp14sd xmm,xmm,xmm", {"AVX512F"}),       # scalar: no VL
    ("vextractf64x4 imm,zmm,ymm", {"AVX512F"}),  # a zmm operand: no VL
    ("vpdpbusd zmm,zmm,zmm", {"AVX512VNNI"}),
    ("vaddpd ymm,ymm,ymm", {"AVX"}),
    ("vpaddd ymm,ymm,ymm", {"AVX2"}),            # 256-bit integer op
    ("vpaddd xmm,xmm,xmm", {"AVX"}),
    ("vbroadcastsd xmm,ymm", {"AVX2"}),          # from a register; from memory: AVX
    ("vbroadcastsd mem,ymm", {"AVX"}),
    ("vfmadd231pd ymm,ymm,ymm", {"FMA"}),
    ("vcvtph2ps xmm,ymm", {"F16C"}),
    ("pmulld xmm,xmm", {"SSE4.1"}),
    ("addsd xmm,xmm", {"X86-64"}),
    ("tzcnt r64,r64", {"BMI1"}),
    ("shlx r64,r64,r64", {"BMI2"}),
    ("prefetchw mem", {"PRFCHW"}),
])
def test_x86_classification(form, needs):
    assert form_extensions("x86", form) == needs


@pytest.mark.parametrize("form, needs", [
    ("ld1sw zd,p,mem", "SVE"),
    ("fsqrt zd,p,zd", "SVE"),
    ("b.any lbl", "SVE"),              # SVE condition alias of b.ne
    ("whilege p,x,x", "SVE2"),         # whilelo is SVE, whilege SVE2
    ("whilelo p,x,x", "SVE"),
    ("fadd h,h,h", "FP16"),            # half-precision arithmetic: Armv8.2 FP16
    ("fadd v8h,v8h,v8h", "FP16"),
    ("fcvt s,h", "A64"),               # conversions between precisions: Armv8.0
    ("ldr h,mem", "A64"),
    ("ldapr x,mem", "RCPC"),           # Armv8.3
    ("fadd d,d,d", "A64"),
    ("bfi w,w,imm,imm", "A64"),        # bitfield insert, not BF16
])
def test_aarch64_classification(form, needs):
    assert form_extensions("aarch64", form) == {needs}


def test_levels():
    v3 = expand_extensions(["x86-64-v3"], "test")
    assert {"AVX2", "FMA", "BMI2", "SSE4.2", "X86-64"} <= v3 and "AVX512F" not in v3
    assert expand_extensions(["armv8.1-a"], "test") == {"A64", "CRC", "LSE", "RDM"}
    assert extensions_isa(expand_extensions(["SVE"], "test")) == "aarch64"
    with pytest.raises(KerncraftError, match="unknown ISA extension 'AVX1024'"):
        expand_extensions(["x86-64-v3", "AVX1024"], "test")
    with pytest.raises(KerncraftError, match="mixes x86 and AArch64"):
        expand_extensions(["AVX2", "SVE"], "test")


# What each core has and lacks (vendor documentation; gcc's -march=CPU flag sets).
CORES = {
    "SNB": ({"AVX", "SSE4.2", "AES"}, {"AVX2", "FMA", "F16C", "PRFCHW"}),
    "IVB": ({"AVX", "F16C"}, {"AVX2", "FMA"}),
    "HSW": ({"AVX2", "FMA", "BMI2", "F16C"}, {"AVX512F", "AVX512DQ", "ADX"}),
    "BDW": ({"AVX2", "FMA", "ADX", "PRFCHW"}, {"AVX512F", "AVX512DQ"}),
    "SKX": ({"AVX512F", "AVX512CD", "AVX512BW", "AVX512DQ", "AVX512VL"}, {"AVX512VNNI"}),
    "CSX": ({"AVX512DQ", "AVX512VNNI"}, {"AVX512VBMI"}),
    "ICX": ({"AVX512VBMI", "AVX512VNNI", "AVX512IFMA", "VAES"}, {"AVX512FP16"}),
    "SPR": ({"AVX512FP16", "AVX512BF16", "AVXVNNI"}, {"AVX512VP2INTERSECT"}),
    "ZEN": ({"AVX2", "FMA", "SHA", "SSE4A"}, {"AVX512F", "VAES"}),
    "ZEN2": ({"AVX2", "FMA"}, {"AVX512F", "VAES"}),
    "ZEN3": ({"AVX2", "VAES"}, {"AVX512F"}),
    "ZEN4": ({"AVX512F", "AVX512BW", "AVX512BF16", "AVX512VNNI"}, {"AVXVNNI"}),
    "ZEN5": ({"AVX512F", "AVX512VP2INTERSECT", "AVXVNNI"}, {"AVX512FP16"}),
    "TX2": ({"LSE", "CRC"}, {"SVE", "FP16", "RCPC"}),          # Armv8.1-A
    "A64FX": ({"SVE", "FP16"}, {"SVE2", "RCPC"}),               # Armv8.2-A + SVE
    "N1": ({"FP16", "DOTPROD", "RCPC"}, {"SVE"}),
    "V2": ({"SVE", "SVE2", "FP16", "BF16"}, set()),
}


def test_every_database_has_its_cores_extensions():
    assert sorted(CORES) == available_databases()     # a new database needs its row
    for arch, (has, lacks) in CORES.items():
        extensions = load_database(arch).extensions
        assert extensions is not None, arch
        assert has <= extensions and not lacks & extensions, arch


@pytest.mark.parametrize("arch", available_databases())
def test_no_form_outside_the_cores_isa(arch):
    model = load_database(arch)
    isa = extensions_isa(model.extensions)
    foreign = {key: sorted(form_extensions(isa, key) - model.extensions)
               for key in model.forms if not form_extensions(isa, key) <= model.extensions}
    assert foreign == {}


def test_haswell_and_broadwell_have_no_avx512_forms():
    assert load_database("SKX").has_form("kmovb k,r32")
    for arch in ("HSW", "BDW"):
        model = load_database(arch)
        assert not model.has_form("kmovb k,r32")
        assert not any("zmm" in key.split(",") or " k," in f" {key.partition(' ')[2]},"
                       for key in model.forms), arch
        # what Haswell has stays: its own FMA entry (HSW.yml, 5 cy on ports 0/1)
        assert model.lookup_form("vfmadd231pd ymm,ymm,ymm").latency == 5


LOOP_WITH_KMOVB = """\
.L3:
    vmovupd (%rsi,%rax), %ymm0
    kmovb %k1, %eax
    vaddpd (%rdx,%rax), %ymm0, %ymm0
    vmovupd %ymm0, (%rdi,%rax)
    addq $32, %rax
    cmpq %rcx, %rax
    jne .L3
"""


@pytest.mark.parametrize("arch", ["HSW", "BDW"])
def test_avx512_instruction_refused_by_name(arch):
    # refused also with ignore_unknown: the code was compiled for another core
    with pytest.raises(UnknownInstructionError) as info:
        analyze_text(LOOP_WITH_KMOVB, arch, filename="k.s", ignore_unknown=True)
    assert str(info.value) == (f"k.s:3: not in the {arch} database: 'kmovb k,r32' is "
                               f"AVX512DQ code, which the {arch} core does not have "
                               "(compiled for another core?)")


def test_unknown_form_of_the_cores_isa_is_still_just_unknown():
    # 'cpuid' is base x86-64 but in no table: counted as zero under ignore_unknown
    asm = LOOP_WITH_KMOVB.replace("kmovb %k1, %eax", "cpuid")
    result = analyze_text(asm, "HSW", ignore_unknown=True)
    assert result.unknown_forms == ("cpuid",)
    assert load_database("HSW").lookup_form("kmovb k,r32") is None   # tools probe forms


def test_loader_drops_inherited_and_refuses_own_foreign_forms(tmp_path):
    child = tmp_path / "AVX2ONLY.yml"
    child.write_text("extends: SKX\narch: AVX2ONLY\nextensions: [x86-64-v3]\n")
    model = load_database(child)
    assert not model.has_form("vaddpd zmm,zmm,zmm") and model.has_form("vaddpd ymm,ymm,ymm")
    bad = tmp_path / "BAD.yml"
    bad.write_text("extends: SKX\narch: BAD\nextensions: [x86-64-v3]\ninstruction_groups:\n"
                   "- source: test\n  forms:\n"
                   "    'kmov{w|b} k,r32': {uops: [[5]], lat: 1}\n")
    with pytest.raises(KerncraftError, match=r"'kmovw k,r32' is AVX512F code, which the BAD "
                                             r"core does not have \(drop the form"):
        load_database(bad)


# An SVE loop in gcc's style (hand-written): a load of words sign-extended to 64 bit
# (ld1sw) and a square root of doubles (fsqrt), the two forms A64FX and V2 lacked.
SVE_LOOP = """\
.L3:
    ld1sw   z1.d, p0/z, [x2, x0, lsl 2]
    ld1d    z0.d, p0/z, [x1, x0, lsl 3]
    fsqrt   z0.d, p0/m, z0.d
    st1d    z0.d, p0, [x3, x0, lsl 3]
    incd    x0
    whilelo p0.d, x0, x4
    b.any   .L3
"""


def test_a64fx_ld1sw_and_fsqrt():
    model = load_model("A64FX")
    # A64FX Microarchitecture Manual 1.8.1, Table 16-3: LD1SW 1 uop, latency 11, EAG*
    assert model.lookup_form("ld1sw zd,p,mem").load_latency == 11
    # Table 16-3: FSQRT <T>=D, VL 512: latency 154, operation blocking (E) on FLA
    fsqrt = model.lookup_form("fsqrt zd,p,zd")
    assert fsqrt.latency == 154
    result = analyze_text(SVE_LOOP, "A64FX")
    assert result.unknown_forms == ()
    # the unpipelined divider '0DV' holds each square root 154 cycles: 154 cy/it
    assert result.throughput == 154.0
    # loop-carried: only incd x0 -> incd x0 (1 cy; whilelo only feeds b.any and loads)
    assert result.lcd == 1.0


def test_v2_ld1sw_and_fsqrt():
    model = load_model("V2")
    # Neoverse V2 SWOG, SVE load instructions: contiguous load LD1SW latency 6 (L pipes)
    assert model.lookup_form("ld1sw zd,p,mem").load_latency == 6
    # SWOG, SVE floating-point: FSQRT F64 latency 16, V0/V2, divider busy 14 cycles
    assert model.lookup_form("fsqrt zd,p,zd").latency == 16
    result = analyze_text(SVE_LOOP, "V2")
    assert result.unknown_forms == ()
    # one square root per iteration, 14 cycles on one of the two dividers V0DV/V2DV:
    # balanced over both, 7 cy/it (the busiest other port: 2 loads on L0-L2 = 0.67)
    assert result.throughput == pytest.approx(7.0)
    assert result.lcd == 2.0                  # incd x0 on itself, 2 cy on V2


@pytest.mark.parametrize("arch", ["TX2", "N1"])
def test_sve_loop_refused_by_cores_without_sve(arch):
    with pytest.raises(UnknownInstructionError, match=f"is SVE code, which the {arch} core"):
        analyze_text(SVE_LOOP, arch, ignore_unknown=True)
