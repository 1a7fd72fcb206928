"""The simulation charges the same cache-line-split cycles as the static TP.

Hand-derived (SKX.yml): a zmm load is one AGU uop on 2/3 plus one data uop on 2D/3D;
``line_split`` charges a split 64-B load one extra cycle on 2D/3D. The loop below
reads 8(%rax) and 72(%rax) and advances %rax by 128 B, so with %rax 64-B aligned at
loop entry both loads cross a line in every iteration: 2 data uops + 2 split cycles
on two ports = 2.0 cy per iteration (without the splits 1.0; front end 4 fused uops
at width 4 = 1.0).
"""
from __future__ import annotations

import pytest

from kerncraft.incore.analysis import analyze_text, load_model
from kerncraft.incore.bottleneck_sim import simulate

SPLIT_LOOP = """\
.L1:
\tvmovupd\t8(%rax), %zmm0
\tvmovupd\t72(%rax), %zmm1
\taddq\t$128, %rax
\tcmpq\t%rax, %rdx
\tjne\t.L1
"""


@pytest.fixture(scope="module")
def skx():
    return load_model("SKX")


def test_split_cycles_in_static_and_simulated(skx):
    res = analyze_text(SPLIT_LOOP, "SKX", model=skx, split_alignment=64)
    assert res.throughput == pytest.approx(2.0)
    assert simulate(res, skx).cycles_per_iteration == pytest.approx(2.0, abs=0.05)


def test_no_split_cycles_when_aligned_access(skx):
    aligned = SPLIT_LOOP.replace("8(%rax)", "0(%rax)").replace("72(%rax)", "64(%rax)")
    res = analyze_text(aligned, "SKX", model=skx, split_alignment=64)
    assert res.throughput == pytest.approx(1.0)
    assert simulate(res, skx).cycles_per_iteration == pytest.approx(1.0, abs=0.05)


def test_split_cycles_counted_once(skx):
    # the stand-alone analysis has the split cycles in its TP already: the simulation adds
    # them as uops (kerncraft/incore/split_uops.py) but reports the same static bound
    res = analyze_text(SPLIT_LOOP, "SKX", model=skx, split_alignment=64)
    result = simulate(res, skx)
    assert result.static_prediction == pytest.approx(2.0)
    assert result.run.port_cycles["2D"] + result.run.port_cycles["3D"] == \
        pytest.approx(4.0, abs=0.05)      # 2 data uops + 2 split cycles per iteration


def test_no_address_splits_without_alignment(skx):
    # without --alignment (split_alignment None, as the ECM pipeline calls analyze) the
    # analysis has no per-access estimate and the simulation none either
    res = analyze_text(SPLIT_LOOP, "SKX", model=skx)
    assert res.throughput == pytest.approx(1.0)
    assert simulate(res, skx).cycles_per_iteration == pytest.approx(1.0, abs=0.05)
