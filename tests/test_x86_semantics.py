"""Tests of x86 data-flow semantics: every exception-table entry by hand."""
from __future__ import annotations

import pytest

from kerncraft.incore.model import Memory, Register
from kerncraft.incore.x86 import tables
from kerncraft.incore.x86.parser import parse_x86
from kerncraft.incore.x86.semantics import (condition_code, dataflow, mnemonic_core,
                                            operand_access)

ALL = {"flag.c", "flag.z", "flag.s", "flag.o", "flag.p", "flag.a"}


def flow(text: str):
    (line,) = parse_x86(text)
    assert line.instruction is not None
    return dataflow(line.instruction)


def check(text, sources, dests, address=(), reads=0, writes=0, breaks=False):
    f = flow(text)
    assert f.sources == frozenset(sources), text
    assert f.destinations == frozenset(dests), text
    assert f.address_sources == frozenset(address), text
    assert len(f.memory_reads) == reads, text
    assert len(f.memory_writes) == writes, text
    assert f.breaks_dependency == breaks, text
    return f


# --------------------------------------------------------------------------- defaults

def test_two_operand_arithmetic_reads_destination():
    check("addq $8, %rax", {"rax"}, {"rax"} | ALL)
    check("subl %ecx, %eax", {"rcx", "rax"}, {"rax"} | ALL)
    check("imulq %rbx, %rax", {"rbx", "rax"}, {"rax"} | ALL)
    check("shlq $3, %rdx", {"rdx"}, {"rdx"} | ALL)
    check("addpd %xmm1, %xmm0", {"v1", "v0"}, {"v0"})


def test_moves_write_only():
    check("movq %rbx, %rax", {"rbx"}, {"rax"})
    check("movl $1, %eax", set(), {"rax"})               # 32-bit write zero-extends
    check("movslq %edi, %rdi", {"rdi"}, {"rdi"})
    check("movzbl (%rax), %ecx", set(), {"rcx"}, {"rax"}, reads=1)
    check("movapd %xmm1, %xmm0", {"v1"}, {"v0"})
    check("cvtdq2pd %xmm1, %xmm0", {"v1"}, {"v0"})
    check("vmovupd (%rsi,%rax,8), %ymm1", set(), {"v1"}, {"rsi", "rax"}, reads=1)


def test_vex_three_operand_writes_only_last():
    check("vaddpd %ymm1, %ymm2, %ymm3", {"v1", "v2"}, {"v3"})
    check("vmulsd (%rax), %xmm2, %xmm3", {"v2"}, {"v3"}, {"rax"}, reads=1)
    check("vcvtsi2sdl %eax, %xmm1, %xmm2", {"rax", "v1"}, {"v2"})


def test_store():
    check("vmovupd %ymm0, (%rdi,%rax)", {"v0"}, set(), {"rdi", "rax"}, writes=1)
    check("movq %rax, -8(%rsp)", {"rax"}, set(), {"rsp"}, writes=1)


def test_rmw_memory_destination():
    f = check("addl %eax, (%rdx)", {"rax"}, ALL, {"rdx"}, reads=1, writes=1)
    assert f.memory_reads[0] == f.memory_writes[0] == Memory(base=Register("rdx"))
    check("incl 8(%rax)", set(), ALL - {"flag.c"}, {"rax"}, reads=1, writes=1)


def test_rip_relative_has_no_address_register():
    check("vmovsd .LC0(%rip), %xmm0", set(), {"v0"}, reads=1)


def test_lea_reads_address_registers_as_sources():
    check("leaq 8(%rax,%rbx,4), %rcx", {"rax", "rbx"}, {"rcx"})
    check("leaq a(%rip), %rsi", set(), {"rsi"})


# --------------------------------------------------------------------------- exceptions

@pytest.mark.parametrize("text, sources", [
    ("cmpq %rax, %rbx", {"rax", "rbx"}),
    ("testl %eax, %eax", {"rax"}),
    ("btq $3, %rax", {"rax"}),
    ("ucomisd %xmm1, %xmm0", {"v1", "v0"}),
    ("comisd %xmm1, %xmm0", {"v1", "v0"}),
    ("vucomisd %xmm1, %xmm0", {"v1", "v0"}),
    ("vptest %ymm1, %ymm0", {"v1", "v0"}),
])
def test_compares_write_only_flags(text, sources):
    f = flow(text)
    assert f.sources == frozenset(sources)
    assert f.destinations <= frozenset(ALL) and f.destinations
    assert not any(k.startswith(("r", "v")) for k in f.destinations)


