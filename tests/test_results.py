"""Typed model results and their text reports (issue 16).

Numbers come from the hand derivations of the copy and triad cases in
tests/support/ecm_golden_cases.py (CSX, N = 10^7): T_L1L2 = 3.0, T_L2L3 = 8.0,
T_L3MEM = 192 B at the saturated copy bandwidth, T_nOL = 1.0, T_OL = 2.0.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import kerncraft
from kerncraft.models.ecm import compute_ecm, compute_ecm_cpu
from kerncraft.models.ecm_data import compute_ecm_data
from kerncraft.models.lc import compute_lc
from kerncraft.models.results import (ECMCPUResult, ECMDataResult, ECMResult, LCResult,
                                      RooflineResult)
from kerncraft.models.roofline import compute_roofline_asm, compute_roofline_flop
from kerncraft.options import AnalysisOptions
from kerncraft.report.text import format_result
from kerncraft.runner.run import model_report
from kerncraft.runner.table import MODELS
from support.ecm_golden_cases import COPY, TRIAD, copy_sat_cycles
from support.fixed_measurement import FIXED_MEASUREMENT
from test_ecm_golden import needs_gcc12      # the in-core numbers are gcc 12's

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
COPY_T_L3MEM = 192 / (36.54e9 * 1.5 / 2.5e9)         # 192 B at 54.81 GB/s = 21.924 B/cy


@pytest.fixture(scope="module")
def csx():
    return kerncraft.load_machine("CSX")


def bound(case):
    source = (KERNELS / case.kernel).read_text()
    return kerncraft.parse_kernel(source, filename=case.kernel).bind(case.defines)


@needs_gcc12
def test_ecm_result_fields_in_cycles_per_cacheline(csx):
    result = compute_ecm(bound(COPY), csx)
    assert isinstance(result, ECMResult) and result.unit == "cy/CL"
    assert COPY_T_L3MEM == pytest.approx(copy_sat_cycles(192))
    assert (result.t_ol, result.t_nol) == pytest.approx((2.0, 1.0))
    assert result.predictions == pytest.approx(
        {"L1": 2.0, "L2": 4.0, "L3": 12.0, "MEM": 12.0 + COPY_T_L3MEM})
    assert round(result.t_mem, 2) == 20.76
    assert result.saturation_cores == 3
    assert result.saturated_memory_cycles == pytest.approx(COPY_T_L3MEM)
    assert result.row(2).cycles_per_cl == pytest.approx(result.t_mem / 2)
    assert result.row(4).memory_bound and not result.row(2).memory_bound
    assert result.prediction == result.prediction_cy_per_cl == pytest.approx(result.t_mem)
    with pytest.raises(KeyError):
        result.row(999)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.cores = 2                                   # type: ignore[misc]


@needs_gcc12
def test_ecm_result_in_another_unit(csx):
    result = compute_ecm(bound(COPY), csx, AnalysisOptions(unit="cy/It", cores=4))
    # cy/It = cy/CL / 8; four cores: memory bound at T_L3MEM
    assert result.predictions_in_unit[-1] == pytest.approx((12.0 + COPY_T_L3MEM) / 8)
    assert result.prediction == pytest.approx(COPY_T_L3MEM / 8)
    assert result.prediction_cy_per_cl == pytest.approx(COPY_T_L3MEM)


@needs_gcc12
def test_incore_result(csx):
    result = compute_ecm_cpu(bound(COPY), csx, AnalysisOptions(unit="It/s"))
    assert isinstance(result, ECMCPUResult)
    assert (result.t_ol, result.t_nol) == pytest.approx((2.0, 1.0))
    # It/s = 2.5 GHz * 8 It/CL / (cy/CL)
    assert result.t_ol_in_unit == pytest.approx(2.5e9 * 8 / 2.0)
    assert result.t_nol_in_unit == pytest.approx(2.5e9 * 8 / 1.0)
    assert result.iterations_per_cacheline == 8


def test_ecm_data_result(csx):
    result = compute_ecm_data(bound(COPY), csx, AnalysisOptions(unit="cy/It"))
    assert isinstance(result, ECMDataResult)
    assert [link.name for link in result.links] == ["T_L1L2", "T_L2L3", "T_L3MEM"]
    assert result.value("T_L1L2") == pytest.approx(3.0 / 8)
    assert result.value("T_L2L3") == pytest.approx(8.0 / 8)
    assert result.links[-1].cycles == pytest.approx(COPY_T_L3MEM)


@needs_gcc12
def test_roofline_results(csx):
    triad = compute_roofline_flop(bound(TRIAD), csx)
    assert isinstance(triad, RooflineResult) and triad.model == "RooflineFLOP"
    assert triad.bottleneck == "MEM" and triad.unit == "FLOP/s"
    assert triad.precision == "DP" and triad.peak_flops_per_cycle == 32.0
    # 2 FLOP/It * 8 It/CL / 32 FLOP/cy = 0.5 cy/CL
    assert triad.compute_cycles_per_cl == pytest.approx(0.5)
    copy = compute_roofline_flop(bound(COPY), csx)
    assert copy.compute_performance is None and copy.unit == "It/s"    # no FLOPs
    # MEM 192 B at the 1-core copy bandwidth 14.56 GB/s * 1.5
    assert copy.cycles_per_cl == pytest.approx(192 * 2.5e9 / (14.56e9 * 1.5))
    asm = compute_roofline_asm(bound(COPY), csx)
    assert asm.model == "RooflineASM" and asm.compute_cycles_per_cl == pytest.approx(2.0)
    assert [lvl.level for lvl in asm.levels] == ["L2", "L3", "MEM"]


def test_lc_result(csx):
    result = compute_lc(bound(COPY), csx)
    assert isinstance(result, LCResult)
    assert result.holding == {"L1": 0, "L2": 0, "L3": 0}
    assert result.traffic.level("L1").loads == pytest.approx(2.0)   # b and WA of a


@pytest.mark.parametrize("compute,name", [
    (compute_ecm, "ECM"), (compute_ecm_cpu, "ECMCPU"), (compute_ecm_data, "ECMData"),
    (compute_roofline_flop, "RooflineFLOP"), (compute_roofline_asm, "RooflineASM"),
    (compute_lc, "LC")])
def test_model_reports_render_the_typed_result(csx, compute, name):
    """text = format_result(result), data = result.to_dict(), whatever the options; the
    table's entry computes what the model's compute function does."""
    options = AnalysisOptions(unit="cy/It", verbose=1)
    result = compute(bound(TRIAD), csx, options)
    assert MODELS[name].compute(bound(TRIAD), csx, options) == result
    report = model_report(name, bound(TRIAD), csx, options)
    assert report.model == name and report.result == result
    assert report.text == format_result(result, verbose=1)
    assert report.data == result.to_dict()


def test_benchmark_result_is_formatted_in_its_unit():
    text = format_result(FIXED_MEASUREMENT)
    assert text.splitlines()[-1] == "measured performance: 50.00 cy/CL"
    assert kerncraft.BenchmarkResult is type(FIXED_MEASUREMENT)
    per_it = dataclasses.replace(FIXED_MEASUREMENT, unit="cy/It")
    assert format_result(per_it).splitlines()[-1] == "measured performance: 6.25 cy/It"
    assert per_it.to_dict()["value"] == 6.25 and per_it.to_dict()["unit"] == "cy/It"
    flops = dataclasses.replace(FIXED_MEASUREMENT, unit="FLOP/s")    # copy has no FLOPs
    assert flops.to_dict()["value"] is None


def test_format_result_refuses_unknown_types():
    with pytest.raises(TypeError, match="no text report for dict"):
        format_result({})
