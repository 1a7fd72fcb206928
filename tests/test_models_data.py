"""ECMData, RooflineFLOP and the ECM composition rule against hand-derived numbers.

Machine: machine-files/CSX.yml (2.5 GHz; L2 64 B/cy half-duplex; L3 16 B/cy
full-duplex; victim L3: L2 misses load from memory, every L2 victim goes to L3).
Sizes are far beyond all caches (N = 10^7 doubles = 80 MB per array).
"""
from __future__ import annotations

from argparse import Namespace
from pathlib import Path

import pytest

import kerncraft
from kerncraft.models.ecm_compose import (ECMContribution, compose_ecm, saturation_cores,
                                          scaling_table)
from kerncraft.models.transfers import kernel_stream_mix
from kerncraft.report.text import ecm_notation, ecm_prediction_notation
from kerncraft.runner.run import model_report

KERNELS = Path(__file__).resolve().parents[1] / "kernels"


@pytest.fixture(scope="module")
def csx():
    return kerncraft.load_machine("CSX")


def bound(name: str, **values):
    source = (KERNELS / name).read_text()
    return kerncraft.parse_kernel(source, filename=name).bind(values)


def args(**kw):
    base = dict(cache_predictor="LC", cores=1, unit=None, verbose=0)
    base.update(kw)
    return Namespace(**base)


def test_stream_mix_classification():
    assert kernel_stream_mix(bound("copy.c", N=100)) == (1, 1, 0)
    assert kernel_stream_mix(bound("triad.c", N=100)) == (2, 1, 0)
    assert kernel_stream_mix(bound("daxpy.c", N=100)) == (1, 0, 1)
    assert kernel_stream_mix(bound("update.c", N=100)) == (0, 0, 1)
    assert kernel_stream_mix(bound("sum_reduction.c", N=100)) == (1, 0, 0)


def test_ecmdata_copy_in_memory(csx):
    report = model_report("ECMData", bound("copy.c", N=10**7), csx, args())
    values = report.data["values"]
    # L1-L2: b + write-allocate of a in, dirty a out: 3 CL * 64 B / 64 B/cy
    assert values["T_L1L2"] == pytest.approx(3.0)
    # L2-L3: both lines leave L2 as victims (clean b, dirty a); full duplex, 0 loads:
    # max(0, 2) CL * 64 B / 16 B/cy
    assert values["T_L2L3"] == pytest.approx(8.0)
    # L3-MEM: 2 CL in + 1 CL out = 192 B at the saturated copy bandwidth (the ECM input:
    # the highest of the 1..10-core measurements of one SNC domain, 36.54 GB/s on 9
    # cores), which counts 16 of the 24 B it moves per iteration: 54.81 GB/s =
    # 21.924 B/cy -> 8.7575 cy
    assert values["T_L3MEM"] == pytest.approx(192 / (36.54e9 * 24 / 16 / 2.5e9))
    assert report.data["links"][2]["benchmark_kernel"] == "copy"
    assert "{ 3.00 | 8.00 | 8.76 } cy/CL" in report.text


def test_ecmdata_triad_and_units(csx):
    kernel = bound("triad.c", N=10**7)
    report = model_report("ECMData", kernel, csx, args())
    values = report.data["values"]
    assert values["T_L1L2"] == pytest.approx(4.0)            # 3 in + 1 out
    assert values["T_L2L3"] == pytest.approx(12.0)           # 3 victims / 16 B/cy
    # (2 read, 1 write) streams select daxpy, saturated 55.02 GB/s (8 cores), no
    # write-only stream -> no scaling
    assert values["T_L3MEM"] == pytest.approx(256 / (55.02e9 / 2.5e9))
    per_it = model_report("ECMData", kernel, csx, args(unit="cy/It")).data["values"]
    assert per_it["T_L1L2"] == pytest.approx(0.5)             # 8 iterations per CL
    it_s = model_report("ECMData", kernel, csx, args(unit="It/s")).data["values"]
    assert it_s["T_L1L2"] == pytest.approx(2.5e9 / 0.5)


