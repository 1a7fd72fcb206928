"""In-core calibration of load and store forms (kerncraft/dbtools/calibrate_memory.py):
an entry's extra access uop dropped or rescaled, the header's load/store uops written out
and lowered where they bind, explicit memory forms with ``access``, and forms or pairs the
prior lacks. Measurements are injected: no test times anything."""
from __future__ import annotations

from pathlib import Path

import pytest

from kerncraft.dbtools.calibrate import CalibrationPlan, FormMeasurement, decide
from kerncraft.dbtools.calibration_run import run_calibration
from kerncraft.errors import KerncraftError
from kerncraft.incore.analysis import analyze_text, load_model
from kerncraft.incore.calibration import read_calibration
from kerncraft.incore.database import load_database
from kerncraft.incore.model import Uop
from kerncraft.incore.throughput import balance_ports
from kerncraft.machinegen.incore_calibration import add_calibration_reference
from test_calibration import calibrate, fake_bench
from test_ecm_golden import GCC_VERSION

ROOT = Path(__file__).resolve().parents[1]
LD, STD = frozenset({"LD0", "LD1"}), frozenset({"STD"})
AGU3 = frozenset({"AGU0", "AGU1", "AGU2"})


def tp(model, form: str, copies: int = 1) -> float:
    """Port-balanced cycles of ``copies`` instances of ``form``."""
    cost = model.lookup_form(form)
    return balance_ports([list(cost.uops)] * copies, model.ports).throughput


# ------------------------------------------------------------------ rule (a)

def test_zmm_load_without_its_extra_ld_uop_reproduces_half_a_cycle(tmp_path):
    """ZEN4 'vmovupd mem,zmm' = load (AGU on AGU0-2, one cycle on LD0/LD1) + its own
    second LD0/LD1 cycle: 2 LD cycles on 2 ports = 1.0 cy. Measured 0.51: without the
    extra uop 1 LD cycle on 2 ports = 0.5 cy, within 0.05 cy of 0.51: written, tp 0.5.
    'vaddpd mem,zmm,zmm' (FP2/FP3 2 cy + load + extra LD) measured 0.51: the extra uop
    goes and the FADD uop is lowered to 0.51 x 2 ports = 1.02 cy: max(0.51, 0.5) = 0.51."""
    result, path = calibrate("ZEN4", tmp_path, ["vmovupd mem,zmm", "vaddpd mem,zmm,zmm"],
                             throughput={"vmovupd mem,zmm": 0.51, "vaddpd mem,zmm,zmm": 0.51})
    model = load_database(path)
    assert model.forms["vmovupd mem,zmm"].uops == ("load",)
    assert tp(model, "vmovupd mem,zmm") == 0.5
    assert model.forms["vaddpd mem,zmm,zmm"].uops == (Uop(frozenset({"FP2", "FP3"}), 1.02),
                                                      "load")
    assert tp(model, "vaddpd mem,zmm,zmm") == pytest.approx(0.51)
    cost = model.lookup_form("vmovupd mem,zmm")            # still a load, latency kept
    assert cost.has_load and cost.load_latency == 7.0 and cost.latency == 0.0
    assert model.forms["vaddpd mem,zmm,zmm"].latency == 3.0
    record = {e.key: e for e in read_calibration(path).entries}
    load = record["vmovupd mem,zmm"]
    assert (load.field, load.prior, load.measured, load.written) == ("tp", 1.0, 0.51, 0.5)
    assert "extra LD0/LD1 uop dropped" in load.how
    assert "extra LD0/LD1 uop dropped" in model.forms["vmovupd mem,zmm"].source
    assert not result.not_written


def test_extra_ld_uop_rescaled_when_dropping_it_overshoots():
    """A zmm load measured 0.75 cy on ZEN4: dropped, 0.5 cy (too fast); kept at a share k
    of its cycle, LD0/LD1 carry 1 + k cycles on 2 ports: (1 + k) / 2 = 0.75, k = 0.5."""
    zen4 = load_model("ZEN4")
    d = decide(zen4, [FormMeasurement("vmovupd mem,zmm", "vmovupd mem,zmm", None, 0.75)])
    change = d.changes["vmovupd mem,zmm"]
    assert change.uops == ("load", Uop(LD, 0.5))
    assert d.written[0].written == 0.75 and "kept at 0.5 of its cycles" in d.written[0].how


