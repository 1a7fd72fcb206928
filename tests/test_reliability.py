"""Regression tests of issue 15: every crash found by fuzzing, now a located
error (exit code 2) where the input is bad and a correct result where it is not."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from kerncraft.cli.kerncraft import main
from kerncraft.errors import DefineError, KerncraftError, KernelError, MachineFileError
from kerncraft.kernel import limits
from kerncraft.kernel.defines import MAX_POINTS, expand_defines
from kerncraft.kernel.parser import parse_kernel
from kerncraft.machine.loader import load_machine, parse_machine_text
from kerncraft.models.roofline import compute_roofline_flop
from kerncraft.models.transfers import predict_traffic
from kerncraft.options import AnalysisOptions
from kerncraft.report.json import finite_or_null, write_json
from support.published import HOW_TO_GET, PUBLISHED_DIR

REPO = Path(__file__).resolve().parents[1]
CSX = REPO / "machine-files" / "CSX.yml"
PUBLISHED = PUBLISHED_DIR
CSX_TEXT = CSX.read_text()


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def csx_with(tmp_path: Path, old: str, new: str, name: str = "m.yml") -> Path:
    assert old in CSX_TEXT
    path = tmp_path / name
    path.write_text(CSX_TEXT.replace(old, new, 1))
    return path


def line_col(text: str, needle: str, value: bool = False) -> str:
    """'line:col' of ``needle`` in ``text`` (of its value after ': ' if ``value``)."""
    offset = text.index(needle) + (needle.index(": ") + 2 if value else 0)
    line = text.count("\n", 0, offset) + 1
    return f"{line}:{offset - text.rfind(chr(10), 0, offset)}"


# ------------------------------------------------------------ RecursionError

def test_deeply_nested_yaml_is_a_located_error():
    text = "clock: " + "[" * 500 + "]" * 500 + "\n"
    with pytest.raises(MachineFileError) as info:
        parse_machine_text(text, "m.yml")
    # the 65th '[' (column 7 + 65 - 1 = 71) is one level too many
    assert str(info.value) == "m.yml:1:71: collections nested more than 64 levels deep"


def test_deep_block_nesting_is_a_located_error():
    text = "a:\n" + "".join(" " * (k + 1) + f"k{k}:\n" for k in range(100))
    with pytest.raises(MachineFileError) as info:
        parse_machine_text(text, "m.yml")
    assert str(info.value) == "m.yml:65:65: collections nested more than 64 levels deep"


def test_nested_parentheses_are_a_located_error(tmp_path, capsys):
    statement = "for(int i=0;i<N;++i) a[i] = " + "(" * 500 + "b[i]" + ")" * 500 + ";\n"
    kernel = tmp_path / "k.c"
    kernel.write_text("double a[N], b[N];\n" + statement)
    code, out, err = cli(capsys, "-p", "LC", "-m", CSX, kernel, "-D", "N", "100")
    column = statement.index("= (") + 2 + 65   # the 65th '(' of the expression
    assert (code, out) == (2, "")
    assert err == f"kerncraft: error: {kernel}:2:{column}: brackets nested more than 64 " \
                  "levels deep\n"


def _sum_kernel(terms: int) -> str:
    declarations = "double a[N];\n" + "".join(f"double z{k}[N];\n" for k in range(terms))
    total = " + ".join(f"z{k}[i]" for k in range(terms))
    return f"{declarations}for(int i=0;i<N;++i) a[i] = {total};\n"


def test_a_sum_of_500_array_terms_is_analysed(tmp_path, capsys):
    kernel = parse_kernel(_sum_kernel(500), "sum.c")
    assert dict(kernel.flops) == {"+": 499}
    reads = [a.array for a in kernel.accesses if a.kind == "read"]
    assert reads == [f"z{k}" for k in range(500)]          # in evaluation order
    path = tmp_path / "sum.c"
    path.write_text(_sum_kernel(500))
    code, out, err = cli(capsys, "-p", "LC", "-m", CSX, path, "-D", "N", "1000")
    assert (code, err) == (0, "")
    assert "z499[i]" in out


def test_a_sum_of_10000_terms_parses():
    # it takes about 3 s on 2 idle cores (benchmarks/, not a test, measures the speed)
    kernel = parse_kernel(_sum_kernel(10_000), "sum.c")
    assert dict(kernel.flops) == {"+": 9_999}
    assert len(kernel.accesses) == 10_001


def test_expressions_beyond_the_raised_limit_are_a_located_error(monkeypatch):
    monkeypatch.setattr(limits, "RECURSION_LIMIT", 1)   # keep the interpreter's limit
    source = "double a[N], b[N];\n\nfor(int i=0;i<N;++i)\n  a[i] = " + "- " * 3000 + "b[i];\n"
    with pytest.raises(KernelError) as info:
        parse_kernel(source, "k.c")
    assert str(info.value) == (
        "k.c:3: expression nested too deeply to analyse (chains of unary operators or '?:' "
        "thousands deep); split it into several statements")


# ------------------------------------------------------------ ZeroDivisionError

EMPTY = "double a[M][N], b[M][N];\nfor(int j=99;j<M;++j) for(int i=0;i<N;++i) a[j][i] = b[j][i];\n"
EMPTY_MESSAGE = ("loop 'j' runs no iteration with M=20 (from 99 to 20, step 1); every loop "
                 "must run at least once")


@pytest.mark.parametrize("model", ["LC", "ECMData", "RooflineFLOP", "ECMCPU", "ECM"])
def test_an_empty_loop_range_is_a_located_error(tmp_path, capsys, model):
    kernel = tmp_path / "empty.c"
    kernel.write_text(EMPTY)
    code, out, err = cli(capsys, "-p", model, "-m", CSX, kernel, "-D", ".", "20")
    assert (code, out, err) == (2, "", f"kerncraft: error: {kernel}:2: {EMPTY_MESSAGE}\n")


def test_binding_an_empty_range_still_counts_zero_iterations():
    kernel = parse_kernel(EMPTY, "empty.c").bind({"M": 20, "N": 20})
    assert kernel.iteration_count() == 0


@pytest.mark.parametrize("value", ["1e-300", "4", "0", ".inf", "48", "-64 B"])
def test_cache_line_sizes_that_are_not_a_power_of_two_from_8_are_refused(tmp_path, value):
    path = csx_with(tmp_path, "cacheline size: 64 B", f"cacheline size: {value}")
    with pytest.raises(MachineFileError) as info:
        load_machine(path)
    shown = {"1e-300": "1e-300", ".inf": "inf", "-64 B": "'-64 B'"}.get(value, value)
    assert str(info.value) == (
        f"{path}:{line_col(CSX_TEXT, 'cacheline size: 64 B').split(':')[0]}:17: cacheline size: "
        f"a cache line must be a power of two from 8 to 65536 B, got {shown}")


@pytest.mark.parametrize("old,new,path,message", [
    ("cl_size: 64,", "cl_size: 0,", "memory hierarchy[0].cache per group.cl_size",
     "a cache line must be a power of two from 8 to 65536 B, got 0"),
    ("size per group: 32 kB", "size per group: 0 kB", "memory hierarchy[0].size per group",
     "a size must be a positive number of bytes below 2**62, got '0 kB'"),
    ("size per group: 32 kB", "size per group: .inf", "memory hierarchy[0].size per group",
     "a size must be a positive number of bytes below 2**62, got inf"),
])
def test_zero_sized_cache_values_are_refused(tmp_path, old, new, path, message):
    machine = csx_with(tmp_path, old, new)
    with pytest.raises(MachineFileError) as info:
        load_machine(machine)
    text = machine.read_text()
    assert str(info.value) == f"{machine}:{line_col(text, new, value=True)}: {path}: {message}"


# ------------------------------------------------------------ KeyError

@pytest.mark.skipif(not PUBLISHED.is_dir(), reason=HOW_TO_GET)
@pytest.mark.parametrize("name,line", [("A64FX_qpace4.yml", 17), ("ARMv8_ThunderX2-CN9980.yml", 25)])
def test_a_missing_peak_is_a_located_error_when_roofline_needs_it(capsys, name, line):
    path = PUBLISHED / name
    load_machine(path)   # loads as before: only using the placeholder fails
    code, out, err = cli(capsys, "-p", "RooflineFLOP", "-m", path, REPO / "kernels" / "triad.c",
                         "-D", "N", "1000000")
    assert (code, out) == (2, "")
    assert err == (f"kerncraft: error: {path}:{line}:7: FLOPs per cycle.DP: this model needs "
                   "the peak FLOPs per cycle of DP, which the machine file does not give "
                   "(missing, or an INFORMATION_REQUIRED placeholder)\n")


def test_a_file_without_flops_per_cycle_points_at_its_top_level(tmp_path):
    path = tmp_path / "minimal.yml"
    path.write_text((REPO / "tests" / "data" / "machines" / "minimal.yml").read_text())
    with pytest.raises(MachineFileError) as info:
        load_machine(path).peak_flops_per_cycle("SP")
    assert str(info.value).startswith(f"{path}:2:1: FLOPs per cycle.SP: this model needs")


def test_numeric_level_names_work_in_every_model(tmp_path):
    text = CSX_TEXT
    for old in ("L1", "L2", "L3"):
        new = old[1:]
        for key in ("level: ", "load_from: ", "store_to: ", "victims_to: ", "\n    "):
            text = text.replace(f"{key}{old}" + (":" if key == "\n    " else ""),
                                f"{key}{new}" + (":" if key == "\n    " else ""))
    path = tmp_path / "numeric.yml"
    path.write_text(text)
    machine = load_machine(path)
    assert [lvl.name for lvl in machine.memory_hierarchy] == ["1", "2", "3", "MEM"]
    kernel = parse_kernel((REPO / "kernels" / "triad.c").read_text(), "triad.c")
    result = compute_roofline_flop(kernel.bind({"N": 10**7}), machine)
    reference = compute_roofline_flop(kernel.bind({"N": 10**7}), load_machine(CSX))
    assert [lvl.level for lvl in result.levels] == ["1", "2", "3", "MEM"]
    assert result.cycles_per_cl == reference.cycles_per_cl


# ------------------------------------------------------------ OverflowError, huge counts

@pytest.mark.parametrize("model", ["LC", "ECMData", "RooflineFLOP", "ECM"])
def test_more_cores_than_the_machine_has_is_an_error(capsys, model):
    code, out, err = cli(capsys, "-p", model, "-m", CSX, REPO / "kernels" / "copy.c",
                         "-D", "N", "1000", "-c", "100000")
    assert (code, out) == (2, "")
    assert err == ("kerncraft: error: 100000 cores requested, but the machine file describes "
                   "2 socket(s) of 20 cores (40 cores)\n")


def test_all_cores_of_both_sockets_are_allowed():
    kernel = parse_kernel((REPO / "kernels" / "copy.c").read_text(), "copy.c").bind({"N": 10**6})
    traffic = predict_traffic(kernel, load_machine(CSX), "LC", cores=40)
    assert traffic.unit_of_work_iterations == 8


def test_huge_cores_per_socket_are_refused(tmp_path):
    path = csx_with(tmp_path, "cores per socket: 20", "cores per socket: 100000")
    with pytest.raises(MachineFileError) as info:
        load_machine(path)
    assert str(info.value) == (f"{path}:{line_col(CSX_TEXT, 'cores per socket: 20').split(':')[0]}"
                               ":19: cores per socket: at most 1024 cores per socket are supported")


def test_line_split_period_of_a_range_longer_than_maxsize():
    from kerncraft.incore.linesplit import _one_period
    huge = range(0, 10**30)
    assert _one_period(huge, 8, 64) == range(0, 8)
    assert _one_period(range(0, 20), 8, 64) == range(0, 20)


# ------------------------------------------------------------ found by tests/fuzz (seed 15)

@pytest.mark.parametrize("predictor", ["LC", "SIM"])
def test_arrays_beyond_64_bit_addresses_are_a_located_error(capsys, predictor):
    # fuzz inputs 452 and 8865: an OverflowError in the cache simulation's address walk
    code, out, err = cli(capsys, "-p", "RooflineFLOP", "-P", predictor, "-m", CSX,
                         REPO / "kernels" / "triad.c", "-D", "N", "99999999999999999999")
    assert (code, out) == (2, "")
    assert err == (f"kerncraft: error: {REPO / 'kernels' / 'triad.c'}:2:8: array 'a' has 8e+20 "
                   "bytes with N=99999999999999999999; at most 2**62 bytes (4 EiB) can be "
                   "addressed\n")


def test_a_hierarchy_whose_last_level_is_not_mem_is_refused(tmp_path):
    # fuzz inputs 3293 and 7005: a truncated file ended in a cache level (KeyError 'MEM')
    l3 = CSX_TEXT.index("  - level: L3")
    text = CSX_TEXT[:CSX_TEXT.index("    cache per group:", l3)]
    path = tmp_path / "m.yml"
    path.write_text(text)
    with pytest.raises(MachineFileError) as info:
        load_machine(path)
    assert str(info.value) == (
        f"{path}:{line_col(text, '  - level: L3', value=True)}: memory hierarchy[2].level: the "
        "last level is main memory and must be named MEM (the models refer to it by that name), "
        "got 'L3'")


def test_compiler_flags_with_an_unclosed_quote_are_an_error(tmp_path, capsys):
    # the ValueError in select_compiler (shlex.split)
    code, out, err = cli(capsys, "-p", "ECMCPU", "-m", CSX, REPO / "kernels" / "copy.c",
                         "-D", "N", "100", '--compiler-flags=-O3 "x')
    assert (code, out) == (2, "")
    assert err == "kerncraft: error: --compiler-flags '-O3 \"x': no closing quotation\n"
    path = csx_with(tmp_path, "  - gcc: -O3 -march", '  - gcc: -O3 "-march')
    with pytest.raises(MachineFileError) as info:
        load_machine(path)
    assert str(info.value) == (f"{path}:{line_col(path.read_text(), '- gcc: -O3', value=True)}: "
                               "compiler.gcc: compiler flags: no closing quotation")
