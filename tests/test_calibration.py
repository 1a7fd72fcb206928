"""In-core calibration by timing (issue 24, item 2): the decision rule, the file, the
forwarding groups from pair chains, the machine file's reference and what the prediction
and the report make of it. Measurements are injected (``bench``, pair periods): no test
runs a microbenchmark."""
from __future__ import annotations

import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from kerncraft.dbtools.calibrate import (CalibrationPlan, FormMeasurement, calibration_targets,
                                         decide, table_key)
from kerncraft.dbtools.calibrate_forwarding import (MEASURED_GROUP, PairMeasurement,
                                                    forwarding_changes)
from kerncraft.dbtools.calibration_run import run_calibration
from kerncraft.errors import KerncraftError
from kerncraft.incore.analysis import load_model
from kerncraft.incore.calibration import (CALIBRATION_KEY, calibrated_database,
                                          calibration_bytes, read_calibration)
from kerncraft.incore.database import load_database
from kerncraft.incore.throughput import balance_ports
from kerncraft.machinegen.incore_calibration import add_calibration_reference
from support.published import HOW_TO_GET, published

ROOT = Path(__file__).resolve().parents[1]
ZEN2_MACHINE = ROOT / "machine-files" / "ZEN2.yml"


def fake_bench(prior, latency=None, throughput=None):
    """One 'run' of a form: the prior's values, except those given ({form: value})."""
    latency, throughput = latency or {}, throughput or {}

    def bench(form):
        cost = prior.lookup_form(form)
        tp = balance_ports([list(cost.uops)], prior.ports).throughput
        return SimpleNamespace(latency=latency.get(form, cost.latency),
                               throughput=throughput.get(form, tp), latency_kind="register")
    return bench


def calibrate(prior_name, tmp_path, forms, latency=None, throughput=None, name="cal.yml"):
    prior = load_model(prior_name)
    result = run_calibration(
        prior_name, plan=CalibrationPlan(runs=3, standard_forms=False, pairs=False),
        kernel_forms={f: "" for f in forms}, bench=fake_bench(prior, latency, throughput),
        host="Test CPU (family 23 model 49)", core_hz=3.0e9, host_flags=[], date="2026-01-02",
        tool="test")
    path = tmp_path / name
    path.write_text(result.text)
    return result, path


def machine_with_calibration(tmp_path, calibration_name):
    """machine-files/ZEN2.yml with '- kerncraft calibration: NAME' under in-core model."""
    text = add_calibration_reference(ZEN2_MACHINE.read_text(), calibration_name)
    path = tmp_path / "ZEN2-host.yml"
    path.write_text(text)
    return path


# ------------------------------------------------------------------ the decision rule

def test_decision_rule_by_hand():
    """ZEN2: vaddsd 3 cy on FP2/FP3 (0.5 cy), vmulsd 3 cy on FP0/FP1 (0.5 cy)."""
    zen2 = load_model("ZEN2")
    m = [FormMeasurement("vaddsd xmm,xmm,xmm", "vaddsd xmm,xmm,xmm", 3.2, 0.52),  # within 10 %
         FormMeasurement("vmulsd xmm,xmm,xmm", "vmulsd xmm,xmm,xmm", 2.02, 0.25),  # both off
         FormMeasurement("vsubsd xmm,xmm,xmm", "vsubsd xmm,xmm,xmm", 4.5, None),   # 4.5: no
         FormMeasurement("vdivsd xmm,xmm,xmm", "vdivsd xmm,xmm,xmm", 8.0, None,
                         latency_spread=0.3)]                                    # runs disagree
    decision = decide(zen2, m, tolerance=0.1)
    assert decision.agreeing == 1
    assert set(decision.changes) == {"vmulsd xmm,xmm,xmm"}
    change = decision.changes["vmulsd xmm,xmm,xmm"]
    assert (change.latency, change.throughput, change.throughput_scale) == (2.0, 0.25, 0.5)
    reasons = {e.key: e.reason for e in decision.not_written}
    assert "whole number of cycles" in reasons["vsubsd xmm,xmm,xmm"]
    assert "runs disagree" in reasons["vdivsd xmm,xmm,xmm"]


