"""kerncraft-validate: size choice per level, error arithmetic, notes, JSON, CLI errors.

Measurements are injected (a fake measuring function); only the last test runs
a real benchmark (copy in L1, 0.01 s).
"""
from __future__ import annotations

import json
import math
import shutil

import pytest

import kerncraft
from kerncraft.measure import timing
from kerncraft.validation import campaign as validate
from kerncraft.cli import validate as validate_cli
from kerncraft.validation.campaign import (PointMeasurement, Prediction, ValidationPoint,
                                           make_point, resolve_kernel, summarize)
from kerncraft.validation.notes import (NO_KNOWN_CAUSE, explain, fact_notes,
                                             with_inherited_notes)
from kerncraft.validation.sizes import (LEVELS, SizeChoice, choose_size, level_targets,
                                            source_level)
from kerncraft.cache.traffic import LevelTraffic, TrafficResult, transfer_volumes
from kerncraft.errors import KerncraftError
from kerncraft.models.transfers import predict_traffic

MIB = 1024 ** 2


def load(name: str):
    return resolve_kernel(name)[1]


# ---------------------------------------------------------------- targets and sizes

def test_level_targets_zen2_by_hand():
    # ZEN2: L1 32 KiB, L2 512 KiB private; L3 16 MiB per 4 cores -> 4 MiB share.
    # L1: 32 KiB / 2; L2: sqrt(32 KiB * 512 KiB) = sqrt(2^15 * 2^19) = 2^17;
    # L3: sqrt(512 KiB * 4 MiB) = 2^20.5 = 1482910.4; MEM: 8 * 16 MiB < 256 MiB.
    assert level_targets(kerncraft.load_machine("ZEN2")) == {
        "L1": 16384, "L2": 131072, "L3": 1482910, "MEM": 256 * MIB}


def test_level_targets_csx_by_hand():
    # CSX: L1 32 KiB, L2 1 MiB private; L3 14 MiB per 10 cores = 1.4 MiB share, less
    # than twice the L2, so the whole L3 is the upper edge:
    # L2: sqrt(2^15 * 2^20) = 185363.8; L3: sqrt(1 MiB * 14 MiB) = 3923412.0.
    assert level_targets(kerncraft.load_machine("CSX")) == {
        "L1": 16384, "L2": 185363, "L3": 3923412, "MEM": 256 * MIB}


def test_triad_l1_on_csx_by_hand():
    # target 32 KiB / 2 = 16 KiB; three arrays of doubles a, b, c (s is a scalar):
    # 3 x 8 B x N with N a multiple of 512 (4 KiB per array):
    # N=512 -> 12 KiB (|ln(16/12)| = 0.29), N=1024 -> 24 KiB (|ln(24/16)| = 0.41).
    # 12 KiB fits the L1's whole-working-set share, so nothing comes from L2.
    choice = choose_size(load("triad"), kerncraft.load_machine("CSX"), "L1")
    assert dict(choice.defines) == {"N": 512}
    assert choice.working_set == 12288 and choice.target == 16384
    assert (choice.model_level, choice.matched, choice.tries) == ("L1", True, 1)


def test_2d5pt_l2_on_zen2_by_hand():
    # target 128 KiB = 131072 B; 2 arrays M x N, N - 2 a multiple of 16 near 8 M - 2:
    # M=32: N = 16 * round(254 / 16) + 2 = 258 -> 2 * 32 * 258 * 8 = 132096 B;
    # M=31: N = 16 * round(246 / 16) + 2 = 242 -> 120032 B, further from the target.
    # Three rows (6 KiB) fit L1: a is loaded once, b write-allocated and stored, all
    # from L2 (the 129 KiB fit there): 2 loads + 1 store on L1-L2, nothing below.
    machine = kerncraft.load_machine("ZEN2")
    choice = choose_size(load("2d-5pt"), machine, "L2")
    assert dict(choice.defines) == {"M": 32, "N": 258} and choice.working_set == 132096
    links = transfer_volumes(predict_traffic(load("2d-5pt").bind(choice.defines), machine))
    assert [(link.loads, link.stores) for link in links] == [(2, 1), (0, 0), (0, 0)]
    assert choice.model_level == "L2"


def test_copy_mem_on_csx_by_hand():
    # MEM: max(8 x 14 MiB, 256 MiB) = 256 MiB; 2 arrays of doubles: N = 256 MiB / 16
    choice = choose_size(load("copy"), kerncraft.load_machine("CSX"), "MEM")
    assert dict(choice.defines) == {"N": 16 * MIB} and choice.model_level == "MEM"


