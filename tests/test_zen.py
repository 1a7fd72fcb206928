"""AMD Zen (first generation) port model: ZEN.yml and machine-files/ZEN.yml.

Reference numbers are the OSACA paper's (001) Zen measurements and predictions
and the OSACA thesis' (000) Zen tables; the port-level rules are those stated
in the header of ``kerncraft/incore/databases/ZEN.yml``.
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
MEMDEPS = ROOT / "tests" / "data" / "asm_memdeps"


@pytest.fixture(scope="module")
def zen():
    return load_database("ZEN")


def body(text: str) -> str:
    return ".L1:\n" + text + "\n        addq $16, %rax\n        cmpq %rax, %rdx\n        jne .L1\n"


def zen_run(asm: str):
    return analyze_text(asm, "ZEN")


def cost(db, asm: str):
    ins = next(ln.instruction for ln in parse_x86(asm) if ln.instruction)
    c = db.lookup(ins)
    assert c is not None, asm
    return c


# ---------------------------------------------------------------- header / ports

def test_header(zen):
    assert zen.arch == "ZEN"
    assert set(zen.load_ports) == set(zen.store_address_ports) == {"AGU0", "AGU1"}
    assert zen.store_data_ports == ("STD",)
    assert len(zen.load_data_ports) == 2
    assert set(zen.divider_ports) == {"IDIV", "FDIV"}
    assert zen.load_latency["gpr"] == 4 and zen.load_latency["xmm"] == 7
    assert zen.rob_size == 192


def test_fp_pipes(zen):
    fma = cost(zen, "vfmadd231pd %xmm1, %xmm2, %xmm3")
    mul = cost(zen, "vmulpd %xmm1, %xmm2, %xmm3")
    add = cost(zen, "vaddpd %xmm1, %xmm2, %xmm3")
    assert fma.uops[0].ports == mul.uops[0].ports == frozenset({"FP0", "FP1"})   # 001 Sect. II-C
    assert add.uops[0].ports == frozenset({"FP2", "FP3"})
    assert (fma.latency, add.latency) == (5, 3)          # 001: FMA 5 cy, vaddpd 3 cy on Zen
    div = cost(zen, "vdivsd %xmm1, %xmm2, %xmm3")
    assert {p for u in div.uops for p in u.ports} == {"FP3", "FDIV"}   # divider behind FP3


def test_256bit_ops_are_two_halves(zen):
    x, y = cost(zen, "vaddpd %xmm1, %xmm2, %xmm3"), cost(zen, "vaddpd %ymm1, %ymm2, %ymm3")
    assert len(y.uops) == 2 * len(x.uops) and y.latency == x.latency
    assert balance_ports([y.uops]).throughput == 2 * balance_ports([x.uops]).throughput
    load_x = cost(zen, "vmovupd (%rsi), %xmm0")
    load_y = cost(zen, "vmovupd (%rsi), %ymm0")
    assert len(load_y.uops) == 2 * len(load_x.uops)
    store_y = cost(zen, "vmovupd %ymm0, (%rdi)")
    assert sum(1 for u in store_y.uops if u.ports == frozenset({"STD"})) == 2
    # a 256-bit memory source is two 128-bit loads (explicit forms, not the composition)
    fma_y = cost(zen, "vfmadd231pd (%rsi), %ymm1, %ymm2")
    assert sum(1 for u in fma_y.uops if u.ports == frozenset({"AGU0", "AGU1"})) == 2


# ---------------------------------------------------------------- hidden load

def test_zen_hides_one_load_behind_each_store_in_a_copy_loop():
    """001 Sect. III-A: two loads or one load + one store per cycle.

    Copy loop (one 128-bit load and one store per iteration): the load takes the
    second AGU slot of the store's cycle, so 1.0 cy per iteration -- the OSACA
    thesis measured 8.09 cy for gcc's 8x unrolled SSE copy on Zen (predicted 8.00).
    """
    r = zen_run(body("        vmovupd (%rsi,%rax), %xmm0\n        vmovupd %xmm0, (%rdi,%rax)"))
    assert r.throughput == pytest.approx(1.0)
    assert r.port_totals["AGU0"] == r.port_totals["AGU1"] == pytest.approx(1.0)
    assert r.port_totals["STD"] == pytest.approx(1.0)
    unrolled = "\n".join(f"        vmovupd {16 * k}(%rsi,%rax), %xmm{k}\n"
                         f"        vmovupd %xmm{k}, {16 * k}(%rdi,%rax)" for k in range(8))
    assert zen_run(body(unrolled)).throughput == pytest.approx(8.0)     # 000 Table 4.1


@pytest.mark.parametrize("loads,stores", [(0, 1), (1, 1), (2, 1), (3, 1), (1, 2), (4, 2), (0, 3)])
def test_hidden_load_rule_equals_the_papers_formulation(loads, stores):
    """The paper: a store occupies both AGUs for a cycle and hides one load; the other
    loads need one AGU cycle each. Our AGU/data split gives the same bound."""
    text = "\n".join([f"        vmovupd {16 * k}(%rsi,%rax), %xmm{k}" for k in range(loads)]
                     + [f"        vmovupd %xmm15, {16 * k}(%rdi,%rax)" for k in range(stores)])
    r = zen_run(body(text))
    paper = (2 * stores + max(0, loads - stores)) / 2
    assert r.throughput == pytest.approx(max(paper, 0.75))   # 0.75: the 3 loop uops on 4 ALUs
    assert r.throughput == pytest.approx(max(stores, (loads + stores) / 2, 0.75))


def test_schoenauer_triad_zen_o3():
    """001 Table IV: -O3 triad compiled for Zen (xmm): 3 loads + 1 store = 2.0 cy
    (measured 1.02 cy/it x 2)."""
    asm = """
