"""The memory issue order bound (kerncraft/incore/memissue.py), values derived by hand.

Limits as in the ZEN5 database: at most 2 loads, 2 stores and 3 operations per cycle,
picked oldest first among the 4 oldest operations not issued yet (one that does not fit
the cycle's limits keeps its place among the 4).
"""
import pytest

from kerncraft.errors import KerncraftError
from kerncraft.incore.analysis import analyze_text, load_model
from kerncraft.incore.memissue import (MemoryIssue, access_sequence, issue_bound,
                                       memory_issue_from_header)
from kerncraft.report.incore import format_report, to_json

ZEN5_LIMITS = MemoryIssue(loads=2, stores=2, total=3, window=4)


def test_interleaved_loads_and_stores_reach_the_port_bound():
    # every cycle's window starts L L S: two loads and a store, 3 operations -> one
    # (L L S) group per cycle, 4 cycles for 8 loads and 4 stores
    assert issue_bound("LLS" * 4, ZEN5_LIMITS) == 4.0


def test_grouped_stores_cost_half_a_cycle_per_eight_loads():
    # 8 loads then 4 stores, iteration by iteration (primes: the next iterations):
    #  c1 L1 L2 | c2 L3 L4 | c3 L5 L6 | c4 L7 L8 S1 | c5 S2 S3 L1' | c6 S4 L2' L3'
    #  c7 L4' L5' | c8 L6' L7' S1' | c9 L8' S2' S3' | c10 S4' L1'' L2''
    #  c11 L3'' L4'' | c12 L5'' L6'' | c13 L7'' L8'' S1'' | c14 S2'' S3'' L1''' | c15 S4'' ...
    # iterations end in c6, c10, c15 and then every 4.5 cycles (the state after c6
    # recurs after c15, two iterations and 9 cycles later)
    assert issue_bound("L" * 8 + "S" * 4, ZEN5_LIMITS) == 4.5
    # 16 loads then 8 stores: while the window holds S1-S4, S3-S6, S5-S8 it issues two
    # stores and no load, three cycles in which the load paths idle: 10 cycles, not 8
    assert issue_bound("L" * 16 + "S" * 8, ZEN5_LIMITS) == 10.0


def test_limits_alone_where_order_does_not_matter():
    assert issue_bound("L", ZEN5_LIMITS) == 0.5            # two loads per cycle
    assert issue_bound("SSSS", ZEN5_LIMITS) == 2.0         # two stores per cycle
    assert issue_bound("LS", ZEN5_LIMITS) == pytest.approx(2 / 3)   # three per cycle
    assert issue_bound("", ZEN5_LIMITS) == 0.0


def test_a_wider_window_packs_grouped_stores():
    # with the whole body in the window the pick is optimal: 8 loads at 2 per cycle
    wide = MemoryIssue(loads=2, stores=2, total=3, window=64)
    assert issue_bound("L" * 8 + "S" * 4, wide) == 4.0


def test_access_sequence_counts_reads_and_writes_in_order():
    text = (".L1:\nvaddpd (%rax), %xmm0, %xmm0\nvmovupd %xmm0, (%rbx)\naddq $1, (%rcx)\n"
            "leaq 8(%rax), %rax\nvmovsd 8(%rdx), %xmm1\ncmpq %rax, %rsi\njne .L1\n")
    model = load_model("ZEN5")
    result = analyze_text(text, "ZEN5", model=model)
    from kerncraft.incore.isa import isa_support
    flows = [isa_support("x86")[1](ins) for ins in result.instructions]
    assert access_sequence(flows) == "LSLSL"     # lea reads no memory


CLANG_TRIAD_XMM = """\
.L1:
vmovupd (%rdx,%rax,8), %xmm2
vmovupd 16(%rdx,%rax,8), %xmm3
vmovupd 32(%rdx,%rax,8), %xmm4
vmovupd 48(%rdx,%rax,8), %xmm5
vfmadd213pd (%rsi,%rax,8), %xmm1, %xmm2
vfmadd213pd 16(%rsi,%rax,8), %xmm1, %xmm3
vfmadd213pd 32(%rsi,%rax,8), %xmm1, %xmm4
vfmadd213pd 48(%rsi,%rax,8), %xmm1, %xmm5
vmovupd %xmm2, (%rdi,%rax,8)
vmovupd %xmm3, 16(%rdi,%rax,8)
vmovupd %xmm4, 32(%rdi,%rax,8)
vmovupd %xmm5, 48(%rdi,%rax,8)
addq $8, %rax
cmpq %rax, %rcx
jne .L1
"""


