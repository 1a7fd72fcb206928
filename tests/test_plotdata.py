"""Plot data of every picture kind (issue 14), checked against hand-derived numbers.

The triad on CSX at N = 10^7 is worked out in tests/support/ecm_golden_cases.py
(TRIAD, items (4) and (5)): 16 FLOP per cache line of work, clock 2.5 GHz,
Roofline levels L1 192 B at 291.92 GB/s, L2 256 B at 106.79 GB/s, L3 192 B at
35.62 * 4/3 GB/s, MEM 256 B at 21.32 GB/s (bottleneck, 30.019 cy/CL), peak
32 FLOP/cy; ECM {3 || 2 | 4 | 12 | 11.632} cy/CL, T_MEM 29.632, n_s = 3.
"""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import kerncraft
from kerncraft.errors import KerncraftError
from kerncraft.incore.analysis import analyze_text
from kerncraft.report.plotdata import (ecm_sweep_plot, port_pressure_plot, roofline_plot,
                                       scaling_plot)
from kerncraft.report.plotdata_validation import (ValidationPlotPoint, points_from_table,
                                                  validation_plot)
from test_ecm_golden import needs_gcc12     # in-core numbers of the loops gcc 12 emits

ROOT = Path(__file__).resolve().parents[1]
CLOCK = 2.5e9
T_L3MEM = 256 / (55.02e9 / CLOCK)           # saturated daxpy bandwidth, 22.008 B/cy
T_MEM = 2.0 + 4.0 + 12.0 + T_L3MEM


@pytest.fixture(scope="module")
def roofline():
    return kerncraft.analyze("kernels/triad.c", "CSX", model="RooflineFLOP",
                             defines={"N": 10**7})


@pytest.fixture(scope="module")
def ecm():
    return kerncraft.analyze("kernels/triad.c", "CSX", model="ECM", defines={"N": 10**7})


def test_roofline_ceilings_points_and_binding_level(roofline):
    plot = roofline_plot(roofline)
    assert [c.level for c in plot.ceilings] == ["L1", "L2", "L3", "MEM"]
    assert [c.bandwidth for c in plot.ceilings] == pytest.approx(
        [291.92e9, 106.79e9, 35.62e9 * 4 / 3, 21.32e9])
    assert plot.ceilings[3].label == "MEM 21.3 GB/s"
    assert plot.compute == pytest.approx(32 * CLOCK)                    # 80 GFLOP/s
    assert plot.compute_label == "arithmetic peak 80 GFLOP/s"
    # intensity per level: 16 FLOP over 192 / 256 / 192 / 256 B
    assert [p.intensity for p in plot.points] == pytest.approx([1 / 12, 1 / 16, 1 / 12, 1 / 16])
    performance = 16 * CLOCK / (256 * CLOCK / 21.32e9)                  # = 1/16 * 21.32e9
    assert plot.performance == pytest.approx(performance) == pytest.approx(1.3325e9)
    assert all(p.performance == pytest.approx(performance) for p in plot.points)
    assert [p.binding for p in plot.points] == [False, False, False, True]
    assert plot.points[3].bound == pytest.approx(performance)           # on its ceiling
    assert plot.points[0].bound == pytest.approx(291.92e9 / 12)
    assert plot.bottleneck == "MEM" and plot.y_label == "performance (GFLOP/s)"


@needs_gcc12
def test_roofline_asm_in_core_ceiling():
    result = kerncraft.analyze("kernels/triad.c", "CSX", model="RooflineASM",
                               defines={"N": 10**7})
    plot = roofline_plot(result)
    assert [c.level for c in plot.ceilings] == ["L2", "L3", "MEM"]
    assert plot.compute == pytest.approx(16 * CLOCK / 3.0)              # T_OL = 3 cy/CL
    assert plot.compute_label.startswith("in-core (compiled loop) 13.3 GFLOP/s")


def test_roofline_without_flops_is_an_error():
    copy = kerncraft.analyze("kernels/copy.c", "CSX", model="RooflineFLOP",
                             defines={"N": 10**7})
    with pytest.raises(KerncraftError, match="needs floating-point operations"):
        roofline_plot(copy)


