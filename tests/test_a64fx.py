"""Fujitsu A64FX: the SVE port model and the published machine file end to end (issue 12).

Expected numbers are derived by hand from ``kerncraft/incore/databases/A64FX.yml``
(OSACA's pipe numbering: 0 FLA, 2 FLB FP pipes with 9 cy; 5/6 EAGA/EAGB with load-data
halves 5D/6D; store data from FLA; 4 uops per cycle; SVE loads 11 cy).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import kerncraft
from kerncraft.compilation.asm_block_aarch64 import flops
from kerncraft.incore.aarch64 import parse_aarch64
from kerncraft.incore.analysis import analyze_text
from support.published import HOW_TO_GET, published

REPO = Path(__file__).resolve().parents[1]
A64FX_FILE = published("A64FX_qpace4.yml")
needs_cross = pytest.mark.skipif(shutil.which("aarch64-linux-gnu-gcc") is None,
                                 reason="aarch64-linux-gnu-gcc not installed")
needs_file = pytest.mark.skipif(not A64FX_FILE.exists(), reason=HOW_TO_GET)

# gcc 12 -Ofast -march=armv8.2-a+sve -msve-vector-bits=512 for the triad a[i] = b[i] + s * c[i]
TRIAD = """\
.L3:
    ld1d    z1.d, p0/z, [x22, x2, lsl 3]
    ld1d    z0.d, p0/z, [x21, x2, lsl 3]
    fmad    z0.d, p1/m, z2.d, z1.d
    st1d    z0.d, p0, [x19, x2, lsl 3]
    add     x2, x2, 8
    whilelo p0.d, w2, w3
    b.any   .L3
"""


def test_sve_triad_loop_by_hand():
    result = analyze_text(TRIAD, "A64FX")
    assert result.unknown_forms == ()
    # Loads: 2 on the load-data halves 5D/6D -> 1 cy. AGUs 5/6: 2 load + 1 store-address
    # uops, and the add may go to 3/4/5/6 -> (3 + 0) / 2 = 1.5 cy (the add goes to 3/4).
    # FLA/FLB: fmad + the store data (FLA only) -> 1 cy. Front end: 7 uops / 4 = 1.75 cy.
    assert result.port_totals["5D"] + result.port_totals["6D"] == pytest.approx(2.0)
    assert result.throughput == pytest.approx(1.5)
    assert result.frontend == pytest.approx(1.75)
    assert result.prediction == pytest.approx(1.75)
    # Loop-carried: only the index add (1 cy); the b.any after whilelo is a branch.
    assert result.lcd == pytest.approx(1.0)
    # Critical path: ld1d 11 + fmad 9 (+ store 0) = 20 cy.
    assert result.critical_path == pytest.approx(20.0)


def test_sve_branch_aliases_close_a_loop():
    # b.none / b.first are SVE aliases (b.eq / b.mi); without them no loop is found.
    for cond in ("any", "none", "first", "nlast"):
        result = analyze_text(TRIAD.replace("b.any", f"b.{cond}"), "A64FX")
        assert len(result.instructions) == 7


def test_sve_multiply_add_forms_count_two_flops_per_lane():
    instrs = [ln.instruction for ln in parse_aarch64(TRIAD) if ln.instruction]
    fmad = next(i for i in instrs if i.mnemonic == "fmad")
    is_fp, count = flops(fmad)
    # Two operations per lane; SVE lanes are counted at the 128-bit minimum (2 doubles).
    assert (is_fp, count) == (1, 4)
    fsubr = [ln.instruction for ln in parse_aarch64("fsubr z0.d, p0/m, z0.d, z1.d")
             if ln.instruction][0]
    assert flops(fsubr) == (1, 2)


@needs_cross
@needs_file
def test_published_a64fx_file_predicts_the_triad():
    # 256-B cache lines = 4 SVE iterations of 64 B: T_OL = 4 x 1.75 (front end) = 7 cy/CL,
    # T_nOL = 4 x 1 cy on the machine file's non-overlapping ports 5D/6D = 4 cy/CL.
    result = kerncraft.analyze(str(REPO / "kernels" / "triad.c"), str(A64FX_FILE),
                               model="ECM", defines={"N": 1000})
    assert result.t_ol == pytest.approx(7.0)
    assert result.t_nol == pytest.approx(4.0)


def test_forms_of_kerncraft_examples_on_a64fx():
    # Forms gcc emits for Kerncraft's himeno_t, matsq, uxx-stencil and 3d-long-range
    # examples: a predicate move, an unpredicated movprfx, a scalar dup, structure loads.
    loop = """\
.L5:
    mov     p1.b, p0.b
    movprfx z0, z1
    mov     z3.d, d2
    ld3w    {z4.s, z5.s, z6.s}, p0/z, [x1, x2, lsl 2]
    add     x2, x2, 16
    whilelo p0.s, w2, w3
    b.any   .L5
"""
    result = analyze_text(loop, "A64FX")
    assert result.unknown_forms == ()
    # ld3w is three loads (assumption, see A64FX.yml): 3 uops on the load-data halves
    assert result.port_totals["5D"] + result.port_totals["6D"] == pytest.approx(3.0)
    # the predicate move and ptrue-class work on the predicate unit '1' (with whilelo's
    # share), the dup on FLA
    assert result.port_totals["1"] >= 1.0