def _interleaved(text: str) -> str:
    lines = text.splitlines()
    body = lines[1:13]
    order = [body[k + 4 * g] for k in range(4) for g in range(3)]   # L M S per element
    return "\n".join([lines[0], *order, *lines[13:]]) + "\n"


def test_zen5_clang_unrolled_triad_is_bound_by_the_issue_order():
    """clang's 4x unrolled xmm triad (8 loads, 4 stores): the load paths need 4.0 cy, the
    grouped order 4.5 cy (measured on the Zen 5 host: 4.51-4.65 cy); the same
    instructions interleaved element by element need 4.0 (measured 4.08-4.20)."""
    grouped = analyze_text(CLANG_TRIAD_XMM, "ZEN5")
    assert grouped.throughput == pytest.approx(4.0)
    assert grouped.memory_issue == 4.5
    assert grouped.prediction == 4.5
    mixed = analyze_text(_interleaved(CLANG_TRIAD_XMM), "ZEN5")
    assert mixed.memory_issue == 4.0
    assert mixed.prediction == pytest.approx(4.0)
    assert "Memory issue order: 4.50 cy" in format_report(grouped)
    assert to_json(grouped)["memory_issue"] == 4.5


def test_models_without_the_limits_have_no_such_bound():
    result = analyze_text(CLANG_TRIAD_XMM, "SKX")
    assert result.memory_issue is None
    assert "Memory issue order" not in format_report(result)


def test_header_table_is_checked():
    assert memory_issue_from_header(None, "x.yml") is None
    limits = memory_issue_from_header({"loads": 2, "stores": 2, "total": 3, "window": 4,
                                       "source": "measured"}, "x.yml")
    assert limits == MemoryIssue(2, 2, 3, 4, "measured")
    with pytest.raises(KerncraftError, match="'window' is missing"):
        memory_issue_from_header({"loads": 2, "stores": 2, "total": 3}, "x.yml")
    with pytest.raises(KerncraftError, match="at least 1"):
        memory_issue_from_header({"loads": 2, "stores": 0, "total": 3, "window": 4}, "x.yml")
    with pytest.raises(KerncraftError, match="mapping"):
        memory_issue_from_header([2, 2, 3, 4], "x.yml")


def test_zen5_database_declares_the_measured_limits():
    limits = load_model("ZEN5").memory_issue
    assert (limits.loads, limits.stores, limits.total, limits.window) == (2, 2, 3, 4)
    assert "measured" in limits.source


def test_simulation_follows_the_issue_order():
    """The cycle simulation applies the same pick (a store's turn is its address's, its
    data may come later): clang's grouped triad 4.5 cy, interleaved 4.0, and the binding
    names the order, not the load port."""
    from kerncraft.incore.bottleneck_sim import simulate

    model = load_model("ZEN5")
    grouped = simulate(analyze_text(CLANG_TRIAD_XMM, "ZEN5", model=model), model)
    assert grouped.run.cycles_per_iteration == pytest.approx(4.5, abs=0.02)
    assert grouped.binding.detail.startswith("memory issue order")
    mixed = simulate(analyze_text(_interleaved(CLANG_TRIAD_XMM), "ZEN5", model=model), model)
    assert mixed.run.cycles_per_iteration == pytest.approx(4.0, abs=0.02)
    # without the limits (SKX declares none) the grouped body runs at its port bound:
    # 12 indexed addresses on SKX's ports 2 and 3, 6.0 cy
    skx = load_model("SKX")
    static = analyze_text(CLANG_TRIAD_XMM, "SKX", model=skx)
    assert static.throughput == pytest.approx(6.0)
    assert simulate(static, skx).run.cycles_per_iteration == pytest.approx(6.0, abs=0.05)