@needs_gcc12
def test_ecm_sweep_stacks_contributions_against_working_set():
    rows = kerncraft.sweep("kernels/triad.c", "CSX", model="ECM",
                           defines={"N": [10**7, 1000]})
    points = [(24 * r.defines["N"], f"N={r.defines['N']}", r.result) for r in rows]
    plot = ecm_sweep_plot(points, {"L1": 32768, "L2": 2**20, "L3": 14 * 2**20, "MEM": None},
                          measured=[(2.4e8, 31.0), (24000, 6.5)])
    assert [p.working_set for p in plot.points] == [24000.0, 2.4e8]     # sorted
    assert [p.label for p in plot.points] == ["N=1000", "N=10000000"]
    small, large = plot.points
    # N = 1000: 24 kB exceed L1's 21.3 kB for the whole working set -> data from L2
    assert dict(small.parts) == pytest.approx({"T_nOL": 2.0, "T_L1L2": 4.0, "T_L2L3": 0.0,
                                               "T_L3MEM": 0.0})
    assert small.prediction == pytest.approx(6.0)
    assert dict(large.parts) == pytest.approx({"T_nOL": 2.0, "T_L1L2": 4.0, "T_L2L3": 12.0,
                                               "T_L3MEM": T_L3MEM})
    assert large.t_ol == 3.0 and large.prediction == pytest.approx(T_MEM)
    assert plot.part_names == ("T_nOL", "T_L1L2", "T_L2L3", "T_L3MEM")
    assert plot.capacities == (("L1", 32768.0), ("L2", 1048576.0), ("L3", 14680064.0))
    assert plot.measured == ((24000.0, 6.5), (2.4e8, 31.0))
    assert plot.x_label == "working set (bytes)" and plot.y_label == "time (cy/CL)"


def test_ecm_data_sweep_has_link_times_only():
    rows = kerncraft.sweep("kernels/triad.c", "CSX", model="ECMData", defines={"N": [10**7]})
    plot = ecm_sweep_plot([(2.4e8, "N=10000000", rows[0].result)], {}, title="ECMData")
    (point,) = plot.points
    # the same link times as ECM (T_L3MEM at the saturated bandwidth), no in-core part
    assert dict(point.parts) == pytest.approx({"T_L1L2": 4.0, "T_L2L3": 12.0,
                                               "T_L3MEM": T_L3MEM})
    assert point.t_ol is None and point.prediction is None       # no composition
    assert point.total == pytest.approx(16.0 + T_L3MEM)
    with pytest.raises(KerncraftError, match="no points"):
        ecm_sweep_plot([], {})
    with pytest.raises(KerncraftError, match="several points have the same one"):
        ecm_sweep_plot([(2.4e8, "N=1 M=2", rows[0].result), (2.4e8, "N=2 M=1", rows[0].result)],
                       {})


@needs_gcc12
def test_ecm_sweep_keeps_overlapping_transfers_apart(tmp_path):
    # ZEN2: L1-L2 and L2-L3 transfers overlap (machine file), L3-MEM adds up; with the
    # published memory term (saturated bandwidth + the file's T_penalty) so that the
    # penalty is stacked too.
    # triad: T_OL 2, T_nOL 2, T_L1L2 = 3 lines * 2 cy = 6, T_L2L3 = 4 lines * 4 cy = 16
    source = (Path(__file__).resolve().parents[1] / "machine-files" / "ZEN2.yml").read_text()
    published = tmp_path / "zen2.yml"
    published.write_text(source.replace("  - level: MEM\n",
                                        "  - level: MEM\n    ECM memory bandwidth: saturated\n"))
    result = kerncraft.analyze("kernels/triad.c", kerncraft.load_machine(published),
                               model="ECM", defines={"N": 10**7})
    plot = ecm_sweep_plot([(2.4e8, "N=10000000", result)], {}, measured=[(2.4e8, 40.0)])
    (point,) = plot.points
    assert point.overlapping == (("T_L1L2", 6.0), ("T_L2L3", 16.0))
    assert [name for name, _ in point.parts] == ["T_nOL", "T_L3MEM", "T_penalty"]
    t_l3mem = dict(point.parts)["T_L3MEM"]
    # T_penalty: ZEN2.yml's 0.585 cy per line loaded (b, c, a's write-allocate: 3) and
    # 2.57 per line stored (a: 1) = 1.755 + 2.57 = 4.325 cy/CL, stacked on T_L3MEM
    assert dict(point.parts)["T_penalty"] == pytest.approx(3 * 0.585 + 2.57)
    # prediction = max(T_OL, largest overlapping, T_nOL + T_L3MEM + T_penalty)
    assert point.prediction == pytest.approx(max(2.0, 16.0, 2.0 + t_l3mem + 4.325))
    assert point.total == pytest.approx(2.0 + t_l3mem + 4.325)
    assert plot.overlapping_names == ("T_L1L2", "T_L2L3")
    assert plot.top == 40.0                                     # the measured point


