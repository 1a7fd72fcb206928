"""The graph algorithms of the in-core analysis (kerncraft/incore/graph_algorithms.py):
small cases whose answer is worked out by hand, and that the analysis imports no
networkx."""
from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from kerncraft.incore.analysis import analyze_text
from kerncraft.incore.graph_algorithms import (find_cycle, maximum_flow,
                                               strongly_connected_components)
from kerncraft.incore.model import Uop
from kerncraft.incore.throughput import balance_ports


def test_components_of_two_cycles_and_a_tail():
    # 0 -> 1 -> 2 -> 0 is one cycle, 3 <-> 4 another, 2 -> 3 joins them one way and
    # 4 -> 5 is a tail: components {0, 1, 2}, {3, 4}, {5}; Tarjan closes the ones
    # downstream first: {5}, then {3, 4}, then {0, 1, 2}
    succ = {0: [1], 1: [2], 2: [0, 3], 3: [4], 4: [3, 5]}
    found = strongly_connected_components(range(6), succ)
    assert [sorted(c) for c in found] == [[5], [3, 4], [0, 1, 2]]


def test_a_long_chain_needs_no_recursion():
    # 5,000 nodes in one ring: one component, deeper than Python's recursion limit
    n = 5000
    found = strongly_connected_components(range(n), {k: [(k + 1) % n] for k in range(n)})
    assert len(found) == 1 and sorted(found[0]) == list(range(n))


def test_the_one_cycle_is_found_in_order():
    # edges: 0 a->b, 1 b->c, 2 c->d, 3 d->b, 4 d->e: the only cycle is b->c->d->b,
    # edges 1, 2, 3
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "b"), ("d", "e")]
    assert find_cycle(edges) == [1, 2, 3]
    with pytest.raises(ValueError):
        find_cycle([("a", "b"), ("b", "c")])
    # a self-loop is a cycle of one edge: 0 a->b, 1 b->b
    assert find_cycle([("a", "b"), ("b", "b")]) == [1]


def test_max_flow_equals_the_min_cut():
    # s=0 -> 1 (3), s -> 2 (2), 1 -> 2 (1), 1 -> 3 (2), 2 -> 3 (3), 3 = t.
    # Cut {s} | rest: 3 + 2 = 5; cut {s,1,2} | {t}: 2 + 3 = 5: the maximum is 5.
    value, flow = maximum_flow([(0, 1, 3), (0, 2, 2), (1, 2, 1), (1, 3, 2), (2, 3, 3)], 0, 3)
    assert value == 5
    assert flow[0][1] + flow[0][2] == 5 and flow[1][3] + flow[2][3] == 5
    assert all(flow[u][v] <= c for u, v, c in [(0, 1, 3), (0, 2, 2), (1, 2, 1), (1, 3, 2),
                                                (2, 3, 3)])


def test_unbounded_edges_carry_what_the_bounded_ones_allow():
    # s -> a (4), a -> b unbounded, b -> t (3): the flow is 3
    assert maximum_flow([(0, 1, 4), (1, 2, None), (2, 3, 3)], 0, 3)[0] == 3


def test_edges_given_twice_or_both_ways_are_refused():
    # the residual of u -> v would mix with v -> u's flow, two u -> v would merge theirs
    with pytest.raises(ValueError):
        maximum_flow([(0, 1, 2), (1, 0, 1), (1, 2, 2)], 0, 2)
    with pytest.raises(ValueError):
        maximum_flow([(0, 1, 2), (0, 1, 3), (1, 2, 5)], 0, 2)


@pytest.mark.parametrize("name, cyclic", [
    # gather: a 2-node and a 3-node component; Gauss-Seidel 2d-5pt at -O1: one of 6
    ("asm_intel/gather.att.s", [2, 3]), ("asm_memdeps/gs2d5pt_gcc12_O1.s", [6])])
def test_components_of_real_loops_match_networkx(name, cyclic):
    # networkx (an independent implementation) on the exported graph is the reference;
    # the sizes of the multi-node components are the ones networkx gave when written
    nx = pytest.importorskip("networkx")
    text = (Path(__file__).parent / "data" / name).read_text()
    graph = analyze_text(text, "CSX", ignore_unknown=True).graph
    exported = graph.to_networkx()
    assert exported.number_of_nodes() == len(graph.nodes)
    assert exported.number_of_edges() == len(graph.edges)
    succ: dict = {}
    for e in graph.edges:
        succ.setdefault(e.src, []).append(e.dst)
    ours = {frozenset(c) for c in strongly_connected_components(graph.nodes, succ)}
    assert ours == {frozenset(c) for c in nx.strongly_connected_components(exported)}
    assert sorted(len(c) for c in ours if len(c) > 1) == cyclic


def test_interchangeable_ports_get_even_cells():
    # Three 1-cycle uops that may each use FP2 or FP3, one that needs FP2 alone:
    # 4 cycles on 2 ports, T = 2; FP2 carries the lone uop's 1 and 1 of the 3 shared
    # cycles, FP3 the other 2. The shared uops are alike, so each gets 1/3 on FP2 and
    # 2/3 on FP3. With FP2 and FP3 both open to every uop (no lone one), they are
    # interchangeable: each of three uops gets 1/2 and 1/2.
    shared = [Uop(frozenset({"FP2", "FP3"}))]
    result = balance_ports([shared, shared, shared, [Uop(frozenset({"FP2"}))]])
    assert result.throughput == 2.0
    assert [round(c["FP2"], 6) for c in result.per_instruction[:3]] == [round(1 / 3, 6)] * 3
    even = balance_ports([shared, shared, shared])
    assert [c for c in even.per_instruction] == [{"FP2": 0.5, "FP3": 0.5}] * 3
    assert even.throughput == float(Fraction(3, 2))


def test_the_analysis_imports_no_networkx():
    script = ("import sys\nfrom kerncraft.incore.analysis import analyze_text\n"
              "r = analyze_text('.L1:\\n vaddsd %xmm0, %xmm1, %xmm1\\n addq $8, %rax\\n"
              " cmpq %rax, %rcx\\n jne .L1\\n', 'CSX')\n"
              "print(r.lcd, 'networkx' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    # the chain through xmm1: one vaddsd per iteration, 4 cy on Cascade Lake (SKX.yml)
    assert out == ["4.0", "False"]