def test_cmp_with_memory():
    check("cmpl $0, (%rdi,%rax,4)", set(), ALL, {"rdi", "rax"}, reads=1)


def test_bt_leaves_zf():
    assert flow("btl %ecx, %eax").destinations == frozenset(ALL - {"flag.z"})


@pytest.mark.parametrize("mnemonic", ["vfmadd132pd", "vfmadd213pd", "vfmadd231pd",
                                      "vfmsub231pd", "vfnmadd231pd", "vfnmsub213pd",
                                      "vfmaddsub231pd", "vfmadd231sd"])
def test_fma_reads_destination(mnemonic):
    check(f"{mnemonic} %ymm1, %ymm2, %ymm3", {"v1", "v2", "v3"}, {"v3"})


def test_fma_with_memory_source():
    check("vfmadd213pd (%rdx,%rax), %ymm2, %ymm1", {"v2", "v1"}, {"v1"}, {"rdx", "rax"},
          reads=1)


def test_fma4_is_nondestructive():
    check("vfmaddpd %ymm1, %ymm2, %ymm3, %ymm4", {"v1", "v2", "v3"}, {"v4"})


@pytest.mark.parametrize("text, sources, dests", [
    ("vpdpbusd %zmm1, %zmm2, %zmm3", {"v1", "v2", "v3"}, {"v3"}),
    ("vpermt2pd %zmm1, %zmm2, %zmm3", {"v1", "v2", "v3"}, {"v3"}),
    ("vpternlogd $0x96, %zmm1, %zmm2, %zmm3", {"v1", "v2", "v3"}, {"v3"}),
])
def test_vex_accumulators(text, sources, dests):
    check(text, sources, dests)


@pytest.mark.parametrize("text, flags", [
    ("cmovneq %rbx, %rax", {"flag.z"}),
    ("cmovl %ecx, %eax", {"flag.s", "flag.o"}),
    ("cmovael %ecx, %eax", {"flag.c"}),
    ("cmovgq %rcx, %rax", {"flag.z", "flag.s", "flag.o"}),
])
def test_cmov_reads_flags_and_destination(text, flags):
    f = flow(text)
    assert f.sources == frozenset({"rax", "rcx" if "rcx" in text or "ecx" in text else "rbx"}
                                  | flags)
    assert f.destinations == {"rax"}


def test_setcc_reads_flags_and_partial_register():
    check("setne %al", {"flag.z", "rax"}, {"rax"})
    check("setb (%rdi)", {"flag.c"}, set(), {"rdi"}, writes=1)
    check("seta %cl", {"flag.c", "flag.z", "rcx"}, {"rcx"})


@pytest.mark.parametrize("branch, flags", [
    ("jne", {"flag.z"}), ("je", {"flag.z"}), ("jl", {"flag.s", "flag.o"}),
    ("jge", {"flag.s", "flag.o"}), ("jb", {"flag.c"}), ("jae", {"flag.c"}),
    ("ja", {"flag.c", "flag.z"}), ("jbe", {"flag.c", "flag.z"}),
    ("jg", {"flag.z", "flag.s", "flag.o"}), ("jle", {"flag.z", "flag.s", "flag.o"}),
    ("js", {"flag.s"}), ("jo", {"flag.o"}), ("jp", {"flag.p"}), ("jnp", {"flag.p"}),
])
def test_jcc_reads_condition_flags(branch, flags):
    check(f"{branch} .L3", flags, set())


def test_jmp_reads_nothing_but_its_target():
    check("jmp .L3", set(), set())
    check("jmp *%rax", {"rax"}, set())
    check("jmp *.L4(,%rax,8)", set(), set(), {"rax"}, reads=1)


def test_adc_sbb_read_carry():
    check("adcq %rbx, %rax", {"rbx", "rax", "flag.c"}, {"rax"} | ALL)
    check("sbbq $0, %rdx", {"rdx", "flag.c"}, {"rdx"} | ALL)


