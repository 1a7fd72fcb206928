"""kerncraft-validate --record / --replay: the recording format, errors by hand, no
overwriting, the cross-host comparison, and the command line.

Nothing is measured: live runs get a fake measuring function, the hand-made
recording a fake predictor.
"""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from kerncraft.cli import validate as validate_cli
from kerncraft.errors import KerncraftError
from kerncraft.validation.campaign import KERNEL_DIR, PointMeasurement, Prediction
from kerncraft.validation.corpus import (find_recordings, host_slug, load_recording,
                                         referenced_files, reserve_recording)
from kerncraft.validation.hostinfo import LoadSampler, cpu_description
from kerncraft.validation.replay import compare, replay_recording

def _csx_path() -> Path:
    import kerncraft
    return Path(kerncraft.load_machine("CSX").path)


def fake_measure(value: float):
    def measure(bound, machine, options):
        return PointMeasurement(value, "fake", 3.0e9, 0.1)
    return measure


# ---------------------------------------------------------------- a hand-made recording

def _hand_recording(folder: Path) -> Path:
    """Two points of copy on CSX: L1 measured 2.0 cy/CL, MEM measured 20.0 cy/CL;
    the recorded summary says L1 5 %, MEM 25 %, all 17 %."""
    folder.mkdir()
    shutil.copy(_csx_path(), folder / "CSX.yml")
    (folder / "kernels").mkdir()
    shutil.copy(KERNEL_DIR / "copy.c", folder / "kernels" / "copy.c")

    def point(level, defines, measured):
        return {"kernel": "copy", "kernel_file": "kernels/copy.c", "level": level,
                "defines": defines, "target_bytes": None, "measured_cy_per_cl": measured,
                "rounds": [measured], "clock_hz": None, "backend": "timing",
                "seconds": None, "measurement_notes": [], "recorded": {"ecm_cy_per_cl": 2.1}}
    points = {"format": 1, "tool": {"kerncraft": "0.1.0", "commit": None},
              "machine_file": "CSX.yml", "referenced_files": [],
              "options": {"cores": 1, "roofline": "RooflineASM", "incore_model": "kerncraft"},
              "targets": {}, "skipped": [],
              "points": [point("L1", {"N": 1024}, 2.0), point("MEM", {"N": 16777216}, 20.0)]}
    levels = [{"level": "L1", "points": 1, "median_abs_error": 0.05, "worst_error": 0.05,
               "worst_kernel": "copy"},
              {"level": "MEM", "points": 1, "median_abs_error": 0.25, "worst_error": -0.25,
               "worst_kernel": "copy"}]
    summary = {"ECM": {"points": 2, "median_abs_error": 0.17, "levels": levels}}
    (folder / "points.json").write_text(json.dumps(points))
    (folder / "summary.json").write_text(json.dumps(summary))
    (folder / "host.json").write_text(json.dumps({"model_name": "Hand CPU"}))
    return folder


def hand_predict(bound, machine, options):
    """ECM 2.2 cy/CL for the L1 size (N = 1024), 15.0 for the memory size."""
    ecm = 2.2 if int(bound.bindings["N"]) == 1024 else 15.0
    return Prediction(ecm, ecm, {})


def test_replay_errors_and_change_by_hand(tmp_path):
    # L1: (2.2 - 2.0) / 2.0 = +10 %; MEM: (15 - 20) / 20 = -25 %;
    # all: median of 10 % and 25 % = 17.5 %.
    # Against the record: L1 10 - 5 = +5 points (grown), MEM 25 - 25 = 0,
    # all 17.5 - 17 = +0.5 points (within the one point allowed).
    recording = load_recording(_hand_recording(tmp_path / "hand"))
    result = replay_recording(recording, predict_point=hand_predict, progress=io.StringIO())
    errors = {p.level: p.ecm_error for p in result.points}
    assert errors == pytest.approx({"L1": 0.10, "MEM": -0.25})
    assert result.summaries[0].median_abs_error == pytest.approx(0.175)
    levels = {lvl.level: lvl for lvl in compare(recording, result).levels}
    assert levels["L1"].change == pytest.approx(0.05) and levels["L1"].grown
    assert levels["MEM"].change == pytest.approx(0.0) and not levels["MEM"].grown
    assert levels["all"].change == pytest.approx(0.005) and not levels["all"].grown
    assert levels["all"].worst_error == pytest.approx(-0.25)
    assert levels["all"].recorded_worst_error == pytest.approx(-0.25)


