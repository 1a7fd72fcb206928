"""External in-core backends (``-i LLVM-MCA``, ``-i OSACA``).

The files in ``tests/data/backends/`` are *real* outputs, recorded on the
development machine (Debian llvm-mca 16.0.6 ``-mcpu=cascadelake`` / ``znver3``;
OSACA 0.7.1 from PyPI ``--arch CSX``) for the loop blocks our block selection
picks in gcc 12's ``-O3 -march=cascadelake`` code of triad, 2d-5pt, 3d-7pt and
sum_reduction (``*.llvm-mca.s`` / ``*.osaca.s`` are the marked inputs exactly
as :func:`kerncraft.incore.backends.marked_block` writes them). Expected
numbers below are read off those reports by hand.

A live test runs the real llvm-mca / OSACA when installed and is skipped
otherwise; the pipeline tests use a fake tool (a script printing a recorded
report) so they run everywhere gcc does.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from kerncraft.errors import KerncraftError, ToolError, UnknownInstructionError
from kerncraft.incore.backends import (BackendAnalysis, canonical_backend, find_versioned,
                                       marked_block)
from kerncraft.incore.backends import llvm_mca, osaca
from kerncraft.models import incore_prediction as ip
from support.published import HOW_TO_GET, published

DATA = Path(__file__).parent / "data" / "backends"
ROOT = Path(__file__).parent.parent


def read(name: str) -> str:
    return (DATA / name).read_text()


# ------------------------------------------------------------------ llvm-mca parsing
def test_llvm_mca_2d5pt_ports_frontend_and_steady_state():
    result = llvm_mca.parse_output(read("2d-5pt.llvm-mca-16.1000.txt"), "-mcpu=cascadelake",
                                   steady_output=read("2d-5pt.llvm-mca-16.2000.txt"))
    assert isinstance(result, BackendAnalysis)
    assert result.port_totals == {"SKXDivider": 0.0, "SKXFPDivider": 0.0, "SKXPort0": 2.0,
                                  "SKXPort1": 2.0, "SKXPort2": 2.0, "SKXPort3": 2.0,
                                  "SKXPort4": 1.0, "SKXPort5": 1.5, "SKXPort6": 1.5,
                                  "SKXPort7": 1.0}
    # 13000 uOps / 1000 iterations / dispatch width 6
    assert result.frontend == pytest.approx(13 / 6, abs=1e-4)
    # steady state: (4692 - 2360) cycles / (2000 - 1000) iterations
    assert result.simulated == pytest.approx(2.332)
    # throughput: max(busiest resource 2.00, front end 2.1667)
    assert result.throughput == pytest.approx(13 / 6, abs=1e-4)
    # 2.332 < 1.1 * 2.1667: no dependency limits the loop
    assert result.lcd is None and result.critical_path is None


def test_llvm_mca_sum_reduction_lcd_from_simulation():
    result = llvm_mca.parse_output(read("sum_reduction.llvm-mca-16.1000.txt"),
                                   steady_output=read("sum_reduction.llvm-mca-16.2000.txt"))
    # (32008 - 16008) / 1000 = 16 cy: four dependent vaddsd of 4 cy
    assert result.simulated == 16.0
    assert result.lcd == 16.0
    assert result.throughput == pytest.approx(2.01)     # SKXPort0/1
    assert any("loop-carried" in n for n in result.notes)


def test_llvm_mca_without_second_run_uses_average():
    result = llvm_mca.parse_output(read("triad.llvm-mca-16.1000.txt"))
    assert result.simulated == pytest.approx(1.347)     # 1347 cycles / 1000 iterations
    assert result.frontend == pytest.approx(8 / 6, abs=1e-4)


def test_llvm_mca_multi_unit_resources_get_unit_suffix():
    result = llvm_mca.parse_output(read("2d-5pt.llvm-mca-16.znver3.txt"), "-mcpu=znver3")
    ports = result.port_totals
    assert ports["Zn3FPP45.0"] == ports["Zn3FPP45.1"] == 2.5
    assert [ports[f"Zn3Load.{i}"] for i in range(3)] == [1.33, 1.33, 1.33]
    assert ports["Zn3AGU0"] == 0.0                      # '-' is zero
    # a machine file may name the resource without unit suffix
    assert ip.split_ports(ports, ("Zn3Load",))[0] == 1.33
    assert ip.port_matches("Zn3LSU", tuple(ports))


def test_llvm_mca_malformed_report():
    with pytest.raises(ToolError, match="could not read llvm-mca"):
        llvm_mca.parse_output("Iterations: 100\n")
    text = read("triad.llvm-mca-16.1000.txt").replace(" -      -     1.00", " -      -")
    with pytest.raises(ToolError, match="resources but"):
        llvm_mca.parse_output(text)


def test_llvm_mca_arch_arguments():
    assert llvm_mca.arch_arguments("-mcpu=cascadelake") == ["-mcpu=cascadelake"]
    assert llvm_mca.arch_arguments("skylake-avx512") == ["-mcpu=skylake-avx512"]
    assert llvm_mca.arch_arguments("-mtriple=aarch64 -mcpu=thunderx2t99") == \
        ["-mtriple=aarch64", "-mcpu=thunderx2t99"]
    with pytest.raises(KerncraftError, match="empty"):
        llvm_mca.arch_arguments("  ")


# ------------------------------------------------------------------ OSACA parsing
def test_osaca_triad():
    result = osaca.parse_output(read("triad.osaca-0.7.1.txt"), "CSX")
    assert result.port_totals == {"0": 0.75, "0DV": 0.0, "1": 0.75, "2": 1.5, "2D": 1.0,
                                  "3": 1.5, "3D": 1.0, "4": 1.0, "5": 0.75, "6": 0.75,
                                  "7": 0.0}
    assert result.throughput == 1.5
    assert result.critical_path == 8.0 and result.lcd == 1.0
    assert result.lcd_chains == ((1.0, "line 6: addq $32, %rax [6]"),)
    assert result.unknown_forms == () and result.frontend is None


def test_osaca_2d5pt_and_3d7pt():
    r2 = osaca.parse_output(read("2d-5pt.osaca-0.7.1.txt"))
    assert (r2.port_totals["2"], r2.port_totals["2D"], r2.port_totals["0DV"]) == (2.5, 2.0, 0.0)
    assert (r2.critical_path, r2.lcd) == (20.0, 1.0)
    r3 = osaca.parse_output(read("3d-7pt.osaca-0.7.1.txt"))
    assert r3.port_totals == {"0": 3.5, "0DV": 0.0, "1": 3.5, "2": 4.5, "2D": 4.0, "3": 4.5,
                              "3D": 4.0, "4": 1.0, "5": 1.0, "6": 1.0, "7": 0.0}
    assert (r3.critical_path, r3.lcd, r3.throughput) == (32.0, 1.0, 4.5)


def test_osaca_sum_reduction_chain():
    result = osaca.parse_output(read("sum_reduction.osaca-0.7.1.txt"))
    assert (result.critical_path, result.lcd) == (24.0, 16.0)
    assert result.lcd_chains[0] == (16.0, "line 3: vaddsd (%rax), %xmm0, %xmm0 [3, 5, 6, 7]")
    assert result.port_totals["4"] == 0.0


def test_osaca_unknown_instructions():
    refused = osaca.parse_output(read("unknown.osaca-0.7.1.txt"))
    assert refused.unknown_forms == ("vfoobarpd %ymm1, %ymm2, %ymm3",
                                     "vpdpbusd %zmm1, %zmm2, %zmm3")
    # no summary line without --ignore-unknown: port sums from the rows
    assert refused.port_totals["0"] == 0.75 and refused.port_totals["5"] == 0.75
    assert refused.lcd == 4.0                         # from the chain report
    ignored = osaca.parse_output(read("unknown.osaca-0.7.1.ignore.txt"))
    assert ignored.port_totals == refused.port_totals
    assert (ignored.critical_path, ignored.lcd) == (8.0, 4.0)


def test_osaca_malformed_report():
    with pytest.raises(ToolError, match="could not read OSACA"):
        osaca.parse_output("Open Source Architecture Code Analyzer (OSACA) - 0.7.1\n")


def test_osaca_command_checks_arch():
    assert osaca.command("/x/osaca", "CSX", True) == ["/x/osaca", "--arch", "CSX",
                                                       "--ignore-unknown", "{dir}/kernel.s"]
    with pytest.raises(KerncraftError, match="one OSACA architecture code"):
        osaca.command("/x/osaca", "-mcpu=cascadelake", False)


# ------------------------------------------------------------------ block, names, detection
ASM = """\
\t.text
main:
\tmovq\t$0, %rax
.L4:
\tvmovapd\t0(%r13,%rax), %ymm1
\t.p2align 4
\t# a comment
.L9:
\tvfmadd213pd\t(%r14,%rax), %ymm2, %ymm1
\tjne\t.L4
\tret
"""


def test_marked_block_keeps_instructions_and_inner_labels():
    instrs = [SimpleNamespace(line_number=n) for n in (5, 9, 10)]
    selection = SimpleNamespace(instructions=instrs, block=SimpleNamespace(label=".L4"))
    text = marked_block(ASM, selection, "OSACA-BEGIN", "OSACA-END")
    assert text == ("\t# OSACA-BEGIN\n.L4:\n\tvmovapd\t0(%r13,%rax), %ymm1\n.L9:\n"
                    "\tvfmadd213pd\t(%r14,%rax), %ymm2, %ymm1\n\tjne\t.L4\n\t# OSACA-END\n")


def test_recorded_inputs_are_marked_blocks():
    for name in ("triad", "2d-5pt", "3d-7pt", "sum_reduction"):
        mca = read(f"{name}.llvm-mca.s").splitlines()
        assert mca[0] == "\t# LLVM-MCA-BEGIN kerncraft" and mca[-1] == "\t# LLVM-MCA-END"
        assert read(f"{name}.osaca.s").splitlines()[0] == "\t# OSACA-BEGIN"


def test_canonical_backend_names():
    assert canonical_backend("llvm-mca") == canonical_backend("LLVM_MCA") == "LLVM-MCA"
    assert canonical_backend("osaca") == "OSACA"
    assert canonical_backend(None) == canonical_backend("Kerncraft") == "kerncraft"
    with pytest.raises(KerncraftError, match="unknown in-core model"):
        canonical_backend("iaca2")


CAT, GREP = shutil.which("cat") or "/bin/cat", shutil.which("grep") or "/bin/grep"


def _fake_exe(path: Path, body: str = "exit 0\n") -> Path:
    """An executable shell script (commands by absolute path: tests empty PATH)."""
    body = body.replace("cat ", f"{CAT} ").replace("grep ", f"{GREP} ")
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def test_find_versioned_prefers_plain_then_highest(tmp_path, monkeypatch):
    monkeypatch.delenv("KERNCRAFT_LLVM_MCA", raising=False)
    for name in ("llvm-mca-9", "llvm-mca-16", "llvm-mca-14", "llvm-mca-helper"):
        _fake_exe(tmp_path / name)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_versioned("llvm-mca", "KERNCRAFT_LLVM_MCA") == str(tmp_path / "llvm-mca-16")
    _fake_exe(tmp_path / "llvm-mca")
    assert find_versioned("llvm-mca", "KERNCRAFT_LLVM_MCA") == str(tmp_path / "llvm-mca")
    monkeypatch.setenv("KERNCRAFT_LLVM_MCA", "llvm-mca-9")
    assert find_versioned("llvm-mca", "KERNCRAFT_LLVM_MCA") == str(tmp_path / "llvm-mca-9")


def test_missing_tools_give_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("KERNCRAFT_LLVM_MCA", raising=False)
    monkeypatch.delenv("KERNCRAFT_OSACA", raising=False)
    with pytest.raises(ToolError) as err:
        llvm_mca.find_tool()
    assert str(err.value) == "llvm-mca not found; install llvm (llvm-mca-16) or use -i kerncraft"
    with pytest.raises(ToolError, match="^osaca not found; install OSACA"):
        osaca.find_tool()


@pytest.mark.parametrize("model,message", [
    ("LLVM-MCA", "llvm-mca not found; install llvm (llvm-mca-16) or use -i kerncraft"),
    ("OSACA", "osaca not found; install OSACA (pip install osaca) or use -i kerncraft")])
def test_cli_missing_tool_is_one_line(tmp_path, monkeypatch, capsys, model, message):
    from kerncraft.cli.kerncraft import main

    monkeypatch.setenv("PATH", str(tmp_path))             # no tool (and no compiler)
    monkeypatch.delenv("KERNCRAFT_LLVM_MCA", raising=False)
    monkeypatch.delenv("KERNCRAFT_OSACA", raising=False)
    code = main(["-p", "ECMCPU", "-m", "CSX", str(ROOT / "kernels" / "triad.c"),
                 "-D", "N", "1000", "-i", model])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"kerncraft: error: {message}\n"


# ------------------------------------------------------------------ machine-file entries
def _machine(in_core, ports):
    return SimpleNamespace(in_core_model=in_core, non_overlapping_ports=ports)


def test_tool_architecture_and_ports_from_machine_file():
    machine = _machine({"kerncraft": "CSX", "OSACA": "CSX", "LLVM-MCA": "-mcpu=cascadelake"},
                       {"kerncraft": ("2D", "3D"), "LLVM-MCA": ("SKXPort2", "SKXPort3")})
    assert ip.tool_architecture(machine, "LLVM-MCA") == "-mcpu=cascadelake"
    assert ip.tool_architecture(machine, "OSACA") == "CSX"
    ports = ("SKXPort0", "SKXPort2", "SKXPort3")
    assert ip.non_overlapping_ports(machine, ports, "LLVM-MCA") == ("SKXPort2", "SKXPort3")
    with pytest.raises(KerncraftError, match="no non-overlapping ports for the in-core model "
                                             "OSACA"):
        ip.non_overlapping_ports(machine, ("2D", "3D"), "OSACA")   # no OSACA entry
    with pytest.raises(KerncraftError, match="SKXPort2, SKXPort3 .LLVM-MCA. do not exist"):
        ip.non_overlapping_ports(machine, ("Zn3Load.0",), "LLVM-MCA")
    bare = _machine({"kerncraft": "CSX"}, {})       # llvm-mca's CPU of the core it names
    assert ip.tool_architecture(bare, "LLVM-MCA") == "-mcpu=cascadelake"
    unknown = _machine({"kerncraft": "ZEN5"}, {})   # llvm-mca 16 has no znver5
    with pytest.raises(KerncraftError, match="names no LLVM-MCA architecture"):
        ip.tool_architecture(unknown, "LLVM-MCA")


@pytest.mark.parametrize("entries,expected", [
    ({"kerncraft": "skx", "OSACA": "CSX"}, "SKX"),    # our entry wins
    ({"OSACA": "CLX"}, "CSX"),
    ({"OSACA": "GLC", "LLVM-MCA": "-mcpu=sapphirerapids"}, "SPR"),
    ({"OSACA": "SKX"}, "SKX"),
    ({"OSACA": "ICX"}, "ICX"),                         # Ice Lake-SP: its own database
    ({"OSACA": "ZEN3"}, "ZEN3"), ({"OSACA": "zen4"}, "ZEN4"),
    ({"OSACA": "N1"}, "N1"), ({"OSACA": "V2"}, "V2")])
def test_resolve_database_uses_kerncraft_entry_else_osaca_code(entries, expected):
    assert ip.resolve_database(_machine(entries, {})) == expected


@pytest.mark.parametrize("entries", [{"OSACA": "TSV110"}, {"OSACA": "ICL"},
                                     {"LLVM-MCA": "-mcpu=znver3"}, {}])
def test_resolve_database_says_when_nothing_fits(entries):
    with pytest.raises(KerncraftError, match="no port-model database fits this machine.*"
                                             "available databases: .*CSX"):
        ip.resolve_database(_machine(entries, {}))


# ------------------------------------------------------------------ pipeline with fake tools
def _gcc12() -> bool:
    try:
        out = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True)
    except OSError:
        return False
    return out.stdout.startswith("12.")


needs_gcc12 = pytest.mark.skipif(not _gcc12(), reason="the recorded reports are for gcc 12's "
                                                      "loops")


def _bound(name: str):
    import kerncraft

    kernel = kerncraft.parse_kernel((ROOT / "kernels" / f"{name}.c").read_text(),
                                    f"kernels/{name}.c")
    return kernel.bind({c: 1000 for c in kernel.constant_names})


def _fake_tools(tmp_path: Path, name: str) -> Path:
    """A bin directory with gcc and fake llvm-mca / osaca printing recorded reports."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(shutil.which("gcc"), bindir / "gcc")
    log = tmp_path / "runs.log"
    _fake_exe(bindir / "llvm-mca-16",
              f'echo llvm-mca >> "{log}"\n'
              'for f; do :; done; grep -q "LLVM-MCA-BEGIN" "$f" || exit 3\n'
              'case "$2" in -iterations=2000) cat "%s";; *) cat "%s";; esac\n'
              % (DATA / f"{name}.llvm-mca-16.2000.txt", DATA / f"{name}.llvm-mca-16.1000.txt"))
    _fake_exe(bindir / "osaca", f'echo osaca >> "{log}"\n'
              'for f; do :; done; grep -q "OSACA-BEGIN" "$f" || exit 3\ncat "%s"\n'
              % (DATA / f"{name}.osaca-0.7.1.txt"))
    return bindir