def test_adc_chain_is_carried_through_cf():
    """SUACA thesis (002, Sect. 4.3): adc rax..r11 look independent, but each adc
    reads the CF the previous one wrote, so the chain is serial."""
    regs = ["rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11"]
    flows = [flow(f"adcq $1, %{r}") for r in regs]
    for prev, cur in zip(flows + flows[:1], flows[1:] + flows[:1]):
        assert "flag.c" in prev.destinations and "flag.c" in cur.sources
        # the only key linking consecutive adcs is the carry flag
        assert (prev.destinations & cur.sources) == {"flag.c"}


def test_adx():
    check("adcxq %rbx, %rax", {"rbx", "rax", "flag.c"}, {"rax", "flag.c"})
    check("adoxq %rbx, %rax", {"rbx", "rax", "flag.o"}, {"rax", "flag.o"})


def test_inc_dec_keep_carry():
    check("incq %rax", {"rax"}, {"rax"} | (ALL - {"flag.c"}))
    check("decl %ecx", {"rcx"}, {"rcx"} | (ALL - {"flag.c"}))
    check("negq %rax", {"rax"}, {"rax"} | ALL)
    check("notq %rax", {"rax"}, {"rax"})


def test_shift_by_cl_reads_flags():
    check("shlq %cl, %rax", {"rcx", "rax"} | ALL, {"rax"} | ALL)
    check("rolq $3, %rax", {"rax"}, {"rax", "flag.c", "flag.o"})
    check("rclq $1, %rax", {"rax", "flag.c"}, {"rax", "flag.c", "flag.o"})


@pytest.mark.parametrize("text, sources, dests", [
    ("divq %rcx", {"rax", "rdx", "rcx"}, {"rax", "rdx"}),
    ("idivl %ecx", {"rax", "rdx", "rcx"}, {"rax", "rdx"}),
    ("divb %cl", {"rax", "rcx"}, {"rax"}),
    ("mulq %rcx", {"rax", "rcx"}, {"rax", "rdx"}),
    ("imulq %rcx", {"rax", "rcx"}, {"rax", "rdx"}),
    ("mulw %cx", {"rax", "rdx", "rcx"}, {"rax", "rdx"}),
])
def test_implicit_rax_rdx(text, sources, dests):
    check(text, sources, dests | ALL)


def test_div_memory_operand():
    check("divl (%rsi)", {"rax", "rdx"}, {"rax", "rdx"} | ALL, {"rsi"}, reads=1)


def test_imul_three_operand_writes_only():
    check("imulq $24, %rsi, %rax", {"rsi"}, {"rax"} | ALL)


@pytest.mark.parametrize("text, sources, dests", [
    ("cqto", {"rax"}, {"rdx"}), ("cqo", {"rax"}, {"rdx"}),
    ("cltd", {"rax"}, {"rdx"}), ("cdq", {"rax"}, {"rdx"}),
    ("cltq", {"rax"}, {"rax"}), ("cdqe", {"rax"}, {"rax"}),
    ("cwtl", {"rax"}, {"rax"}), ("cbtw", {"rax"}, {"rax"}),
    ("cwtd", {"rax", "rdx"}, {"rdx"}),
])
def test_sign_extensions(text, sources, dests):
    check(text, sources, dests)


def test_push_pop_call_ret():
    f = check("pushq %rbx", {"rbx", "rsp"}, {"rsp"}, {"rsp"}, writes=1)
    assert f.memory_writes[0] == Memory(base=Register("rsp"), displacement=-8)
    check("popq %rbx", {"rsp"}, {"rbx", "rsp"}, {"rsp"}, reads=1)
    check("call foo@PLT", {"rsp"}, {"rsp"}, {"rsp"}, writes=1)
    check("ret", {"rsp"}, {"rsp"}, {"rsp"}, reads=1)
    check("leave", {"rbp"}, {"rsp", "rbp"}, {"rbp"}, reads=1)