@needs_gcc12
def test_scaling_in_iterations_per_second_and_saturation(ecm):
    plot = scaling_plot(ecm, CLOCK)
    assert plot.unit == "It/s" and plot.y_label == "performance (GIt/s)"
    assert plot.cores[:4] == (1, 2, 3, 4) and len(plot.cores) == 20
    # It/s = 2.5e9 * 8 It/CL / (cy/CL): 1 core T_MEM, 2 cores T_MEM/2, 3-10 T_L3MEM
    assert plot.performance[0] == pytest.approx(20e9 / T_MEM)
    assert plot.performance[1] == pytest.approx(40e9 / T_MEM)
    assert plot.performance[2] == pytest.approx(20e9 / T_L3MEM)
    # 20 cores, both NUMA domains: 256 B at 108.63 GB/s = 43.452 B/cy -> 5.892 cy/CL
    assert plot.performance[19] == pytest.approx(20e9 / (256 / (108.63e9 / CLOCK)))
    assert plot.memory_bound[:3] == (False, False, True)
    assert plot.saturation == 3


@needs_gcc12
def test_scaling_keeps_a_rate_unit():
    result = kerncraft.analyze("kernels/triad.c", "CSX", model="ECM", defines={"N": 10**7},
                               unit="FLOP/s")
    plot = scaling_plot(result, CLOCK)
    assert plot.unit == "FLOP/s"
    assert plot.performance[0] == pytest.approx(16 * CLOCK / T_MEM)    # 1.350 GFLOP/s


def test_port_pressure_of_the_stream_triad():
    text = (ROOT / "tests/data/asm_papers/stream_triad_csx.s").read_text()
    plot = port_pressure_plot(analyze_text(text, "CSX"), "triad")
    totals = dict(zip(plot.ports, plot.cycles))
    # two loads + one store address on {2,3}: 1.5 each; data uops 1.0 (golden TRIAD (1))
    assert totals["2"] == totals["3"] == pytest.approx(1.5)
    assert totals["2D"] == totals["3D"] == totals["4"] == pytest.approx(1.0)
    assert plot.bottleneck == ("2", "3")
    assert dict(plot.bounds) == pytest.approx({"LCD": 1.0, "critical path": 11.0,
                                               "front end": 1.25})
    assert plot.title == "triad"


TABLE = """| kernel | level | defines | working set | measured cy/CL | ECM cy/CL | ECM error | Roofline cy/CL | Roofline error | model: data from | notes |
|---|---|---|---:|---:|---:|---:|---:|---:|---|---|
| copy | L1 | N=1536 | 24.0 KiB | 1.23 | 1.00 | -18.8 % | 1.00 | -18.8 % | L1 |  |
| copy | L2 | N=14336 | 224.0 KiB | 2.71 | 2.66 | -1.9 % | 2.34 | -13.6 % | L2 |  |
| copy | MEM | N=16777216 | 256.0 MiB | 13.01 | 13.02 | +0.1 % | 14.01 | +7.7 % | MEM |  |

[1] a note line | with a bar
"""


def test_validation_from_the_table():
    points = points_from_table(TABLE)
    assert points == (ValidationPlotPoint("copy", "L1", 1.23, 1.00, 1.00),
                      ValidationPlotPoint("copy", "L2", 2.71, 2.66, 2.34),
                      ValidationPlotPoint("copy", "MEM", 13.01, 13.02, 14.01))
    plot = validation_plot(points)
    assert plot.levels == ("L1", "L2", "MEM") and plot.band == 0.10
    assert plot.within_band("ECM") == 2          # -18.8 % is out, -1.9 % and +0.1 % in
    assert plot.within_band("Roofline") == 1     # only +7.7 %
    assert plot.limits == pytest.approx((1.0 / 1.3, 14.01 * 1.3))
    assert points[0].error("ECM") == pytest.approx(-0.23 / 1.23)


def test_validation_from_run_points_and_the_stored_run():
    run_point = SimpleNamespace(kernel="triad", size=SimpleNamespace(level="L3"), measured=6.88,
                                prediction=SimpleNamespace(ecm=6.64, roofline=6.49))
    plot = validation_plot([run_point])
    assert plot.points == (ValidationPlotPoint("triad", "L3", 6.88, 6.64, 6.49),)
    stored = (ROOT / "benchmarks/machines/validation-zen5-hand.txt").read_text()
    points = points_from_table(stored)
    assert len(points) == 56                     # 14 kernels x 4 levels
    assert points[-1] == ValidationPlotPoint("matvec", "MEM", 20.08, 16.00, 16.00)  # its last row
    with pytest.raises(KerncraftError, match="no measured"):
        validation_plot([])