@needs_gcc12
def test_ecmcpu_with_fake_llvm_mca_and_osaca(tmp_path, monkeypatch):
    import kerncraft

    monkeypatch.setenv("PATH", str(_fake_tools(tmp_path, "2d-5pt")))
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KERNCRAFT_LLVM_MCA", raising=False)
    monkeypatch.delenv("KERNCRAFT_OSACA", raising=False)
    machine = kerncraft.load_machine("CSX")
    kernel = _bound("2d-5pt")
    # 8 iterations per cache line, 4 per assembly iteration: factor 2
    mca = ip.predict_incore(kernel, machine, iterations_per_cacheline=8, incore_model="llvm-mca")
    assert mca.incore_model == "LLVM-MCA" and mca.arch == "LLVM-MCA -mcpu=cascadelake"
    assert mca.non_overlapping_ports == ("SKXPort2", "SKXPort3")
    assert mca.t_nol == 2.0 * 2                        # SKXPort2/3: 2.00 cy per asm iteration
    assert mca.t_ol == pytest.approx(13 / 6 * 2, abs=1e-3)   # front end > SKXPort0/1 (2.00)
    assert mca.t_ol_source == "front end"
    data = mca.to_dict()
    assert data["critical_path_cy_per_cl"] is None and data["lcd_cy_per_cl"] is None
    assert data["simulated_cy_per_cl"] == pytest.approx(4.664)
    from kerncraft.report.text import backend_incore_lines
    assert "critical path n/a" in "\n".join(backend_incore_lines(mca))

    osa = ip.predict_incore(kernel, machine, iterations_per_cacheline=8, incore_model="OSACA")
    assert osa.arch == "OSACA CSX" and osa.non_overlapping_ports == ("2D", "3D")
    assert (osa.t_ol, osa.t_nol, osa.t_ol_source) == (5.0, 4.0, "port throughput")
    assert osa.to_dict()["critical_path_cy_per_cl"] == 40.0
    assert osa.to_dict()["lcd_cy_per_cl"] == 2.0

    # from the persistent cache: same numbers without running the tool again
    runs = (tmp_path / "runs.log").read_text().split()
    assert runs.count("osaca") == 1 and runs.count("llvm-mca") == 2
    ip._analyse_source.cache_clear()
    again = ip.predict_incore(kernel, machine, iterations_per_cacheline=8, incore_model="OSACA")
    assert again.to_dict() == osa.to_dict()
    assert (tmp_path / "runs.log").read_text().split() == runs

    # another build of the tool is another key: it runs (and here fails, in one line)
    ip._analyse_source.cache_clear()
    _fake_exe(tmp_path / "bin" / "osaca", "echo 'Traceback: KeyError: CSX' >&2\nexit 7\n")
    with pytest.raises(ToolError, match=r"^osaca failed \(exit 7\): Traceback: KeyError: CSX$"):
        ip.predict_incore(kernel, machine, iterations_per_cacheline=8, incore_model="OSACA")


