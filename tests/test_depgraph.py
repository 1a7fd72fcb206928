"""Dependency graph: load split, zero idioms, critical path, loop-carried cycle ratios."""
from __future__ import annotations

from fractions import Fraction

from kerncraft.incore.depgraph import (build_graph, critical_path, karp_max_mean_cycle,
                                       loop_carried, max_cycle_ratio, memory_key)
from kerncraft.incore.model import DataFlow, InstructionCost, Memory, Register


def F(src=(), dst=(), addr=(), load=False, zero=False) -> DataFlow:
    mem = (Memory(base=Register("rax")),) if load else ()
    return DataFlow(frozenset(src) | frozenset(addr), frozenset(dst), frozenset(addr),
                    memory_reads=mem, breaks_dependency=zero)


def C(lat: float, load_lat: float = 0.0) -> InstructionCost:
    return InstructionCost("fake", (), lat, load_lat, has_load=load_lat > 0)


def test_load_latency_only_on_address_path():
    # vmovapd (%rsi), %ymm0 ; vfmadd231pd (%rdi), %ymm1, %ymm0 ; vmovapd %ymm0, (%rdx)
    flows = [F(dst=["v0"], addr=["rsi"], load=True),
             F(src=["v1", "v0"], dst=["v0"], addr=["rdi"], load=True),
             F(src=["v0"], addr=["rdx"])]
    costs = [C(0, 4), C(4, 4), C(0)]
    cp = critical_path(build_graph(flows, costs))
    # load 4 + FMA 4; the FMA's own load overlaps with the first load
    assert cp.length == 8.0
    assert cp.instructions == (0, 1, 2)
    assert cp.contributions == {0: 4.0, 1: 4.0, 2: 0.0}


def test_register_source_does_not_pay_load_latency():
    # imul %rbx,%rcx (6 cy) then add (%rsi),%rcx: rcx -> add costs 6, not 6 + 5
    flows = [F(src=["rbx", "rcx"], dst=["rcx"]),
             F(src=["rcx"], dst=["rcx"], addr=["rsi"], load=True)]
    cp = critical_path(build_graph(flows, [C(6), C(1, 5)]))
    assert cp.length == 7.0       # 6 (imul) + 1 (add); the load (5) runs in parallel
    assert cp.contributions == {0: 6.0, 1: 1.0}
    cp = critical_path(build_graph(flows, [C(3), C(1, 5)]))
    assert cp.length == 6.0       # now the load path (5 + 1) dominates
    assert cp.instructions == (1,)


def test_zero_idiom_has_no_incoming_edges():
    flows = [F(src=["v0"], dst=["v0"], zero=True),           # vxorpd %ymm0,%ymm0,%ymm0
             F(src=["v0", "v1"], dst=["v0"])]                 # vaddpd %ymm1,%ymm0,%ymm0
    g = build_graph(flows, [C(1), C(4)])
    assert not [e for e in g.edges if e.dst == (0, "op")]
    assert max_cycle_ratio(g) == 0.0


def test_swap_chain_spans_two_iterations():
    # add $1,%rax ; mov %rax,%rcx ; mov %rbx,%rax ; mov %rcx,%rbx ; cmp ; jne
    flows = [F(["rax"], ["rax", "flag.z"]), F(["rax"], ["rcx"]), F(["rbx"], ["rax"]),
             F(["rcx"], ["rbx"]), F(["rax", "r15"], ["flag.z"]), F(["flag.z"])]
    costs = [C(1), C(1), C(1), C(1), C(1), C(0)]
    g = build_graph(flows, costs)
    lcd, chains, edges = loop_carried(g)
    assert lcd == 2.0             # 4 cycles of latency, two back edges crossed
    assert len(chains) == 1
    assert chains[0].instructions == (0, 1, 3, 2)
    assert set(chains[0].via) == {"rax", "rcx", "rbx"}
    assert sum(e.distance for e in edges[0]) == 2