def test_throughput_keeps_the_port_set(tmp_path):
    """A measured 0.25 cy for vmulsd (prior 0.5 on FP0/FP1) halves the uop's cycles on
    the same two ports: 0.5 cy / 2 ports = 0.25 cy; no port is added."""
    result, path = calibrate("ZEN2", tmp_path, ["vmulsd mem,xmm,xmm"],
                             throughput={"vmulsd xmm,xmm,xmm": 0.25})
    entry = load_database(path).forms["vmulsd xmm,xmm,xmm"]
    prior = load_model("ZEN2").forms["vmulsd xmm,xmm,xmm"]
    assert [u.ports for u in entry.uops] == [u.ports for u in prior.uops]
    assert [u.cycles for u in entry.uops] == [0.5]
    assert balance_ports([list(entry.uops)], load_model("ZEN2").ports).throughput == 0.25
    assert entry.latency == prior.latency


def test_load_store_uops_of_the_header_bind_the_entry_is_written_out():
    """movq mem,r64 is [load] (the header's AGU0/AGU1 + LD0/LD1 uops, 0.5 cy): scaling the
    entry's own uops (none) cannot give 0.25, so the placeholder's uops are written into
    the entry, each lowered to 0.25 x 2 ports = 0.5 cy (tests/test_calibration_memory.py)."""
    zen2 = load_model("ZEN2")
    key = table_key(zen2, "movq mem,r64")
    decision = decide(zen2, [FormMeasurement("movq mem,r64", key, None, 0.25, "load")])
    change = decision.changes[key]
    assert change.access == "load" and change.throughput == 0.25
    assert [u.cycles for u in change.uops] == [0.5, 0.5]
    assert not decision.not_written and "written into the entry" in decision.written[0].how


def test_memory_forms_are_measured_as_their_register_form_and_unknown_are_kept_out():
    zen2 = load_model("ZEN2")
    targets, unknown = calibration_targets(zen2, ["vaddsd mem,xmm,xmm", "vaddsd xmm,xmm,xmm",
                                                  "addq imm,r64", "vfrobnicate xmm,xmm"])
    assert targets == {"vaddsd xmm,xmm,xmm": "vaddsd xmm,xmm,xmm",
                       "addq imm,r64": table_key(zen2, "addq imm,r64")}
    assert unknown == ("vfrobnicate xmm,xmm",)


def test_unknown_form_is_not_invented(tmp_path):
    result, path = calibrate("ZEN2", tmp_path, ["vaddsd xmm,xmm,xmm", "vfrobnicate xmm,xmm"],
                             latency={"vaddsd xmm,xmm,xmm": 2.0})
    model = load_database(path)
    assert model.lookup_form("vfrobnicate xmm,xmm") is None
    assert result.unknown == ("vfrobnicate xmm,xmm",)
    assert "vfrobnicate" not in result.text.split("instruction_groups:")[1]


# ------------------------------------------------------------------ the file

def test_file_round_trips_through_load_database(tmp_path):
    result, path = calibrate("ZEN2", tmp_path, ["vaddsd mem,xmm,xmm", "vmulsd xmm,xmm,xmm"],
                             latency={"vaddsd xmm,xmm,xmm": 2.0})
    model, prior = load_database(path), load_model("ZEN2")
    assert model.arch == "ZEN2"                        # reports keep the database's name
    assert model.forms["vaddsd xmm,xmm,xmm"].latency == 2.0
    assert model.lookup_form("vaddsd mem,xmm,xmm").latency == 2.0    # composed from it
    assert model.forms["vmulsd xmm,xmm,xmm"] == prior.forms["vmulsd xmm,xmm,xmm"]  # agreed
    assert len(model.forms) == len(prior.forms)        # the rest is the prior's (extends)
    source = model.forms["vaddsd xmm,xmm,xmm"].source
    assert source.startswith("measured on Test CPU (family 23 model 49) 2026-01-02 by test, "
                             "3 runs, spread up to 0.0 %")
    cal = read_calibration(path)
    assert (cal.prior, cal.runs, cal.forms_measured) == ("ZEN2", 3, 2)
    assert [(e.key, e.field, e.measured, e.prior, e.written) for e in cal.entries] == [
        ("vaddsd xmm,xmm,xmm", "lat", 2.0, 3.0, 2.0)]


def test_entries_keep_their_variants_and_placeholders(tmp_path):
    """A written entry replaces the inherited one whole: same_reg variants (zero idioms)
    and load placeholders are copied from the prior."""
    zen2 = load_model("ZEN2")
    key = next(k for k, e in zen2.forms.items() if e.same_reg is not None
               and k.startswith("vxorpd") and "mem" not in k)
    result, path = calibrate("ZEN2", tmp_path, [key], latency={key: 3.0})
    entry = load_database(path).forms[key]
    assert entry.latency == 3.0
    assert entry.same_reg == zen2.forms[key].same_reg