@needs_gcc12
def test_osaca_unknown_instruction_is_an_error_unless_ignored(tmp_path, monkeypatch):
    import kerncraft

    bindir = _fake_tools(tmp_path, "2d-5pt")
    _fake_exe(bindir / "osaca", 'cat "%s"\n' % (DATA / "unknown.osaca-0.7.1.txt"))
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KERNCRAFT_OSACA", raising=False)
    machine = kerncraft.load_machine("CSX")
    with pytest.raises(UnknownInstructionError, match="2 instruction.s. not in OSACA's CSX "
                                                      "database: vfoobarpd"):
        ip.predict_incore(_bound("2d-5pt"), machine, iterations_per_cacheline=8,
                          incore_model="OSACA")
    result = ip.predict_incore(_bound("2d-5pt"), machine, iterations_per_cacheline=8,
                               incore_model="OSACA", ignore_unknown=True)
    assert result.analysis.unknown_forms[0] == "vfoobarpd %ymm1, %ymm2, %ymm3"


# ------------------------------------------------------------------ live tools
def _live(tool: str):
    module = llvm_mca if tool == "LLVM-MCA" else osaca
    try:
        return module.find_tool()
    except ToolError:
        return None


@needs_gcc12
@pytest.mark.skipif(_live("LLVM-MCA") is None, reason="llvm-mca is not installed")
def test_live_llvm_mca_2d5pt(tmp_path, monkeypatch):
    import kerncraft

    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    result = ip.predict_incore(_bound("2d-5pt"), kerncraft.load_machine("CSX"),
                               iterations_per_cacheline=8, incore_model="LLVM-MCA")
    # four loads of 32 B on SKXPort2/3 per assembly iteration: 2 cy, 4 cy/CL
    assert result.t_nol == pytest.approx(4.0, abs=0.1)
    assert 4.0 <= result.t_ol <= 5.5
    assert "SKXPort0" in result.analysis.port_totals


