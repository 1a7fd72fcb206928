"""Paper loops through the whole analyzer.

Two layers:

* engine tests: the assembly files of ``tests/data/asm_papers`` with a small
  hand-written cost table (``FakeModel``: the SKX port model as described in the
  papers, 4 cy loads, 4 cy FMA/ADD) and a hand-written data-flow fixture, so the
  numbers are exactly the hand-derived ones and independent of the real
  databases and of the semantics module;
* database tests: the same files through ``analyze_text`` with the real SKX/CSX
  databases and x86 semantics (skipped, with the reason, while those modules are
  missing).
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from kerncraft.errors import UnknownInstructionError
from kerncraft.incore.analysis import analyze, fused_uops
from kerncraft.incore.model import (DataFlow, Instruction, InstructionCost, Memory, Register,
                                    Uop)
from kerncraft.incore.registers import alias_root
from kerncraft.report.incore import format_report, to_json
from kerncraft.incore.x86.parser import parse_x86

DATA = Path(__file__).parent / "data" / "asm_papers"


def P(*ports: str, cycles: float = 1.0) -> Uop:
    return Uop(frozenset(ports), cycles)


ALU = P("0", "1", "5", "6")
VEC = P("0", "1")
BRANCH = P("0", "6")
LOAD = P("2", "3")

# mnemonic -> (uops of the register form, latency)
_TABLE: dict[str, tuple[tuple[Uop, ...], float]] = {
    "vmovapd": ((), 0.0), "vmovupd": ((), 0.0), "vmovsd": ((), 0.0),
    "vaddpd": ((VEC,), 4.0), "vaddsd": ((VEC,), 4.0), "vmulsd": ((VEC,), 4.0),
    "vfmadd132pd": ((VEC,), 4.0), "vfmadd213pd": ((VEC,), 4.0), "vfmadd132sd": ((VEC,), 4.0),
    "addl": ((ALU,), 1.0), "addq": ((ALU,), 1.0), "cmpl": ((ALU,), 1.0),
    "cmpq": ((ALU,), 1.0), "decq": ((ALU,), 1.0), "adcq": ((P("0", "6"),), 1.0),
    "ja": ((BRANCH,), 0.0), "jb": ((BRANCH,), 0.0), "jne": ((BRANCH,), 0.0),
    "jnz": ((BRANCH,), 0.0),
    "vxorpd": ((), 0.0),                                   # zero idiom: no port
    "vcvtsi2sd": ((VEC, P("5")), 5.0),
    "vdivsd": ((P("0"), P("0DV", cycles=4.0)), 13.0),
    "vdivpd": ((P("0"), P("0DV", cycles=8.0)), 13.0),
}


class FakeModel:
    """Hand-written SKX-like port model (memory operands composed like the papers)."""

    arch = "FAKE-SKX"
    isa = "x86"
    ports = ("0", "0DV", "1", "2", "3", "4", "5", "6", "7")
    divider_ports = ("0DV",)
    load_ports = ("2", "3")
    store_data_ports = ("4",)
    store_address_ports = ("2", "3")
    frontend_width = 4
    store_forward_latency = 5.0

    def lookup(self, ins: Instruction) -> InstructionCost | None:
        if ins.mnemonic not in _TABLE:
            return None
        uops, lat = _TABLE[ins.mnemonic]
        mems = [k for k, op in enumerate(ins.operands) if isinstance(op, Memory)]
        if not mems:
            return InstructionCost(ins.form_key, uops, lat)
        if mems[0] == len(ins.operands) - 1:               # store
            mem = ins.operands[-1]
            agu = P("2", "3", "7") if mem.index is None else P("2", "3")
            return InstructionCost(ins.form_key, uops + (agu, P("4")), lat, has_store=True)
        return InstructionCost(ins.form_key, uops + (LOAD,), lat, 4.0, has_load=True)


_FLAGS = ("flag.c", "flag.z", "flag.s", "flag.o", "flag.p", "flag.a")


def fake_dataflow(ins: Instruction) -> DataFlow:
    """Just enough x86 semantics for the test loops (AT&T: destination last)."""
    regs = [alias_root(op.name) for op in ins.operands if isinstance(op, Register)]
    addr = {alias_root(r.name) for op in ins.operands if isinstance(op, Memory)
            for r in (op.base, op.index) if r is not None}
    reads = [op for op in ins.operands if isinstance(op, Memory)]
    m = ins.mnemonic
    last = ins.operands[-1] if ins.operands else None
    dst = {alias_root(last.name)} if isinstance(last, Register) and not m.startswith("cmp") else set()
    src = set(regs[:-1]) if dst else set(regs)
    if m.startswith("vfmadd") or m.startswith(("add", "adc", "dec")) or m == "vcvtsi2sd":
        src |= dst                          # read-modify-write / merge into the destination
    if m.startswith(("vmov",)) and dst:
        src = set()
    if m.startswith(("add", "cmp", "adc")):
        dst |= set(_FLAGS)
    if m.startswith("dec"):
        dst |= set(_FLAGS) - {"flag.c"}
    if m.startswith("adc"):
        src.add("flag.c")
    if m.startswith("j"):
        src = {"flag.c", "flag.z"}
    zero = m == "vxorpd" and len(set(regs)) == 1
    if isinstance(last, Memory):
        reads = [op for op in ins.operands[:-1] if isinstance(op, Memory)]
    return DataFlow(frozenset(src), frozenset(dst), frozenset(addr),
                    memory_reads=tuple(reads),
                    memory_writes=(last,) if isinstance(last, Memory) else (),
                    breaks_dependency=zero)


def kernel(name: str) -> list[Instruction]:
    """Instructions of the loop body (everything between the loop label / markers)."""
    lines = parse_x86((DATA / name).read_text(), filename=name)
    ins = [ln.instruction for ln in lines if ln.instruction is not None]
    if any("IACA START" in (ln.comment or "") for ln in lines):
        ins = ins[1:-1]                                  # drop the movl $111/$222 markers
    end = next((k for k, i in enumerate(ins) if i.mnemonic.startswith("j")), len(ins) - 1)
    return ins[:end + 1]


def run(name: str, **kw) -> object:
    return analyze(kernel(name), FakeModel(), dataflow=fake_dataflow, **kw)


# ----------------------------------------------------------------- engine tests

def test_schoenauer_triad_engine():
    r = run("schoenauer_triad_skx.s")
    assert r.throughput == pytest.approx(2.0)            # 001 Table II: 2.0 cy
    assert r.bottleneck_ports == ("2", "3")
    assert r.port_totals["2"] == r.port_totals["3"] == pytest.approx(2.0)
    # fixed split of 001 Table II: 1.25 on ports 0/1 (the paper has no branch uops)
    assert run("schoenauer_triad_skx.s", fixed=True).throughput == pytest.approx(2.0)


def test_stream_triad_engine():
    r = run("stream_triad_csx.s")
    assert r.throughput == pytest.approx(1.5)            # 000 Listing 1.1
    assert r.critical_path == pytest.approx(8.0)         # 4 cy load + 4 cy FMA
    assert r.critical_path_instructions[:2] == (0, 1)
    assert r.lcd == pytest.approx(1.0)
    assert r.lcd_chains[0].via == ("rax",)
    assert r.prediction == pytest.approx(1.5)
    # 6 instructions, cmp+jne macro-fused: 5 fused uops over 4 per cycle
    assert r.frontend == pytest.approx(1.25)


def test_vector_update_engine():
    r = run("vector_update_skx.s")
    assert r.throughput == pytest.approx(2.0)            # 000 Listing 4.1 port binding
    assert r.port_totals["4"] == pytest.approx(2.0)


def test_icc_sum_reduction_engine():
    r = run("sum_reduction_icc_csx.s")
    assert len(r.instructions) == 7
    assert r.lcd == pytest.approx(4.0)
    four = [c for c in r.lcd_chains if c.latency == pytest.approx(4.0)]
    assert len(four) == 4                                # four independent 4 cy chains
    assert sorted(c.via for c in four) == [("v1",), ("v2",), ("v3",), ("v4",)]
    assert r.prediction == pytest.approx(4.0)


def test_adc_chain_engine():
    r = run("adc_chain_skx.s")
    assert len(r.instructions) == 8
    assert r.lcd == pytest.approx(8.0)                   # 002 Sect. 4.3: 8.0 cy
    assert r.lcd_chains[0].via == ("flag.c",)
    assert r.lcd_chains[0].instructions == tuple(range(8))
    assert r.throughput == pytest.approx(4.0)            # 8 uops on ports 0 and 6


def test_adc_chain_survives_dec_loop_counter():
    # dec writes ZF but not CF: the carry chain still closes through the back edge
    text = (DATA / "adc_chain_skx.s").read_text().replace(
        "        movl    $222, %ebx", "        decq %rsi\n        jnz .L1\n        movl    $222, %ebx")
    ins = [ln.instruction for ln in parse_x86(text) if ln.instruction][1:-1]
    r = analyze(ins, FakeModel(), dataflow=fake_dataflow)
    assert r.lcd == pytest.approx(8.0)


def test_pi_divider_and_zero_idiom_engine():
    r = run("pi_o2_skx.s")
    assert r.throughput == pytest.approx(4.0)            # 001 Table V: measured 4.00 cy
    assert r.bottleneck_ports == ("0DV",)
    assert r.lcd == pytest.approx(4.0)                   # only vaddsd ..., %xmm1
    assert [c.via for c in r.lcd_chains][0] == ("v1",)
    assert all("v0" not in c.via for c in r.lcd_chains)  # vxorpd cut the xmm0 chain
    # without the zero idiom, xmm0 would carry cvt(5)+add(4)+mul(4)+fma(4)+div(13)
    body = [i for i in kernel("pi_o2_skx.s") if i.mnemonic != "vxorpd"]
    assert analyze(body, FakeModel(), dataflow=fake_dataflow).lcd == pytest.approx(30.0)


def test_divider_bound_stream_engine():
    r = run("vdivpd_stream_skx.s")
    assert r.throughput == pytest.approx(8.0)
    assert r.bottleneck_ports == ("0DV",)
    assert r.lcd == pytest.approx(1.0)


def test_pi_o1_chain_through_stack_slot_engine():
    r = run("pi_o1_skx.s")
    # vaddsd (%rsp),%xmm0,%xmm5 (4) -> vmovsd %xmm5,(%rsp) -> forwarded reload (5):
    # 9 cy per iteration; measured 9.02 cy/it (001 Table V), IACA 3.91, OSACA 4.75
    assert r.lcd == pytest.approx(9.0)
    assert r.lcd_chains[0].instructions == (7, 8)
    assert r.lcd_chains[0].via == ("v5", "mem:(%rsp)")
    assert r.throughput == pytest.approx(4.0) and r.prediction == pytest.approx(9.0)

    class NoForwarding(FakeModel):
        store_forward_latency = None
    r = analyze(kernel("pi_o1_skx.s"), NoForwarding(), dataflow=fake_dataflow)
    assert r.lcd == pytest.approx(1.0)                   # register-only view: loop counter


def test_unknown_forms_raise_or_are_ignored():
    ins = kernel("stream_triad_csx.s")
    bogus = Instruction("vfoopd", ins[1].operands, 99, "vfoopd (%r14,%rax), %ymm1, %ymm0")
    body = ins[:1] + [bogus] + ins[2:]
    with pytest.raises(UnknownInstructionError) as err:
        analyze(body, FakeModel(), dataflow=fake_dataflow)
    assert "vfoopd mem,ymm,ymm" in str(err.value) and "line 99" in str(err.value)
    r = analyze(body, FakeModel(), dataflow=fake_dataflow, ignore_unknown=True)
    assert r.unknown_forms == ("vfoopd mem,ymm,ymm",)
    assert r.costs[1] is None and r.port_pressure[1] == {}
    assert any("vfoopd" in n for n in r.notes)
    assert r.throughput == pytest.approx(1.0)            # load, store: 2/2 on ports 2,3
    assert "X vfoopd" in format_report(r)
    assert to_json(r)["unknown_instructions"][0]["form"] == "vfoopd mem,ymm,ymm"


def test_fused_uop_count():
    ins = kernel("stream_triad_csx.s")
    counts = fused_uops(ins, [FakeModel().lookup(i) for i in ins], FakeModel())
    assert counts == (1, 1, 1, 1, 1, 0)


def test_fifty_instruction_loop():
    # 7 unrolled Schoenauer bodies + branch (speed: see the final report, not a timed test)
    body = kernel("schoenauer_triad_skx.s")[:-1] * 7 + kernel("schoenauer_triad_skx.s")[-1:]
    r = analyze(body, FakeModel(), dataflow=fake_dataflow)
    assert len(r.instructions) == 50 and r.throughput == pytest.approx(14.0)


# ------------------------------------------------------------- database tests

def _missing(*modules: str) -> str | None:
    for mod in modules:
        try:
            if importlib.util.find_spec(mod) is None:
                return mod
        except ModuleNotFoundError:
            return mod
    return None


def _db_reason(arch: str) -> str | None:
    mod = _missing("kerncraft.incore.x86.semantics", "kerncraft.incore.markers",
                   "kerncraft.incore.database")
    if mod:
        return f"{mod} not written yet"
    from kerncraft.incore.database import available_databases
    if arch not in available_databases():
        return f"database {arch} not available yet"
    return None


def needs_db(arch: str):
    reason = _db_reason(arch)
    return pytest.mark.skipif(reason is not None, reason=reason or "")


def real(name: str, arch: str, **kw):
    from kerncraft.incore.analysis import analyze_text
    return analyze_text((DATA / name).read_text(), arch, filename=name, **kw)


def _db_cost(arch: str, asm: str) -> InstructionCost:
    from kerncraft.incore.database import load_database
    ins = next(ln.instruction for ln in parse_x86(asm) if ln.instruction)
    cost = load_database(arch).lookup(ins)
    assert cost is not None, asm
    return cost


_NO_SEMANTICS = _missing("kerncraft.incore.x86.semantics", "kerncraft.incore.markers")


@pytest.mark.skipif(_NO_SEMANTICS is not None, reason=f"{_NO_SEMANTICS} not written yet")
@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.s")
                                          if not p.name.endswith("_tx2.s")))  # x86 only
def test_text_pipeline_matches_engine(name):
    """Parser + kernel extraction + x86 semantics agree with the hand-made data flow."""
    from kerncraft.incore.analysis import analyze_text
    r = analyze_text((DATA / name).read_text(), "FAKE", model=FakeModel(), filename=name)
    e = run(name)
    assert [i.line_number for i in r.instructions] == [i.line_number for i in e.instructions]
    assert (r.throughput, r.critical_path, r.lcd) == pytest.approx(
        (e.throughput, e.critical_path, e.lcd))
    assert [(c.latency, c.instructions) for c in r.lcd_chains] == \
        [(c.latency, c.instructions) for c in e.lcd_chains]


@needs_db("SKX")
def test_schoenauer_triad_skx_database():
    r = real("schoenauer_triad_skx.s", "SKX")
    assert len(r.instructions) == 8
    assert r.throughput == pytest.approx(2.0)            # 001 Table II / Table V: 2.0 cy
    assert set(r.bottleneck_ports) >= {"2", "3"}


@needs_db("CSX")
def test_stream_triad_csx_database():
    r = real("stream_triad_csx.s", "CSX")
    assert len(r.instructions) == 6
    assert r.throughput == pytest.approx(1.5)            # 000 Listing 1.1
    assert r.lcd == pytest.approx(1.0)
    # The thesis assumes a 4 cy load latency (CP 8 cy). Ours: ymm load latency of the
    # CSX database + FMA latency (the vmovapd -> FMA -> store path).
    load = _db_cost("CSX", "vmovapd 0(%r13,%rax), %ymm0")
    fma = _db_cost("CSX", "vfmadd213pd %ymm2, %ymm1, %ymm0")
    assert r.critical_path == pytest.approx(load.load_latency + load.latency + fma.latency)


@needs_db("SKX")
def test_vector_update_skx_database():
    r = real("vector_update_skx.s", "SKX")
    assert r.throughput == pytest.approx(2.0)            # 000 Listing 4.1


@needs_db("CSX")
def test_icc_sum_reduction_csx_database():
    r = real("sum_reduction_icc_csx.s", "CSX")
    assert len(r.instructions) == 7
    four = [c for c in r.lcd_chains if c.latency == pytest.approx(4.0)]
    assert len(four) == 4                                # 000 Listing 4.6: 4 x 4.0 cy
    assert r.lcd == pytest.approx(4.0)


@needs_db("SKX")
def test_adc_chain_skx_database():
    r = real("adc_chain_skx.s", "SKX")
    assert len(r.instructions) == 8
    assert r.lcd == pytest.approx(8.0)                   # 002 Sect. 4.3
    assert "flag.c" in r.lcd_chains[0].via


@needs_db("SKX")
def test_pi_o2_skx_database():
    r = real("pi_o2_skx.s", "SKX")
    div = _db_cost("SKX", "vdivsd %xmm0, %xmm2, %xmm0")
    occupancy = sum(u.cycles for u in div.uops if "0DV" in u.ports)
    assert r.throughput == pytest.approx(occupancy)
    assert r.throughput == pytest.approx(4.0)            # 001 Table V: measured 4.00 cy
    assert all("v0" not in c.via for c in r.lcd_chains)  # zero idiom
    assert r.lcd == pytest.approx(_db_cost("SKX", "vaddsd %xmm0, %xmm1, %xmm1").latency)


@needs_db("SKX")
def test_pi_o1_skx_database():
    from kerncraft.incore.database import load_database
    r = real("pi_o1_skx.s", "SKX")
    add = _db_cost("SKX", "vaddsd (%rsp), %xmm0, %xmm5")
    sfl = load_database("SKX").store_forward_latency
    assert r.lcd == pytest.approx(add.latency + sfl)     # measured 9.02 cy/it (001)
    assert any(v.startswith("mem:") for v in r.lcd_chains[0].via)


@needs_db("SKX")
def test_divider_bound_skx_database():
    r = real("vdivpd_stream_skx.s", "SKX")
    div = _db_cost("SKX", "vdivpd %ymm1, %ymm0, %ymm0")
    occupancy = sum(u.cycles for u in div.uops if any(re.search("DV", p) for p in u.ports))
    assert occupancy > 1.5
    assert r.throughput == pytest.approx(occupancy)
    assert any("DV" in p for p in r.bottleneck_ports)
