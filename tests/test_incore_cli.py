"""``kerncraft-incore`` command line: output modes and every user-error path."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kerncraft.errors import KerncraftError
from kerncraft.cli import incore as cli
from kerncraft.incore import analysis
from kerncraft.incore.model import Instruction, InstructionCost, Memory, Uop
from support.published import HOW_TO_GET, published

DATA = Path(__file__).parent / "data" / "asm_papers"
TRIAD = str(DATA / "stream_triad_csx.s")
MACHINE = published("CascadelakeSP_Gold-6248_SNC.yml")


def P(*ports: str, cycles: float = 1.0) -> Uop:
    return Uop(frozenset(ports), cycles)


class TinyModel:
    """Minimal port model: enough for the STREAM triad (no real database needed)."""

    arch = "TINY"
    isa = "x86"
    ports = ("0", "1", "2", "3", "4", "5", "6", "7")
    frontend_width = None

    def lookup(self, ins: Instruction) -> InstructionCost | None:
        table = {"vmovapd": ((), 0.0), "vfmadd213pd": ((P("0", "1"),), 4.0),
                 "addq": ((P("0", "1", "5", "6"),), 1.0), "cmpq": ((P("0", "1", "5", "6"),), 1.0),
                 "jne": ((P("0", "6"),), 0.0)}
        if ins.mnemonic not in table:
            return None
        uops, lat = table[ins.mnemonic]
        if isinstance(ins.operands[-1], Memory):
            return InstructionCost(ins.form_key, uops + (P("2", "3"), P("4")), lat, has_store=True)
        if any(isinstance(o, Memory) for o in ins.operands):
            return InstructionCost(ins.form_key, uops + (P("2", "3"),), lat, 4.0, has_load=True)
        return InstructionCost(ins.form_key, uops, lat)


@pytest.fixture
def tiny(monkeypatch):
    def fake_load(name):
        if name.upper() in ("TINY", "CSX"):
            return TinyModel()
        raise KerncraftError(f"unknown instruction database '{name}'")
    monkeypatch.setattr(analysis, "load_model", fake_load)


def run(argv, capsys):
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("kerncraft-incore: error: ")
    return lines[0]


def test_text_report(tiny, capsys):
    code, out, err = run(["--arch", "TINY", TRIAD], capsys)
    assert code == 0 and err == ""
    assert "TP 1.50 cy | CP 8.00 cy | LCD 1.00 cy | prediction 1.50 cy per assembly iteration" in out
    assert "vfmadd213pd" in out and "Loop-carried dependencies" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_json_to_stdout(tiny, capsys):
    code, out, _ = run(["--arch", "TINY", TRIAD, "--json", "-", "--unroll", "4"], capsys)
    assert code == 0
    doc = json.loads(out)
    for key in ("throughput", "critical_path", "lcd", "port_pressure", "instructions",
                "unknown_instructions"):
        assert key in doc
    assert doc["throughput"] == 1.5 and doc["critical_path"] == 8.0 and doc["lcd"] == 1.0
    assert doc["port_pressure"]["2"] == 1.5
    assert doc["per_source_iteration"]["prediction"] == pytest.approx(0.375)
    assert [i["line"] for i in doc["instructions"]] == [6, 7, 8, 9, 10, 11]
    assert doc["lcd_chains"][0]["via"] == ["rax"]


def test_json_file_graph_unroll_fixed(tiny, capsys, tmp_path):
    js, dot = tmp_path / "r.json", tmp_path / "g.dot"
    code, out, _ = run(["--arch", "tiny", TRIAD, "--json", str(js), "--export-graph", str(dot),
                        "--unroll", "4", "--fixed"], capsys)
    assert code == 0
    assert "per source iteration (unroll 4)" in out
    assert json.loads(js.read_text())["balancing"] == "fixed"
    text = dot.read_text()
    assert text.startswith("digraph") and "penwidth=3" in text and "color=purple" in text
    assert "i0L -> i0" in text and 'label="4"' in text


def test_unknown_instruction_error_and_ignore(tiny, capsys, tmp_path):
    src = tmp_path / "k.s"
    src.write_text(Path(TRIAD).read_text().replace("vfmadd213pd", "vfoo213pd"))
    code, _, err = run(["--arch", "TINY", str(src)], capsys)
    assert code == 2
    line = one_error_line(err)
    assert "vfoo213pd mem,ymm,ymm" in line and "--ignore-unknown" in line
    code, out, err = run(["--arch", "TINY", str(src), "--ignore-unknown"], capsys)
    assert code == 0 and "X vfoo213pd" in out and "counted as zero" in out


@pytest.mark.parametrize("argv, fragment", [
    (["--arch", "TINY", "/nonexistent/k.s"], "cannot read /nonexistent/k.s"),
    ([TRIAD], "the following arguments are required: --arch"),
    (["--arch", "TINY", TRIAD, "--unroll", "0"], "--unroll must be a positive integer"),
    (["--arch", "TINY", TRIAD, "--unroll", "x"], "invalid int value"),
    (["--arch", "NOPE", TRIAD], "NOPE"),
    (["--arch", "/nonexistent/m.yml", TRIAD], "no such file"),
    (["--arch", "TINY", TRIAD, "--bogus"], "unrecognized arguments"),
])
def test_user_errors_are_one_line(tiny, capsys, argv, fragment):
    code, _, err = run(argv, capsys)
    assert code == 2
    assert fragment in one_error_line(err)


def test_unwritable_outputs(tiny, capsys, tmp_path):
    code, _, err = run(["--arch", "TINY", TRIAD, "--json", str(tmp_path / "no" / "x.json")], capsys)
    assert code == 2 and "cannot write" in one_error_line(err)
    code, _, err = run(["--arch", "TINY", TRIAD, "--export-graph", str(tmp_path / "no" / "g.dot")],
                       capsys)
    assert code == 2 and "cannot write" in one_error_line(err)


def test_no_loop_in_file(tiny, capsys, tmp_path):
    src = tmp_path / "empty.s"
    src.write_text("  .text\n  ret\n")
    code, _, err = run(["--arch", "TINY", str(src)], capsys)
    assert code == 2 and one_error_line(err)


@pytest.mark.skipif(not MACHINE.is_file(), reason=HOW_TO_GET)
def test_machine_file_maps_to_database(tiny, capsys):
    # CascadelakeSP machine file: in-core model OSACA: CSX -> our CSX database (here faked)
    code, out, _ = run(["--arch", str(MACHINE), TRIAD], capsys)
    assert code == 0 and "TP 1.50 cy" in out


def test_machine_file_without_usable_model(tiny, capsys, tmp_path):
    bad = tmp_path / "m.yml"
    bad.write_text("model name: nothing\n")
    code, _, err = run(["--arch", str(bad), TRIAD], capsys)
    assert code == 2 and "neither a machine file" in one_error_line(err)


def test_console_script_is_installed():
    exe = shutil.which("kerncraft-incore")
    if exe is None:
        pytest.skip("console script not installed in this environment")
    proc = subprocess.run([exe, "--arch", "NOPE-ARCH", TRIAD], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith("kerncraft-incore: error: ") and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_module_entry_point_help():
    proc = subprocess.run([sys.executable, "-m", "kerncraft.cli.incore", "--help"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "--export-graph" in proc.stdout


def _have_db(name: str) -> bool:
    try:
        from kerncraft.incore.database import available_databases
    except ImportError:
        return False
    return name in available_databases()


@pytest.mark.skipif(not _have_db("SKX"), reason="SKX database not available yet")
def test_real_database_end_to_end(capsys, tmp_path):
    dot = tmp_path / "g.dot"
    code, out, err = run(["--arch", "skx", str(DATA / "schoenauer_triad_skx.s"),
                          "--export-graph", str(dot), "--unroll", "4"], capsys)
    assert code == 0 and err == ""
    assert "TP 2.00 cy" in out and "prediction 0.50 cy per source iteration (unroll 4)" in out
    assert dot.read_text().count("->") >= 8


@pytest.mark.skipif(not (_have_db("CSX") and MACHINE.is_file()),
                    reason="CSX database or reference machine files not available yet")
def test_real_machine_file_end_to_end(capsys):
    code, out, _ = run(["--arch", str(MACHINE), TRIAD], capsys)
    assert code == 0 and "In-core analysis for CSX" in out and "TP 1.50 cy" in out


@pytest.mark.skipif(not _have_db("SPR"), reason="SPR database not available yet")
def test_many_port_model_fits_100_columns(capsys):
    code, out, _ = run(["--arch", "SPR", str(DATA / "schoenauer_triad_skx.s")], capsys)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "11D" in out.splitlines()[2]                  # every port of the model is a column


TX2 = MACHINE.with_name("ARMv8_ThunderX2-CN9980.yml")


@pytest.mark.skipif(not TX2.is_file(), reason=HOW_TO_GET)
def test_machine_file_with_unsupported_core(tiny, capsys):
    code, _, err = run(["--arch", str(TX2), TRIAD], capsys)
    assert code == 2
    assert "names in-core model 'TX2'" in one_error_line(err)