@needs_gcc12
@pytest.mark.skipif(_live("OSACA") is None, reason="OSACA is not installed")
def test_live_osaca_triad(tmp_path, monkeypatch):
    import kerncraft

    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    result = ip.predict_incore(_bound("triad"), kerncraft.load_machine("CSX"),
                               iterations_per_cacheline=8, incore_model="OSACA")
    assert (result.t_ol, result.t_nol) == (3.0, 2.0)


PUBLISHED_ZEN2 = published("Zen2_EPYC-7452.yml")


@pytest.mark.skipif(not PUBLISHED_ZEN2.is_file(), reason=HOW_TO_GET)
def test_published_zen_file_osaca_port_names_map_to_the_load_data_ports(capsys):
    """Kerncraft's Zen files name the non-overlapping ports for OSACA only ([8D, 9D]: the
    load-data halves of OSACA's AGU ports 8 and 9). Our ZEN2 database has no such names;
    its load-data ports LD0, LD1 are the same thing (issue 12: these files were refused)."""
    from kerncraft.cli.kerncraft import main
    from kerncraft.machine.loader import load_machine

    machine = load_machine(str(PUBLISHED_ZEN2))
    ports = ("ALU0", "AGU0", "AGU1", "LD0", "LD1", "STD", "FP0")
    assert ip.non_overlapping_ports(machine, ports, database="ZEN2") == ("LD0", "LD1")
    with pytest.raises(KerncraftError, match=r"8D, 9D \(OSACA\) do not exist"):
        ip.non_overlapping_ports(machine, ports)           # without a database: refused
    code = main(["-p", "ECMCPU", "-m", str(PUBLISHED_ZEN2),
                 str(Path(__file__).resolve().parents[1] / "kernels" / "triad.c"),
                 "-D", "N", "1000"])
    out = capsys.readouterr().out
    assert code == 0
    assert ("note: the machine file names the non-overlapping ports for OSACA (8D, 9D), which "
            "ZEN2 does not have: its load-data ports LD0, LD1 are used") in out