def test_changed_predictions_are_counted(tmp_path):
    # the record says ECM 2.1 for both points; 2.2 and 15.0 both moved by more than 1 %
    recording = load_recording(_hand_recording(tmp_path / "hand"))
    result = replay_recording(recording, predict_point=hand_predict, progress=io.StringIO())
    assert compare(recording, result).changed_points == 2


# ---------------------------------------------------------------- recording, live

def test_record_then_replay_gives_the_same_rows(tmp_path, capsys):
    target = tmp_path / "corpus"
    assert validate_cli.main(["-m", "CSX", "copy", "--levels", "L1", "--rounds", "1",
                              "--record", str(target)], measure=fake_measure(2.0)) == 0
    live = capsys.readouterr()
    [path] = find_recordings([target])
    assert "recorded 1 points in" in live.err and str(path) in live.err
    assert sorted(p.name for p in path.iterdir()) == ["CSX.yml", "host.json", "kernels",
                                                      "points.json", "summary.json"]
    point = json.loads((path / "points.json").read_text())["points"][0]
    assert (point["kernel"], point["level"], point["measured_cy_per_cl"], point["backend"],
            point["clock_hz"]) == ("copy", "L1", 2.0, "fake", 3.0e9)
    assert (path / "kernels" / "copy.c").read_text() == (KERNEL_DIR / "copy.c").read_text()
    assert (path / "CSX.yml").read_bytes() == _csx_path().read_bytes()
    host = json.loads((path / "host.json").read_text())
    assert {"vendor", "family", "model", "stepping", "model_name", "flags_summary", "kernel",
            "compilers", "date", "load"} <= set(host)
    assert validate_cli.main(["--replay", str(target)]) == 0
    replay = capsys.readouterr().out
    live_row = next(ln for ln in live.out.splitlines() if ln.startswith("| copy | L1"))
    assert live_row in replay.splitlines()
    assert "| L1 | 1 |" in replay and "+0.0 pt" in replay
    assert "no median abs. ECM error grew by more than 1 point" in replay


def test_second_recording_never_overwrites(tmp_path, capsys):
    target = tmp_path / "corpus"
    argv = ["-m", "CSX", "copy", "--levels", "L1", "--rounds", "1", "--record", str(target)]
    validate_cli.main(argv, measure=fake_measure(2.0))
    [first] = find_recordings([target])
    before = (first / "points.json").read_bytes()
    validate_cli.main(argv, measure=fake_measure(3.0))
    err = capsys.readouterr().err
    second = first.with_name(first.name + "-2")
    assert f"{first} exists (never overwritten); recording into {second}" in err
    assert (first / "points.json").read_bytes() == before
    assert json.loads((second / "points.json").read_text())["points"][0][
        "measured_cy_per_cl"] == 3.0


def test_reserve_adds_a_suffix_and_refuses_a_recording_as_parent(tmp_path):
    first, note = reserve_recording(tmp_path, "host-2026-01-01")
    assert note is None and first == tmp_path / "host-2026-01-01"
    second, note = reserve_recording(tmp_path, "host-2026-01-01")
    assert second.name == "host-2026-01-01-2" and "never overwritten" in note
    (first / "points.json").write_text("{}")
    with pytest.raises(KerncraftError, match="is itself a recording"):
        reserve_recording(first, "x")


def test_a_run_without_points_leaves_no_folder(tmp_path, capsys):
    def failing(bound, machine, options):
        raise KerncraftError("cannot run here")
    target = tmp_path / "corpus"
    assert validate_cli.main(["-m", "CSX", "copy", "--levels", "L1", "--record", str(target)],
                             measure=failing) == 1
    assert "nothing recorded" in capsys.readouterr().err
    assert list(target.iterdir()) == []


