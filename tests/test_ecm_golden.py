"""Golden tests of the full ECM and Roofline models on CSX, every number derived by hand.

Kernels: copy, triad, daxpy (N = 10^7), 2d-5pt (N = M = 1000: three rows do NOT
fit L1; N = 500, M = 10000: three rows fit L1; both in memory), 3d-7pt
(N = M = L = 200), plus 2d-5pt N = M = 500 whose whole data set fits L3.

Every expected value below is written as the arithmetic of the hand derivation
in the comments (port model -> T_OL / T_nOL; layer conditions -> cache lines per
link -> T_L1L2 / T_L2L3 / T_L3MEM; ECM composition; n_s; scaling; units;
Roofline). Nothing here was copied from the tool's output.

What the tests check
--------------------
* ``test_ecm_*``: ``model_report("ECM", ...).data`` (in-core port cycles, T_OL, T_nOL,
  link volumes and times, predictions, n_s, scaling table) against the derivation,
  and the same in cy/It, It/s and FLOP/s;
* ``test_roofline_*``: ``model_report("RooflineFLOP", ...)`` (no compiler needed) and
  ``model_report("RooflineASM", ...)``;
* ``test_golden_text_*``: the full text of ``kerncraft -p ECM ...`` and
  ``kerncraft -p RooflineFLOP -p RooflineASM ...`` equals the stored file in
  ``tests/data/golden/``, and the key numbers of those files equal the
  derivation (so a regenerated file that drifts from the derivation fails).

Compiler: the in-core numbers come from the loop gcc 12 emits for
``-O3 -march=cascadelake -ffreestanding`` (the CSX.yml flags). Other gcc
versions emit other loops, so every compile-based test is skipped unless
``gcc -dumpfullversion`` starts with ``12.``. RooflineFLOP needs no compiler.

Regenerating the golden files (only for an INTENTIONAL change of the report):
    KERNCRAFT_REGENERATE_GOLDEN=1 python -m pytest tests/test_ecm_golden.py -k golden_text
or by hand, from the repository root, e.g.
    kerncraft -p ECM -m CSX kernels/copy.c -D N 10000000 > tests/data/golden/copy.ECM.txt
    kerncraft -p RooflineFLOP -p RooflineASM -m CSX kernels/copy.c -D N 10000000 \\
        > tests/data/golden/copy.Roofline.txt
(the exact command of every file is in ``GOLDEN_CASES`` below). A change of a
*number* must come with a corrected hand derivation in tests/support/ecm_golden_cases.py
(streaming kernels) or ecm_golden_stencils.py (stencils): the ``test_golden_numbers_*``
tests compare the files with the derivation.

The cases themselves -- inputs, helpers and the hand derivation of every kernel --
are in ``tests/support/ecm_golden_cases.py`` and ``tests/support/ecm_golden_stencils.py``.
"""
from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest

import kerncraft
from kerncraft.runner.run import model_report

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "kernels"
GOLDEN = Path(__file__).resolve().parent / "data" / "golden"
MACHINE_FILE = REPO / "machine-files" / "CSX.yml"
REGENERATE = os.environ.get("KERNCRAFT_REGENERATE_GOLDEN", "").strip() not in ("", "0")


