"""``kerncraft-incore bench ARCH --kernel-forms`` (issue 11, item 5): which forms the
bundled kernels use, and when a measurement counts as a difference."""
from __future__ import annotations

import pytest

from kerncraft.dbtools import form_check as dbmeasure

from kerncraft.dbtools import microbench
from kerncraft.dbtools.microbench import FormResult
from kerncraft.incore.analysis import load_model


def _result(form: str, lat: float, tp: float, db_lat: float, db_tp: float) -> FormResult:
    return FormResult(arch="ZEN5", form=form, latency=lat, throughput=tp, db_latency=db_lat,
                      db_throughput=db_tp, core_hz=4.5e9)


def test_kernel_forms_of_zen5_include_the_streaming_forms():
    forms = dbmeasure.kernel_forms(load_model("ZEN5"), "ZEN5")
    # gcc -O3 for x86-64-v4 with 512-bit vectors: triad's FMA with a memory operand,
    # the zmm loads/stores of copy, and the loop counter
    for form in ("vfmadd132pd mem,zmm,zmm", "vmovupd mem,zmm", "vmovupd zmm,mem",
                 "addq imm,r64"):
        assert form in forms
    assert all("(" in example and ".c -O3)" in example for example in forms.values())


def test_differences_by_hand(monkeypatch):
    # GPR load: 0.26 measured vs 0.50 -> |0.24| > 0.05 and > 10 % of 0.50: differs.
    # FADD: 2.01 vs 2.00 cy latency, 0.51 vs 0.50 rtp: within 10 %: does not differ.
    # cmp: the "latency" of a flags-only form is not compared (0.17 vs 1.00 ignored).
    # eliminated move: no port in the database, so 1 / frontend_width = 1/8 = 0.125 cy is
    # expected; 0.26 measured differs, 0.14 does not (gap 0.015 < 0.05 cy).
    canned = {"movq mem,r64": _result("movq mem,r64", 4.0, 0.26, 4.0, 0.50),
              "vaddpd zmm,zmm,zmm": _result("vaddpd zmm,zmm,zmm", 2.01, 0.51, 2.0, 0.5),
              "cmpq r64,r64": _result("cmpq r64,r64", 0.17, 0.17, 1.0, 0.17),
              "movq r64,r64": _result("movq r64,r64", 0.14, 0.14, 0.0, 0.0),
              "vmovapd zmm,zmm": _result("vmovapd zmm,zmm", 0.26, 0.26, 0.0, 0.0)}
    monkeypatch.setattr(microbench, "bench_form", lambda model, form, **kw: canned[form])
    model = load_model("ZEN5")
    assert model.frontend_width == 8
    check = dbmeasure.check_forms(model, {f: "example" for f in canned}, core_hz=4.5e9)
    differs = {f.form: f.differs for f in check.forms}
    assert differs == {"movq mem,r64": ("throughput",), "vaddpd zmm,zmm,zmm": (),
                       "cmpq r64,r64": (), "movq r64,r64": (),
                       "vmovapd zmm,zmm": ("throughput",)}
    assert next(f for f in check.forms if f.form == "movq r64,r64").db_throughput == 0.125
    text = dbmeasure.format_database_check(check)
    assert "2 of 5 measured forms differ" in text


def test_unbuildable_forms_are_listed_not_dropped(monkeypatch):
    from kerncraft.errors import KerncraftError

    def refuse(model, form, **kw):
        raise KerncraftError("'jne' cannot be benchmarked in a straight-line loop")
    monkeypatch.setattr(microbench, "bench_form", refuse)
    check = dbmeasure.check_forms(load_model("ZEN5"), {"jne lbl": "jne .L4"}, core_hz=4.5e9)
    assert check.forms[0].skipped.startswith("'jne' cannot")
    assert "not measurable" in dbmeasure.format_database_check(check)


def test_bench_needs_forms_or_kernel_forms(capsys):
    from kerncraft.cli.incore import main
    for argv in (["bench", "ZEN5"], ["bench", "ZEN5", "addq r64,r64", "--kernel-forms"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
        assert "give instruction forms, --kernel-forms or --kernel-pairs" in capsys.readouterr().err


def test_host_database_from_cpuinfo(monkeypatch):
    """The Cascade Lake fixture (6/85/7) uses CSX, the Zen 5 one (26/2) ZEN5."""
    from pathlib import Path
    from kerncraft.measure import topology
    data = Path(__file__).parent / "data" / "cpuinfo"
    for name, expected in (("clx", "CSX"), ("zen5", "ZEN5")):
        info = topology.parse_cpuinfo((data / f"{name}.txt").read_text())
        monkeypatch.setattr(topology, "_cpuinfo_first", lambda info=info: info)
        assert topology.host_incore_model() == expected


def test_bench_warns_when_the_database_is_another_core(monkeypatch, capsys):
    from kerncraft.measure import topology
    from kerncraft.cli import incore
    monkeypatch.setattr(topology, "host_incore_model", lambda: "ZEN5")
    incore._warn_other_core("CSX")
    assert "uses the ZEN5 database; the measurements are compared with CSX" in \
        capsys.readouterr().err
    incore._warn_other_core("zen5")
    assert capsys.readouterr().err == ""