def test_matvec_is_square_and_3d_is_long_rows():
    machine = kerncraft.load_machine("CSX")
    matvec = choose_size(load("matvec"), machine, "L2").defines
    # 16 p x 16 p: p=9 -> 144^2*8 + 2*144*8 = 168192 B, p=10 -> 207360 B; target 185363
    assert dict(matvec) == {"M": 144, "N": 144}
    stencil = choose_size(load("3d-7pt"), machine, "L3").defines
    assert stencil["L"] == stencil["M"] and (stencil["N"] - 2) % 16 == 0
    assert abs(stencil["N"] - 8 * stencil["M"]) <= 8


@pytest.mark.parametrize("machine_name", ["ZEN2", "CSX"])
@pytest.mark.parametrize("kernel_name", validate.DEFAULT_KERNELS)
def test_every_default_kernel_lands_in_its_level(machine_name, kernel_name):
    machine = kerncraft.load_machine(machine_name)
    kernel = load(kernel_name)
    sizes = []
    for level in LEVELS:
        choice = choose_size(kernel, machine, level)
        assert choice.matched and choice.model_level == level, (level, choice)
        traffic = predict_traffic(kernel.bind(choice.defines), machine)
        assert source_level(traffic) == level
        inner = kernel.bind(choice.defines).loops[-1].trip_count()
        assert int(inner) % 16 == 0            # no vector remainder loop
        sizes.append(choice.working_set)
    assert sizes == sorted(sizes)


def test_size_adjusted_when_the_target_is_in_another_level():
    # Target 10000 B for L2 on CSX: triad N=512 (12 KiB) is all in L1 -> rejected.
    # Further candidates must lie in L2's range [32 KiB, 1 MiB]: 10000 * 2^(k/4) >=
    # 32768 first for k = 7 (33636 B): 12288 p nearest for p = 3 (36864 B, N = 1536),
    # more than the L1 holds, so the data comes from L2 -- the second size tried.
    choice = choose_size(load("triad"), kerncraft.load_machine("CSX"), "L2", target=10000)
    assert dict(choice.defines) == {"N": 1536}
    assert (choice.model_level, choice.matched, choice.tries) == ("L2", True, 2)


def test_size_not_found_keeps_target_and_says_so():
    # 1 GiB for L1: every step down to 2^-3 GiB is still outside L1's range
    choice = choose_size(load("copy"), kerncraft.load_machine("CSX"), "L1", target=1 << 30)
    assert not choice.matched and choice.model_level == "MEM" and choice.tries == 1


def test_source_level_ignores_per_row_leftovers():
    def level(name, loads, stores):
        return LevelTraffic(name, loads, stores, loads, stores)

    traffic = TrafficResult(8, 64, (level("L1", 3, 1), level("L2", 0.4, 0), level("L3", 0, 0)),
                            "LC")
    # L1-L2 carries 3 + 1 lines, L2-L3 0.4 (< half a line): the data is in L2
    assert source_level(traffic) == "L2"
    quiet = TrafficResult(8, 64, (level("L1", 0.02, 0.02), level("L2", 0.02, 0.02),
                                  level("L3", 0.02, 0.02)), "LC")
    assert source_level(quiet) == "L1"


# ---------------------------------------------------------------- errors and medians

def point(kernel, level, measured, ecm, roofline, notes=()):
    size = SizeChoice(level, {"N": 1}, 1, 1, level, True, 1)
    return ValidationPoint(kernel, size, measured, Prediction(ecm, roofline, {}),
                           PointMeasurement(measured, "fake"), notes)


POINTS = [point("a", "L1", 10, 11, 8),        # ECM +10 %, Roofline -20 %
          point("b", "L1", 4, 3, 4),          # ECM -25 %, Roofline 0 %
          point("c", "L2", 20, 26, 19),       # ECM +30 %, Roofline -5 %
          point("d", "L2", 5, 5.25, 2.5),     # ECM +5 %,  Roofline -50 %
          point("e", "L2", 8, 6, 10)]         # ECM -25 %, Roofline +25 %


def test_errors_by_hand():
    assert [p.ecm_error for p in POINTS] == pytest.approx([0.10, -0.25, 0.30, 0.05, -0.25])
    assert [p.roofline_error for p in POINTS] == pytest.approx([-0.2, 0, -0.05, -0.5, 0.25])