.L10:
        vmovaps 0(%r13,%rax), %xmm0
        vmovaps (%r15,%rax), %xmm3
        incl    %esi
        vfmadd132pd (%r14,%rax), %xmm3, %xmm0
        vmovaps %xmm0, (%r12,%rax)
        addq    $16, %rax
        cmpl    %esi, %ebx
        ja      .L10
"""
    r = zen_run(asm)
    assert r.throughput == pytest.approx(2.0)
    assert set(r.bottleneck_ports) >= {"AGU0", "AGU1"}


def test_skylake_triad_on_zen():
    """001 Table III: the Skylake -O3 (ymm) triad runs at 4 cy per assembly
    iteration on Zen (measured 1.01 cy/it x 4): 256-bit loads/stores are two each."""
    r = analyze_text((PAPERS / "schoenauer_triad_skx.s").read_text(), "ZEN")
    assert r.throughput == pytest.approx(4.0)


def test_pi_loops_on_zen():
    # 001 Table V, Zen: -O2 measured 4.96 cy/it (divider), -O1 11.48 cy/it (stack slot)
    o2 = analyze_text((PAPERS / "pi_o2_skx.s").read_text(), "ZEN")
    assert o2.throughput == pytest.approx(5.0) and o2.prediction == pytest.approx(5.0)
    assert o2.bottleneck_ports == ("FDIV",)
    o1 = analyze_text((PAPERS / "pi_o1_skx.s").read_text(), "ZEN")
    assert o1.lcd == pytest.approx(3 + 8)               # vaddsd 3 cy + store forwarding 8 cy
    assert abs(o1.prediction - 11.48) / 11.48 < 0.05


def test_sum_reduction_zen():
    """000 Table 4.4: gcc 8x2 sum reduction on Zen: LCD 24 cy = 8 dependent vaddpd xmm."""
    adds = "\n".join(f"        vaddpd {16 * k}(%rsi,%rax), %xmm0, %xmm0" for k in range(8))
    r = zen_run(body(adds))
    assert r.lcd == pytest.approx(24.0)
    assert r.throughput == pytest.approx(4.0)            # 8 loads on the two AGUs


# ---------------------------------------------------------------- machine file

def test_machine_file():
    from kerncraft.incore.arch import resolve_model
    from kerncraft.machine.loader import load_machine
    m = load_machine(ROOT / "machine-files" / "ZEN.yml")
    assert dict(m.in_core_model)["kerncraft"] == "ZEN"
    assert resolve_model(str(ROOT / "machine-files" / "ZEN.yml")).arch == "ZEN"
    assert resolve_model("ZEN1").arch == "ZEN"
    from kerncraft.models.incore_prediction import OSACA_TO_DATABASE
    assert OSACA_TO_DATABASE["ZEN1"] == "ZEN"


# ---------------------------------------------------------------- coverage

@pytest.fixture(scope="module")
def znver1_asm():
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    return compile_bundled(("-march=znver1", NO_MEMCPY), ("-O1", "-O2", "-O3", "-Ofast"))


def test_bundled_kernels_have_no_unknown_forms_on_zen(znver1_asm, zen):
    unknown: dict[str, str] = {}
    loops = 0
    for name, opt, asm in znver1_asm:
        lines = parse_x86(asm)                         # whole function, not only the loop
        record_unknown((ln.instruction for ln in lines), zen, f"{name} {opt}", unknown)
        try:
            kernel = extract_kernel(lines)
        except AssemblyError:
            continue
        loops += 1
        analyze(kernel, zen)                           # raises on unknown forms
    assert loops >= len(znver1_asm) - 2
    assert not unknown, unknown
