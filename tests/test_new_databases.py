"""Port models drafted from llvm-mca and checked by hand: ZEN3, ZEN4, N1, V2 (issue 12).

Every expected number is derived by hand from the documented values in
``kerncraft/incore/databases/{ZEN3,ZEN4,N1,V2}.yml`` (see the comment at each test), on
loops as gcc 12 compiles ``kernels/triad.c`` for the database's ``dbcheck.ARCH_TARGETS``.
The machine-file tests copy a bundled machine file and name the database with
``kerncraft: NAME``.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import kerncraft
from kerncraft.incore.analysis import analyze_text
from kerncraft.models import incore_ports as ip

REPO = Path(__file__).resolve().parents[1]
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
needs_cross = pytest.mark.skipif(shutil.which("aarch64-linux-gnu-gcc") is None,
                                 reason="aarch64-linux-gnu-gcc not installed")

# gcc 12 -O3 -march=znver3, kernels/triad.c
ZEN3_TRIAD = """\
.L4:
    vmovapd     128(%r14,%rax), %ymm1
    vfmadd213pd 64(%r15,%rax), %ymm2, %ymm1
    vmovapd     %ymm1, 0(%r13,%rax)
    addq        $32, %rax
    cmpq        %rsi, %rax
    jne         .L4
"""
# gcc 12 -O3 -march=x86-64-v4 -mtune=znver3 -mprefer-vector-width=512
ZEN4_TRIAD = """\
.L4:
    vmovapd     128(%r14,%rax), %zmm0
    vfmadd213pd 64(%r13,%rax), %zmm2, %zmm0
    vmovapd     %zmm0, (%rbx,%rax)
    addq        $64, %rax
    cmpq        %rsi, %rax
    jne         .L4
"""
# gcc 12 -O3 -mcpu=neoverse-n1
N1_TRIAD = """\
.L4:
    ldr     q1, [x21, x2]
    ldr     q0, [x22, x2]
    fmla    v0.2d, v1.2d, v2.2d
    str     q0, [x20, x2]
    add     x2, x2, 16
    cmp     x2, x1
    bne     .L4
"""
# gcc 12 -O3 -march=armv9-a+sve2 -msve-vector-bits=128
V2_TRIAD = """\
.L3:
    ld1d    z1.d, p0/z, [x22, x2, lsl 3]
    ld1d    z0.d, p0/z, [x21, x2, lsl 3]
    fmad    z0.d, p1/m, z2.d, z1.d
    st1d    z0.d, p0, [x19, x2, lsl 3]
    add     x2, x2, 2
    whilelo p0.d, w2, w3
    b.any   .L3
