"""Blocking advice, ``kerncraft-tile`` (issue 28 item 10): block sizes checked against the
layer conditions by hand.

The rule (docs/layer-conditions.md, sections 2 and 4): a condition with reuse window
W holds if the union of the bytes every reference group touches during W fits into
the usable share of the level, ``fill x size`` with fill 1/2 on every level
(DEFAULT_FILL_FACTOR); on CSX (machine-files/CSX.yml) L1 = 32 KiB -> 16384 B usable,
L2 = 1 MiB -> 524288 B usable. Durations count inner iterations: a loop
``for (i = 1; i < N - 1; ++i)`` runs N - 2 times.
"""
from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

import kerncraft
from kerncraft.api import load_kernel
from kerncraft.cli import tile
from kerncraft.errors import DefineError, KerncraftError
from kerncraft.models.tiling import tiling_advice

CSX_L1_USABLE = 32 * 1024 // 2          # 16384 B
CSX_L2_USABLE = 1024 * 1024 // 2        # 524288 B

# 2d-5pt (b[j][i] = a[j][i-1] + a[j][i+1] + a[j-1][i] + a[j+1][i], i = 1 .. N-2):
# the row condition keeps a[j][i+1], a[j][i-1] and a[j-1][i]. Its window is the
# largest distance between consecutive a-references in time, a[j][i+1] -> a[j+1][i]
# (and a[j-1][i] -> a[j][i-1]): one row minus one element, W = (N-2) - 1 = N-3 iterations.
# Bytes touched during W: a: the trails of a[j+1][i] and a[j][i+1] (W apart), a[j][i-1]
# (2 behind a[j][i+1]) and a[j-1][i] (W behind a[j][i-1]) join up to W + W + 2 + W
# = 3N-7 doubles; b: its own trail of W = N-3 doubles. 8 B each: 8(3N-7) + 8(N-3) = 32N-80.
# L1: 32N - 80 <= 16384 -> N <= 16464/32 = 514.5 -> N = 514 (515 gives 16400 > 16384).
# L2: 32N - 80 <= 524288 -> N <= 524368/32 = 16386.5 -> N = 16386.
S2D_L1_LARGEST_N = 514
S2D_L2_LARGEST_N = 16386

# 3d-7pt (a[k][j][i] and its six neighbours, b[k][j][i]; i,j,k = 1 .. extent-2): the
# k-layer condition keeps all of a but a[k+1][j][i]; its window runs from a[k][j+1][i]
# to a[k+1][j][i] (and a[k-1][j][i] -> a[k][j-1][i]): one plane minus one row,
# W = (M-2)(N-2) - (N-2) = (M-3)(N-2) iterations. a's trails join up over
# W (a[k+1]) + W (a[k][j+1] -> a[k+1]) + (N-3) (a[k][j][i+1] -> a[k][j+1]) + 1 + 1
# + (N-3) (a[k][j-1] -> a[k][j][i-1]) + W (a[k-1] -> a[k][j-1]) = 3W + 2N - 4 doubles;
# b adds W. Bytes: 8(4W + 2N - 4) = 32MN - 64M - 80N + 160.
# Blocking N with M = 100: 3200N - 6400 - 80N + 160 = 3120N - 6240 <= 524288
#   -> N <= 530528/3120 = 170.04 -> N = 170.
# Blocking M = N = b (square tiles): 32b^2 - 144b + 160 <= 524288; b = 130 gives
#   540800 - 18720 + 160 = 522240 <= 524288, b = 131 gives 549152 - 18864 + 160 = 530448.
S3D_L2_LARGEST_N_AT_M100 = 170
S3D_L2_LARGEST_SQUARE = 130

needs_compiler = pytest.mark.skipif(shutil.which("gcc") is None,
                                    reason="ECM compiles the loop (gcc not installed)")


@pytest.fixture(scope="module")
def csx():
    return kerncraft.load_machine("CSX")


def _limit(advice, level: str, condition: int):
    [lim] = [x for x in advice.limits if (x.level, x.condition) == (level, condition)]
    return lim


