"""What AArch64 instructions read and write (expectations from the Arm ARM, by hand)."""
from __future__ import annotations

import pytest

from kerncraft.incore.aarch64 import dataflow, operand_access, parse_aarch64

N, Z, C, V = "flag.n", "flag.z", "flag.c", "flag.v"
NZCV = {N, Z, C, V}


def flow(text: str):
    (line,) = parse_aarch64(text)
    assert line.instruction is not None, text
    return dataflow(line.instruction)


def keys(text: str) -> tuple[set, set, set]:
    f = flow(text)
    return set(f.sources), set(f.destinations), set(f.address_sources)


# ------------------------------------------------------------------- loads / stores

def test_plain_load_reads_its_address_registers():
    src, dst, addr = keys("ldr d0, [x1, x2, lsl #3]")
    assert (src, dst, addr) == (set(), {"v0"}, {"x1", "x2"})
    assert len(flow("ldr d0, [x1, x2, lsl #3]").memory_reads) == 1


@pytest.mark.parametrize("text", ["ldr d0, [x1], #8", "ldr d0, [x1, #8]!"])
def test_writeback_base_is_a_destination(text):
    """Post- and pre-index write the base back: it is read and written by the
    instruction (the addition). The old base is the load's address, and the new
    base is a separate result computed from the old base alone (issue 11)."""
    src, dst, addr = keys(text)
    assert dst == {"v0", "x1"}
    assert src == {"x1"}
    assert addr == {"x1"}
    f = flow(text)
    assert f.separate_results == (("x1", frozenset({"x1"})),)
    assert f.sources_of("x1") == {"x1"} and f.sources_of("v0") == {"x1"}


def test_post_indexed_store_writeback_does_not_read_the_data():
    """``stp q0, q1, [x8], #64``: x8 is written from the old x8 only; q0/q1 feed
    the store (memory) but not the new base."""
    f = flow("stp q0, q1, [x8], #64")
    assert set(f.sources) == {"v0", "v1", "x8"} and set(f.destinations) == {"x8"}
    assert f.sources_of("x8") == {"x8"}
    f = flow("ld1 {v0.2d}, [x0], x2")             # register increment: base only
    assert f.sources_of("x0") == {"x0", "x2"} and f.separate_only_sources == {"x2"}


def test_store_reads_everything_and_writes_back_its_base():
    f = flow("str q0, [x3], 16")
    assert set(f.sources) == {"v0", "x3"} and set(f.destinations) == {"x3"}
    assert len(f.memory_writes) == 1 and not f.memory_reads
    src, dst, addr = keys("str d0, [x2, x4]")
    assert (src, dst, addr) == ({"v0"}, set(), {"x2", "x4"})


def test_ldp_has_two_destinations_and_stp_two_sources():
    src, dst, addr = keys("ldp q0, q1, [x1]")
    assert (src, dst, addr) == (set(), {"v0", "v1"}, {"x1"})
    src, dst, _ = keys("ldp x29, x30, [sp], 80")
    assert dst == {"x29", "x30", "sp"} and src == {"sp"}
    src, dst, _ = keys("stp x29, x30, [sp, -80]!")
    assert src == {"x29", "x30", "sp"} and dst == {"sp"}


def test_structure_loads_and_stores():
    src, dst, _ = keys("ld1 {v0.2d, v1.2d}, [x0], #32")
    assert dst == {"v0", "v1", "x0"} and src == {"x0"}
    src, dst, addr = keys("ld1 {v2.d}[1], [x0]")            # lane load merges
    assert src == {"v2"} and dst == {"v2"} and addr == {"x0"}
    src, dst, _ = keys("st1 {v0.2d, v1.2d}, [x0]")
    assert src == {"v0", "v1"} and dst == set()
    src, dst, _ = keys("ld1 {v0.2d}, [x0], x2")             # register post-increment
    assert src == {"x0", "x2"} and dst == {"v0", "x0"}


def test_sve_predicated_load_reads_the_governing_predicate():
    src, dst, addr = keys("ld1d z0.d, p0/z, [x0, x1, lsl #3]")
    assert (src, dst, addr) == ({"p0"}, {"v0"}, {"x0", "x1"})


def test_exclusive_store_writes_its_status_and_atomics():
    src, dst, _ = keys("stxr w1, x0, [x2]")
    assert dst == {"x1"} and src == {"x0"}
    f = flow("ldadd x0, x1, [x2]")
    assert set(f.sources) == {"x0"} and set(f.destinations) == {"x1"}
    assert f.memory_reads and f.memory_writes
    src, dst, _ = keys("cas x0, x1, [x2]")
    assert src == {"x0", "x1"} and dst == {"x0"}


def test_prefetch_uses_the_address_only():
    f = flow("prfm pldl1keep, [x0, 64]")
    assert set(f.address_sources) == {"x0"}
    assert not f.memory_reads and not f.memory_writes and not f.destinations


# ------------------------------------------------------------------- flags and branches