def test_ecm_summary_by_hand():
    ecm = summarize(POINTS, "ECM")
    l1, l2 = ecm.levels
    # L1 |errors| 0.10, 0.25 -> median 0.175, worst -25 % (b)
    assert (l1.level, l1.points, l1.worst_kernel) == ("L1", 2, "b")
    assert l1.median_abs_error == pytest.approx(0.175) and l1.worst_error == pytest.approx(-0.25)
    # L2 |errors| 0.30, 0.05, 0.25 -> median 0.25, worst +30 % (c)
    assert l2.median_abs_error == pytest.approx(0.25) and l2.worst_kernel == "c"
    # overall 0.05 0.10 0.25 0.25 0.30 -> median 0.25; within 10 %: a and d
    assert ecm.median_abs_error == pytest.approx(0.25)
    assert ecm.within_10_percent == pytest.approx(0.4)


def test_roofline_summary_by_hand():
    roofline = summarize(POINTS, "Roofline")
    l1, l2 = roofline.levels
    assert l1.median_abs_error == pytest.approx(0.1) and l1.worst_error == pytest.approx(-0.2)
    assert l2.median_abs_error == pytest.approx(0.25) and l2.worst_kernel == "d"
    # overall 0 0.05 0.2 0.25 0.5 -> 0.2; within 10 %: b and c
    assert roofline.median_abs_error == pytest.approx(0.2)
    assert roofline.within_10_percent == pytest.approx(0.4)


def test_summary_of_no_points_is_nan():
    assert math.isnan(summarize([], "ECM").median_abs_error)


# ---------------------------------------------------------------- notes

def test_explain_threshold_and_fallback():
    assert explain(0.30, report=["x"], facts=[]) == ()          # exactly 30 %: no note needed
    assert explain(-0.31, report=[], facts=[]) == (NO_KNOWN_CAUSE,)
    assert explain(0.5, report=["r", "f"], facts=["f"]) == ("r", "f")


def facts(**kw):
    base = dict(error=0.5, level="L1", model_level="L1", working_set=10000,
                caches=[("L1", 32768)], inner_trip_count=1000, ecm_data={},
                memory_overlaps=False)
    base.update(kw)
    return fact_notes(**base)


def test_inherited_in_core_note_replaces_no_known_cause():
    # 3d-7pt on the Zen 5 VM: L1 10.50 measured vs 6.75 (-35.7 %), L3 10.65 vs 6.75
    # (-36.6 %, 'no known cause'); a second kernel whose L1 point is only -10 % off and
    # one whose L1 point errs the other way get nothing; L1 points themselves neither.
    points = [point("3d", "L1", 10.50, 6.75, 6.75, (NO_KNOWN_CAUSE,)),
              point("3d", "L3", 10.65, 6.75, 6.75, (NO_KNOWN_CAUSE,)),
              point("3d", "L2", 10.0, 9.0, 9.0),                      # -10 %: no note
              point("x", "L1", 10.0, 9.0, 9.0),
              point("x", "MEM", 10.0, 6.0, 6.0, (NO_KNOWN_CAUSE,)),
              point("m", "L1", 6.9, 16.0, 16.0, ("chain",)),
              point("m", "MEM", 20.0, 12.0, 12.0, (NO_KNOWN_CAUSE,))]
    out = with_inherited_notes(points)
    assert out[0].notes == (NO_KNOWN_CAUSE,)
    assert len(out[1].notes) == 1 and "L1 point" in out[1].notes[0] and "-36 %" in \
        out[1].notes[0]
    assert out[2].notes == () and out[4].notes == (NO_KNOWN_CAUSE,)
    assert out[6].notes == (NO_KNOWN_CAUSE,)
    over = with_inherited_notes([point("m", "L1", 6.9, 16.0, 16.0, ("chain",)),
                                 point("m", "L2", 11.0, 16.0, 16.0, ("chain",))])
    assert "over-counts" in over[1].notes[0] and over[1].notes[1] == "chain"


