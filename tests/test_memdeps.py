"""Memory-carried dependencies: symbolic addresses across iterations (depgraph.py).

Latency composition used throughout (see depgraph.MemoryDependency): a store that
is read back by a later load adds the edge

    store instruction -> instruction with the load,  weight = lat(store) + SFL

where lat(store) is the store instruction's own latency (0 for a plain store, the
ALU latency for a read-modify-write such as ``addl %edx,(%rsi)``) and SFL the
model's store-to-load forwarding latency, which replaces the load latency. The
producer of the stored value reaches the store with its own latency as usual.
A chain that spans d iterations counts latency / d per iteration.

SKX values used below: vaddsd/vmulsd/FMA 4 cy, integer add 1 cy, SFL 5 cy.
ZEN: vaddsd 3, vmulsd 4, SFL 8. Files: tests/data/asm_memdeps/*.s (headers say how
each was made).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kerncraft.incore.analysis import analyze, analyze_text
from kerncraft.incore.database import load_database
from kerncraft.incore.depgraph import (Linear, build_graph, loop_carried, memory_accesses,
                                       memory_dependencies)
from kerncraft.incore.model import DataFlow, InstructionCost, Memory, Register
from kerncraft.report.incore import format_report, to_json
from kerncraft.incore.x86.parser import parse_x86
from kerncraft.incore.x86.semantics import dataflow

DATA = Path(__file__).parent / "data" / "asm_memdeps"


def run(name: str, arch: str = "SKX", **kw):
    return analyze_text((DATA / name).read_text(), arch, filename=name, **kw)


def body(text: str) -> list:
    return [ln.instruction for ln in parse_x86(text) if ln.instruction is not None]


def analyse(text: str, arch: str = "SKX"):
    return analyze(body(text), load_database(arch))


# ------------------------------------------------------------------ the cases

def test_pi_o1_paper_stack_slot():
    # vaddsd (%rsp),%xmm0,%xmm5 (4) -> vmovsd %xmm5,(%rsp) -> next iteration's load (SFL 5)
    r = run("pi_o1_paper.s")
    assert r.lcd == pytest.approx(4 + 5)                 # measured 9.02 cy/it in 001
    chain = r.lcd_chains[0]
    assert [r.instructions[i].mnemonic for i in chain.instructions] == ["vaddsd", "vmovsd"]
    assert "mem:(%rsp)" in chain.via
    (dep,) = r.graph.memory
    assert dep.distance == 1 and dep.forwarded and dep.offset == 0
    assert r.prediction == pytest.approx(9.0)
    z = run("pi_o1_paper.s", "ZEN")
    assert z.lcd == pytest.approx(3 + 8)                 # measured 11.48 cy/it on Zen (001)


def test_gauss_seidel_o1_in_place():
    # a[j][i-1] is last iteration's a[j][i]: SFL 5 + 3 vaddsd (4) + vmulsd (4) = 21
    r = run("gs2d5pt_gcc12_O1.s")
    assert r.lcd == pytest.approx(5 + 3 * 4 + 4)
    (dep,) = r.graph.memory
    load, store = r.instructions[dep.load], r.instructions[dep.store]
    assert load.text.startswith("vmovsd\t-8(%rdx,%rax)") and store.text.startswith("vmovsd\t%xmm0")
    assert dep.distance == 1
    assert len(r.lcd_chains[0].instructions) == 6        # load, 3 adds, mul, store
    # the other loads (a[j][i+1], a[j-1][i], a[j+1][i]) are not matched: the row pointers
    # of the neighbouring rows are different registers (no alias assumed)
    assert sum(1 for i in r.instructions if "(%rsi" in i.text or "(%rcx" in i.text) == 2


def test_recurrence_o1():
    # vmulsd -8(%rsi,%rax,8) reads last iteration's vmovsd %xmm1,(%rsi,%rax,8):
    # incq %rax moves the address by 8 per iteration, so offset -8 + 8*d = 0 at d = 1.
    # LCD = SFL 5 + vmulsd 4 + vaddsd 4 = 13
    r = run("recurrence_gcc12_O1.s")
    assert r.lcd == pytest.approx(13.0)
    (dep,) = r.graph.memory
    assert dep.distance == 1 and dep.key == "mem:-8(%rsi,%rax,8)"
    assert r.critical_path == pytest.approx(13.0)        # load(5) + mul + add; no d=0 memory edge
    assert any("1 iteration later" in n for n in r.notes)


def test_recurrence_o2_reload_and_register_versions():
    # -O2 -fno-tree-vectorize: vmovsd load (lat 0) -> FMA 4 -> store -> SFL 5: 9 cy
    assert run("recurrence_gcc12_O2_novec.s").lcd == pytest.approx(5 + 4)
    # -O2: a[i-1] stays in xmm1, the store is never reloaded: FMA chain 4 cy, no memory edge
    r = run("recurrence_gcc12_O2.s")
    assert r.lcd == pytest.approx(4.0) and r.graph.memory == ()


def test_recurrence_distance_two():
    # a[i] = a[i-2]*s + b[i]: offset -16 + 8*d = 0 at d = 2; the 13 cy chain spans two
    # iterations: 6.5 cy per iteration
    r = run("recurrence2_gcc12_O1.s")
    (dep,) = r.graph.memory
    assert dep.distance == 2
    assert r.lcd == pytest.approx(13 / 2)
    assert sum(r.lcd_latencies) == pytest.approx(r.lcd)  # per-iteration shares
    assert run("recurrence2_gcc12_O1.s", "ZEN").lcd == pytest.approx((8 + 4 + 3) / 2)


def test_read_modify_write_chain():
    # addl %edx,(%rsi): the add (1) produces the stored value, SFL 5 to the next addl's load
    r = run("rmw_add.s")
    assert r.lcd == pytest.approx(1 + 5)
    (dep,) = r.graph.memory
    assert dep.store == dep.load and dep.distance == 1
    assert run("rmw_add.s", "ZEN").lcd == pytest.approx(1 + 8)


def test_no_false_memory_dependencies():
    # x[i] += y, update a[i] = s*a[i]: every address is touched in one iteration only
    for name in ("rmw_add_moving.s", "update_gcc12_O1.s"):
        r = run(name)
        assert r.graph.memory == (), name
        assert r.lcd == pytest.approx(1.0), name


def test_unrolled_vector_code_without_false_overlap():
    # in-place update, two ymm per iteration: stores at 0/32(%rax), loads of the next
    # iteration at 64/96(%rax) - never overlapping (width 32)
    r = analyse("""