def test_roofline_flop_triad(csx):
    report = model_report("RooflineFLOP", bound("triad.c", N=10**7), csx, args())
    data = report.data
    levels = {lvl["level"]: lvl for lvl in data["levels"]}
    assert levels["L1"]["bytes"] == 192                      # 3 accesses * 8 B * 8 it
    assert levels["L1"]["cycles_per_cl"] == pytest.approx(192 * 2.5 / 291.92)
    assert levels["L2"]["cycles_per_cl"] == pytest.approx(256 * 2.5 / 106.79)
    # L3 is a victim cache: the daxpy benchmark in L3 moved 32 B per 24 nominal (loads of
    # both streams + both lines back as victims), so its bandwidth counts x 4/3
    assert levels["L3"]["cycles_per_cl"] == pytest.approx(192 * 2.5 / (35.62 * 4 / 3))
    assert levels["MEM"]["cycles_per_cl"] == pytest.approx(256 * 2.5 / 21.32)
    assert data["compute_cycles_per_cl"] == pytest.approx(16 / 32)   # 16 FLOP / 32 FLOP/cy
    assert data["bottleneck"] == "MEM"
    assert data["arithmetic_intensity"] == pytest.approx(16 / 256)
    assert data["performance"] == pytest.approx(16 / (256 * 2.5 / 21.32) * 2.5e9)
    assert "Performance: 1.33 GFLOP/s" in report.text


def test_roofline_without_flops_defaults_to_iterations(csx):
    report = model_report("RooflineFLOP", bound("copy.c", N=10**7), csx, args())
    assert report.data["unit"] == "It/s"
    with pytest.raises(kerncraft.KerncraftError, match="FLOP/s is undefined"):
        model_report("RooflineFLOP", bound("copy.c", N=10**7), csx, args(unit="FLOP/s"))


def test_ecm_composition_non_overlapping():
    contributions = [ECMContribution("T_L1L2", 3.0, False), ECMContribution("T_L2L3", 8.0, False),
                     ECMContribution("T_L3MEM", 22.0, False)]
    ecm = compose_ecm(4.0, 2.0, contributions, ("L1", "L2", "L3", "MEM"))
    assert ecm.predictions == (4.0, 5.0, 13.0, 35.0)
    assert ecm_notation(ecm) == "{ 4.00 || 2.00 | 3.00 | 8.00 | 22.00 } cy/CL"
    assert ecm_prediction_notation(ecm) == "{ 4.00 \u230b 5.00 \u230b 13.00 \u230b 35.00 } cy/CL"


def test_ecm_composition_overlapping_level():
    # an overlapping memory link competes with T_OL instead of adding up
    contributions = [ECMContribution("T_L1L2", 3.0, False), ECMContribution("T_L2MEM", 10.0, True)]
    ecm = compose_ecm(4.0, 2.0, contributions, ("L1", "L2", "MEM"))
    assert ecm.predictions == (4.0, 5.0, 10.0)


def test_saturation_and_scaling():
    assert saturation_cores(35.0, 8.0) == 5          # ceil(4.375)
    assert saturation_cores(32.0, 8.0) == 4          # exact division is not rounded up
    assert saturation_cores(15.0, 0.0) is None       # no memory traffic: never saturates
    table = scaling_table([(n, 35.0, t) for n, t in enumerate([22.0, 12.0, 9.0, 8.0, 8.0], 1)])
    assert [round(p.cycles_per_cl, 3) for p in table] == [35.0, 17.5, 11.667, 8.75, 8.0]
    assert [p.memory_bound for p in table] == [False, False, False, False, True]


def test_scaling_uses_the_memory_time_of_n_cores():
    # with 2 cores the shared cache share shrinks: T_MEM(2) = 50 instead of 35
    table = scaling_table([(1, 35.0, 22.0), (2, 50.0, 12.0)])
    assert [p.cycles_per_cl for p in table] == [35.0, 25.0]
    assert scaling_table([(1, 15.0, 0.0)])[0].memory_bound is False