def test_2d_5pt_row_condition_by_hand(csx):
    advice = tiling_advice(load_kernel("kernels/2d-5pt.c"), csx, {"M": 10000, "N": 10000})
    assert advice.block == ("N",)          # the inner loop's extent
    assert advice.smallest == 3            # i = 1 .. N-2 runs from N = 3 on
    l1, l2 = _limit(advice, "L1", 2), _limit(advice, "L2", 2)
    assert l1.inequality == f"32*N - 80 <= {CSX_L1_USABLE}"
    assert l1.largest == S2D_L1_LARGEST_N
    assert l2.largest == S2D_L2_LARGEST_N
    # the reuse of a[j][i-1] two iterations later (80 B) fits at every size
    assert _limit(advice, "L1", 1).always and _limit(advice, "L1", 1).largest is None
    # the LC model itself agrees at the boundary: row condition in L1 at 514, not at 515
    at = {n: kerncraft.analyze("kernels/2d-5pt.c", csx, "LC",
                               defines={"M": 10000, "N": n}).holding["L1"]
          for n in (S2D_L1_LARGEST_N, S2D_L1_LARGEST_N + 1)}
    assert at == {514: 2, 515: 1}
    # proposed: 514 (L2's 16386 exceeds the unblocked 10000: no blocking needed there)
    assert [(c.size, c.reasons) for c in advice.choices] == [
        (514, ("L1 #2",)), (10000, ("no blocking",))]


def test_3d_7pt_layer_condition_in_l2_by_hand(csx):
    k3 = load_kernel("kernels/3d-7pt.c")
    inner = tiling_advice(k3, csx, {"L": 100, "M": 100, "N": 1000})
    assert inner.block == ("N",)
    assert _limit(inner, "L2", 3).largest == S3D_L2_LARGEST_N_AT_M100
    square = tiling_advice(k3, csx, {"L": 100, "M": 1000, "N": 1000}, block=["M", "N"])
    assert _limit(square, "L2", 3).largest == S3D_L2_LARGEST_SQUARE
    assert _limit(square, "L2", 3).window == "k+1 j-1"


@needs_compiler
def test_predictions_are_those_of_the_ecm_model(csx):
    k2 = load_kernel("kernels/2d-5pt.c")
    advice = tiling_advice(k2, csx, {"M": 10000, "N": 10000},
                           predict=lambda b: kerncraft.analyze(k2, csx, "ECM", defines=b),
                           model="ECM")
    for choice in advice.choices:
        ecm = kerncraft.analyze("kernels/2d-5pt.c", "CSX", "ECM", defines=dict(choice.bindings))
        assert choice.cycles_per_cl == pytest.approx(ecm.prediction_cy_per_cl)
    blocked, full = advice.choices
    # By hand: keeping the rows in L1 saves 2 of the 4 lines L1 loads per CL (doc table,
    # section 5: "2d-5pt, 3 rows fit L1": 2 loads); L2 -> L1 moves 64 B/cy (CSX), so
    # T_L1L2 drops from (4+1) to (2+1) cy/CL. L2, L3 and memory traffic are the same at
    # both sizes (row condition in L2 and L3), and CSX transfers do not overlap: the
    # ECM prediction drops by exactly 2 cy/CL.
    assert full.cycles_per_cl - blocked.cycles_per_cl == pytest.approx(2.0)
    assert advice.best == 0

    k3 = load_kernel("kernels/3d-7pt.c")
    square = tiling_advice(k3, csx, {"L": 100, "M": 1000, "N": 1000}, block=["M", "N"],
                           predict=lambda b: kerncraft.analyze(k3, csx, "ECM", defines=b))
    [at130] = [c for c in square.choices if c.size == S3D_L2_LARGEST_SQUARE]
    ecm = kerncraft.analyze(k3, csx, "ECM", defines={"L": 100, "M": 130, "N": 130})
    assert at130.cycles_per_cl == pytest.approx(ecm.prediction_cy_per_cl)
    assert at130.holding["L2"] == 3


def test_kerncraft_rule_blocks_the_constant_without_a_value(csx):
    # Kerncraft's cachetile blocks the one constant left without a -D value
    advice = tiling_advice(load_kernel("kernels/2d-5pt.c"), csx, {"M": 10000})
    assert advice.block == ("N",) and advice.full_size is None
    assert [c.reasons for c in advice.choices] == [("L1 #2",), ("L2 #2",), ("L3 #2",)]


def test_min_block_length(csx):
    # 32*600 - 80 = 19120 > 16384: above 600 the rows never fit L1
    advice = tiling_advice(load_kernel("kernels/2d-5pt.c"), csx, {"M": 10000, "N": 100000},
                           smallest=600)
    assert _limit(advice, "L1", 2).largest is None and not _limit(advice, "L1", 2).always
    assert _limit(advice, "L2", 2).largest == S2D_L2_LARGEST_N