def test_fact_notes_from_point_facts():
    assert facts() == []
    # |30000 - 32768| / 32768 = 8 % -> near the boundary; 20000 is 39 % away
    assert "within 25 % of the 32 KiB L1" in facts(working_set=30000)[0]
    assert facts(working_set=20000) == []
    lcd = {"incore": {"T_OL_source": "loop-carried dependency", "T_OL": 24.0}}
    assert "loop-carried-dependency bound" in facts(ecm_data=lcd)[0]
    assert facts(ecm_data=lcd, error=-0.5) == []                # LCD cannot make it slower
    assert "short inner loop (48" in facts(inner_trip_count=48, error=-0.5)[0]
    assert facts(inner_trip_count=48, error=0.5) == []
    # 2d-5pt in L1 on the Zen 5 VM: 112 iterations per row, 3.75 cy/CL for 8 iterations
    # -> 14 x 3.75 = 52.5 cy per row; 20 cy per row would add 20 / 52.5 = 38 %
    row = facts(inner_trip_count=112, row_cycles=52.5, error=-0.31)
    assert row == ["short rows: 112 iterations per row, 52 cy in the model, which has no "
                   "per-row cost (loop entry and exit, a mispredicted exit branch); about "
                   "20 cy per row would add 38 %"]
    # copy in L1: one row of 1536 iterations, 192 CL x 1.12 = 215 cy: 9 % -> no note,
    # even though 1536 > 64 would not have given one either; a long row of few
    # iterations that take long (a chain: 48 x 10 cy) needs none
    assert facts(inner_trip_count=1536, row_cycles=215.0, error=-0.31) == []
    assert facts(inner_trip_count=48, row_cycles=480.0, error=-0.31) == []
    assert "serve the data from L2, not L1" in facts(model_level="L2")[0]
    assert "adds to" in facts(level="MEM", model_level="MEM")[0]


def fake_measure(value):
    def measure(bound, machine, options):
        return PointMeasurement(value, "fake")
    return measure


def test_every_point_beyond_30_percent_has_a_note():
    machine = kerncraft.load_machine("ZEN2")
    kernels = [resolve_kernel(n) for n in ("copy", "sum_reduction", "matvec", "3d-27pt")]
    result = validate.run_validation(kernels, machine, LEVELS, measure=fake_measure(10.0),
                                     progress=open("/dev/null", "w"))
    assert len(result.points) == 16 and not result.skipped
    for p in result.points:
        assert bool(p.notes) == (abs(p.ecm_error) > 0.3), (p.kernel, p.level, p.ecm_error)
    # matvec in L1: ECM says 24 cy/CL (LCD of the row chain) against 10 measured: the
    # report's own row-restart note is carried over
    matvec = next(p for p in result.points if p.kernel == "matvec" and p.level == "L1")
    assert matvec.ecm_error > 0.3 and any("restarts with every row" in n for n in matvec.notes)


def test_make_point_memory_note_on_real_report():
    machine = kerncraft.load_machine("CSX")
    kernel = load("copy")
    size = choose_size(kernel, machine, "MEM")
    bound = kernel.bind(size.defines)
    prediction = validate.predict(bound, machine, validate.RunOptions())
    slow = make_point("copy", size, bound, machine, prediction,
                      PointMeasurement(2 * prediction.ecm, "fake"))       # ECM -50 %
    assert slow.ecm_error == pytest.approx(-0.5)
    assert any(n.startswith("memory level") for n in slow.notes)
    close = make_point("copy", size, bound, machine, prediction,
                       PointMeasurement(prediction.ecm, "fake"))
    assert close.notes == ()


# ---------------------------------------------------------------- CLI

POINT_KEYS = {"kernel", "level", "defines", "working_set_bytes", "target_bytes", "model_level",
              "size_matched", "measured_cy_per_cl", "ecm_cy_per_cl", "ecm_error",
              "roofline_cy_per_cl", "roofline_error", "notes", "ecm", "measurement"}


def test_cli_simulated_incore_model(tmp_path, capsys):
    """-i kerncraft-sim: the ECM T_OL comes from the simulation, and the report and the
    JSON say which in-core model predicted."""
    target = tmp_path / "out.json"
    code = validate_cli.main(["-m", "CSX", "matvec", "--levels", "L1", "--json", str(target),
                              "-i", "kerncraft-sim"], measure=fake_measure(4.0))
    assert code == 0
    doc = json.loads(target.read_text())
    assert doc["incore_model"] == "kerncraft-sim"
    (point,) = doc["points"]
    assert point["ecm"]["T_OL_source"] == "simulation"
    assert "in-core model kerncraft-sim" in capsys.readouterr().out