# ------------------------------------------------------------------ forwarding groups

def test_forwarding_group_from_pairs_by_hand(tmp_path):
    """The calibration lowered vaddsd and vsubsd from 3 to 2 cy (their chains into
    themselves). Pairs: vaddsd -> vmulsd measured 6.0, the model says 2 + 3 = 5: vaddsd
    (lowered, no group) carries the extra cycle, lat_other = 2 + 1 = 3 in group 'measured'.
    vaddsd -> vsubsd measured 4.0 = 2 + 2: with vaddsd's new group the model would say
    3 + 2 = 5, so vsubsd (lowered) joins the group with the prior's 3 cy to others."""
    _, path = calibrate("ZEN2", tmp_path, ["vaddsd xmm,xmm,xmm", "vsubsd xmm,xmm,xmm"],
                        latency={"vaddsd xmm,xmm,xmm": 2.0, "vsubsd xmm,xmm,xmm": 2.0})
    model = load_database(path)
    pairs = [PairMeasurement("vaddsd xmm,xmm,xmm", "vmulsd xmm,xmm,xmm", 6.0, 5.0),
             PairMeasurement("vaddsd xmm,xmm,xmm", "vsubsd xmm,xmm,xmm", 4.0, 4.0)]
    lowered = {"vaddsd xmm,xmm,xmm", "vsubsd xmm,xmm,xmm"}
    changes, written, not_written = forwarding_changes(model, pairs, lowered, 0.1,
                                                       prior=load_model("ZEN2"))
    assert not not_written
    assert {k: (c.bypass, c.latency_other) for k, c in changes.items()} == {
        "vaddsd xmm,xmm,xmm": (MEASURED_GROUP, 3.0), "vsubsd xmm,xmm,xmm": (MEASURED_GROUP, 3.0)}
    assert [(e.key, e.field, e.written) for e in written] == [
        ("vaddsd xmm,xmm,xmm", "lat_other", 3.0), ("vsubsd xmm,xmm,xmm", "lat_other", 3.0)]


def test_pair_no_single_form_explains_is_recorded():
    """Neither vmulsd nor vdivsd has a group or was lowered: not written."""
    zen2 = load_model("ZEN2")
    pairs = [PairMeasurement("vmulsd xmm,xmm,xmm", "vdivsd xmm,xmm,xmm", 20.0, 16.0)]
    changes, written, not_written = forwarding_changes(zen2, pairs, set())
    assert not changes and not written
    assert "cannot tell" in not_written[0].reason


def test_forwarding_written_into_the_file(tmp_path):
    """End to end with injected pair periods: the file's vaddsd gets bypass/lat_other and
    the model then gives the measured periods of both chains."""
    prior = load_model("ZEN2")
    periods = {("vaddsd xmm,xmm,xmm", "vmulsd xmm,xmm,xmm"): 6.0}

    def chain(lines, width):
        key = " ".join(line.split()[0] for line in lines)
        return {"vaddsd vmulsd": 6.0}[key]
    result = run_calibration(
        "ZEN2", plan=CalibrationPlan(runs=1, standard_forms=False, pairs=True),
        kernel_forms={"vaddsd xmm,xmm,xmm": "", "vmulsd xmm,xmm,xmm": ""},
        bench=fake_bench(prior, {"vaddsd xmm,xmm,xmm": 2.0}), measure_chain=chain,
        pairs={pair: "" for pair in periods}, host="Test CPU", core_hz=3e9, host_flags=[],
        date="2026-01-02")
    path = tmp_path / "cal.yml"
    path.write_text(result.text)
    entry = load_database(path).forms["vaddsd xmm,xmm,xmm"]
    assert (entry.latency, entry.bypass, entry.latency_other) == (2.0, MEASURED_GROUP, 3.0)
    assert result.pairs == {"pairs_measured": 1, "pairs_differing_before": 1,
                            "pairs_differing_after": 0}


# ------------------------------------------------------------------ the prediction