def test_whole_tile_in_cache_is_flagged_and_not_best(csx):
    # 3d-7pt, M = N = 24, L = 100: 2 arrays x 100 x 24 x 24 x 8 B = 921,600 B fit the
    # 10 MB CSX L3 may hold of a whole working set: the prediction counts on reuse between
    # calls, which a tile of a blocked sweep does not get.
    k3 = load_kernel("kernels/3d-7pt.c")
    advice = tiling_advice(k3, csx, {"L": 100, "M": 1000, "N": 1000}, block=["M", "N"],
                           predict=lambda b: kerncraft.analyze(k3, csx, "ECMData", defines=b))
    [small] = [c for c in advice.choices if c.size == 24]
    assert small.whole_set_levels == ("L3",)
    assert advice.choices[advice.best].size == S3D_L2_LARGEST_SQUARE
    assert advice.choices[advice.best].cycles_per_cl > small.cycles_per_cl


def test_errors(csx):
    copy = load_kernel("kernels/copy.c")
    with pytest.raises(KerncraftError, match="no blockable dimension"):
        tiling_advice(copy, csx, {"N": 1000})      # only the whole array's reuse
    s2d = load_kernel("kernels/2d-5pt.c")
    with pytest.raises(KerncraftError, match="depend on N: block one of those"):
        tiling_advice(s2d, csx, {"N": 1000})       # M is the one without a value
    with pytest.raises(DefineError, match="constants M, N have no value"):
        tiling_advice(s2d, csx, {})
    with pytest.raises(KerncraftError, match="no constant Q"):
        tiling_advice(s2d, csx, {"M": 10}, block=["Q"])
    no_caches = dataclasses.replace(csx, memory_hierarchy=csx.memory_hierarchy[-1:])
    with pytest.raises(KerncraftError, match="no cache levels"):
        tiling_advice(s2d, no_caches, {"M": 10, "N": 10})


def test_command_line_text_and_json(tmp_path, capsys):
    out = tmp_path / "tile.json"
    code = tile.main(["-m", "CSX", "kernels/2d-5pt.c", "-D", "M", "10000", "-D", "N", "10000",
                      "-p", "ECMData", "--json", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "32*N - 80 <= 16384" in text
    [row] = [line for line in text.splitlines() if "largest for L1 #2" in line]
    assert row.split()[0] == "514" and row.endswith("<- best")
    doc = json.loads(out.read_text())
    assert doc["block"] == ["N"] and doc["unit"] == "cy/CL"
    sizes = [c["size"] for c in doc["choices"]]
    assert sizes == [514, 10000]
    # ECMData sums the transfer times: only T_L1L2 changes, by 2 cy/CL (see above)
    cycles = [c["cycles_per_cl"] for c in doc["choices"]]
    assert cycles[1] - cycles[0] == pytest.approx(2.0)


def test_command_line_errors_are_one_line(capsys):
    assert tile.main(["-m", "CSX", "kernels/2d-5pt.c", "-D", "M", "10-100:3"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("kerncraft-tile: error: -D M 10-100:3") and "\n" not in err
    assert tile.main(["-m", "CSX", "kernels/2d-5pt.c", "-D", "M", "10", "-p", "LC"]) == 2
    assert "predicts with ECM" in capsys.readouterr().err


def test_docstring_example():
    import doctest

    from kerncraft.models import tiling

    result = doctest.testmod(tiling)
    assert result.failed == 0 and result.attempted > 0


def test_kernel_description_is_predicted_with_ecmdata(capsys):
    # Kerncraft's cachetile read YAML kernel descriptions (and predicted with ECMData)
    from pathlib import Path

    yml = Path(__file__).resolve().parents[1] / "kernels" / "2d-5pt.yml"
    if not yml.exists():
        pytest.skip("no bundled kernel description kernels/2d-5pt.yml")
    assert tile.main(["-m", "CSX", str(yml), "-D", "M", "10000", "-D", "N", "10000"]) == 0
    text = capsys.readouterr().out
    assert "ECMData cy/CL" in text
    [row] = [line for line in text.splitlines() if "largest for L1 #2" in line]
    assert row.split()[0] == str(S2D_L1_LARGEST_N)