def test_operation_uops_scaled_without_the_access_uop():
    """ZEN4 'vdivpd mem,zmm,zmm' (FP1 1 cy, FDIV 10 cy, load, extra LD) measured 4.05:
    the FDIV binds, scaled by 0.405 (FP1 0.405, FDIV 4.05); the access uop is not part of
    the operation and stays at 1 cycle (the measurement says nothing about it)."""
    zen4 = load_model("ZEN4")
    d = decide(zen4, [FormMeasurement("vdivpd mem,zmm,zmm", "vdivpd mem,zmm,zmm", None, 4.05)])
    assert d.changes["vdivpd mem,zmm,zmm"].uops == (
        Uop(frozenset({"FP1"}), 0.405), Uop(frozenset({"FDIV"}), 4.05), "load", Uop(LD, 1.0))


# ------------------------------------------------------------------ rule (b)

def test_store_data_uop_of_half_a_cycle_gives_two_stores_per_cycle(tmp_path):
    """ZEN4 'vmovupd ymm,mem' = store: AGU on AGU0-2 (1/3 cy) + STD 1 cy on the one STD
    port = 1.0 cy. Measured 0.5: the header's uops written out, each lowered to at most
    0.5 x its ports: AGU min(1, 1.5) = 1 (unchanged: stays the 'store_addr' placeholder),
    STD min(1, 0.5) = 0.5. Two such stores: STD 2 x 0.5 = 1 cy, AGU 2/3: two per cycle."""
    result, path = calibrate("ZEN4", tmp_path, ["vmovupd ymm,mem"],
                             throughput={"vmovupd ymm,mem": 0.5})
    model = load_database(path)
    entry = model.forms["vmovupd ymm,mem"]
    assert entry.uops == ("store_addr", Uop(STD, 0.5)) and entry.access == "store"
    assert tp(model, "vmovupd ymm,mem") == 0.5
    assert tp(model, "vmovupd ymm,mem", copies=2) == 1.0
    cost = model.lookup_form("vmovupd ymm,mem")
    assert cost.has_store and not cost.has_load and cost.latency == 0.0
    assert "STD 1 -> 0.5" in read_calibration(path).entries[0].how


def test_gpr_load_uops_written_out_keep_the_load_latency(tmp_path):
    """ZEN2 'movq mem,r64' = load: AGU0/AGU1 1 cy + LD0/LD1 1 cy = 0.5 cy. Measured 0.25:
    both lowered to 0.25 x 2 ports = 0.5 cy: four loads are 4 x 0.5 = 2 cycles on each
    two-port set, 1 cy. The explicit entry gets no second load (2 uops, not 4) and keeps
    its load latency: a pointer chase
    'movq (%rax), %rax' is 4 cy per iteration (load_latency.gpr 4 + lat 0), as before."""
    result, path = calibrate("ZEN2", tmp_path, ["movq mem,r64"],
                             throughput={"movq mem,r64": 0.25})
    model, prior = load_database(path), load_model("ZEN2")
    entry = model.forms["mov mem,r64"]
    assert entry.access == "load"
    assert entry.uops == (Uop(frozenset({"AGU0", "AGU1"}), 0.5), Uop(LD, 0.5))
    cost = model.lookup_form("movq mem,r64")
    assert len(cost.uops) == 2 and cost.has_load and cost.load_latency == 4.0
    assert tp(model, "movq mem,r64") == 0.25
    chase = ".L1:\n        movq (%rax), %rax\n        decq %r15\n        jnz .L1\n"
    assert analyze_text(chase, "ZEN2", model=model).lcd == 4.0
    assert analyze_text(chase, "ZEN2", model=prior).lcd == 4.0


def test_access_field_is_checked(tmp_path):
    path = tmp_path / "bad.yml"
    path.write_text('extends: "ZEN2"\ninstruction_groups:\n- source: "t"\n  forms:\n'
                    '    "mov mem,r64": {"uops": [["LD0"]], "lat": 0, "access": "read"}\n')
    with pytest.raises(KerncraftError, match="access must be one of"):
        load_database(path)


# ------------------------------------------------------------------ the prediction

@pytest.mark.skipif(not (GCC_VERSION or "").startswith("12."),
                    reason="the loop below is the one gcc 12 emits")