.L1:
        vmulpd (%rax), %ymm1, %ymm0
        vmulpd 32(%rax), %ymm1, %ymm2
        vmovupd %ymm0, (%rax)
        vmovupd %ymm2, 32(%rax)
        addq $64, %rax
        cmpq %rax, %rdx
        jne .L1
""")
    assert r.graph.memory == () and r.lcd == pytest.approx(1.0)


def test_store_then_load_in_the_same_iteration_enters_the_critical_path():
    r = analyse("""
.L1:
        vaddsd (%rsi,%rax,8), %xmm1, %xmm0
        vmovsd %xmm0, (%rdi,%rax,8)
        vmovsd (%rdi,%rax,8), %xmm2
        vmulsd %xmm2, %xmm2, %xmm3
        vmovsd %xmm3, (%rdx,%rax,8)
        incq %rax
        cmpq %rax, %rcx
        jne .L1
""")
    (dep,) = r.graph.memory
    assert dep.distance == 0 and (dep.store, dep.load) == (1, 2)
    # load 5 + vaddsd 4 + SFL 5 + vmulsd 4
    assert r.critical_path == pytest.approx(5 + 4 + 5 + 4)
    assert r.lcd == pytest.approx(1.0)


# ------------------------------------------------------------------ the machinery

def test_symbolic_addresses_follow_register_arithmetic():
    ins = body("""
.L1:
        movq (%rdx,%rax), %r8
        leaq 8(%rdi), %rdi
        movq %r8, (%rdi)
        addq %rcx, %rsi
        movq %r8, 16(%rsi,%rax,2)
        addq $8, %rax
        jne .L1
""")
    acc = memory_accesses([dataflow(i) for i in ins], ins)
    load, st1, st2 = acc
    assert load.address == Linear.make({"r:rdx": 1, "r:rax": 1})
    assert load.stride == Linear((), 8)
    assert st1.address == Linear.make({"r:rdi": 1}, 8) and st1.stride == Linear((), 8)
    # rsi advances by rcx (loop-invariant, unknown value) per iteration
    assert st2.address == Linear.make({"r:rsi": 1, "r:rcx": 1, "r:rax": 2}, 16)
    assert st2.stride == Linear.make({"r:rcx": 1}, 16)
    assert (load.width, st1.width) == (8, 8)


def test_opaque_values_are_compared_within_one_iteration_only():
    # the index comes from memory: the same slot twice in one iteration is a dependency,
    # across iterations nothing is known
    ins = body("""
.L1:
        movslq (%rsi,%rax,4), %rdx
        addl %ecx, (%rdi,%rdx,4)
        movl (%rdi,%rdx,4), %r9d
        incq %rax
        jne .L1
