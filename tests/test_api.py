"""The public API: kerncraft.analyze and kerncraft.sweep (issue 16).

Expected numbers are the hand derivations of tests/support/ecm_golden_cases.py
(copy on CSX at N = 10^7: T_MEM = 1 + 3 + 8 + 192 B / 21.924 B/cy = 20.7575 cy/CL).
"""
from __future__ import annotations

import doctest
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import kerncraft
from kerncraft.errors import DefineError, KerncraftError
from kerncraft.options import AnalysisOptions
from test_ecm_golden import needs_gcc12      # the in-core numbers are gcc 12's

ROOT = Path(__file__).resolve().parents[1]
COPY_C = ROOT / "kernels" / "copy.c"
COPY_T_L3MEM = 192 / (36.54e9 * 1.5 / 2.5e9)
COPY_T_MEM = 1.0 + 3.0 + 8.0 + COPY_T_L3MEM


@needs_gcc12
def test_kernel_and_machine_in_every_form():
    source = COPY_C.read_text()
    machine = kerncraft.load_machine("CSX")
    forms = [(str(COPY_C), "CSX"), (COPY_C, machine),
             (source, ROOT / "machine-files" / "CSX.yml"),
             (kerncraft.parse_kernel(source, "copy.c"), "CSX")]
    for kernel, machine_like in forms:
        result = kerncraft.analyze(kernel, machine_like, defines={"N": 10**7})
        assert isinstance(result, kerncraft.ECMResult)
        assert result.t_mem == pytest.approx(COPY_T_MEM)


@needs_gcc12
def test_an_already_bound_kernel_needs_no_defines_and_can_be_rebound():
    kernel = kerncraft.parse_kernel(COPY_C.read_text(), "copy.c").bind({"N": 10**7})
    assert kerncraft.analyze(kernel, "CSX").t_mem == pytest.approx(COPY_T_MEM)
    small = kerncraft.analyze(kernel, "CSX", model="ECMData", defines={"N": 1000})
    assert small.value("T_L3MEM") == 0.0              # 16 kB of arrays stay in L1/L2


def test_default_key_binds_every_constant():
    result = kerncraft.analyze(ROOT / "kernels" / "2d-5pt.c", "CSX", model="LC",
                               defines={".": 1000})
    assert result.point.bindings == {"M": 1000, "N": 1000}


@needs_gcc12
def test_options_and_keywords():
    result = kerncraft.analyze(COPY_C, "CSX", defines={"N": 10**7},
                               options=AnalysisOptions(cores=4, unit="It/s"), unit="cy/It")
    assert (result.cores, result.unit) == (4, "cy/It")       # keyword wins over options
    assert result.prediction == pytest.approx(COPY_T_L3MEM / 8)   # 4 cores: memory bound
    roof = kerncraft.analyze(COPY_C, "CSX", model="roofline", defines={"N": 10**7},
                             compiler_flags=None, cache_predictor="LC")
    assert isinstance(roof, kerncraft.RooflineResult) and roof.model == "RooflineFLOP"


def test_errors():
    with pytest.raises(KerncraftError, match="unknown model 'ECN'"):
        kerncraft.analyze(COPY_C, "CSX", model="ECN", defines={"N": 10})
    with pytest.raises(DefineError, match="constant 'N' has no value"):
        kerncraft.analyze(COPY_C, "CSX")
    with pytest.raises(KerncraftError, match="kernel file not found"):
        kerncraft.analyze("no-such-kernel.c", "CSX", defines={"N": 10})
    with pytest.raises(KerncraftError, match="cores must be a positive integer"):
        kerncraft.analyze(COPY_C, "CSX", defines={"N": 10}, cores=0)
    with pytest.raises(TypeError, match="kernel must be"):
        kerncraft.analyze(42, "CSX")
    with pytest.raises(TypeError, match="machine must be"):
        kerncraft.analyze(COPY_C, 42, defines={"N": 10})
    with pytest.raises(TypeError):
        kerncraft.analyze(COPY_C, "CSX", defines={"N": 10}, colour="red")


def test_sweep_rows_in_cartesian_order():
    rows = kerncraft.sweep(ROOT / "kernels" / "2d-5pt.c", "CSX", model="LC",
                           defines={"N": [100, 200], "M": "100-300:2"})
    assert [(r.defines["N"], r.defines["M"]) for r in rows] == [
        (100, 100), (100, 300), (200, 100), (200, 300)]
    assert all(r.model == "LC" and isinstance(r.result, kerncraft.LCResult) for r in rows)
    assert rows[0].to_dict()["defines"] == {"M": 100, "N": 100}
    assert kerncraft.sweep(COPY_C, "CSX", model="LC", defines={"N": 5})[0].defines == {"N": 5}