def test_files_the_machine_file_names_are_copied(tmp_path, capsys):
    folder = tmp_path / "machines"
    (folder / "calib").mkdir(parents=True)
    machine = folder / "host.yml"
    machine.write_text(_csx_path().read_text()
                       + "calibration file: calib/host-calibration.yml   # measured\n"
                       + "# comment: calib/not-this.yml\n")
    (folder / "calib" / "host-calibration.yml").write_text("fadd latency: 2\n")
    (folder / "calib" / "not-this.yml").write_text("\n")
    assert referenced_files(machine) == ["calib/host-calibration.yml"]
    target = tmp_path / "corpus"
    validate_cli.main(["-m", str(machine), "copy", "--levels", "L1", "--rounds", "1",
                       "--record", str(target)], measure=fake_measure(2.0))
    [path] = find_recordings([target])
    assert (path / "calib" / "host-calibration.yml").read_text() == "fadd latency: 2\n"
    assert json.loads((path / "points.json").read_text())["referenced_files"] == [
        "calib/host-calibration.yml"]


# ---------------------------------------------------------------- command line, errors

def test_replay_refuses_live_options(tmp_path, capsys):
    path = _hand_recording(tmp_path / "hand")
    assert validate_cli.main(["--replay", str(path), "-m", "CSX", "--levels", "L1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["kerncraft-validate: error: --replay predicts with the recorded machine "
                   "files, kernels and settings; -m, --levels cannot be used with it"]


def test_machine_still_required_without_replay(capsys):
    with pytest.raises(SystemExit) as exc:
        validate_cli.main(["copy"])
    assert exc.value.code == 2
    assert "the following arguments are required: -m/--machine" in capsys.readouterr().err


def test_replay_of_a_folder_without_recordings(tmp_path, capsys):
    assert validate_cli.main(["--replay", str(tmp_path)]) == 2
    assert f"no recording in {tmp_path}" in capsys.readouterr().err


def test_malformed_recording_is_one_line(tmp_path):
    path = _hand_recording(tmp_path / "hand")
    (path / "points.json").write_text('{"format": 1, "points": [{"kernel": "copy"}]}')
    with pytest.raises(KerncraftError, match="malformed"):
        load_recording(path)


def test_find_recordings_below_a_folder(tmp_path):
    _hand_recording(tmp_path / "a")
    (tmp_path / "hosts").mkdir()
    _hand_recording(tmp_path / "hosts" / "b")
    assert [p.name for p in find_recordings([tmp_path])] == ["a", "b"]
    assert find_recordings([tmp_path / "a", tmp_path]) == [tmp_path / "a",
                                                            tmp_path / "hosts" / "b"]


# ---------------------------------------------------------------- host description

CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
model name\t: Intel(R) Xeon(R) Platinum 8488C
stepping\t: 8
flags\t\t: fpu sse4_2 avx avx2 fma avx512f avx512_fp16 amx_tile hypervisor

processor\t: 1
vendor_id\t: GenuineIntel
"""


def test_cpu_description_and_slug():
    host = cpu_description(CPUINFO)
    assert (host["vendor"], host["family"], host["model"], host["stepping"]) == (
        "GenuineIntel", 6, 143, 8)
    assert host["flags_summary"] == ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_fp16",
                                     "amx_tile", "hypervisor"]
    assert host["flags_count"] == 9 and host["virtual_machine"]
    assert host_slug(host) == "intel-xeon-platinum-8488c-f6m143"


def test_load_sampler_reads_after_every_point():
    samples = iter([(1.5, 2), (2.5, 3)])
    sampler = LoadSampler(fake_measure(1.0), read=lambda: next(samples))
    sampler(None, None, None)
    sampler(None, None, None)
    assert sampler.document() == {"samples": 2, "load1_min": 1.5, "load1_max": 2.5,
                                  "runnable_max": 3}
