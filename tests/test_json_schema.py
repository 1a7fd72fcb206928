"""The --json document of every model against the schema of docs/json.md (version 1)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import kerncraft
from kerncraft.cli.kerncraft import main
from kerncraft.benchmark import kernel_run as bm
from kerncraft.report.schema import NUMBER, AnyOf, MapOf, Optional, check
from kerncraft.runner.table import DOCUMENT_SCHEMA as DOCUMENT
from kerncraft.runner.table import MODELS
from support.fixed_measurement import FIXED_MEASUREMENT
from test_ecm_golden import needs_gcc12      # the in-core numbers are gcc 12's

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "kernels"
PREDICTING = ("ECM", "ECMData", "ECMCPU", "RooflineFLOP", "RooflineASM", "LC")
COPY_T_MEM = 1.0 + 3.0 + 8.0 + 192 / (36.54e9 * 1.5 / 2.5e9)   # ecm_golden_cases.py, copy


def cli_json(capsys, *argv: str) -> dict:
    code = main([*argv, "--json", "-"])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out[out.index('{\n  "schema_version"'):])


RUNS = [
    ("CSX", "copy.c", ("-D", "N", "10000000")),
    ("ZEN2", "2d-5pt.c", ("-D", "N", "1000", "-D", "M", "1000", "--unit", "It/s")),
    ("CSX", "triad.c", ("-D", "N", "1000-100000:2log", "-c", "4", "--unit", "cy/It")),
    ("ZEN2", "3d-7pt.c", ("-D", ".", "60", "-P", "SIM")),
]


@pytest.mark.parametrize("machine,kernel,extra", RUNS, ids=[r[1] for r in RUNS])
def test_every_model_matches_the_schema(capsys, machine, kernel, extra):
    models = [arg for m in PREDICTING if not (m == "LC" and "SIM" in extra) for arg in ("-p", m)]
    document = cli_json(capsys, *models, "-m", machine, str(KERNELS / kernel), *extra)
    assert check(document, DOCUMENT) == []
    assert document["schema_version"] == 1
    for point in document["points"]:
        assert set(point["models"]) == {m for m in PREDICTING if m != "LC" or "SIM" not in extra}


@needs_gcc12
def test_schema_numbers_are_the_derived_ones(capsys):
    document = cli_json(capsys, "-p", "ECM", "-m", "CSX", str(KERNELS / "copy.c"),
                        "-D", "N", "10000000")
    ecm = document["points"][0]["models"]["ECM"]
    assert document["points"][0]["defines"] == {"N": 10**7}
    assert ecm["predictions"]["MEM"] == pytest.approx(COPY_T_MEM)
    assert ecm["contributions"] == pytest.approx({"T_L1L2": 3.0, "T_L2L3": 8.0,
                                                  "T_L3MEM": COPY_T_MEM - 12.0})
    assert ecm["saturation_cores"] == 3


def test_benchmark_and_comparison_match_the_schema(capsys, monkeypatch):
    """-p Benchmark with a fixed measurement (no timing on a test machine): 50 cy/CL."""
    monkeypatch.setattr(bm, "run_benchmark", lambda *a, **k: FIXED_MEASUREMENT)
    document = cli_json(capsys, "-p", "ECM", "-p", "Benchmark", "-m", "CSX",
                        str(KERNELS / "copy.c"), "-D", "N", "800")
    assert check(document, DOCUMENT) == []
    point = document["points"][0]
    assert point["models"]["Benchmark"]["cycles_per_cl"] == 50.0   # 50000 cy / 1000 CL
    assert point["models"]["Benchmark"]["value"] == 50.0            # --unit cy/CL (default)
    [row] = point["comparison"]
    assert row["measured_cy_per_cl"] == 50.0 and row["model"] == "ECM"


def test_api_results_match_the_model_schemas():
    for model in PREDICTING:
        result = kerncraft.analyze(KERNELS / "daxpy.c", "ZEN2", model=model,
                                   defines={"N": 4096})
        assert check(result.to_dict(), MODELS[model].schema) == [], model


def test_the_checker_finds_every_kind_of_mismatch():
    spec = {"n": NUMBER, "i": int, Optional("o"): [str], "m": MapOf(NUMBER),
            "u": AnyOf(str, type(None))}
    good = {"n": 1, "i": 2, "m": {"a": 1.0}, "u": None}
    assert check(good, spec) == [] and check({**good, "o": ["x"]}, spec) == []
    assert check({**good, "n": True}, spec) == ["$.n: expected number, got bool True"]
    assert check({**good, "i": 2.0}, spec) == ["$.i: expected int, got float 2.0"]
    assert check({**good, "i": False}, spec) == ["$.i: expected int, got bool False"]
    assert check({**good, "o": ["x", 1]}, spec) == ["$.o[1]: expected str, got int 1"]
    assert check({**good, "m": {"a": "1"}}, spec) == ["$.m.a: expected number, got str '1'"]
    assert check({**good, "u": 3}, spec)[0].startswith("$.u: int 3 matches none")
    missing = dict(good)
    del missing["i"]
    assert check(missing, spec) == ["$: missing key 'i'"]
    assert check({**good, "extra": 1}, spec) == ["$: unknown key 'extra'"]
    assert check([1], spec) == ["$: expected object, got list"]


def _keys(spec, found: set[str]) -> set[str]:
    if isinstance(spec, dict):
        for key, item in spec.items():
            found.add(key.key if isinstance(key, Optional) else key)
            _keys(item, found)
    elif isinstance(spec, list):
        _keys(spec[0], found)
    elif isinstance(spec, MapOf):
        _keys(spec.value, found)
    elif isinstance(spec, AnyOf):
        for option in spec.options:
            _keys(option, found)
    return found


def test_docs_document_every_key():
    text = (ROOT / "docs" / "json.md").read_text()
    documented = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", text))
    assert sorted(_keys(DOCUMENT, set()) - documented) == []
    assert "schema_version" in text and "version 1" in text.lower()
