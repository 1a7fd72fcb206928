"""Address-mode costs on ThunderX2: a register offset (``[x1, x2]``, ``[x1, x2, lsl #3]``,
``[x1, w2, sxtw #3]``) adds the pseudo-form ``register_offset`` of TX2.yml to the
load/store entry (kerncraft/incore/aarch64/portmodel.py).

The numbers come from llvm-mca-14 -mcpu=thunderx2t99 (TX2.yml, [M14]): a register-offset
ldr takes one P0/P1/P2 uop more than the immediate form, ldrb/ldrsb/ldrsw two more and
2 cy more latency, a register-offset str one uop more.
"""
from __future__ import annotations

import pytest

from kerncraft.incore.aarch64.parser import parse_aarch64
from kerncraft.incore.analysis import analyze_text, load_model

INT = {"0", "1", "2"}
LOAD = [{"3", "4"}, {"3D", "4D"}]
STORE = [{"3", "4"}, {"5"}]

# gcc -O3 -mcpu=thunderx2t99 for a[i] = b[i] + c[i]: one index register for all arrays
ADD_REGISTER = """.L4:
\tldr\tq0, [x1, x2]
\tldr\tq1, [x3, x2]
\tfadd\tv0.2d, v0.2d, v1.2d
\tstr\tq0, [x4, x2]
\tadd\tx2, x2, 16
\tcmp\tx2, x5
\tbne\t.L4
"""
# the same work with immediate offsets and one pointer per array
ADD_IMMEDIATE = """.L4:
\tldr\tq0, [x1, 16]
\tldr\tq1, [x3, 16]
\tfadd\tv0.2d, v0.2d, v1.2d
\tstr\tq0, [x4, 16]
\tadd\tx1, x1, 16
\tadd\tx3, x3, 16
\tadd\tx4, x4, 16
\tsubs\tx5, x5, 1
\tbne\t.L4
"""


def cost(model, text: str):
    (ins,) = [ln.instruction for ln in parse_aarch64(text) if ln.instruction is not None]
    return model.lookup(ins)


def ports(c) -> list[set[str]]:
    return [set(u.ports) for u in c.uops]


@pytest.fixture(scope="module")
def tx2():
    return load_model("TX2")


@pytest.mark.parametrize("text", ["ldr x0, [x1, x2]", "ldr d0, [x1, x2, lsl 3]",
                                  "ldr q0, [x1, x2, lsl #4]", "ldr d0, [x1, w2, sxtw 3]",
                                  "ldrh w0, [x1, x2, lsl 1]", "ldr s0, [x1, x2, lsl 2]"])
def test_register_offset_load_takes_one_integer_uop(tx2, text):
    c = cost(tx2, text)
    assert ports(c) == LOAD + [INT]
    assert (c.latency, c.load_latency) == (0, 4)          # latency as the immediate form
    assert "register offset" in c.source


@pytest.mark.parametrize("text", ["ldrb w0, [x1, x2]", "ldrsw x0, [x1, x2, lsl 2]",
                                  "ldrsb x0, [x1, x2]"])
def test_narrow_loads_take_two_integer_uops_and_two_cycles(tx2, text):
    c = cost(tx2, text)
    assert ports(c) == LOAD + [INT, INT]
    assert c.load_latency == 6                             # llvm-mca: 6 instead of 4


@pytest.mark.parametrize("text", ["str q0, [x1, x2]", "str d0, [x1, x2, lsl 3]",
                                  "str x0, [x1, w2, sxtw 3]", "strb w0, [x1, x2]"])
def test_register_offset_store_takes_one_integer_uop(tx2, text):
    c = cost(tx2, text)
    assert ports(c) == STORE + [INT] and c.latency == 0


@pytest.mark.parametrize("text, expected", [
    ("ldr q0, [x1, 16]", LOAD), ("ldr d0, [x1]", LOAD), ("str q0, [x1, 16]", STORE),
    ("ldp q0, q1, [x1, 32]", LOAD * 2), ("stp d0, d1, [x1, 16]", STORE * 2),
    ("prfm pldl1keep, [x1, x2]", LOAD),        # llvm-mca: the same as [x1, #imm]
    ("ldr d0, [x1], 8", LOAD + [INT]),         # writeback, not a register offset
])
def test_immediate_offsets_and_prefetches_unchanged(tx2, text, expected):
    assert ports(cost(tx2, text)) == expected


def test_a64fx_has_no_register_offset_cost():
    """llvm-mca-14 -mcpu=a64fx charges ldr/str [x1, x2] as [x1, #imm]: no pseudo-form."""
    a64fx = load_model("A64FX")
    assert ports(cost(a64fx, "ldr q0, [x1, x2]")) == ports(cost(a64fx, "ldr q0, [x1, 16]"))


def test_gcc_add_loop_with_register_offsets():
    """Ports 0/1/2 carry fadd (0/1), add, cmp, bne (2) and one register-offset uop per
    ldr/str: 7 uops on 3 ports -> TP 7/3 cy, the bound (loads and stores: 3 uops on the
    AGUs 3/4 -> 1.5 cy; front end 8 fused uops / 4 = 2 cy; LCD 1 cy through x2).
    Without the register-offset uops it was 1.75 cy (7 uops / 4, front end)."""
    r = analyze_text(ADD_REGISTER, "TX2")
    assert r.throughput == pytest.approx(7 / 3)
    assert r.prediction == pytest.approx(7 / 3)
    assert r.port_totals["3"] == pytest.approx(1.5) and r.lcd == pytest.approx(1.0)
    assert r.frontend == pytest.approx(2.0)
    assert set(r.bottleneck_ports) == INT


def test_immediate_offset_variant_is_unchanged():
    """fadd, 3 adds, subs, bne = 6 uops on 0/1/2 -> 2 cy; 9 fused uops / 4 = 2.25 cy
    front end (the prediction, as before the register-offset entries)."""
    r = analyze_text(ADD_IMMEDIATE, "TX2")
    assert r.throughput == pytest.approx(2.0)
    assert r.frontend == pytest.approx(2.25)
    assert r.prediction == pytest.approx(2.25)
