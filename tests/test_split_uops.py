"""The cycle-level simulation charges cache-line splits like the static bound (issue 11)."""
from __future__ import annotations

from pathlib import Path

import pytest

import kerncraft

KERNELS = Path(__file__).resolve().parents[1] / "kernels"


def test_simulated_2d_stencil_pays_its_line_splits():
    # 2d-5pt with zmm vectors on Zen 5 (8 iterations per asm iteration = one cache line):
    # 4 loads on LD0/LD1 = 2.0 cy; the estimate charges 4 x 7/8 split loads x 1 cy on
    # {LD0, LD1} = +1.75 cy per port, so the static throughput is 3.75 cy. The simulation
    # schedules the same split cycles as uops and must agree (it gave 2.0 without them).
    defines = {"N": 130, "M": 18}
    static = kerncraft.analyze(str(KERNELS / "2d-5pt.c"), "ZEN5-VM", model="ECMCPU",
                               defines=defines)
    simulated = kerncraft.analyze(str(KERNELS / "2d-5pt.c"), "ZEN5-VM", model="ECMCPU",
                                  defines=defines, incore_model="kerncraft-sim")
    per_port = static.prediction.line_splits.per_port
    assert per_port["LD0"] == pytest.approx(1.75) and per_port["LD1"] == pytest.approx(1.75)
    assert static.prediction.throughput == pytest.approx(3.75)
    assert simulated.prediction.simulated == pytest.approx(3.75, abs=0.05)


def test_loops_without_splits_simulate_unchanged():
    # copy in L1 with aligned zmm streams: no split, static = simulated = 1.0 cy/CL
    sim = kerncraft.analyze(str(KERNELS / "copy.c"), "ZEN5-VM", model="ECMCPU",
                            defines={"N": 1024}, incore_model="kerncraft-sim")
    assert sim.prediction.simulated == pytest.approx(1.0, abs=0.02)