def test_two_back_edges_cycle_ratio_vs_self_loop():
    # r3 = f(r2); r2 = f(r6); r6 = f(r3): i1(k) -> i3(k) -> i2(k+1) -> i1(k+2),
    # 6 cycles of latency over two back edges = 3 cy/it; a 5-cycle self loop beats it
    flows = [F(["r1"], ["r1"]), F(["r2"], ["r3"]), F(["r6"], ["r2"]), F(["r3"], ["r6"])]
    costs = [C(5), C(2), C(2), C(2)]
    lcd, chains, edges = loop_carried(build_graph(flows, costs))
    assert lcd == 5.0
    assert [c.latency for c in chains] == [5.0, 3.0]
    assert chains[1].instructions == (1, 3, 2)
    assert sum(e.distance for e in edges[1]) == 2
    costs[0] = C(2)
    assert max_cycle_ratio(build_graph(flows, costs)) == 3.0


def test_independent_accumulators_are_separate_chains():
    # icc MVE reduction: four vaddpd (mem),%zmmK,%zmmK + addq/cmpq/jb
    flows = [F([f"v{k}"], [f"v{k}"], ["r13", "rax"], load=True) for k in (4, 3, 2, 1)]
    flows += [F(["rax"], ["rax", "flag.z", "flag.c"]), F(["rax", "r14"], ["flag.z", "flag.c"]),
              F(["flag.c"])]
    costs = [C(4, 5)] * 4 + [C(1), C(1), C(0)]
    lcd, chains, _ = loop_carried(build_graph(flows, costs))
    assert lcd == 4.0
    assert [c.latency for c in chains] == [4.0, 4.0, 4.0, 4.0, 1.0]
    assert [c.via for c in chains[:4]] == [("v4",), ("v3",), ("v2",), ("v1",)]
    assert chains[4].via == ("rax",)


def test_flag_chain_through_all_adc():
    # adc $1,%rK x8 ; dec %rsi (keeps CF) ; jnz
    regs = ["rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11"]
    flows = [F([r, "flag.c"], [r, "flag.c", "flag.z"]) for r in regs]
    flows += [F(["rsi"], ["rsi", "flag.z"]), F(["flag.z"])]
    lcd, chains, _ = loop_carried(build_graph(flows, [C(1)] * 9 + [C(0)]))
    assert lcd == 8.0
    assert chains[0].via == ("flag.c",)
    assert chains[0].instructions == tuple(range(8))


def test_unknown_instruction_is_zero_latency_node():
    flows = [F(["v0"], ["v0"]), F(["v0"], ["v0"])]
    lcd, chains, _ = loop_carried(build_graph(flows, [C(4), None]))
    assert lcd == 4.0 and chains[0].instructions == (0, 1)


def test_karp_exact_rational():
    edges = [(0, 1, Fraction(1)), (1, 0, Fraction(2)), (1, 2, Fraction(10)), (2, 2, Fraction(1))]
    assert karp_max_mean_cycle(3, edges) == Fraction(3, 2)
    assert karp_max_mean_cycle(2, [(0, 1, Fraction(5))]) is None


def test_empty_graph():
    g = build_graph([], [])
    assert critical_path(g).length == 0.0
    assert loop_carried(g) == (0.0, (), ())


def _mem(base, index=None, disp=0, scale=1):
    return Memory(base=Register(base), index=Register(index) if index else None,
                  displacement=disp, scale=scale)


def test_memory_key_spelling():
    assert memory_key(_mem("rsp")) == "mem:(%rsp)"
    assert memory_key(_mem("r13", "rax", 64, 8)) == "mem:64(%r13,%rax,8)"
    assert memory_key(Memory(symbol="a", displacement=8)) == "mem:a+8"