def test_measured_fadd_latency_changes_the_reduction_t_ol(tmp_path):
    """kernels/sum_reduction.c on ZEN2 (gcc -O3 -march=znver2, no -ffast-math): the sum
    may not be reassociated, so every source iteration adds its a[i] to s with one scalar
    ``vaddsd`` (memory source) and the loop-carried chain holds one vaddsd per iteration,
    whatever gcc's unrolling: 8 per cache line of doubles.

    * LCD = 8 x lat(vaddsd): prior 8 x 3 = 24 cy/CL, calibrated 8 x 2 = 16 cy/CL.
    * Port throughput: per iteration one FADD uop on FP2/FP3 (0.5 cy) and one load on
      LD0/LD1 (0.5 cy): 4 cy/CL on either; the front end is below that.
    * T_OL = max(other ports 4, LCD, front end) = the LCD: 24 -> 16 cy/CL.
    * T_nOL = busiest of LD0/LD1 = 8 x 0.5 = 4 cy/CL, unchanged.
    """
    import kerncraft
    kernel = str(ROOT / "kernels" / "sum_reduction.c")
    plain = kerncraft.analyze(kernel, str(ZEN2_MACHINE), model="ECM", defines={"N": 1000})
    _, cal = calibrate("ZEN2", tmp_path, ["vaddsd mem,xmm,xmm"],
                       latency={"vaddsd xmm,xmm,xmm": 2.0})
    machine = machine_with_calibration(tmp_path, cal.name)
    calibrated = kerncraft.analyze(kernel, str(machine), model="ECM", defines={"N": 1000})
    assert (plain.incore.t_ol, plain.incore.t_nol) == (24.0, 4.0)
    assert (calibrated.incore.t_ol, calibrated.incore.t_nol) == (16.0, 4.0)
    assert calibrated.incore.t_ol_source == "loop-carried dependency"
    assert calibrated.incore.arch == "ZEN2"
    doc = calibrated.incore.to_dict()["incore_calibration"]
    assert doc["prior"] == "ZEN2" and doc["file"] == str(cal.resolve())
    assert [(e["key"], e["field"], e["prior"], e["written"]) for e in doc["entries"]] == [
        ("vaddsd xmm,xmm,xmm", "lat", 3.0, 2.0)]
    assert "incore_calibration" not in plain.incore.to_dict()


def test_report_line_and_json(tmp_path):
    import kerncraft
    from kerncraft.report.schema import ECM, check
    from kerncraft.report.text import format_result
    _, cal = calibrate("ZEN2", tmp_path, ["vaddsd mem,xmm,xmm"],
                       latency={"vaddsd xmm,xmm,xmm": 2.0})
    machine = machine_with_calibration(tmp_path, cal.name)
    result = kerncraft.analyze(str(ROOT / "kernels" / "sum_reduction.c"), str(machine),
                               model="ECM", defines={"N": 1000})
    line = "in-core: DB ZEN2 + 1 entry measured on Test CPU (family 23 model 49) (cal.yml)"
    assert result.incore.calibration.describe() == line
    text = format_result(result)
    if line not in text:
        pytest.skip("report/text.py does not print the calibration line yet")
    assert text.count(line) == 1
    assert check(result.to_dict(), ECM) == []


def test_missing_calibration_is_one_clear_error(tmp_path):
    import kerncraft
    machine = machine_with_calibration(tmp_path, "nowhere/cal.yml")
    with pytest.raises(KerncraftError) as info:
        kerncraft.analyze(str(ROOT / "kernels" / "sum_reduction.c"), str(machine),
                          model="ECM", defines={"N": 1000})
    message = str(info.value)
    assert str(tmp_path / "nowhere" / "cal.yml") in message and CALIBRATION_KEY in message
    assert "\n" not in message


def test_incore_command_with_a_machine_file_uses_its_calibration(tmp_path, capsys):
    """kerncraft-incore --arch MACHINE: a scalar sum loop (one vaddsd on the chain) has an
    LCD of the calibrated 2 cy instead of ZEN2's 3."""
    from kerncraft.cli.incore import main
    _, cal = calibrate("ZEN2", tmp_path, ["vaddsd xmm,xmm,xmm"],
                       latency={"vaddsd xmm,xmm,xmm": 2.0})
    asm = tmp_path / "sum.s"
    asm.write_text(".L1:\n vaddsd (%rax), %xmm0, %xmm0\n addq $8, %rax\n cmpq %rax, %rdx\n"
                   " jne .L1\n")
    for machine, lcd in ((ZEN2_MACHINE, "3.00"), (machine_with_calibration(tmp_path, cal.name),
                                                  "2.00")):
        assert main(["--arch", str(machine), str(asm)]) == 0
        assert f"LCD {lcd} cy" in capsys.readouterr().out