"""


def _fma_chains(reg: str, n: int = 8) -> str:
    body = "".join(f"    vfmadd231pd %{reg}8, %{reg}9, %{reg}{k}\n" for k in range(n))
    return f".L2:\n{body}    subq $1, %rax\n    jne .L2\n"


def test_zen3_triad_ymm_by_hand():
    r = analyze_text(ZEN3_TRIAD, "ZEN3")
    assert r.unknown_forms == ()
    # 2 loads on LD0/LD1 -> 1 cy; 2 loads + 1 store on the three AGUs -> 1 cy; the store on
    # STD -> 1 cy; one FMA on FP0/FP1 -> 0.5 cy.
    assert r.port_totals["LD0"] + r.port_totals["LD1"] == pytest.approx(2.0)
    assert r.port_totals["STD"] == pytest.approx(1.0)
    assert r.port_totals["FP0"] + r.port_totals["FP1"] == pytest.approx(1.0)
    assert r.throughput == pytest.approx(1.0)
    # Front end: load, FMA, store data, add, cmp+jne (fused) = 5 uops / 6 per cycle.
    assert r.frontend == pytest.approx(5 / 6)
    assert r.prediction == pytest.approx(1.0)
    # Critical path: FP load 7 cy + FMA 4 cy (Zen 3; 5 on Zen 2); LCD: the index add.
    assert r.critical_path == pytest.approx(11.0)
    assert r.lcd == pytest.approx(1.0)


def test_zen3_fma_latency_differs_from_zen2():
    zen2 = analyze_text(ZEN3_TRIAD, "ZEN2")
    assert zen2.critical_path == pytest.approx(12.0)      # 7 + 5


def test_zen4_triad_zmm_by_hand():
    r = analyze_text(ZEN4_TRIAD, "ZEN4")
    assert r.unknown_forms == ()
    # Each zmm load takes two 256-bit load-data cycles: 2 loads x 2 / 2 paths = 2 cy; the zmm
    # store two STD cycles = 2 cy; the FMA one uop of 2 cycles on FP0/FP1 = 1 cy.
    assert r.port_totals["LD0"] + r.port_totals["LD1"] == pytest.approx(4.0)
    assert r.port_totals["STD"] == pytest.approx(2.0)
    assert r.port_totals["FP0"] + r.port_totals["FP1"] == pytest.approx(2.0)
    assert r.throughput == pytest.approx(2.0)
    # Front end: load 1, FMA 1, store data 2 (two STD uops), add 1, cmp+jne 1 = 6 / 6.
    assert r.frontend == pytest.approx(1.0)
    assert r.prediction == pytest.approx(2.0)    # per 8 doubles = ZEN3's 1.0 per 4
    assert r.critical_path == pytest.approx(11.0)  # 7 + 4: same latency as 256 bit
    assert r.lcd == pytest.approx(1.0)


def test_zen4_zmm_fma_takes_two_256_bit_pipe_slots():
    zmm = analyze_text(_fma_chains("zmm"), "ZEN4")
    ymm = analyze_text(_fma_chains("ymm"), "ZEN4")
    assert zmm.unknown_forms == () and ymm.unknown_forms == ()
    # 8 FMAs: zmm 8 x 2 pipe-cycles / 2 pipes = 8 cy, ymm 8 x 1 / 2 = 4 cy; each accumulator
    # chain is one FMA (4 cy) per iteration.
    assert zmm.throughput == pytest.approx(8.0)
    assert ymm.throughput == pytest.approx(4.0)
    assert zmm.lcd == pytest.approx(4.0) and ymm.lcd == pytest.approx(4.0)
    assert zmm.prediction == pytest.approx(8.0)
    assert ymm.prediction == pytest.approx(4.0)


def test_n1_neon_triad_by_hand():
    r = analyze_text(N1_TRIAD, "N1")
    assert r.unknown_forms == ()
    # Loads: 2 on LD0/LD1 -> 1 cy. L0/L1: 2 loads + a Q store (two cycles) = 4 -> 2 cy.
    # V0/V1: fmla + the store data = 2 -> 1 cy.
    assert r.port_totals["LD0"] + r.port_totals["LD1"] == pytest.approx(2.0)
    assert r.port_totals["L0"] + r.port_totals["L1"] == pytest.approx(4.0)
    assert r.port_totals["V0"] + r.port_totals["V1"] == pytest.approx(2.0)
    assert r.throughput == pytest.approx(2.0)
    assert r.prediction == pytest.approx(2.0)
    # ldr q 6 cy + fmla 4 cy; LCD: the index add (1 cy).
    assert r.critical_path == pytest.approx(10.0)
    assert r.lcd == pytest.approx(1.0)


def test_v2_sve_triad_by_hand():
    r = analyze_text(V2_TRIAD, "V2")
    assert r.unknown_forms == ()
    # L0/L1/L2: 2 loads (any) + 1 store address (L0/L1) = 3 -> 1 cy; LD0-LD2: 2/3 cy;
    # V0-V3: fmad + store data (V0/V1 only) -> 0.5 cy; whilelo on M0/M1 -> 0.5 cy.
    assert sum(r.port_totals[p] for p in ("L0", "L1", "L2")) == pytest.approx(3.0)
    assert sum(r.port_totals[p] for p in ("LD0", "LD1", "LD2")) == pytest.approx(2.0)
    assert r.throughput == pytest.approx(1.0)
    # Front end: 7 instructions / 6 per cycle is the bound.
    assert r.frontend == pytest.approx(7 / 6)
    assert r.prediction == pytest.approx(7 / 6)
    # ld1d 6 cy + fmad 4 cy (128-bit SVE = ASIMD latency); LCD: the index add.
    assert r.critical_path == pytest.approx(10.0)
    assert r.lcd == pytest.approx(1.0)


@pytest.mark.parametrize("code,name", [("ZEN3", "ZEN3"), ("zen4", "ZEN4"), ("n1", "N1"),
                                       ("V2", "V2")])
def test_osaca_codes_name_the_new_databases(code, name):
    assert ip.OSACA_TO_DATABASE[code.upper()] == name


def _machine_copy(tmp_path: Path, base: str, name: str, subs: list[tuple[str, str]]) -> Path:
    text = (REPO / "machine-files" / f"{base}.yml").read_text()
    for old, new in subs:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / f"{name}.yml"
    path.write_text(text)
    return path


def _zen(tmp_path, name, march):
    return _machine_copy(tmp_path, "ZEN2", name, [
        ("kerncraft: ZEN2", f"kerncraft: {name}"),
        ("gcc: -O3 -march=znver2", f"gcc: -O3 {march}"),
        ("clang: -O3 -march=znver2", f"clang: -O3 {march}")])


def _arm(tmp_path, name, cpu, ld_ports, other_ports):
    return _machine_copy(tmp_path, "TX2", name, [
        ("kerncraft: TX2", f"kerncraft: {name}"),
        ("-mcpu=thunderx2t99 -ffreestanding", f"{cpu} -ffreestanding"),
        ("kerncraft: [3D, 4D]", f"kerncraft: [{ld_ports}]"),
        ("kerncraft: ['0', 0DV, '1', 1DV, '2', '3', '4', '5']", f"kerncraft: [{other_ports}]"),
        ("[architecture code analyzer, [3D, 4D]]", f"[architecture code analyzer, [{ld_ports}]]")])


@needs_gcc
@pytest.mark.parametrize("name,march", [
    ("ZEN3", "-march=znver3"),
    ("ZEN4", "-march=x86-64-v4 -mtune=znver3 -mprefer-vector-width=512")])
def test_zen_machine_file_predicts_triad(tmp_path, name, march):
    # One 64-B line = 2 ymm iterations (ZEN3) or 1 zmm iteration (ZEN4):
    # T_nOL = load-data cycles on LD0/LD1 = 2 cy; T_OL = the store path STD = 2 cy.
    result = kerncraft.analyze(str(REPO / "kernels" / "triad.c"), str(_zen(tmp_path, name, march)),
                               model="ECM", defines={"N": 1000})
    assert result.t_nol == pytest.approx(2.0)
    assert result.t_ol == pytest.approx(2.0)


@needs_cross
@pytest.mark.parametrize("name,cpu,ld_ports,other_ports,t_nol,t_ol", [
    # 4 NEON iterations per line: T_nOL = 4 x 1 cy (LD0/LD1), T_OL = 4 x 2 cy (L0/L1).
    ("N1", "-mcpu=neoverse-n1", "LD0, LD1", "B, S0, S1, M, V0, V0DV, V1, L0, L1", 4.0, 8.0),
    # 4 SVE-128 iterations per line: T_nOL = 4 x 2/3 cy (LD0-LD2), T_OL = 4 x 7/6 (front end).
    ("V2", "-march=armv9-a+sve2 -msve-vector-bits=128", "LD0, LD1, LD2",
     "B0, B1, S0, S1, S2, S3, M0, M1, V0, V0DV, V1, V2, V2DV, V3, L0, L1, L2, D0, D1",
     8 / 3, 28 / 6)])
def test_arm_machine_file_predicts_triad(tmp_path, name, cpu, ld_ports, other_ports, t_nol, t_ol):
    path = _arm(tmp_path, name, cpu, ld_ports, other_ports)
    result = kerncraft.analyze(str(REPO / "kernels" / "triad.c"), str(path), model="ECM",
                               defines={"N": 1000})
    assert result.t_nol == pytest.approx(t_nol)
    assert result.t_ol == pytest.approx(t_ol)