def test_cli_json_keys(tmp_path, capsys):
    target = tmp_path / "out.json"
    code = validate_cli.main(["-m", "CSX", "copy", "triad", "--levels", "L1,MEM", "--json",
                              str(target)], measure=fake_measure(4.0))
    assert code == 0
    doc = json.loads(target.read_text())
    assert set(doc) == {"machine", "machine_model_name", "host_model_name", "cores",
                        "roofline_model", "incore_model", "levels", "targets", "wall_seconds",
                        "points", "skipped", "summary"}
    assert doc["levels"] == ["L1", "MEM"] and len(doc["points"]) == 4
    assert doc["incore_model"] == "kerncraft"
    assert set(doc["points"][0]) == POINT_KEYS
    assert set(doc["points"][0]["ecm"]) == {"T_OL", "T_nOL", "contributions", "predictions",
                                           "T_OL_source"}
    assert set(doc["summary"]) == {"ECM", "Roofline"}
    assert set(doc["summary"]["ECM"]) == {"points", "median_abs_error", "within_10_percent",
                                          "levels"}
    assert set(doc["summary"]["ECM"]["levels"][0]) == {
        "level", "points", "median_abs_error", "worst_error", "worst_kernel"}
    first = doc["points"][0]
    assert first["measured_cy_per_cl"] == 4.0
    assert first["ecm_error"] == pytest.approx((first["ecm_cy_per_cl"] - 4) / 4)
    out, err = capsys.readouterr()
    assert out.count("| copy |") == 2 and "[1/4] copy L1 N=" in err


def test_cli_json_to_stdout_moves_report_to_stderr(capsys):
    code = validate_cli.main(["-m", "CSX", "copy", "--levels", "L1", "--json", "-"],
                             measure=fake_measure(4.0))
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["points"][0]["kernel"] == "copy"
    assert "| copy | L1 |" in err


@pytest.mark.parametrize("argv, message", [
    (["-m", "CSX", "no-such-kernel"], "kerncraft-validate: error: unknown kernel 'no-such-kernel'"),
    (["-m", "NOPE", "copy"], "kerncraft-validate: error: unknown machine 'NOPE'"),
])
def test_cli_one_line_errors(argv, message, capsys):
    assert validate_cli.main(argv, measure=fake_measure(1.0)) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_cli_bad_level_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        validate_cli.main(["-m", "CSX", "--levels", "L1,L9"])
    assert exc.value.code == 2 and "unknown level(s) L9" in capsys.readouterr().err


