"""Port-model databases: loader, composition rules, known values from the sources."""
from __future__ import annotations

import pytest

from kerncraft.errors import KerncraftError
from kerncraft.incore.database import (DATABASE_DIR, PortModel, available_databases,
                                       expand_braces, load_database)
from kerncraft.incore.model import Immediate, Instruction, Label, Memory, Register, Uop


def ins(mnemonic, *operands):
    return Instruction(mnemonic=mnemonic, operands=tuple(operands), line_number=1)


def r(name):
    return Register(name)


def mem(base="rax", index=None, disp=0, scale=1):
    return Memory(base=r(base) if base else None, index=r(index) if index else None,
                  scale=scale, displacement=disp)


def ports(cost):
    return sorted((tuple(sorted(u.ports)), u.cycles) for u in cost.uops)


@pytest.fixture(scope="module")
def skx():
    return load_database("SKX")


@pytest.fixture(scope="module")
def spr():
    return load_database("SPR")


# ------------------------------------------------------------------ loader
def test_bundled_databases_load_case_insensitive():
    assert {"SKX", "CSX", "SPR"} <= set(available_databases())
    for name in ("skx", "Csx", "SPR"):
        db = load_database(name)
        assert isinstance(db, PortModel)
        assert db.arch == name.upper()
    assert load_database("skx") is load_database("SKX")     # cached per process


def test_load_by_path():
    db = load_database(str(DATABASE_DIR / "SKX.yml"))
    assert db.arch == "SKX"


def test_unknown_arch_lists_available():
    with pytest.raises(KerncraftError) as err:
        load_database("ZEN9")
    assert "ZEN9" in str(err.value)
    for name in ("SKX", "CSX", "SPR"):
        assert name in str(err.value)


def test_missing_file_path():
    with pytest.raises(KerncraftError):
        load_database("/nonexistent/dir/db.yml")


