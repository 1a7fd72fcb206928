"""Port models of the Intel cores before Skylake (issue 12): HSW (Haswell, extends SKX),
BDW (Broadwell, extends HSW), SNB (Sandy Bridge) and IVB (Ivy Bridge, extends SNB).

The expected values are derived by hand from the port model in the comments; the
published Kerncraft machine files of these cores run ECM unchanged (their OSACA code
and their non-overlapping ports ['2D', '3D']).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kerncraft.incore.analysis import analyze_text
from kerncraft.incore.database import load_database
from kerncraft.incore.x86.parser import parse_x86
from support.published import HOW_TO_GET, PUBLISHED_DIR

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = PUBLISHED_DIR
FILES = {"HSW": ("HaswellEP_E5-2695v3.yml", "HaswellEP_E5-2695v3_CoD.yml"),
         "BDW": ("BroadwellEP_E5-2630v4.yml", "BroadwellEP_E5-2697v4_CoD.yml"),
         "SNB": ("SandyBridgeEP_E5-2680.yml",),
         "IVB": ("IvyBridgeEP_E5-2660v2.yml", "IvyBridgeEP_E5-2690v2.yml")}
ARCHS = tuple(FILES)


def loop(text: str) -> str:
    return ".L1:\n" + text + "\n        addq $32, %rax\n        cmpq %rax, %rcx\n        jne .L1\n"


def cost(arch: str, asm: str):
    ins = next(ln.instruction for ln in parse_x86(asm) if ln.instruction)
    c = load_database(arch).lookup(ins)
    assert c is not None, asm
    return c


def ports_of(c) -> set[str]:
    return {p for u in c.uops for p in u.ports}


# ---------------------------------------------------------------- headers

@pytest.mark.parametrize("arch,rob", [("HSW", 192), ("BDW", 192), ("SNB", 168), ("IVB", 168)])
def test_header(arch, rob):
    db = load_database(arch)
    assert db.arch == arch and db.rob_size == rob and db.frontend_width == 4
    assert db.load_ports == ("2", "3") and db.load_data_ports == ("2D", "3D")
    assert db.store_data_ports == ("4",) and db.divider_ports == ("0DV",)
    has_port7 = arch in ("HSW", "BDW")
    assert ("7" in db.ports) == has_port7 and ("6" in db.ports) == has_port7
    assert db.simple_store_address_ports == (("7",) if has_port7 else ())


# ---------------------------------------------------------------- Haswell

def test_haswell_fp_ports_and_latencies():
    add = cost("HSW", "vaddpd %ymm1, %ymm2, %ymm3")
    assert ports_of(add) == {"1"} and add.latency == 3
    for asm in ("vmulpd %ymm1, %ymm2, %ymm3", "vfmadd231pd %ymm1, %ymm2, %ymm3",
                "vmulsd %xmm1, %xmm2, %xmm3"):
        c = cost("HSW", asm)
        assert ports_of(c) == {"0", "1"} and c.latency == 5, asm
    div = cost("HSW", "vdivpd %ymm1, %ymm2, %ymm3")
    assert div.latency == 35 and sum(u.cycles for u in div.uops if "0DV" in u.ports) == 28
    assert ports_of(cost("HSW", "vandpd %ymm1, %ymm2, %ymm3")) == {"5"}


def test_haswell_vaddpd_chain_and_independent_adds():
    # one dependent vaddpd per iteration: the loop-carried chain is its latency, 3 cy
    r = analyze_text(loop("        vaddpd %ymm1, %ymm0, %ymm0"), "HSW")
    assert r.lcd == pytest.approx(3.0)
    # four independent vaddpd: four uops on port 1 alone -> 4.0 cy per iteration
    # (the loop counter and branch go to ports 0/5/6)
    text = "\n".join(f"        vaddpd %ymm8, %ymm{k}, %ymm{k}" for k in range(4))
    r = analyze_text(loop(text), "HSW")
    assert r.throughput == pytest.approx(4.0)
    assert r.port_totals["1"] == pytest.approx(4.0)


TRIAD = """\
        vmovupd (%rsi,%rax), %ymm0
        vfmadd213pd (%rdx,%rax), %ymm1, %ymm0
        vmovupd %ymm0, (%rdi,%rax)"""


@pytest.mark.parametrize("arch", ["HSW", "BDW"])
def test_haswell_triad_is_agu_bound_with_indexed_store(arch):
    """a[i] = b[i] + s*c[i], ymm, indexed addresses. Per iteration: two loads (AGU uop on
    {2,3} + data on {2D,3D}), one store whose indexed address cannot use port 7 (AGU on
    {2,3}, data on 4), one FMA on {0,1}, add/cmp on {0,1,5,6}, the taken branch on 6.
    Ports 2/3 carry 3 AGU uops -> 1.5 cy; 2D/3D 1.0; 4 1.0; 0/1/5/6: 4 uops -> 1.0.
    So 1.5 cy per iteration (3.0 cy per cache line of 8 doubles)."""
    r = analyze_text(loop(TRIAD), arch)
    assert r.throughput == pytest.approx(1.5)
    assert r.port_totals["2"] + r.port_totals["3"] == pytest.approx(3.0)
    assert r.port_totals["2D"] == pytest.approx(1.0) and r.port_totals["3D"] == pytest.approx(1.0)
    # with [base+disp] addresses the store address goes to port 7: 2 AGU uops on {2,3} -> 1.0
    simple = TRIAD.replace("(%rsi,%rax)", "(%rsi)").replace("(%rdx,%rax)", "(%rdx)") \
                  .replace("(%rdi,%rax)", "(%rdi)")
    r = analyze_text(loop(simple), arch)
    assert r.throughput == pytest.approx(1.0)
    assert r.port_totals["7"] == pytest.approx(1.0)


# ---------------------------------------------------------------- Broadwell

def test_broadwell_overrides_haswell():
    # FMUL 5 -> 3 cy, FMA stays 5, FP add 3 on port 1 (inherited from HSW)
    assert cost("BDW", "vmulpd %ymm1, %ymm2, %ymm3").latency == 3
    assert cost("BDW", "vmulsd %xmm1, %xmm2, %xmm3").latency == 3
    assert cost("BDW", "vfmadd231pd %ymm1, %ymm2, %ymm3").latency == 5
    add = cost("BDW", "vaddpd %ymm1, %ymm2, %ymm3")
    assert ports_of(add) == {"1"} and add.latency == 3
    # faster divider: vdivpd ymm occupies 0DV for 16 cy (Haswell 28)
    for arch, occ in (("BDW", 16), ("HSW", 28)):
        div = cost(arch, "vdivpd %ymm1, %ymm2, %ymm3")
        assert sum(u.cycles for u in div.uops if "0DV" in u.ports) == occ


def test_broadwell_mul_chain_and_division_loop():
    # a dependent vmulpd chain: LCD = 3 cy (5 on Haswell)
    text = "        vmulpd %ymm1, %ymm0, %ymm0"
    assert analyze_text(loop(text), "BDW").lcd == pytest.approx(3.0)
    assert analyze_text(loop(text), "HSW").lcd == pytest.approx(5.0)
    # independent divisions a[i] = s / b[i] (ymm): the divider pipe bounds the loop,
    # 16 cy per iteration on Broadwell, 28 on Haswell
    text = "        vdivpd (%rsi,%rax), %ymm1, %ymm0\n        vmovupd %ymm0, (%rdi,%rax)"
    assert analyze_text(loop(text), "BDW").throughput == pytest.approx(16.0)
    assert analyze_text(loop(text), "HSW").throughput == pytest.approx(28.0)


# ---------------------------------------------------------------- Sandy Bridge / Ivy Bridge

def data_cycles(c, ports) -> float:
    return sum(u.cycles for u in c.uops if u.ports <= frozenset(ports))


@pytest.mark.parametrize("arch", ["SNB", "IVB"])
def test_sandy_bridge_256bit_accesses_are_two_halves(arch):
    load = cost(arch, "vmovupd (%rsi,%rax), %ymm0")
    assert data_cycles(load, {"2", "3"}) == 1 and data_cycles(load, {"2D", "3D"}) == 2
    assert load.load_latency == 7
    half = cost(arch, "vmovupd (%rsi,%rax), %xmm0")
    assert data_cycles(half, {"2D", "3D"}) == 1
    store = cost(arch, "vmovupd %ymm0, (%rdi,%rax)")
    assert data_cycles(store, {"4"}) == 2 and data_cycles(store, {"2", "3"}) == 1
    add = cost(arch, "vaddpd (%rsi,%rax), %ymm1, %ymm2")
    assert ports_of(add) == {"1", "2", "3", "2D", "3D"} and data_cycles(add, {"2D", "3D"}) == 2
    assert add.latency == 3
    mul = cost(arch, "vmulpd %ymm1, %ymm2, %ymm3")
    assert ports_of(mul) == {"0"} and mul.latency == 5


@pytest.mark.parametrize("arch", ["SNB", "IVB"])
def test_sandy_bridge_no_256bit_memory_form_is_composed(arch):
    """The composition rule adds one 16-byte load; every register form with a ymm source
    that can take a memory operand instead must therefore have its own 256-bit entry."""
    db = load_database(arch)
    no_mem_source = ("vextractf128", "vmovmskp", "vcvtpd2ps", "vcvtpd2dq", "vcvttpd2dq")
    composed = []
    for key in db.forms:
        mnemonic, _, ops = key.partition(" ")
        types = ops.split(",") if ops else []
        if (len(types) < 2 or "mem" in types or not mnemonic.startswith("v")   # SSE: no ymm
                or mnemonic.startswith(no_mem_source)):
            continue
        pos = 1 if mnemonic.startswith("vblendv") else next(
            (i for i, t in enumerate(types) if t != "imm"), None)
        if pos is None or pos == len(types) - 1 or types[pos] != "ymm":
            continue
        c = db.lookup_form(f"{mnemonic} {','.join(types[:pos] + ['mem'] + types[pos + 1:])}")
        if c is None or "[composed" in c.source:
            composed.append(key)
    assert not composed, composed
    # the 256-bit conversions from memory are spelled with the y suffix
    assert data_cycles(db.lookup_form("vcvtpd2psy mem,xmm"), {"2D", "3D"}) == 2


@pytest.mark.parametrize("arch", ["SNB", "IVB"])
def test_sandy_bridge_ymm_load_stream(arch):
    """Four independent ymm loads per iteration: 4 AGU uops on {2,3} -> 2 cy, 8 data-half
    cycles on {2D,3D} -> 4 cy: one 256-bit load per cycle from two ports."""
    text = "\n".join(f"        vmovupd {32 * k}(%rsi,%rax), %ymm{k}" for k in range(4))
    r = analyze_text(loop(text), arch)
    assert r.throughput == pytest.approx(4.0)
    assert r.port_totals["2D"] == pytest.approx(4.0) and r.port_totals["3D"] == pytest.approx(4.0)
    assert r.port_totals["2"] + r.port_totals["3"] == pytest.approx(4.0)


@pytest.mark.parametrize("arch", ["SNB", "IVB"])
def test_sandy_bridge_stream_triad(arch):
    """a[i] = b[i] + s*c[i], ymm (gcc -march=sandybridge): vmovapd load, vmulpd with memory
    source, vaddpd, vmovapd store. Data halves: 2 loads x 2 cy on {2D,3D} -> 2 cy; store data
    2 cy on port 4; AGUs: 3 uops on {2,3} -> 1.5 cy; port 0 (vmulpd) and 1 (vaddpd) 1 cy,
    add/cmp/jne on {0,1,5}. So 2 cy per iteration, 4 cy per cache line, T_nOL (2D/3D) 4 cy."""
    text = ("        vmulpd (%rdx,%rax), %ymm1, %ymm0\n"
            "        vaddpd (%rsi,%rax), %ymm0, %ymm0\n"
            "        vmovapd %ymm0, (%rdi,%rax)")
    r = analyze_text(loop(text), arch)
    assert r.throughput == pytest.approx(2.0)
    assert r.port_totals["4"] == pytest.approx(2.0)
    assert r.port_totals["2D"] == pytest.approx(2.0) and r.port_totals["3D"] == pytest.approx(2.0)
    # the FP add chain would be 3 cy on port 1 if dependent; here each iteration is fresh
    assert analyze_text(loop("        vaddpd %ymm1, %ymm0, %ymm0"), arch).lcd == pytest.approx(3.0)


def test_ivy_bridge_divider_and_move_elimination():
    for arch, occ in (("SNB", 44), ("IVB", 28)):
        div = cost(arch, "vdivpd %ymm1, %ymm2, %ymm3")
        assert data_cycles(div, {"0DV"}) == occ
        div = cost(arch, "vdivpd (%rsi), %ymm2, %ymm3")
        assert data_cycles(div, {"0DV"}) == occ and data_cycles(div, {"2D", "3D"}) == 2
    assert cost("IVB", "movq %rax, %rbx").uops[0].ports == frozenset()
    assert cost("SNB", "movq %rax, %rbx").uops[0].ports == frozenset({"0", "1", "5"})
    assert cost("IVB", "vmovapd %ymm1, %ymm2").latency == 0


# ---------------------------------------------------------------- db-check and published files

@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
@pytest.mark.parametrize("arch", ARCHS)
def test_db_check_finds_no_unknown_forms(arch):
    from kerncraft.dbtools.coverage import ARCH_TARGETS, check_database
    assert ARCH_TARGETS[arch][0] == "gcc"
    check = check_database(arch)
    assert check.compiled > 0
    assert not check.unknown, check.unknown
    assert not check.failed and not check.redundant and not check.overridden


def test_osaca_codes_map_to_the_databases():
    from kerncraft.models.incore_ports import OSACA_TO_DATABASE
    assert all(OSACA_TO_DATABASE[a] == a for a in ARCHS)


@pytest.mark.skipif(not PUBLISHED.is_dir(), reason=HOW_TO_GET)
@pytest.mark.parametrize("arch,name", [(a, f) for a, files in FILES.items() if a in ARCHS for f in files])
def test_published_machine_file_runs_ecm(arch, name, capsys):
    from kerncraft.cli.kerncraft import main
    code = main(["-p", "ECM", "-m", str(PUBLISHED / name), str(ROOT / "kernels" / "triad.c"),
                 "-D", "N", "10000000"])
    out = capsys.readouterr().out
    assert code == 0
    assert f"ECM ({arch}" in out and "T_nOL = busiest of ports 2D, 3D" in out