@needs_gcc12
def test_sweep_values_match_single_analyses():
    rows = kerncraft.sweep(COPY_C, "CSX", defines={"N": [1000, 10**7]})
    assert [r.result for r in rows] == [
        kerncraft.analyze(COPY_C, "CSX", defines={"N": n}) for n in (1000, 10**7)]
    assert rows[1].result.t_mem == pytest.approx(COPY_T_MEM)


@needs_gcc12
def test_sweep_analyses_what_does_not_depend_on_the_sizes_once(monkeypatch):
    """One compilation and in-core analysis, one symbolic LC analysis for three sizes."""
    from kerncraft.cache import layer_conditions
    from kerncraft.models import incore_prediction

    calls = []
    original = layer_conditions._symbolic_core
    monkeypatch.setattr(layer_conditions, "_symbolic_core",
                        lambda *a: calls.append(a) or original(*a))
    # a source no earlier test has seen, so both caches start cold
    source = COPY_C.read_text() + "\n// test_sweep_analyses_once\n"
    before = incore_prediction._analyse_source.cache_info().misses
    rows = kerncraft.sweep(source, "CSX", defines={"N": [10**3, 10**5, 10**7]})
    assert len(rows) == 3 and len(calls) == 1
    assert incore_prediction._analyse_source.cache_info().misses - before == 1
    assert rows[2].result.t_mem == pytest.approx(COPY_T_MEM)


def test_benchmark_model_measures_with_the_options(monkeypatch):
    """analyze(model="Benchmark") hands cores, compiler, predictor and aliasing to the
    measurement (as -p Benchmark does) and returns its BenchmarkResult in ``unit`` (a
    fixed one here: no timing on a test machine)."""
    import dataclasses

    from kerncraft.benchmark import kernel_run as bm
    from support.fixed_measurement import FIXED_MEASUREMENT
    calls = []
    monkeypatch.setattr(bm, "run_benchmark", lambda kernel, machine, **kw: calls.append(
        (kernel.bindings, kw)) or FIXED_MEASUREMENT)
    result = kerncraft.analyze(COPY_C, "CSX", model="benchmark", defines={"N": 64}, cores=2,
                               compiler="gcc", cache_predictor="SIM", unit="cy/It")
    assert result == dataclasses.replace(FIXED_MEASUREMENT, unit="cy/It")
    assert result.to_dict()["value"] == 6.25
    assert calls == [({"N": 64}, {"cores": 2, "compiler": "gcc", "flags": None,
                                  "predictor": "SIM", "aliasing": "distinct", "min_time": 0.2,
                                  "repeats": 3, "backend": "auto"})]


def test_import_stays_lazy():
    code = ("import sys, kerncraft; heavy = [m for m in ('sympy', 'pycparser', 'yaml', "
            "'kerncraft.api', 'kerncraft.models.results') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"
    assert "analyze" in dir(kerncraft)
    with pytest.raises(AttributeError):
        kerncraft.no_such_name


DOCUMENTED = ("kerncraft", "kerncraft.api", "kerncraft.options", "kerncraft.models.results",
              "kerncraft.report.text", "kerncraft.report.json", "kerncraft.report.schema",
              "kerncraft.models.ecm", "kerncraft.models.ecm_data", "kerncraft.models.roofline",
              "kerncraft.models.lc")


@needs_gcc12
@pytest.mark.parametrize("name", DOCUMENTED)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.chdir(ROOT)             # the examples name kernels/*.c
    module = importlib.import_module(name)
    result = doctest.testmod(module, extraglobs={"kerncraft": kerncraft},
                             optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_sweep_refuses_more_points_than_the_limit():
    """3 x 4 = 12 points with max_points=10 are refused before anything runs (issue 15);
    the default limit is the command line's 10,000."""
    import kerncraft
    from kerncraft.errors import KerncraftError

    with pytest.raises(KerncraftError, match=r"give 12 points"):
        kerncraft.sweep("kernels/copy.c", "CSX", model="LC",
                        defines={"N": [10, 20, 30], "M": [1, 2, 3, 4]}, max_points=10)
    with pytest.raises(KerncraftError, match=r"give 1,000,000 points"):
        kerncraft.sweep("kernels/copy.c", "CSX", model="LC",
                        defines={"N": "1-1000:1000", "M": "1-1000:1000"})