@pytest.mark.parametrize("text, root, dest", [
    ("xorl %eax, %eax", "rax", "rax"),
    ("xorq %r8, %r8", "r8", "r8"),
    ("subl %ecx, %ecx", "rcx", "rcx"),
    ("pxor %xmm0, %xmm0", "v0", "v0"),
    ("xorps %xmm1, %xmm1", "v1", "v1"),
    ("xorpd %xmm2, %xmm2", "v2", "v2"),
    ("vxorpd %xmm0, %xmm0, %xmm0", "v0", "v0"),
    ("vxorps %ymm3, %ymm3, %ymm3", "v3", "v3"),
    ("vpxor %xmm1, %xmm1, %xmm2", "v1", "v2"),
    ("vpxord %zmm4, %zmm4, %zmm4", "v4", "v4"),
    ("vpsubd %ymm1, %ymm1, %ymm1", "v1", "v1"),
    ("psubq %xmm5, %xmm5", "v5", "v5"),
    ("pcmpgtd %xmm1, %xmm1", "v1", "v1"),
    ("pcmpeqd %xmm1, %xmm1", "v1", "v1"),        # all-ones idiom
    ("vpcmpeqb %ymm7, %ymm7, %ymm7", "v7", "v7"),
])
def test_zero_and_ones_idioms(text, root, dest):
    f = flow(text)
    assert f.breaks_dependency
    assert root not in f.sources and dest in f.destinations
    assert not (f.sources - ALL)


def test_sbb_same_register_depends_on_carry_only():
    f = flow("sbbl %eax, %eax")
    assert f.breaks_dependency and f.sources == {"flag.c"}


@pytest.mark.parametrize("text", [
    "xorl %eax, %ebx",                  # different registers
    "xorb %al, %al",                    # partial register: merges into rax
    "vxorpd (%rax), %xmm0, %xmm0",      # memory source
    "vpxord %zmm1, %zmm1, %zmm1{%k1}",  # merge masking keeps old elements
    "vpcmpeqd %zmm1, %zmm1, %k1",       # into a mask register
])
def test_not_idioms(text):
    assert not flow(text).breaks_dependency


def test_partial_register_writes():
    check("movb $1, %al", {"rax"}, {"rax"})
    check("movw %cx, %ax", {"rcx", "rax"}, {"rax"})
    check("movb %al, %ah", {"rax"}, {"rax"})
    check("movl %ecx, %eax", {"rcx"}, {"rax"})
    check("movzbl %al, %eax", {"rax"}, {"rax"})


def test_legacy_sse_partial_writes_merge():
    check("cvtsi2sdl %eax, %xmm0", {"rax", "v0"}, {"v0"})      # false dependency
    check("sqrtsd %xmm1, %xmm0", {"v1", "v0"}, {"v0"})
    check("movsd %xmm1, %xmm0", {"v1", "v0"}, {"v0"})
    check("movsd (%rax), %xmm0", set(), {"v0"}, {"rax"}, reads=1)   # load zeroes
    check("movsd %xmm1, (%rax)", {"v1"}, set(), {"rax"}, writes=1)
    check("movhpd 8(%rax), %xmm0", {"v0"}, {"v0"}, {"rax"}, reads=1)
    check("vmovsd %xmm1, %xmm2, %xmm3", {"v1", "v2"}, {"v3"})      # VEX: explicit


def test_avx512_masking():
    check("vaddpd %zmm1, %zmm2, %zmm3{%k1}", {"v1", "v2", "v3", "k1"}, {"v3"})
    check("vaddpd %zmm1, %zmm2, %zmm3{%k1}{z}", {"v1", "v2", "k1"}, {"v3"})
    check("vcmppd $1, %zmm1, %zmm2, %k1{%k2}", {"v1", "v2", "k2"}, {"k1"})
    check("vmovupd %zmm0, (%rax){%k1}", {"v0", "k1"}, set(), {"rax"}, writes=1)
    check("vmovupd (%rax), %zmm0{%k1}{z}", {"k1"}, {"v0"}, {"rax"}, reads=1)


def test_gathers_and_scatters_clear_their_mask():
    check("vgatherdpd (%rcx,%ymm0,8), %zmm2{%k2}", {"k2", "v2"}, {"k2", "v2"},
          {"rcx", "v0"}, reads=1)
    check("vgatherdpd %ymm5, (%rcx,%xmm0,8), %ymm2", {"v5", "v2"}, {"v5", "v2"},
          {"rcx", "v0"}, reads=1)
    check("vscatterqpd %ymm11, (%r12,%ymm12) {%k1}", {"v11", "k1"}, {"k1"},
          {"r12", "v12"}, writes=1)


def test_exchange_instructions():
    check("xchgq %rax, %rbx", {"rax", "rbx"}, {"rax", "rbx"})
    check("lock xaddl %eax, (%rdx)", {"rax"}, {"rax"} | ALL, {"rdx"}, reads=1, writes=1)
    check("lock cmpxchgq %rcx, (%rdx)", {"rcx", "rax"}, {"rax"} | ALL, {"rdx"},
          reads=1, writes=1)