def test_store_forwarding_only_for_invariant_addresses():
    slot = _mem("rsp", disp=8)
    moving = _mem("rdi", "rax", 0, 8)
    for mem, expected in ((slot, 3 + 5), (moving, 1)):   # 1: only the addq counter
        addr = [r.name for r in (mem.base, mem.index) if r is not None]
        flows = [DataFlow(frozenset(["v0"] + addr), frozenset(["v1"]), frozenset(addr),
                          memory_reads=(mem,)),                      # vaddsd MEM,%xmm0,%xmm1
                 DataFlow(frozenset(["v1"] + addr), frozenset(), frozenset(addr),
                          memory_writes=(mem,)),                     # vmovsd %xmm1,MEM
                 DataFlow(frozenset(["rax"]), frozenset(["rax"]))]   # addq $1,%rax
        costs = [C(3, 5), C(0), C(1)]
        lcd = max_cycle_ratio(build_graph(flows, costs, store_forward_latency=5))
        assert lcd == expected
        assert max_cycle_ratio(build_graph(flows, costs)) == 1.0     # no memory edges


def test_store_then_load_in_same_iteration():
    slot = _mem("rsp")
    flows = [DataFlow(frozenset(["v1", "rsp"]), frozenset(), frozenset(["rsp"]),
                      memory_writes=(slot,)),
             DataFlow(frozenset(["rsp"]), frozenset(["v2"]), frozenset(["rsp"]),
                      memory_reads=(slot,))]
    cp = critical_path(build_graph(flows, [C(0), C(0, 4)], store_forward_latency=5))
    assert cp.length == 5.0 and cp.instructions == (0, 1)


def test_separate_address_result_does_not_wait_for_data():
    """Issue 11: an instruction with separate address and data results.

    ``fmul`` (6 cy) -> ``str d0, [x1], #8`` (writeback 1 cy) with the fmul reading
    the value loaded from [x1] (4 cy). With every destination depending on every
    source the new x1 waited for d0: x1 -> load 4 -> fmul 6 -> writeback 1 = 11 cy
    per iteration. With x1 a separate result of the old x1 only: 1 cy.
    """
    mem = Memory(base=Register("x1"))
    load = DataFlow(frozenset(), frozenset({"v0"}), frozenset({"x1"}), memory_reads=(mem,))
    fmul = DataFlow(frozenset({"v0", "v2"}), frozenset({"v0"}))
    store = DataFlow(frozenset({"v0", "x1"}), frozenset({"x1"}), frozenset({"x1"}),
                     memory_writes=(mem,), separate_results=(("x1", frozenset({"x1"})),))
    costs = [C(0, 4), C(6), C(1)]
    graph = build_graph([load, fmul, store], costs)
    assert max_cycle_ratio(graph) == 1.0
    assert (2, "addr") in graph.nodes
    # the data still reaches the store (for forwarding), the pointer never sees it
    assert any(e.src == (1, "op") and e.dst == (2, "op") for e in graph.edges)
    assert not any(e.dst == (2, "addr") and e.src[0] == 1 for e in graph.edges)
    joined = DataFlow(store.sources, store.destinations, store.address_sources,
                      memory_writes=(mem,))
    assert max_cycle_ratio(build_graph([load, fmul, joined], costs)) == 11.0


def test_x86_pop_moves_rsp_without_the_load_latency():
    """``popq %rax``: rsp is a separate result (stack engine, cost.latency 0 on
    SKX), so a pop loop's rsp chain is 0 cy, not the 5-cy load latency."""
    from kerncraft.incore.analysis import analyze, load_model
    from kerncraft.incore.x86.parser import parse_x86
    body = [ln.instruction for ln in parse_x86("popq %rax\nimulq %rax, %rax\n"
                                               "movq %rax, (%rdi)\n") if ln.instruction]
    result = analyze(body, load_model("SKX"))
    assert [(c.via, c.latency) for c in result.lcd_chains] == [(("rsp",), 0.0)]
    assert result.critical_path == 8.0      # pop's load 5 + imul 3
