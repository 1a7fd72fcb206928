"""AMD Zen 2 port model: ZEN2.yml (extends ZEN.yml) and machine-files/ZEN2.yml.

The rules checked here are those stated in the header of
``kerncraft/incore/databases/ZEN2.yml``: 256-bit operations are one uop, loads use
AGU0/AGU1 and a load-data path, stores use any of the three AGUs plus the single
store-data path, so the memory part of a loop costs max(stores, loads / 2) cycles.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support.kernel_asm import NO_MEMCPY, compile_bundled, record_unknown

from kerncraft.errors import AssemblyError
from kerncraft.incore.analysis import analyze, analyze_text
from kerncraft.incore.database import load_database
from kerncraft.incore.markers import extract_kernel
from kerncraft.incore.throughput import balance_ports
from kerncraft.incore.x86.parser import parse_x86

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT / "tests" / "data" / "asm_papers"


@pytest.fixture(scope="module")
def zen2():
    return load_database("ZEN2")


@pytest.fixture(scope="module")
def zen():
    return load_database("ZEN")


def body(text: str) -> str:
    return ".L1:\n" + text + "\n        addq $32, %rax\n        cmpq %rax, %rdx\n        jne .L1\n"


def cost(db, asm: str):
    ins = next(ln.instruction for ln in parse_x86(asm) if ln.instruction)
    c = db.lookup(ins)
    assert c is not None, asm
    return c


def agu_uops(c) -> int:
    return sum(1 for u in c.uops if u.ports & {"AGU0", "AGU1", "AGU2"})


# ---------------------------------------------------------------- header / ports

def test_loads_and_header(zen2):
    assert zen2.arch == "ZEN2"
    assert set(zen2.load_ports) == {"AGU0", "AGU1"}
    assert set(zen2.store_address_ports) == {"AGU0", "AGU1", "AGU2"}
    assert zen2.load_data_ports == ("LD0", "LD1")
    assert zen2.store_data_ports == ("STD",)
    assert set(zen2.divider_ports) == {"IDIV", "FDIV"}
    assert zen2.load_latency["gpr"] == 4
    assert zen2.load_latency["xmm"] == zen2.load_latency["ymm"] == zen2.load_latency["scalar"] == 7
    assert zen2.rob_size == 224
    assert zen2.frontend_width == 5
    assert zen2.store_forward_latency == 8


def test_inherits_zen_forms(zen2, zen):
    # integer forms are taken over from ZEN.yml unchanged
    for asm in ("addq %rax, %rbx", "imulq %rax, %rbx", "movq (%rsi), %rax"):
        a, b = cost(zen2, asm), cost(zen, asm)
        assert a.latency == b.latency and len(a.uops) == len(b.uops)


# ---------------------------------------------------------------- 256-bit ops

def test_256bit_fma_is_one_uop(zen2, zen):
    z2 = cost(zen2, "vfmadd231pd %ymm1, %ymm2, %ymm3")
    z1 = cost(zen, "vfmadd231pd %ymm1, %ymm2, %ymm3")
    assert len(z2.uops) == 1 and len(z1.uops) == 2
    assert z2.uops[0].ports == frozenset({"FP0", "FP1"})
    assert z2.latency == 5
    x = cost(zen2, "vfmadd231pd %xmm1, %xmm2, %xmm3")
    assert balance_ports([z2.uops]).throughput == balance_ports([x.uops]).throughput == 0.5


def test_fp_latencies(zen2):
    assert cost(zen2, "vaddpd %ymm1, %ymm2, %ymm3").latency == 3
    assert cost(zen2, "vaddsd %xmm1, %xmm2, %xmm3").latency == 3
    assert cost(zen2, "vmulpd %ymm1, %ymm2, %ymm3").latency == 3     # llvm-mca znver2
    div = cost(zen2, "vdivpd %ymm1, %ymm2, %ymm3")
    assert {p for u in div.uops for p in u.ports} == {"FP3", "FDIV"}
    assert len([u for u in div.uops if u.ports == frozenset({"FP3"})]) == 1


@pytest.mark.parametrize("asm", [
    "vaddpd %ymm1, %ymm2, %ymm3", "vmulpd %ymm1, %ymm2, %ymm3", "vandpd %ymm1, %ymm2, %ymm3",
    "vpaddd %ymm1, %ymm2, %ymm3", "vunpcklpd %ymm1, %ymm2, %ymm3", "vblendvpd %ymm1, %ymm2, %ymm3, %ymm4",
    "vcvtdq2pd %xmm1, %ymm2", "vpermpd $1, %ymm1, %ymm2", "vbroadcastsd %xmm1, %ymm2",
])
def test_256bit_ops_are_single_uops(zen2, asm):
    assert len(cost(zen2, asm).uops) == 1


def test_256bit_memory_operands_are_one_access(zen2, zen):
    load = cost(zen2, "vmovupd (%rsi), %ymm0")
    assert agu_uops(load) == 1 and sum(1 for u in load.uops if u.ports <= {"LD0", "LD1"}) == 1
    store = cost(zen2, "vmovupd %ymm0, (%rdi)")
    assert sum(1 for u in store.uops if u.ports == frozenset({"STD"})) == 1
    assert any(u.ports == frozenset({"AGU0", "AGU1", "AGU2"}) for u in store.uops)
    fma = cost(zen2, "vfmadd231pd (%rsi), %ymm1, %ymm2")
    assert agu_uops(fma) == 1 and agu_uops(cost(zen, "vfmadd231pd (%rsi), %ymm1, %ymm2")) == 2
    assert fma.latency == 5 and fma.load_latency == 7


# ---------------------------------------------------------------- memory rule

def test_copy_loop_one_load_one_store_per_cycle():
    """A load and a store per cycle: the store takes the third (store-only) AGU."""
    r = analyze_text(body("        vmovupd (%rsi,%rax), %ymm0\n        vmovupd %ymm0, (%rdi,%rax)"), "ZEN2")
    assert r.throughput == pytest.approx(1.0)
    assert r.port_totals["STD"] == pytest.approx(1.0)
    assert r.port_totals["LD0"] + r.port_totals["LD1"] == pytest.approx(1.0)
    # the same loop on Zen 1 needs two cycles (two halves each, two shared AGUs)
    assert analyze_text(body("        vmovupd (%rsi,%rax), %ymm0\n        vmovupd %ymm0, (%rdi,%rax)"),
                        "ZEN").throughput == pytest.approx(2.0)
    unrolled = "\n".join(f"        vmovupd {32 * k}(%rsi,%rax), %ymm{k}\n"
                         f"        vmovupd %ymm{k}, {32 * k}(%rdi,%rax)" for k in range(8))
    assert analyze_text(body(unrolled), "ZEN2").throughput == pytest.approx(8.0)


@pytest.mark.parametrize("loads,stores", [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (1, 2), (4, 2),
                                          (0, 3), (2, 0), (6, 0)])
def test_memory_rule_two_loads_plus_one_store(loads, stores):
    text = "\n".join([f"        vmovupd {32 * k}(%rsi,%rax), %ymm{k}" for k in range(loads)]
                     + [f"        vmovupd %ymm15, {32 * k}(%rdi,%rax)" for k in range(stores)])
    r = analyze_text(body(text), "ZEN2")
    assert r.throughput == pytest.approx(max(stores, loads / 2, 0.75))  # 0.75: loop uops on 4 ALUs


def test_skylake_triad_on_zen2():
    """The ymm Schoenauer triad (3 loads + 1 store per iteration): 1.5 cy on Zen 2
    (two loads per cycle), 4 cy on Zen 1 (halves on two shared AGUs)."""
    text = (PAPERS / "schoenauer_triad_skx.s").read_text()
    assert analyze_text(text, "ZEN2").throughput == pytest.approx(1.5)
    assert analyze_text(text, "ZEN").throughput == pytest.approx(4.0)


# ---------------------------------------------------------------- machine file / CLI

def test_machine_file():
    from kerncraft.incore.arch import resolve_model
    from kerncraft.machine.loader import load_machine
    from kerncraft.models.incore_prediction import OSACA_TO_DATABASE
    path = ROOT / "machine-files" / "ZEN2.yml"
    m = load_machine(path)
    assert dict(m.in_core_model)["kerncraft"] == "ZEN2"
    assert resolve_model(str(path)).arch == "ZEN2"
    assert OSACA_TO_DATABASE["ZEN2"] == "ZEN2"
    text = path.read_text()
    assert "gcc: -O3 -march=znver2 -ffreestanding" in text
    assert "kerncraft: [LD0, LD1]" in text          # non-overlapping = load-data ports


def test_kerncraft_ecm_triad(capsys):
    from kerncraft.cli.kerncraft import main
    code = main(["-p", "ECM", "-m", "ZEN2", str(ROOT / "kernels" / "triad.c"), "-D", "N", "10000000"])
    out = capsys.readouterr().out
    assert code == 0
    assert "ECM (ZEN2" in out and "march=znver2" in out
    assert "T_nOL = busiest of ports LD0, LD1" in out


# ---------------------------------------------------------------- coverage

@pytest.fixture(scope="module")
def znver2_asm():
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    return compile_bundled(("-march=znver2", NO_MEMCPY), ("-O2", "-O3"))


def test_bundled_kernels_have_no_unknown_forms_on_zen2(znver2_asm, zen2):
    unknown: dict[str, str] = {}
    loops = 0
    for name, opt, asm in znver2_asm:
        lines = parse_x86(asm)                         # whole function, not only the loop
        record_unknown((ln.instruction for ln in lines), zen2, f"{name} {opt}", unknown)
        try:
            kernel = extract_kernel(lines)
        except AssemblyError:
            continue
        loops += 1
        analyze(kernel, zen2)                          # raises on unknown forms
    assert loops >= len(znver2_asm) - 2
    assert not unknown, unknown