""")
    deps = memory_dependencies([dataflow(i) for i in ins], [None] * len(ins), 5.0,
                               instructions=ins)
    assert [(d.store, d.load, d.distance) for d in deps] == [(1, 2, 0)]


def test_partial_overlap_and_containment():
    def deps(text):
        ins = body(text)
        return memory_dependencies([dataflow(i) for i in ins], [None] * len(ins), 5.0,
                                   instructions=ins)
    inside = deps(".L1:\n movq %rax, (%rdi)\n movl 4(%rdi), %ecx\n jmp .L1\n")
    assert [(d.offset, d.forwarded) for d in inside] == [(4, True)]
    partial = deps(".L1:\n movl %eax, (%rdi)\n movq (%rdi), %rcx\n jmp .L1\n")
    assert [(d.offset, d.forwarded) for d in partial] == [(0, False)]
    apart = deps(".L1:\n movl %eax, (%rdi)\n movl 4(%rdi), %ecx\n jmp .L1\n")
    assert apart == []
    other_base = deps(".L1:\n movq %rax, (%rdi)\n movq (%rsi), %rcx\n jmp .L1\n")
    assert other_base == []                              # different pointers: no alias


def test_reorder_buffer_window_limits_the_distance():
    # a[i] = a[i-100] + 1: a 100-iteration distance is outside a 224-entry ROB for a
    # 6-instruction body (37 iterations), inside a 1000-entry one
    text = """
.L1:
        vmovsd -800(%rdi,%rax,8), %xmm0
        vaddsd %xmm1, %xmm0, %xmm0
        vmovsd %xmm0, (%rdi,%rax,8)
        incq %rax
        cmpq %rax, %rdx
        jne .L1
"""
    ins = body(text)
    flows = [dataflow(i) for i in ins]
    db = load_database("SKX")
    costs = [db.lookup(i) for i in ins]
    assert memory_dependencies(flows, costs, 5.0, instructions=ins, window=224) == []
    (dep,) = memory_dependencies(flows, costs, 5.0, instructions=ins, window=1000)
    assert dep.distance == 100
    lcd, _, _ = loop_carried(build_graph(flows, costs, 5.0, instructions=ins, window=1000))
    assert lcd == pytest.approx(1.0)                     # 9 cy / 100 < the counter's 1 cy
    assert loop_carried(build_graph(flows, costs, 5.0, instructions=ins, window=1000)
                        )[1][-1].latency == pytest.approx(9 / 100)


def test_without_instructions_only_invariant_addresses_carry():
    # DataFlow only (no register arithmetic known): an address whose registers the body
    # writes is not comparable across iterations; a stack slot is
    slot = Memory(base=Register("rsp"), displacement=8)
    moving = Memory(base=Register("rdi"), index=Register("rax"), scale=8)
    for mem, expected in ((slot, 3 + 5), (moving, 1.0)):
        addr = [r.name for r in (mem.base, mem.index) if r is not None]
        flows = [DataFlow(frozenset(["v0", *addr]), frozenset(["v1"]), frozenset(addr),
                          memory_reads=(mem,)),
                 DataFlow(frozenset(["v1", *addr]), frozenset(), frozenset(addr),
                          memory_writes=(mem,)),
                 DataFlow(frozenset(["rax"]), frozenset(["rax"]))]
        costs = [InstructionCost("f", (), 3, 5, has_load=True), InstructionCost("s", (), 0),
                 InstructionCost("a", (), 1)]
        assert loop_carried(build_graph(flows, costs, 5.0))[0] == pytest.approx(expected)


def test_report_and_json_show_the_memory_chain():
    r = run("recurrence_gcc12_O1.s")
    text = format_report(r)
    assert "mem:-8(%rsi,%rax,8)" in text and "memory dependency: store line" in text
    doc = to_json(r)
    assert doc["lcd"] == pytest.approx(13.0)
    assert any(v.startswith("mem:") for v in doc["lcd_chains"][0]["via"])


# ------------------------------------------------------------------ front end

def test_front_end_is_a_bound_of_the_prediction():
    # eight zero idioms need no port but still pass rename (4 fused uops per cycle on SKX)
    r = analyse(".L1:\n" + "\n".join(f"        vxorpd %xmm{k}, %xmm{k}, %xmm{k}" for k in range(8))
                + "\n        decq %rax\n        jne .L1\n")
    assert r.throughput == pytest.approx(1.0)            # the taken jne on port 6
    assert r.frontend == pytest.approx(9 / 4)            # dec+jne macro-fused: 9 fused uops
    assert r.prediction == pytest.approx(r.frontend)
    text = format_report(r)
    assert "Front end: 2.25 cy (9 fused-domain uops)" in text
    assert "prediction 2.25 cy" in text
    assert to_json(r)["frontend"] == pytest.approx(2.25)