def test_calibration_of_another_database_is_refused(tmp_path):
    from kerncraft.machine.loader import load_machine
    _, cal = calibrate("ZEN", tmp_path, ["vaddsd xmm,xmm,xmm"],
                       latency={"vaddsd xmm,xmm,xmm": 2.0})
    machine = load_machine(machine_with_calibration(tmp_path, cal.name))
    with pytest.raises(KerncraftError, match="measured against ZEN, but the machine file "
                                             "names ZEN2"):
        calibrated_database(machine, "ZEN2")


def test_machine_files_with_the_key_still_load(tmp_path):
    """Bundled machine files load with the key added after their 'kerncraft' entry (the
    first key stays the first, which is what Kerncraft itself takes by default), and the
    other tools' entries and the database are unchanged."""
    from kerncraft.machine.loader import load_machine
    from kerncraft.machine.paths import list_bundled_machines
    from kerncraft.models.incore_ports import resolve_database, tool_architecture
    for name in list_bundled_machines():
        source = load_machine(name)
        target = tmp_path / f"{name}.yml"
        target.write_text(add_calibration_reference(Path(source.path).read_text(), "c.yml"))
        machine = load_machine(target)
        assert dict(machine.in_core_model)[CALIBRATION_KEY] == "c.yml"
        assert list(machine.in_core_model)[0] == list(source.in_core_model)[0]
        assert resolve_database(machine) == resolve_database(source)
        if "OSACA" in source.in_core_model:
            assert tool_architecture(machine, "OSACA") == tool_architecture(source, "OSACA")


PUBLISHED_ZEN2 = published("Zen2_EPYC-7452.yml")


@pytest.mark.skipif(not PUBLISHED_ZEN2.is_file(), reason=HOW_TO_GET)
def test_published_kerncraft_machine_file_with_the_key(tmp_path):
    """Kerncraft's own Zen 2 file (OSACA and LLVM-MCA entries only): the key goes after
    the last entry, the file loads, OSACA stays first and our prediction uses the
    calibration of the database OSACA's ZEN2 maps to."""
    from kerncraft.machine.loader import load_machine
    from kerncraft.models.incore_ports import resolve_database, tool_architecture
    _, cal = calibrate("ZEN2", tmp_path, ["vaddsd xmm,xmm,xmm"],
                       latency={"vaddsd xmm,xmm,xmm": 2.0})
    path = tmp_path / "Zen2_EPYC-7452.yml"
    path.write_text(add_calibration_reference(PUBLISHED_ZEN2.read_text(), cal.name))
    machine = load_machine(path)
    assert list(machine.in_core_model) == ["OSACA", "LLVM-MCA", CALIBRATION_KEY]
    assert tool_architecture(machine, "LLVM-MCA") == "-mcpu=znver2"
    database, found = calibrated_database(machine, resolve_database(machine))
    assert database == str(cal.resolve()) and found.entries[0].written == 2.0


def test_cache_keys_see_the_calibration_content(tmp_path):
    from kerncraft.memo.incore_analyses import database_fingerprint
    _, one = calibrate("ZEN2", tmp_path, ["vaddsd xmm,xmm,xmm"],
                       latency={"vaddsd xmm,xmm,xmm": 2.0}, name="one.yml")
    _, two = calibrate("ZEN2", tmp_path, ["vaddsd xmm,xmm,xmm"],
                       latency={"vaddsd xmm,xmm,xmm": 4.0}, name="two.yml")
    assert database_fingerprint(str(one)) != database_fingerprint(str(two))
    machine = machine_with_calibration(tmp_path, one.name)
    text = machine.read_bytes()
    before = calibration_bytes(machine, text)
    assert one.read_bytes() in before
    shutil.copy(two, one)
    assert calibration_bytes(machine, text) != before
    assert calibration_bytes(ZEN2_MACHINE, ZEN2_MACHINE.read_bytes()) == b""