def test_malformed_database(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("arch: X\nports: ['0']\n")
    with pytest.raises(KerncraftError, match="is missing"):
        load_database(str(bad))
    bad2 = tmp_path / "bad2.yml"
    bad2.write_text(
        "arch: X\nports: ['0']\ndivider_ports: []\nload_ports: ['0']\nstore_data_ports: ['0']\n"
        "store_address_ports: ['0']\nload_latency: {gpr: 4}\nstore_forward_latency: 4\n"
        "frontend_width: 4\nrob_size: 100\ninstruction_groups:\n"
        "- source: test\n  forms:\n    'add r64,r64': {uops: [[9]], lat: 1}\n")
    with pytest.raises(KerncraftError, match="unknown ports"):
        load_database(str(bad2))


def test_minimal_custom_database(tmp_path):
    f = tmp_path / "mini.yml"
    f.write_text(
        "arch: mini\nports: ['0', '1', 'L', 'S']\ndivider_ports: []\nload_ports: ['L']\n"
        "store_data_ports: ['S']\nstore_address_ports: ['L']\nload_latency: {gpr: 3}\n"
        "store_forward_latency: 4\nfrontend_width: 2\nrob_size: 32\ninstruction_groups:\n"
        "- source: hand-made\n  forms:\n    'add {r64|r32},{r64|r32}': {uops: [[0,1]], lat: 1, tp: 0.5}\n")
    db = load_database(str(f))
    assert db.arch == "MINI" and db.load_data_ports == ()
    cost = db.lookup(ins("addq", mem(), r("rbx")))
    assert ports(cost) == [(("0", "1"), 1.0), (("L",), 1.0)]
    assert cost.load_latency == 3 and cost.has_load


def test_header_fields(skx, spr):
    assert skx.ports == ("0", "0DV", "1", "2", "2D", "3", "3D", "4", "5", "6", "7")
    assert skx.divider_ports == ("0DV",)
    assert skx.load_ports == ("2", "3") and skx.load_data_ports == ("2D", "3D")
    assert skx.store_data_ports == ("4",)
    assert skx.simple_store_address_ports == ("7",)
    assert skx.frontend_width == 4 and skx.rob_size == 224
    assert skx.load_latency["gpr"] == 5 and skx.load_latency["ymm"] == 7
    assert spr.frontend_width == 6 and spr.rob_size == 512
    assert set(spr.load_ports) == {"2", "3", "11"}
    assert set(spr.store_address_ports) == {"7", "8"}
    assert set(spr.store_data_ports) == {"4", "9"}
    csx = load_database("CSX")
    assert csx.ports == skx.ports and csx.frontend_width == 4


def test_brace_expansion_linked_groups():
    assert expand_braces("add {r64|r32},{r64|r32}") == ["add r64,r64", "add r32,r32"]
    assert len(expand_braces("movzx {r8|r16},{r32|r64}")) == 4
    assert expand_braces("{|v}addpd x") == ["addpd x", "vaddpd x"]


# ------------------------------------------------------------- known values
def test_skx_fma_latency_from_osaca_paper(skx):
    # OSACA paper Sect. II-C: vfmadd on Skylake, 4 cy latency, 0.5 cy/instr on p01
    cost = skx.lookup(ins("vfmadd231pd", r("ymm1"), r("ymm2"), r("ymm0")))
    assert cost.latency == 4
    assert cost.throughput == 0.5
    assert ports(cost) == [(("0", "1"), 1.0)]


def test_skx_vdivpd_divider_pipe(skx):
    # OSACA paper Table VI: vdivpd ymm occupies the 0DV pipe for 8 cy, port 0 for 1 cy
    cost = skx.lookup(ins("vdivpd", r("ymm0"), r("ymm4"), r("ymm0")))
    assert cost.throughput == 8
    assert ports(cost) == [(("0",), 1.0), (("0DV",), 8.0)]
    sd = skx.lookup(ins("vdivsd", r("xmm0"), r("xmm2"), r("xmm0")))
    assert ports(sd) == [(("0",), 1.0), (("0DV",), 4.0)]


def test_skx_zmm_uses_port5_fma(skx):
    cost = skx.lookup(ins("vfmadd231pd", r("zmm1"), r("zmm2"), r("zmm0")))
    assert ports(cost) == [(("0", "5"), 1.0)]


def test_spr_fast_adder_and_fma(spr):
    add = spr.lookup(ins("vaddpd", r("ymm1"), r("ymm2"), r("ymm0")))
    assert ports(add) == [(("1", "5"), 1.0)] and add.latency == 3
    fma = spr.lookup(ins("vfmadd231pd", r("zmm1"), r("zmm2"), r("zmm0")))
    assert ports(fma) == [(("0", "5"), 1.0)] and fma.latency == 4
    alu = spr.lookup(ins("addq", Immediate(8), r("rax")))
    assert ports(alu) == [(("0", "1", "10", "5", "6"), 1.0)]


# ------------------------------------------------------------- composition
def test_load_composition_skx(skx):
    cost = skx.lookup(ins("vaddpd", mem("rax", "rbx", 0, 8), r("ymm1"), r("ymm2")))
    assert cost.form_key == "vaddpd mem,ymm,ymm"
    assert ports(cost) == [(("0", "1"), 1.0), (("2", "3"), 1.0), (("2D", "3D"), 1.0)]
    assert cost.latency == 4                  # arithmetic part only
    assert cost.load_latency == 7             # ymm load, kept separate
    assert cost.has_load and not cost.has_store
    assert "vaddpd ymm,ymm,ymm" in cost.source


def test_scalar_load_latency(skx, spr):
    assert skx.lookup(ins("vaddsd", mem(), r("xmm1"), r("xmm1"))).load_latency == 5
    assert spr.lookup(ins("vaddsd", mem(), r("xmm1"), r("xmm1"))).load_latency == 7
    # vpminsd is a packed-integer op, not a scalar FP one: full xmm load latency
    assert skx.lookup(ins("vpminsd", mem(), r("xmm1"), r("xmm1"))).load_latency == 6


def test_gpr_load_composition_and_read_only_cmp(skx):
    cost = skx.lookup(ins("cmpq", r("rax"), mem("rsp", None, 8)))
    assert cost.has_load and not cost.has_store
    assert cost.load_latency == 5
    cost = skx.lookup(ins("addl", mem(), r("ecx")))
    assert ports(cost)[0] == (("0", "1", "5", "6"), 1.0) and cost.has_load


def test_store_composition_port7_only_for_simple_addresses(skx):
    simple = skx.lookup(ins("vmovupd", r("ymm0"), mem("rax", None, 64)))
    indexed = skx.lookup(ins("vmovupd", r("ymm0"), mem("rax", "rbx", 0, 8)))
    assert ports(simple) == [(("2", "3", "7"), 1.0), (("4",), 1.0)]
    assert ports(indexed) == [(("2", "3"), 1.0), (("4",), 1.0)]
    assert simple.has_store and not simple.has_load and simple.latency == 0


def test_read_modify_write_composition(skx):
    cost = skx.lookup(ins("addq", Immediate(1), mem("rax")))
    assert cost.has_load and cost.has_store
    assert ports(cost) == sorted([(("0", "1", "5", "6"), 1.0), (("2", "3"), 1.0), (("2D", "3D"), 1.0),
                                  (("2", "3", "7"), 1.0), (("4",), 1.0)])
    assert cost.load_latency == 5 and cost.latency == 1


def test_vector_mem_destination_is_store_only(skx):
    # vpmovqd zmm -> mem: register form + store, no load
    cost = skx.lookup(ins("vpmovqd", r("zmm1"), mem("rdi", "rax", 0, 4)))
    assert cost is not None and cost.has_store and not cost.has_load


def test_spr_store_and_load_ports(spr):
    st = spr.lookup(ins("vmovupd", r("ymm0"), mem("rax", "rbx", 0, 8)))
    assert ports(st) == [(("4", "9"), 1.0), (("7", "8"), 1.0)]
    zst = spr.lookup(ins("vmovupd", r("zmm0"), mem("rax")))
    assert ports(zst) == [(("4", "9"), 2.0), (("7", "8"), 1.0)]
    ld = spr.lookup(ins("vmovupd", mem("rax", "rbx", 0, 8), r("zmm0")))
    assert ports(ld) == [(("11", "2", "3"), 1.0), (("11D", "2D", "3D"), 1.0)]
    assert ld.load_latency == 8 and ld.latency == 0


def test_explicit_entry_overrides_composition(skx):
    # a broadcast load is a pure load, not "vbroadcastsd xmm,ymm" (port 5) + load
    cost = skx.lookup(ins("vbroadcastsd", mem(), r("ymm1")))
    assert ports(cost) == [(("2", "3"), 1.0), (("2D", "3D"), 1.0)]
    # lea computes an address: no load uop at all
    lea = skx.lookup(ins("leaq", mem("rax", None, 8), r("rcx")))
    assert ports(lea) == [(("1", "5"), 1.0)] and not lea.has_load
    lea3 = skx.lookup(ins("leaq", mem("rax", "rbx", 8, 8), r("rcx")))
    assert ports(lea3) == [(("1",), 1.0)] and lea3.latency == 3


def test_suffix_mapping(skx):
    for mn, ops, key in (("addq", (r("rax"), r("rbx")), "add r64,r64"),
                         ("addl", (Immediate(1), r("eax")), "add imm,r32"),
                         ("movslq", (r("eax"), r("rbx")), "movsxd r32,r64"),
                         ("movzbl", (r("al"), r("ecx")), "movzx r8,r32"),
                         ("vcvtsi2sdl", (r("eax"), r("xmm0"), r("xmm0")), "vcvtsi2sd r32,xmm,xmm"),
                         ("vcvtpd2psy", (r("ymm0"), r("xmm1")), "vcvtpd2ps ymm,xmm")):
        cost = skx.lookup(ins(mn, *ops))
        assert cost is not None, mn
        assert cost.uops == skx.lookup_form(key).uops
        assert cost.form_key == ins(mn, *ops).form_key


def test_zero_idioms_and_move_elimination(skx):
    zero = skx.lookup(ins("vxorpd", r("xmm0"), r("xmm0"), r("xmm0")))
    assert zero.latency == 0 and all(not u.ports for u in zero.uops)
    assert len(zero.uops) == 1          # still one front-end slot
    real = skx.lookup(ins("vxorpd", r("xmm1"), r("xmm2"), r("xmm0")))
    assert ports(real) == [(("0", "1", "5"), 1.0)] and real.latency == 1
    assert skx.lookup(ins("xorl", r("eax"), r("eax"))).latency == 0
    assert skx.lookup(ins("movq", r("rax"), r("rbx"))).latency == 0


def test_unknown_forms_return_none(skx):
    assert skx.lookup(ins("frobnicate", r("rax"))) is None
    assert skx.lookup(ins("vaddpd", r("k1"), r("k2"), r("k3"))) is None
    assert skx.lookup(ins("movsq", mem("rsi"), mem("rdi"))) is None
    assert skx.lookup_form("vaddpd lbl") is None


def test_branch_and_label(skx):
    cost = skx.lookup(ins("jne", Label(".L5")))
    assert ports(cost) == [(("6",), 1.0)]


def test_every_entry_has_a_source():
    for name in ("SKX", "CSX", "SPR"):
        db = load_database(name)
        for key, entry in db.forms.items():
            assert entry.source.strip(), key
            for u in entry.uops:
                if isinstance(u, Uop):
                    assert set(u.ports) <= set(db.ports), key