# --------------------------------------------------------------------------- gcc 12 gate
def _gcc_version() -> str | None:
    gcc = shutil.which("gcc")
    if gcc is None:
        return None
    try:
        out = subprocess.run([gcc, "-dumpfullversion"], capture_output=True, text=True,
                             timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


GCC_VERSION = _gcc_version()
needs_gcc12 = pytest.mark.skipif(
    not (GCC_VERSION or "").startswith("12."),
    reason=f"the hand-derived in-core numbers are for the loops gcc 12 emits with "
           f"-O3 -march=cascadelake; installed gcc: {GCC_VERSION or 'none'} "
           f"(other versions emit different loops)")


from support.ecm_golden_cases import (  # noqa: E402  (the derivations, see the module doc)
    ALL_PORTS, CLOCK, COPY, COPY_MEM, COPY_WA, DP_PEAK, IT_PER_CL, TRIAD, Case, bpc, l1l2,
    l2l3)
from support.ecm_golden_stencils import _S2D5_T_MEM, CASES, IDS, S3D  # noqa: E402


# --------------------------------------------------------------------------- helpers
@pytest.fixture(scope="module")
def csx():
    return kerncraft.load_machine(str(MACHINE_FILE))


def bound(case: Case):
    source = (KERNELS / case.kernel).read_text()
    return kerncraft.parse_kernel(source, filename=case.kernel).bind(case.defines)


def args(**kw) -> Namespace:
    # the built-in port-model analyzer (the CLI default, -i kerncraft)
    base = dict(cache_predictor="LC", cores=1, unit=None, verbose=0,
                incore_model="kerncraft")
    base.update(kw)
    return Namespace(**base)


def approx(x):
    return pytest.approx(x, rel=1e-9, abs=1e-12)


def to_unit(case: Case, cycles: float, unit: str) -> float:
    """cy/CL -> unit, written out once more by hand (2.5 GHz, 8 It/CL)."""
    if unit == "cy/It":
        return cycles / IT_PER_CL
    if unit == "It/s":
        return CLOCK * IT_PER_CL / cycles
    if unit == "FLOP/s":
        return CLOCK * case.flops_per_cl / cycles
    return cycles


# ------------------------------------------------------------------- sanity of the derivation
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_derivation_is_self_consistent(case):
    """The hand-written predictions follow the composition rule from the hand-written parts."""
    t_l1l2 = l1l2(*case.links[0])
    t_l2l3 = l2l3(*case.links[1])
    t_l1, t_l2, t_l3, t_mem = case.predictions
    assert t_l1 == approx(max(case.t_ol, case.t_nol))
    assert t_l2 == approx(max(case.t_ol, case.t_nol + t_l1l2))
    assert t_l3 == approx(max(case.t_ol, case.t_nol + t_l1l2 + t_l2l3))
    assert t_mem == approx(max(case.t_ol, case.t_nol + t_l1l2 + t_l2l3 + case.t_l3mem))
    assert case.n_s == math.ceil(t_mem / case.saturated)
    for cores, (value, memory_bound) in case.scaling.items():
        assert value >= t_mem / cores - 1e-9
        assert memory_bound == (value > t_mem / cores + 1e-9)


# --------------------------------------------------------------------------- ECM
@needs_gcc12
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_ecm_incore(csx, case):
    data = model_report("ECM", bound(case), csx, args()).data
    incore = data["incore"]
    assert incore["compiler"] == "gcc"
    assert incore["flags"] == "-O3 -march=cascadelake -ffreestanding"
    assert incore["iterations_per_asm_iteration"] == case.it_per_asm_it
    assert (incore["unroll"], incore["simd_width"]) == (1, 4)
    for port in ALL_PORTS:
        assert incore["port_cycles_per_cl"][port] == approx(
            case.ports_per_asm_it[port] * case.scale), port
    assert data["T_OL"] == approx(case.t_ol)
    assert data["T_nOL"] == approx(case.t_nol)
    assert incore["T_OL_source"] == case.t_ol_source
    assert incore["lcd_cy_per_cl"] == approx(case.lcd_per_asm_it * case.scale)
    assert incore["frontend_cy_per_cl"] == approx(case.frontend_per_asm_it * case.scale)
    assert incore["critical_path_cy_per_cl"] == approx(
        case.critical_path_per_asm_it * case.scale)


@needs_gcc12
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_ecm_traffic_and_composition(csx, case):
    data = model_report("ECM", bound(case), csx, args()).data
    links = {link["name"]: link for link in data["links"]}
    assert list(links) == ["T_L1L2", "T_L2L3", "T_L3MEM"]
    for name, (loads, stores) in zip(links, case.links):
        assert (links[name]["loads_cl"], links[name]["stores_cl"]) == (
            approx(loads), approx(stores)), name
    assert links["T_L1L2"]["duplex"] == "half-duplex"
    assert links["T_L2L3"]["duplex"] == "full-duplex"
    assert links["T_L3MEM"]["benchmark_kernel"] == case.bench
    contributions = data["contributions"]
    assert contributions["T_L1L2"] == approx(l1l2(*case.links[0]))
    assert contributions["T_L2L3"] == approx(l2l3(*case.links[1]))
    assert contributions["T_L3MEM"] == approx(case.t_l3mem)
    assert data["overlapping"] == []
    assert list(data["predictions"]) == ["L1", "L2", "L3", "MEM"]
    assert list(data["predictions"].values()) == [approx(t) for t in case.predictions]
    notes = "\n".join(data["traffic"]["notes"])
    for fragment in case.lc_notes:
        assert fragment in notes


@needs_gcc12
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_ecm_saturation_and_scaling(csx, case):
    data = model_report("ECM", bound(case), csx, args()).data
    assert data["saturated_T_L3MEM"] == approx(case.saturated)
    assert data["saturation_cores"] == case.n_s
    table = {p["cores"]: p for p in data["scaling"]}
    assert sorted(table) == list(range(1, 21))            # up to a socket of 20 cores
    for cores, (cycles, memory_bound) in case.scaling.items():
        assert table[cores]["cycles_per_cl"] == approx(cycles), cores
        assert table[cores]["memory_bound"] is memory_bound, cores
    assert data["prediction"] == approx(case.predictions[-1])


@needs_gcc12
@pytest.mark.parametrize("unit", ["cy/It", "It/s", "FLOP/s"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_ecm_units(csx, case, unit):
    if unit == "FLOP/s" and not case.flops_per_it:
        with pytest.raises(kerncraft.KerncraftError, match="FLOP/s is undefined"):
            model_report("ECM", bound(case), csx, args(unit=unit))
        return
    data = model_report("ECM", bound(case), csx, args(unit=unit)).data
    assert data["unit"] == unit
    assert list(data["predictions_in_unit"].values()) == [
        approx(to_unit(case, t, unit)) for t in case.predictions]
    assert data["prediction"] == approx(to_unit(case, case.predictions[-1], unit))
    table = {p["cores"]: p for p in data["scaling"]}
    for cores, (cycles, _) in case.scaling.items():
        assert table[cores]["value"] == approx(to_unit(case, cycles, unit)), cores
    # the cy/CL numbers themselves do not depend on the unit
    assert data["predictions"]["MEM"] == approx(case.predictions[-1])


@needs_gcc12
def test_ecm_units_spot_values(csx):
    """A few unit values written out as plain numbers (2.5 GHz, 8 It/CL)."""
    triad = model_report("ECM", bound(TRIAD), csx, args(unit="FLOP/s")).data["predictions_in_unit"]
    assert triad["L1"] == approx(16 * 2.5e9 / 3.0)          # 13.33 GFLOP/s
    assert triad["L2"] == approx(16 * 2.5e9 / 6.0)          # 6.67 GFLOP/s
    assert triad["L3"] == approx(16 * 2.5e9 / 18.0)         # 2.22 GFLOP/s
    copy = model_report("ECM", bound(COPY), csx, args(unit="cy/It")).data["predictions_in_unit"]
    assert (copy["L1"], copy["L2"], copy["L3"]) == (approx(0.25), approx(0.5), approx(1.5))
    s3d = model_report("ECM", bound(S3D), csx, args(unit="It/s")).data["predictions_in_unit"]
    assert s3d["L1"] == approx(20e9 / 11.0)                 # 1.82 GIt/s
    assert s3d["L2"] == approx(20e9 / 16.0)                 # 1.25 GIt/s


# --------------------------------------------------------------------------- Roofline
def _roofline_cycles(case: Case, level: str) -> float:
    return case.roofline_bytes[level] * CLOCK / case.roofline_bandwidth[level]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_roofline_flop(csx, case):
    data = model_report("RooflineFLOP", bound(case), csx, args()).data
    levels = {lvl["level"]: lvl for lvl in data["levels"]}
    assert list(levels) == ["L1", "L2", "L3", "MEM"]
    for name, lvl in levels.items():
        assert lvl["benchmark_kernel"] == case.bench
        assert lvl["bytes"] == approx(case.roofline_bytes[name]), name
        assert lvl["bandwidth"] == approx(case.roofline_bandwidth[name]), name
        assert lvl["cycles_per_cl"] == approx(_roofline_cycles(case, name)), name
        if case.flops_per_it:
            assert lvl["arithmetic_intensity"] == approx(
                case.flops_per_cl / case.roofline_bytes[name])
    compute = case.flops_per_cl / DP_PEAK
    assert data["compute_cycles_per_cl"] == approx(compute)
    assert data["bottleneck"] == case.roofline_bottleneck
    limit = _roofline_cycles(case, case.roofline_bottleneck)
    assert limit > compute
    assert data["cycles_per_cl"] == approx(limit)
    if case.flops_per_it:
        assert data["unit"] == "FLOP/s"
        assert data["performance"] == approx(CLOCK * case.flops_per_cl / limit)
    else:
        assert data["unit"] == "It/s"
        assert data["performance"] == approx(CLOCK * IT_PER_CL / limit)


@needs_gcc12
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_roofline_asm(csx, case):
    data = model_report("RooflineASM", bound(case), csx, args()).data
    levels = {lvl["level"]: lvl for lvl in data["levels"]}
    assert list(levels) == ["L2", "L3", "MEM"]               # L1 is inside the in-core time
    for name, lvl in levels.items():
        assert lvl["cycles_per_cl"] == approx(_roofline_cycles(case, name)), name
    incore = max(case.t_ol, case.t_nol)
    assert data["incore_cycles_per_cl"] == approx(incore)
    limit = _roofline_cycles(case, case.roofline_asm_bottleneck)
    assert limit > incore
    assert data["bottleneck"] == case.roofline_asm_bottleneck
    assert data["cycles_per_cl"] == approx(limit)
    per_cl = case.flops_per_cl if case.flops_per_it else IT_PER_CL
    assert data["performance"] == approx(CLOCK * per_cl / limit)


# --------------------------------------------------------------------------- data in L3
# 2d-5pt N = M = 500: the whole sweep (2 * 500 * 500 * 8 B = 3.81 MiB, LC footprint
# 3.79 MiB) fits L3's 7.5 MiB -> L3: condition 3 of 3, nothing goes to memory in the
# steady state of repeated sweeps: T_L3MEM = 0. L1, L2 as for N = 500 above (3 rows fit
# L1): T_L1L2 = 3.0; L2 misses a[j+1][i] and WA b now come from L3 (2 loads) and
# 2 victims go to L3: max(2, 2) * 4 = 8.0. T_nOL 5.5 with the split loads (rows of
# 4000 B, as for N = 500 above).
# ECM: { 5 || 5.5 | 3 | 8 | 0 }: T_L1 5.5, T_L2 8.5, T_L3 16.5, T_MEM 16.5.
# There is no memory traffic, so the memory interface never saturates: n_s is
# undefined (infinite) and every row of the scaling table is core bound (16.5 / n).
IN_L3 = {"N": 500, "M": 500}


@needs_gcc12
def test_ecm_2d5pt_in_l3(csx):
    kernel = kerncraft.parse_kernel((KERNELS / "2d-5pt.c").read_text(),
                                    filename="2d-5pt.c").bind(IN_L3)
    data = model_report("ECM", kernel, csx, args()).data
    assert data["contributions"] == {"T_L1L2": approx(3.0), "T_L2L3": approx(8.0),
                                     "T_L3MEM": approx(0.0)}
    links = {link["name"]: link for link in data["links"]}
    assert (links["T_L2L3"]["loads_cl"], links["T_L2L3"]["stores_cl"]) == (2.0, 2.0)
    assert (links["T_L3MEM"]["loads_cl"], links["T_L3MEM"]["stores_cl"]) == (0.0, 0.0)
    assert list(data["predictions"].values()) == [approx(5.5), approx(8.5), approx(16.5),
                                                  approx(16.5)]
    # Scaling: n active cores share the L3 group (docs/layer-conditions.md). The whole
    # sweep (2 arrays * 500*500*8 B = 3.81 MiB) may fill 2/3 * (14/n + 1) MiB (the
    # whole-working-set share): n = 1: 10 MiB, n = 2: 5.33 MiB -> still fits, no memory
    # traffic: 16.5 / n.
    table = {p["cores"]: p for p in data["scaling"]}
    assert table[1]["cycles_per_cl"] == approx(16.5)
    assert table[2]["cycles_per_cl"] == approx(8.25)
    assert table[1]["memory_bound"] is table[2]["memory_bound"] is False
    # n = 3: 2/3 * (14/3 + 1) = 3.78 MiB < 3.81 MiB -> only the 3-rows condition holds in L3
    # (as for the N=500, M=10000 case): T_MEM(3) = _S2D5_T_MEM = 25.26 cy for one core, and
    # T_L3MEM,sat = 192 B at the saturated copy bandwidth (36.54 GB/s * 1.5) = 8.7575 cy:
    # max(8.42, 8.76) -> memory bound.
    t_mem3 = _S2D5_T_MEM
    t_l3mem3 = 192 / bpc(36.54, COPY_WA)
    assert table[3]["cycles_per_cl"] == approx(max(t_mem3 / 3, t_l3mem3))
    assert table[3]["memory_bound"] is (t_l3mem3 >= t_mem3 / 3)
    assert "L3: layer condition 3 of 3 holds" in "\n".join(data["traffic"]["notes"])


@needs_gcc12
def test_ecm_in_l3_does_not_claim_saturation(csx):
    kernel = kerncraft.parse_kernel((KERNELS / "2d-5pt.c").read_text(),
                                    filename="2d-5pt.c").bind(IN_L3)
    report = model_report("ECM", kernel, csx, args())
    assert "saturating at" not in report.text
    assert "does not saturate the memory interface" in report.text
    assert report.data["saturation_cores"] is None


# --------------------------------------------------------------------------- shared L3 on n cores
# 3d-7pt N = M = L = 250: planes footprint 32 MN - 64 M - 80 N + 160 = 1964160 B = 1.87 MiB.
# 1 core: L3 usable 0.5 * (14 + 1) MiB = 7.5 MiB -> planes fit L3 -> L3-MEM 2 loads +
# 1 store = 192 B (as for N = 200). 10 active cores of one L3 group (the LC convention,
# docs/layer-conditions.md section 4): 0.5 * (14/10 + 1) MiB = 1.2 MiB < 1.87 MiB -> only
# the rows condition holds in L3 -> all 4 L2 misses come from memory: L3-MEM 4 loads +
# 1 store = 320 B (ECMData -c 10 says exactly that). The scaling row for 10 cores should
# therefore be max(T_MEM(10)/10, 320 B / (36.54 GB/s * 1.5 / 2.5 GHz = 21.924 B/cy, the
# saturated copy bandwidth of the NUMA domain)) = 14.60 cy/CL (T_MEM(10) = 11 + 5 + 16 +
# 14.60 = 46.6, /10 = 4.66), memory bound.
# compute_ecm computed the traffic once with cores=1 (kerncraft/models/ecm.py, compute_ecm:
# predict_traffic(..., cores=1)) and _memory_times reuses it for every core count, so the
# row says 192 / 21.876 = 8.78 cy/CL: 1.67x too optimistic, and -c 10 of ECM and ECMData
# disagree on the memory traffic.
@needs_gcc12
def test_ecm_scaling_uses_traffic_of_n_cores(csx):

    kernel = kerncraft.parse_kernel((KERNELS / "3d-7pt.c").read_text(),
                                    filename="3d-7pt.c").bind({"N": 250, "M": 250, "L": 250})
    ecmdata = model_report("ECMData", kernel, csx, args(cores=10)).data
    assert (ecmdata["links"][2]["loads_cl"], ecmdata["links"][2]["stores_cl"]) == (4.0, 1.0)
    row = model_report("ECM", kernel, csx, args(cores=10)).data["scaling"][9]
    assert row["cycles_per_cl"] == approx(320 / bpc(COPY_MEM[9], COPY_WA))


# --------------------------------------------------------------------------- golden text
GOLDEN_CASES = {c.name: c for c in CASES}


def _argv(case: Case, models: tuple[str, ...]) -> list[str]:
    argv = []
    for model in models:
        argv += ["-p", model]
    return argv + ["-m", "CSX", f"kernels/{case.kernel}", *case.cli]


def _run_cli(capsys, monkeypatch, argv: list[str]) -> str:
    from kerncraft.cli.kerncraft import main

    monkeypatch.chdir(REPO)                        # the golden commands run from the root
    monkeypatch.delenv("KERNCRAFT_MACHINE_PATH", raising=False)
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def _check_golden(path: Path, text: str, argv: list[str]) -> None:
    command = "kerncraft " + " ".join(argv)
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), (f"missing golden file {path.name}; create it with "
                           f"`{command} > tests/data/golden/{path.name}`")
    expected = path.read_text()
    assert text == expected, (
        f"`{command}` differs from tests/data/golden/{path.name}. If the change is "
        f"intended, regenerate (see the module docstring) and update the hand derivation.")


@needs_gcc12
@pytest.mark.parametrize("name", list(GOLDEN_CASES))
def test_golden_text_ecm(capsys, monkeypatch, name):
    case = GOLDEN_CASES[name]
    argv = _argv(case, ("ECM",))
    _check_golden(GOLDEN / f"{name}.ECM.txt", _run_cli(capsys, monkeypatch, argv), argv)


@needs_gcc12
@pytest.mark.parametrize("name", list(GOLDEN_CASES))
def test_golden_text_roofline(capsys, monkeypatch, name):
    case = GOLDEN_CASES[name]
    argv = _argv(case, ("RooflineFLOP", "RooflineASM"))
    _check_golden(GOLDEN / f"{name}.Roofline.txt", _run_cli(capsys, monkeypatch, argv), argv)


@needs_gcc12
def test_golden_text_installed_console_script():
    """The `kerncraft` console script prints what the in-process CLI printed."""
    exe = shutil.which("kerncraft")
    if exe is None:
        pytest.skip("the kerncraft console script is not on PATH")
    argv = _argv(COPY, ("ECM",))
    env = {k: v for k, v in os.environ.items() if k != "KERNCRAFT_MACHINE_PATH"}
    out = subprocess.run([exe, *argv], cwd=REPO, capture_output=True, text=True, env=env,
                         timeout=600, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (GOLDEN / "copy.ECM.txt").read_text()


def _f2(x: float) -> str:
    return f"{x:.2f}"


@pytest.mark.parametrize("name", list(GOLDEN_CASES))
def test_golden_numbers_ecm(name):
    """The stored ECM report carries the hand-derived numbers (2 decimals)."""
    case = GOLDEN_CASES[name]
    text = (GOLDEN / f"{name}.ECM.txt").read_text()
    lines = text.splitlines()
    parts = [case.t_ol, case.t_nol, l1l2(*case.links[0]), l2l3(*case.links[1]), case.t_l3mem]
    assert lines[1].startswith(
        f"{{ {_f2(parts[0])} || {_f2(parts[1])} | "
        + " | ".join(_f2(p) for p in parts[2:]) + " } cy/CL")
    assert lines[2].startswith("{ " + " \u230b ".join(_f2(t) for t in case.predictions)
                               + " } cy/CL")
    assert lines[3] == (f"saturating at {case.n_s} core(s) (T_MEM {_f2(case.predictions[-1])} "
                        f"cy/CL / T_L3MEM at saturated bandwidth {_f2(case.saturated)} cy/CL)")
    assert (f"{case.it_per_asm_it} iterations per assembly iteration "
            f"(unroll 1 x SIMD 4)") in lines[4]
    rows = {}
    for line in lines:
        fields = line.split()
        if len(fields) >= 3 and fields[0].isdigit() and fields[2] in ("core", "memory"):
            rows[int(fields[0])] = (fields[1], fields[2])
    assert sorted(rows) == list(range(1, 21))
    for cores, (cycles, memory_bound) in case.scaling.items():
        assert rows[cores] == (_f2(cycles), "memory" if memory_bound else "core"), cores
    assert lines[-1] == f"prediction for 1 core(s): {_f2(case.predictions[-1])} cy/CL"


@pytest.mark.parametrize("name", list(GOLDEN_CASES))
def test_golden_numbers_roofline(name):
    """The stored Roofline reports carry the hand-derived cycles per level."""
    case = GOLDEN_CASES[name]
    text = (GOLDEN / f"{name}.Roofline.txt").read_text()
    flop, asm = text.split("RooflineASM")
    for block, levels in ((flop, ("L1", "L2", "L3", "MEM")), (asm, ("L2", "L3", "MEM"))):
        rows = {line.split()[0]: line.split() for line in block.splitlines()
                if line.startswith("  ") and line.split()[0] in levels}
        assert sorted(rows) == sorted(levels)
        for level in levels:
            fields = rows[level]
            assert fields[1] == f"{case.roofline_bytes[level]:.1f}", level
            assert fields[4] == case.bench
            # bandwidth column: 3 significant digits of GB/s
            assert fields[2] == f"{case.roofline_bandwidth[level] / 1e9:.3g}", level
            assert _f2(_roofline_cycles(case, level)) in fields, level
    assert f"Bottleneck: {case.roofline_bottleneck}" in flop
    assert f"Bottleneck: {case.roofline_asm_bottleneck}" in asm
    limit = _roofline_cycles(case, case.roofline_bottleneck)
    per_cl = case.flops_per_cl if case.flops_per_it else IT_PER_CL
    value = CLOCK * per_cl / limit
    unit = "FLOP/s" if case.flops_per_it else "It/s"
    prefix, scale = ("G", 1e9) if value >= 1e9 else ("M", 1e6)
    assert f"Performance: {value / scale:.3g} {prefix}{unit}" in flop
    assert f"Performance: {value / scale:.3g} {prefix}{unit}" in asm
    assert f"in-core  {'':>9} {_f2(max(case.t_ol, case.t_nol)):>7}" in asm


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