def test_string_instructions():
    check("rep stosq", {"rax", "rdi", "rcx"}, {"rdi", "rcx"}, {"rdi"}, writes=1)
    check("rep movsb", {"rsi", "rdi", "rcx"}, {"rsi", "rdi", "rcx"}, {"rsi", "rdi"},
          reads=1, writes=1)
    check("movsq", {"rsi", "rdi"}, {"rsi", "rdi"}, {"rsi", "rdi"}, reads=1, writes=1)
    check("movsd", {"rsi", "rdi"}, {"rsi", "rdi"}, {"rsi", "rdi"}, reads=1, writes=1)
    check("repe cmpsb", {"rsi", "rdi", "rcx"}, {"rsi", "rdi", "rcx"} | ALL, {"rsi", "rdi"},
          reads=2)
    check("cmpsd", {"rsi", "rdi"}, {"rsi", "rdi"} | ALL, {"rsi", "rdi"}, reads=2)
    check("cmpsd $1, %xmm1, %xmm0", {"v1", "v0"}, {"v0"})     # the SSE compare


def test_no_effect_instructions():
    check("nopw 0(%rax,%rax,1)", set(), set())
    check("vzeroupper", set(), set())
    check("prefetcht0 64(%rax)", set(), set(), {"rax"})


def test_bmi_and_misc():
    check("mulx %rcx, %rbx, %rax", {"rcx", "rdx"}, {"rbx", "rax"})
    check("andnq %rax, %rbx, %rcx", {"rax", "rbx"}, {"rcx"} | ALL)
    check("shlxq %rax, %rbx, %rcx", {"rax", "rbx"}, {"rcx"})
    check("popcntq %rax, %rbx", {"rax"}, {"rbx"} | ALL)
    check("kmovw %k1, %eax", {"k1"}, {"rax"})
    check("kandw %k1, %k2, %k3", {"k1", "k2"}, {"k3"})
    check("kortestw %k1, %k1", {"k1"}, ALL)
    check("blendvpd %xmm0, %xmm1, %xmm2", {"v0", "v1", "v2"}, {"v2"})
    check("rdtsc", set(), {"rax", "rdx"})
    check("crc32b %al, %ecx", {"rax", "rcx"}, {"rcx"})


# --------------------------------------------------------------------------- helpers

@pytest.mark.parametrize("mnemonic, core", [
    ("addq", "add"), ("lock xaddl", "xadd"), ("movzbl", "movzx"), ("movslq", "movsx"),
    ("kmovw", "kmov"), ("kmovd", "kmov"), ("vaddpd", "vaddpd"), ("cmovl", "cmovl"),
    ("setb", "setb"), ("psubb", "psubb"), ("pextrq", "pextrq"), ("cvtsi2sdq", "cvtsi2sd"),
    ("nopw", "nop"), ("retq", "ret"), ("shlxq", "shlx"), ("rep stosq", "stos"),
])
def test_mnemonic_core(mnemonic, core):
    assert mnemonic_core(mnemonic) == core


@pytest.mark.parametrize("core, expected", [
    ("jne", ("j", "ne")), ("jmp", None), ("cmovgeq", ("cmov", "ge")),
    ("cmovl", ("cmov", "l")), ("cmovll", ("cmov", "l")), ("setb", ("set", "b")),
    ("setnae", ("set", "nae")), ("jrcxz", None),
])
def test_condition_code(core, expected):
    assert condition_code(core) == expected


def test_operand_access():
    (line,) = parse_x86("vfmadd231pd (%rax), %ymm1, %ymm2")
    assert operand_access(line.instruction) == ("r", "r", "rw")
    (line,) = parse_x86("leaq 8(%rax), %rbx")
    assert operand_access(line.instruction) == ("lea", "w")


def test_tables_are_consistent():
    """Every flag reader table entry names real flag keys; no mnemonic is both a
    pure compare and a pure write."""
    for flags in list(tables.FLAG_WRITES.values()) + list(tables.FLAG_READS.values()):
        assert flags <= tables.ALL_FLAGS
    assert not (tables.READ_ONLY & tables.WRITE_ONLY)
