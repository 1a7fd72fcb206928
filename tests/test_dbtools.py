"""Database tools: ``kerncraft-incore bench`` (dbtools/microbench.py) and ``--db-check`` (dbtools/coverage.py)."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from kerncraft.cli.incore import main
from kerncraft.dbtools.coverage import check_database, format_check
from kerncraft.dbtools.microbench import UNROLL, generate

ROOT = Path(__file__).resolve().parents[1]
MEMDEPS = ROOT / "tests" / "data" / "asm_memdeps"


def _x86_host() -> bool:
    from kerncraft.measure.timing import is_x86_64_linux
    return is_x86_64_linux() and shutil.which("gcc") is not None


needs_x86 = pytest.mark.skipif(not _x86_host(), reason="needs an x86-64 Linux host with gcc")


# ------------------------------------------------------------------ generated loops

def test_latency_chain_through_the_destination():
    b = generate("addq r64,r64")
    assert len(b.latency_body) == UNROLL
    assert set(b.latency_body) == {"        addq %rbx, %rcx"}        # rcx read and written
    # throughput: rotating destinations, the source is never written
    dsts = {line.split(",")[-1].strip() for line in b.throughput_body}
    assert len(dsts) == 8 and "%rbx" not in dsts


def test_vex_latency_chain_uses_a_source_of_the_destination_class():
    b = generate("vaddpd ymm,ymm,ymm")
    assert b.latency_body[0].split() == ["vaddpd", "%ymm14,", "%ymm0,", "%ymm0"]
    assert b.vector_width == "ymm"
    assert "64(%r14)" in generate("vfmadd231pd mem,ymm,ymm").latency_body[0]


def test_store_addresses_keep_the_vector_alignment():
    # ymm stores go 32 B apart (two per line, as streaming code does); an aligned zmm store
    # at a 32-B offset faults, so zmm stores go one line apart (64 B).
    import re
    for form, step in (("vmovapd ymm,mem", 32), ("vmovapd zmm,mem", 64)):
        offsets = [int(re.search(r"(\d+)\(%r14\)", line).group(1))
                   for line in generate(form).throughput_body[:4]]
        assert [b - a for a, b in zip(offsets, offsets[1:])] == [step] * 3
        assert all(o % step == 0 for o in offsets)


def test_special_latency_kinds():
    assert generate("movq mem,r64").latency_kind == "load"            # pointer chase
    rmw = generate("addl r32,mem")
    assert rmw.latency_kind == "memory" and set(rmw.latency_body) == {"        addl %ebx, 64(%r14)"}
    assert generate("vmovupd ymm,mem").latency_body is None           # pure store
    assert generate("cvttsd2si xmm,r32").latency_body is None         # no same-class source
    # xmm/ymm/zmm are one register file: an extract chains through register number 0
    assert generate("vextractf128 imm,ymm,xmm").latency_body[0].split() == \
        ["vextractf128", "$1,", "%ymm0,", "%xmm0"]
    assert generate("shlq r8,r64").latency_body[0].split()[1] == "%cl,"


@pytest.mark.parametrize("form", ["jne lbl", "divq r64", "addq %rax,%rbx", "vaddpd foo,ymm,ymm"])
def test_refused_forms(form):
    from kerncraft.errors import KerncraftError
    with pytest.raises(KerncraftError):
        generate(form)


@needs_x86
def test_bench_addq_latency_is_one_cycle(capsys):
    code = main(["bench", "SKX", "addq r64,r64", "--quick", "--json", "-"])
    assert code == 0
    (res,) = json.loads(capsys.readouterr().out)
    assert res["form"] == "addq r64,r64"
    assert res["latency"] == pytest.approx(1.0, abs=0.15)    # the clock's own reference chain
    assert res["db_latency"] == 1.0 and res["db_throughput"] == pytest.approx(0.25)
    # 4 integer ALUs on Intel cores and Zen 1-4 (0.25 cy), 6 on Zen 5 (1/6 = 0.167 cy;
    # measured 0.19 on a Zen 5 EPYC VM)
    assert 0.14 < res["throughput"] < 0.45


@needs_x86
def test_bench_text_output(capsys):
    assert main(["bench", "ZEN", "vaddsd xmm,xmm,xmm", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "measured  database" in out and "vs. database ZEN" in out
    assert "latency [cy]" in out and "3.00" in out                      # ZEN's vaddsd latency


def test_bench_errors_are_one_line(capsys, monkeypatch):
    from kerncraft.measure import topology
    monkeypatch.setattr(topology, "host_incore_model", lambda: "SKX")   # no other-core warning
    with pytest.raises(SystemExit) as exc:
        main(["bench", "SKX", "jne lbl"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("kerncraft-incore: error:") and err.count("\n") == 1


# ------------------------------------------------------------------ --db-check

def _write_db(tmp_path: Path) -> Path:
    db = tmp_path / "tiny.yml"
    db.write_text("""