def test_host_model_warning(monkeypatch, capsys, tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n")
    assert validate.host_model_name(str(cpuinfo)) == "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz"
    monkeypatch.setattr(validate, "host_model_name", lambda: "Some Other CPU")
    validate_cli.main(["-m", "CSX", "copy", "--levels", "L1"], measure=fake_measure(2.0))
    warnings = [l for l in capsys.readouterr().err.splitlines() if "warning" in l]
    assert len(warnings) == 1 and "'Some Other CPU'" in warnings[0]
    monkeypatch.setattr(validate, "host_model_name",
                        lambda: "Intel(R)  Xeon(R) Gold 6248 CPU @ 2.50GHz")  # spacing differs
    validate_cli.main(["-m", "CSX", "copy", "--levels", "L1"], measure=fake_measure(2.0))
    assert "warning" not in capsys.readouterr().err


@pytest.mark.skipif(not timing.is_x86_64_linux() or shutil.which("gcc") is None,
                    reason="needs x86-64 Linux and gcc (runs the generated benchmark)")
def test_real_single_point_smoke(tmp_path, capsys):
    target = tmp_path / "copy.json"
    code = validate_cli.main(["-m", "ZEN2", "copy", "--levels", "L1", "--min-time", "0.01",
                              "--repeats", "1", "--json", str(target)])
    assert code == 0
    measured = json.loads(target.read_text())["points"][0]
    assert measured["measurement"]["backend"] in ("timing", "likwid")
    # copy in L1 runs at one to a few cycles per cache line, not 0 and not 100
    assert 0.5 < measured["measured_cy_per_cl"] < 50
    assert list(tmp_path.iterdir()) == [target]       # nothing else written


def test_default_kernel_that_cannot_be_read_is_skipped(monkeypatch, tmp_path, capsys):
    # a bundled directory with only copy.c: the other default kernels are skipped
    # with the reason, the run goes on (exit 0) and the JSON lists them
    (tmp_path / "copy.c").write_text((validate.KERNEL_DIR / "copy.c").read_text())
    monkeypatch.setattr(validate, "KERNEL_DIR", tmp_path)
    target = tmp_path / "out.json"
    code = validate_cli.main(["-m", "CSX", "--quick", "--levels", "L1", "--json", str(target)],
                             measure=fake_measure(2.0))
    doc = json.loads(target.read_text())
    assert code == 0 and [p["kernel"] for p in doc["points"]] == ["copy"]
    assert [s["kernel"] for s in doc["skipped"]] == list(validate.QUICK_KERNELS[1:])
    assert "unknown kernel 'triad'" in doc["skipped"][0]["reason"]
    assert "skipped: triad" in capsys.readouterr().out


def test_point_failures_skip_and_a_host_failure_stops(capsys):
    machine = kerncraft.load_machine("CSX")
    kernels = [resolve_kernel(n) for n in ("copy", "triad")]

    def triad_fails(bound, machine, options):
        if "c" in bound.arrays:
            raise KerncraftError("triad cannot run")
        return PointMeasurement(2.0, "fake")

    result = validate.run_validation(kernels, machine, ["L1", "L2"], measure=triad_fails,
                                     progress=open("/dev/null", "w"))
    assert [p.kernel for p in result.points] == ["copy", "copy"]
    assert [(s.kernel, s.level, s.reason) for s in result.skipped] == [
        ("triad", "L1", "triad cannot run"), ("triad", "L2", "triad cannot run")]

    def host_fails(bound, machine, options):
        raise KerncraftError("this CPU lacks avx512f")

    # copy L1 and L2 fail, then triad L1 with the same message: stop, one-line error
    assert validate_cli.main(["-m", "CSX", "copy", "triad", "--levels", "L1,L2"],
                             measure=host_fails) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == "kerncraft-validate: error: this CPU lacks avx512f"
    assert sum("skipped" in line for line in err) == 2


def test_rounds_keep_the_fastest_and_name_an_unsteady_host(capsys):
    """Two rounds over copy L1 and MEM on CSX, the second slower for L1 (2.0 then 2.5 cy/CL:
    25 % apart, listed as unsteady) and the same for MEM (4.0, 4.0): the fastest counts."""
    values = iter([2.0, 4.0, 2.5, 4.0])

    def measure(bound, machine, options):
        return PointMeasurement(next(values), "fake")

    code = validate_cli.main(["-m", "CSX", "copy", "--levels", "L1,MEM", "--rounds", "2",
                              "--json", "-"], measure=measure)
    out, err = capsys.readouterr()
    assert code == 0
    points = json.loads(out)["points"]
    assert [p["measured_cy_per_cl"] for p in points] == [2.0, 4.0]
    assert [p["measurement"]["rounds"] for p in points] == [[2.0, 2.5], [4.0, 4.0]]
    assert "rounds differ by 25%" in points[0]["measurement"]["notes"][0]
    assert points[1]["measurement"]["notes"] == []
    assert "unsteady host: the rounds of 1 point(s) differ by more than 10 %" in err
    assert "copy L1 (2.00 / 2.50)" in err
    assert "[1/2] copy L1 N=1024 measuring (round 2/2)" in err


def test_best_of_rounds_single_measurement_is_unchanged():
    one = PointMeasurement(3.0, "fake", notes=("x",))
    assert validate.best_of_rounds([one]) == one


def test_every_point_converts_at_the_clock_calibrated_around_it(monkeypatch):
    """The clock reads 4.0 GHz before the point and 4.4 GHz after: the run took 2.5 ns
    per line (10 cy at the 4.0 GHz it was converted with), so at the mean 4.2 GHz it is
    10 x 4.2 / 4.0 = 10.5 cy/CL, and the +10 % drift is noted."""
    from types import SimpleNamespace

    from kerncraft.benchmark import kernel_run as benchmark

    from kerncraft.measure import clock
    readings = iter([4.0e9, 4.4e9])
    monkeypatch.setattr(benchmark, "choose_cpus", lambda cores: (1,))
    monkeypatch.setattr(clock, "calibrate_clock",
                        lambda duration, repetitions, cpu: SimpleNamespace(core_hz=next(readings)))

    def fake_run(bound, machine, *, cores, min_time, repeats, cpus, clock):
        assert cpus == (1,) and clock.core_hz == 4.0e9
        return SimpleNamespace(cycles_per_cl=10.0, clock_hz=clock.core_hz, backend="fake",
                               seconds=1.0, notes=(), clock_source="calibrated: fake")

    monkeypatch.setattr(benchmark, "run_benchmark", fake_run)
    m = validate.benchmark_measure(None, None, validate.RunOptions())
    assert m.cycles_per_cl == pytest.approx(10.5) and m.clock_hz == pytest.approx(4.2e9)
    assert m.notes == ("core clock 4.00 -> 4.40 GHz during the point (+10.0%); cycles at the mean",)