def test_calibrated_zmm_accesses_change_triad_t_ol_and_t_nol(tmp_path):
    """kernels/triad.c on a ZEN4 prior compiled as the machine file says (gcc 12 -O3
    -march=x86-64-v4 -mprefer-vector-width=512): one zmm iteration per cache line,
    'vmovapd mem,zmm', 'vfmadd213pd mem,zmm,zmm', 'vmovapd zmm,mem', addq, cmpq/jne.

    * Prior: each zmm load is load + an extra LD0/LD1 cycle, 2 loads x 2 cycles on 2 LD
      ports: T_nOL = 2.0 cy/CL; the store is store + an extra STD cycle: STD 2.0; FMA 2 cy
      on FP0/FP1: 1.0; 3 AGU uops on AGU0-2: 1.0. T_OL = STD = 2.0 cy/CL.
    * Calibrated with loads and the FMA memory form at 0.5 cy, the store at 1.0 cy: the
      extra uops dropped (FMA uop lowered to 0.5 x 2 = 1 cy): LD 2 cycles on 2 ports:
      T_nOL = 1.0; STD 1.0, AGU 1.0, FP 0.5: T_OL = 1.0 cy/CL.
    ('streaming limit: ports' keeps the machine file's measured L1 bandwidth out.)"""
    import kerncraft
    text = (ROOT / "machine-files" / "ZEN5-VM.yml").read_text()
    text = text.replace("- kerncraft: ZEN5", "- kerncraft: ZEN4").replace(
        "streaming limit: measured", "streaming limit: ports")
    plain = tmp_path / "zen4.yml"
    plain.write_text(text)
    kernel = str(ROOT / "kernels" / "triad.c")
    before = kerncraft.analyze(kernel, str(plain), model="ECM", defines={"N": 1000}).incore
    measured = {"vmovapd mem,zmm": 0.5, "vfmadd213pd mem,zmm,zmm": 0.5, "vmovapd zmm,mem": 1.0}
    _, cal = calibrate("ZEN4", tmp_path, list(measured), throughput=measured)
    machine = tmp_path / "zen4-cal.yml"
    machine.write_text(add_calibration_reference(text, cal.name))
    after = kerncraft.analyze(kernel, str(machine), model="ECM", defines={"N": 1000}).incore
    assert (before.t_ol, before.t_nol) == (2.0, 2.0)
    assert (after.t_ol, after.t_nol) == (1.0, 1.0)
    assert after.calibration is not None and after.arch == "ZEN4"


# ------------------------------------------------------------------ unknown to the prior

def test_forms_and_pairs_unknown_to_the_prior_do_not_abort():
    """ZEN2 has no zmm forms: 'vaddpd mem,zmm,zmm' is listed as unknown, its pair is not
    timed (no model period to compare with) and the calibration finishes with the rest."""
    prior = load_model("ZEN2")
    timed = []

    def chain(lines, width):
        timed.append(" ".join(line.split()[0] for line in lines))
        return 5.0                          # vaddsd 3 + vmulsd 3 = 6 in the model
    pairs = {("vaddpd mem,zmm,zmm", "vaddsd xmm,xmm,xmm"): "",
             ("vaddsd xmm,xmm,xmm", "vmulsd xmm,xmm,xmm"): ""}
    result = run_calibration(
        "ZEN2", plan=CalibrationPlan(runs=1, standard_forms=False, pairs=True),
        kernel_forms={"vaddsd xmm,xmm,xmm": "", "vmulsd xmm,xmm,xmm": ""},
        bench=fake_bench(prior), measure_chain=chain, pairs=pairs, host="Test CPU",
        core_hz=3e9, host_flags=[], date="2026-01-02")
    assert result.unknown == ("vaddpd mem,zmm,zmm",)
    assert timed == ["vaddsd vmulsd"]
    assert "pairs_unknown_to_prior: [\"vaddpd mem,zmm,zmm -> vaddsd xmm,xmm,xmm\"]" in result.text
    assert result.pairs["pairs_measured"] == 1


def test_pair_check_skips_a_pair_the_database_lacks():
    from kerncraft.dbtools.pair_check import check_pairs
    check = check_pairs(load_model("ZEN2"), {("vaddpd mem,zmm,zmm", "vmulpd zmm,zmm,zmm"): ""},
                        core_hz=3e9, measure=lambda lines, width: 8.0)
    assert check.pairs[0].skipped and "not in the ZEN2 database" in check.pairs[0].skipped