arch: SKX
name: deliberately incomplete test database
ports: ['0', '1', '2', '2D', '3', '3D', '4', '5', '6', '7', '0DV']
divider_ports: ['0DV']
load_ports: ['2', '3']
load_data_ports: ['2D', '3D']
store_data_ports: ['4']
store_address_ports: ['2', '3']
load_latency: {gpr: 5, xmm: 6}
store_forward_latency: 5
frontend_width: 4
rob_size: 224
instruction_groups:
- source: test
  forms:
    "add {r64|r32},{r64|r32}": {uops: [[0,1,5,6]], lat: 1, tp: 0.25}
    "add r64,r64": {uops: [[0,1,5,6]], lat: 1, tp: 0.25}
    "sub r64,r64": {uops: [[0,1,5,6]], lat: 1}
- source: test 2
  forms:
    "sub r64,r64": {uops: [[0,1]], lat: 1, tp: 0.5}
    "nop": {uops: [], lat: 0}
""")
    return db


def test_db_check_finds_missing_values_and_duplicates(tmp_path):
    check = check_database(str(_write_db(tmp_path)), kernels=False)
    assert "add r64,r64 (groups 0 and 0)" in check.redundant
    assert "sub r64,r64 (groups 0 and 1)" in check.overridden
    assert "sub r64,r64" in check.missing_tp and "nop" in check.missing_tp
    assert check.missing_uops == ["nop"]
    assert any(m.startswith("load_latency.scalar") for m in check.missing_header)
    assert check.failed
    text = format_check(check)
    assert "[FAILED]" in text and "entries without uops: 1" in text


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_db_check_lists_unknown_forms_of_bundled_kernels(tmp_path):
    check = check_database(str(_write_db(tmp_path)), kernel_paths=[ROOT / "kernels" / "triad.c"],
                           opt_levels=("-O2",))
    assert check.compiled == 1
    assert any(k.startswith("vfmadd") or k.startswith("vmovupd") or k.startswith("vmovapd")
               for k in check.unknown), check.unknown
    assert all("triad.c -O2" in v for v in check.unknown.values())


def test_db_check_cli_without_kernels(capsys):
    assert main(["--db-check", "ZEN", "SKX", "--no-kernels"]) == 0
    out = capsys.readouterr().out
    assert out.count("[ok]") == 2 and "kernels not checked" in out
    assert main(["--db-check", "ZEN", "--no-kernels", "--json", "-"]) == 0
    (doc,) = json.loads(capsys.readouterr().out)
    assert doc["arch"] == "ZEN" and doc["failed"] is False


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_db_check_zen_knows_all_bundled_kernel_forms(capsys):
    assert main(["--db-check", "ZEN"]) == 0
    out = capsys.readouterr().out
    m = re.search(r"forms of bundled kernels unknown to ZEN \((\d+) compilations\): none", out)
    assert m and int(m.group(1)) >= 4 * 9


def test_analysis_cli_still_works(capsys):
    assert main(["--arch", "SKX", str(MEMDEPS / "recurrence_gcc12_O1.s")]) == 0
    assert "LCD 13.00 cy" in capsys.readouterr().out