def test_subs_writes_register_and_all_flags():
    src, dst, _ = keys("subs x2, x2, #1")
    assert src == {"x2"} and dst == {"x2"} | NZCV


def test_cmp_writes_flags_only():
    src, dst, _ = keys("cmp x0, x2")
    assert src == {"x0", "x2"} and dst == NZCV


@pytest.mark.parametrize("text, flags", [
    ("b.ne .L4", {Z}), ("bne .L4", {Z}), ("b.eq .L4", {Z}), ("b.gt .L4", {N, Z, V}),
    ("ble .L4", {N, Z, V}), ("b.hs .L4", {C}), ("bcc .L4", {C}), ("b.lt .L4", {N, V}),
    ("b.hi .L4", {C, Z}), ("bmi .L4", {N}), ("b.vs .L4", {V}), ("b.first .L4", {N}),
])
def test_conditional_branches_read_the_flags_of_their_condition(text, flags):
    src, dst, _ = keys(text)
    assert src == flags and dst == set()


def test_compare_and_branch_read_their_register():
    assert keys("cbnz x3, .L4") == ({"x3"}, set(), set())
    assert keys("cbz w3, .L4") == ({"x3"}, set(), set())
    assert keys("tbz x23, 0, .L2") == ({"x23"}, set(), set())


def test_conditional_select_and_compare():
    assert keys("csel x0, x1, x2, ne") == ({"x1", "x2", Z}, {"x0"}, set())
    assert keys("cset w0, gt") == ({N, Z, V}, {"x0"}, set())
    src, dst, _ = keys("ccmp x0, x1, #0, ge")
    assert src == {"x0", "x1", N, V} and dst == NZCV
    assert keys("adc x0, x1, x2") == ({"x1", "x2", C}, {"x0"}, set())


def test_calls_and_returns_use_the_link_register():
    assert keys("bl dummy") == (set(), {"x30"}, set())
    assert keys("ret") == ({"x30"}, set(), set())
    assert keys("ret x1") == ({"x1"}, set(), set())


# ------------------------------------------------------------------- register rules

def test_fmla_reads_its_destination_fmadd_does_not():
    assert keys("fmla v0.2d, v1.2d, v3.2d")[0] == {"v0", "v1", "v3"}
    assert keys("fmls v0.2d, v1.2d, v3.d[1]")[0] == {"v0", "v1", "v3"}
    assert keys("mla v0.4s, v1.4s, v2.4s")[0] == {"v0", "v1", "v2"}
    assert keys("fmadd d0, d2, d1, d4") == ({"v2", "v1", "v4"}, {"v0"}, set())
    assert keys("fadd v0.2d, v1.2d, v2.2d") == ({"v1", "v2"}, {"v0"}, set())


def test_aliases_and_the_zero_register():
    assert keys("add w0, w1, w2") == ({"x1", "x2"}, {"x0"}, set())
    assert keys("fmov d0, xzr") == (set(), {"v0"}, set())
    assert keys("mov x0, xzr") == (set(), {"x0"}, set())
    assert keys("str xzr, [sp, 8]") == (set(), set(), {"sp"})
    assert keys("fadd s0, s1, s2") == ({"v1", "v2"}, {"v0"}, set())


def test_lane_inserts_and_movk_merge():
    assert keys("mov v0.d[1], x1") == ({"v0", "x1"}, {"v0"}, set())
    assert keys("ins v0.s[1], w1") == ({"v0", "x1"}, {"v0"}, set())
    assert keys("movk x0, #1, lsl #16") == ({"x0"}, {"x0"}, set())
    assert keys("dup v3.2d, v2.d[0]") == ({"v2"}, {"v3"}, set())
    assert keys("umov w0, v1.s[1]") == ({"v1"}, {"x0"}, set())


def test_sve_merging_predication_reads_the_destination():
    assert keys("fadd z0.d, p0/m, z0.d, z1.d")[0] == {"p0", "v0", "v1"}
    assert keys("fmul z2.d, z0.d, z1.d") == ({"v0", "v1"}, {"v2"}, set())
    src, dst, _ = keys("whilelo p0.d, x1, x2")
    assert src == {"x1", "x2"} and dst == {"p0"} | NZCV


def test_zero_idiom_breaks_the_dependency():
    f = flow("eor v0.16b, v0.16b, v0.16b")
    assert f.breaks_dependency and not f.sources and set(f.destinations) == {"v0"}
    assert not flow("eor v0.16b, v0.16b, v1.16b").breaks_dependency


def test_operand_access_roles():
    (ln,) = parse_aarch64("ldp q0, q1, [x1], #32")
    assert operand_access(ln.instruction) == ("w", "w", "r")
    (ln,) = parse_aarch64("stp q0, q1, [x1]")
    assert operand_access(ln.instruction) == ("r", "r", "w")
    (ln,) = parse_aarch64("fmla v0.2d, v1.2d, v2.2d")
    assert operand_access(ln.instruction) == ("rw", "r", "r")
    (ln,) = parse_aarch64("nop")
    assert operand_access(ln.instruction) == ()