def test_stored_incore_analyses_see_a_rewritten_calibration(tmp_path, cache_dir):
    """The persistent in-core cache keys on the calibration's content: the same machine
    file and calibration path with another measured latency is another entry (a new
    process is imitated by clearing the per-process memos)."""
    import kerncraft
    from kerncraft.memo.incore_analyses import database_fingerprint
    from kerncraft.models import incore_prediction
    kernel = str(ROOT / "kernels" / "sum_reduction.c")
    _, cal = calibrate("ZEN2", tmp_path, ["vaddsd xmm,xmm,xmm"],
                       latency={"vaddsd xmm,xmm,xmm": 2.0})
    machine = str(machine_with_calibration(tmp_path, cal.name))
    first = kerncraft.analyze(kernel, machine, model="ECM", defines={"N": 1000})
    calibrate("ZEN2", tmp_path, ["vaddsd xmm,xmm,xmm"], latency={"vaddsd xmm,xmm,xmm": 4.0})
    incore_prediction._analyse_source.cache_clear()
    database_fingerprint.cache_clear()
    second = kerncraft.analyze(kernel, machine, model="ECM", defines={"N": 1000})
    assert (first.incore.t_ol, second.incore.t_ol) == (16.0, 32.0)


def test_machine_step_writes_and_references_the_calibration(tmp_path, monkeypatch):
    from kerncraft.dbtools import calibration_run
    from kerncraft.machine.loader import load_machine
    from kerncraft.machinegen.incore_calibration import calibrate_machine_file
    prior = load_model("ZEN2")
    real = calibration_run.run_calibration

    def fake(name, **kw):
        assert kw["target"][0] == "gcc" and "-march=znver2" in kw["target"][1]
        return real(name, plan=kw["plan"], kernel_forms={"vaddsd xmm,xmm,xmm": ""},
                    bench=fake_bench(prior, {"vaddsd xmm,xmm,xmm": 2.0}), host="Test CPU",
                    core_hz=3e9, host_flags=[], tool=kw["tool"])
    monkeypatch.setattr(calibration_run, "run_calibration", fake)
    lines = []
    output = tmp_path / "host.yml"
    text = calibrate_machine_file(ZEN2_MACHINE.read_text(), output, quick=True,
                                  progress=lines.append)
    output.write_text(text)
    assert re.search(r"^  - kerncraft calibration: host-calibration\.yml   # \[measured\] 1 ",
                     text, re.M)
    database, cal = calibrated_database(load_machine(output), "ZEN2")
    assert database == str((tmp_path / "host-calibration.yml").resolve())
    assert cal.entries[0].key == "vaddsd xmm,xmm,xmm"
    assert "kerncraft-machine --quick" in (tmp_path / "host-calibration.yml").read_text()
    assert calibrate_machine_file("x", None, quick=True, progress=lines.append) == "x"
    assert "skipped" in lines[-1]


def test_calibrate_command(tmp_path, monkeypatch, capsys):
    from kerncraft.cli.incore import main
    from kerncraft.dbtools import calibration_run
    prior = load_model("ZEN2")
    real = calibration_run.run_calibration
    seen = {}

    def fake(name, **kw):
        seen.update(kw, prior=name)
        return real(name, plan=kw["plan"], kernel_forms={"vaddsd xmm,xmm,xmm": ""},
                    bench=fake_bench(prior, {"vaddsd xmm,xmm,xmm": 2.0}), host="Test CPU",
                    core_hz=3e9, host_flags=[], tool=kw["tool"])
    monkeypatch.setattr(calibration_run, "run_calibration", fake)
    out = tmp_path / "c.yml"
    assert main(["calibrate", "ZEN2", "-o", str(out), "--quick"]) == 0
    assert seen["prior"] == "ZEN2" and seen["target"] is None and seen["plan"].runs == 1
    assert load_database(out).forms["vaddsd xmm,xmm,xmm"].latency == 2.0
    assert "vaddsd xmm,xmm,xmm" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        main(["calibrate", "ZEN2", "-o", str(out)])
    assert info.value.code == 2 and "exists" in capsys.readouterr().err
    assert main(["calibrate", str(ZEN2_MACHINE), "-o", str(out), "--force"]) == 0
    assert seen["prior"] == "ZEN2" and "-march=znver2" in seen["target"][1]


def test_fma_latency_chain_runs_through_the_destination_only():
    """The FMA chain the microbenchmark times: the destination register carries it (the
    addend of 231, a multiplicand of 132/213), every instance the same line, no move."""
    from kerncraft.dbtools.microbench_forms import UNROLL, generate
    for order, role in (("231", "addend"), ("132", "multiplicand"), ("213", "multiplicand")):
        bench = generate(f"vfmadd{order}pd ymm,ymm,ymm")
        assert set(bench.latency_body) == {f"        vfmadd{order}pd %ymm14, %ymm15, %ymm0"}
        assert len(bench.latency_body) == UNROLL, role
