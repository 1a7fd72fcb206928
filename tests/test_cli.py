"""The ``kerncraft`` command line: option parsing, error paths, exit codes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kerncraft.cli.kerncraft import build_parser, main

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "kernels"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_kerncraft_option_is_parsed():
    args = build_parser().parse_args([
        "-p", "ECM", "-p", "Roofline", "-m", "CSX", "k.c", "-D", "N", "100", "-D", ".", "5",
        "--unit", "FLOP/s", "-c", "4", "-P", "SIM", "-C", "gcc", "--compiler-flags=-O2",
        "-i", "OSACA", "--asm-block", "3", "--pointer-increment", "64", "--json", "out.json",
        "-vv"])
    assert args.pmodel == ["ECM", "RooflineFLOP"]          # alias resolved
    assert args.define == [["N", "100"], [".", "5"]]
    assert (args.unit, args.cores, args.cache_predictor) == ("FLOP/s", 4, "SIM")
    assert (args.compiler, args.compiler_flags, args.incore_model) == ("gcc", "-O2", "OSACA")
    assert (args.asm_block, args.pointer_increment, args.json, args.verbose) == \
        (3, 64, "out.json", 2)


def test_rooflineiaca_alias_and_case_insensitive_models():
    args = build_parser().parse_args(["-p", "rooflineiaca", "-p", "ecmdata", "-m", "x", "k.c"])
    assert args.pmodel == ["RooflineASM", "ECMData"]


@pytest.mark.parametrize("argv, fragment", [
    (["-p", "Nonsense", "-m", "CSX", "k.c"], "unknown model 'Nonsense'"),
    (["-p", "ECM", "-m", "CSX", "k.c", "-c", "0"], "expected a positive integer"),
    (["-p", "ECM", "-m", "CSX", "k.c", "--unit", "GB/s"], "invalid choice"),
    (["-p", "ECM", "-m", "CSX", "k.c", "-P", "XYZ"], "invalid choice"),
    (["-p", "ECM", "-m", "CSX", "k.c", "--asm-block", "first"], "--asm-block takes"),
    (["-p", "ECM", "-m", "CSX", "k.c", "--pointer-increment", "0"], "must not be 0"),
    (["-m", "CSX", "k.c"], "-p/--pmodel"),
])
def test_usage_errors_exit_2_with_one_message(capsys, argv, fragment):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert fragment in err
    assert "Traceback" not in err


def test_missing_kernel_file(capsys, tmp_path):
    code, _, err = run_cli(capsys, "-p", "ECMData", "-m", "CSX", str(tmp_path / "nope.c"))
    assert code == 2
    assert err.strip() == f"kerncraft: error: kernel file not found: {tmp_path / 'nope.c'}"


def test_unknown_machine_name(capsys):
    code, _, err = run_cli(capsys, "-p", "ECMData", "-m", "NOSUCHMACHINE",
                           str(KERNELS / "copy.c"), "-D", "N", "100")
    assert code == 2
    assert "NOSUCHMACHINE" in err and "CSX" in err    # lists the bundled machines
    assert len(err.strip().splitlines()) == 1


def test_kernel_error_has_location_and_no_traceback(capsys, tmp_path):
    kernel = tmp_path / "bad.c"
    kernel.write_text("double a[N];\ndouble b[N];\nint idx[N];\n"
                      "for (int i = 0; i < N; ++i)\n    a[i] = b[idx[i]];\n")
    code, _, err = run_cli(capsys, "-p", "ECMData", "-m", "CSX", str(kernel), "-D", "N", "10")
    assert code == 2
    assert err.startswith(f"kerncraft: error: {kernel}:5:")
    assert "Traceback" not in err


def test_missing_constant_value(capsys):
    code, _, err = run_cli(capsys, "-p", "ECMData", "-m", "CSX", str(KERNELS / "2d-5pt.c"),
                           "-D", "N", "100")
    assert code == 2
    assert "constant 'M' has no value" in err and "2d-5pt.c:" in err


def test_bad_define_value(capsys):
    code, _, err = run_cli(capsys, "-p", "ECMData", "-m", "CSX", str(KERNELS / "copy.c"),
                           "-D", "N", "ten")
    assert code == 2
    assert "N" in err and "ten" in err


def test_iaca_is_refused_clearly(capsys):
    code, _, err = run_cli(capsys, "-p", "ECMData", "-m", "CSX", str(KERNELS / "copy.c"),
                           "-D", "N", "100", "-i", "IACA")
    assert code == 2 and "IACA" in err


def test_the_cli_offers_the_models_of_the_table():
    """-p takes the models of the one table (kerncraft.runner.table) and its aliases."""
    from kerncraft.cli.kerncraft import PERFORMANCE_MODELS, build_parser
    from kerncraft.runner.table import MODELS

    assert PERFORMANCE_MODELS == tuple(MODELS)
    args = build_parser().parse_args(["-p", "roofline", "-p", "RooflineIACA", "-p", "ecmcpu",
                                      "-m", "CSX", "k.c"])
    assert args.pmodel == ["RooflineFLOP", "RooflineASM", "ECMCPU"]


def test_verbose_prints_kernel_summary(capsys):
    code, out, _ = run_cli(capsys, "-p", "ECMData", "-m", "CSX", str(KERNELS / "2d-5pt.c"),
                           "-D", "N", "1000", "-D", "M", "1000", "-v")
    assert code == 0
    assert "loop stack" in out and "a[j - 1][i]" in out
    assert "flops per innermost iteration: 4 (+ 3, * 1)" in out
    assert out.index("loop stack") < out.index("ECMData")   # summary comes first


def test_define_range_gives_one_section_per_point(capsys, tmp_path):
    target = tmp_path / "sweep.json"
    code, out, _ = run_cli(capsys, "-p", "ECMData", "-m", "CSX", str(KERNELS / "copy.c"),
                           "-D", "N", "1000-4000:4", "--json", str(target))
    assert code == 0
    assert [line for line in out.splitlines() if line.startswith("===")] == [
        "=== N=1000 ===", "=== N=2000 ===", "=== N=3000 ===", "=== N=4000 ==="]
    document = json.loads(target.read_text())
    assert [p["defines"] for p in document["points"]] == [
        {"N": 1000}, {"N": 2000}, {"N": 3000}, {"N": 4000}]
    assert all("ECMData" in p["models"] for p in document["points"])


def test_console_script_runs_from_a_shell(tmp_path):
    """The installed entry point: a kernel error is one line on stderr, exit 2."""
    kernel = tmp_path / "w.c"
    kernel.write_text("double a[N];\nint i = 0;\nwhile (i < N) { a[i] = 0.; i++; }\n")
    proc = subprocess.run([sys.executable, "-m", "kerncraft.cli", "-p", "ECMData", "-m", "CSX",
                           str(kernel), "-D", "N", "10"], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"kerncraft: error: {kernel}:3:")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == [kernel]          # nothing written next to the kernel


def test_json_to_stdout_is_one_document_and_the_report_goes_to_stderr(capsys):
    """Kerncraft users pipe `--json -` into jq: stdout must be the JSON document alone."""
    kernel = str(Path(__file__).resolve().parents[1] / "kernels" / "copy.c")
    code, out, err = run_cli(capsys, "-p", "LC", "-m", "CSX", kernel, "-D", "N", "1000",
                             "--json", "-")
    assert code == 0
    assert json.loads(out)["points"][0]["defines"] == {"N": 1000}
    assert err.startswith("Layer conditions (LC) at N=1000")


def test_u_is_the_unit_option_and_max_points_raises_the_limit(capsys):
    assert build_parser().parse_args(["-p", "ECM", "-m", "CSX", "k.c", "-u", "It/s"]).unit \
        == "It/s"
    kernel = str(Path(__file__).resolve().parents[1] / "kernels" / "copy.c")
    code, _, err = run_cli(capsys, "-p", "LC", "-m", "CSX", kernel, "-D", "N", "1-3:3",
                           "-D", "M", "1-4:4", "--max-points", "10")
    assert code == 2 and err.strip() == (
        "kerncraft: error: the -D values give 12 points (3 (N) x 4 (M)), more than the limit "
        "of 10; pass --max-points 12 to run them all")


def test_store_appends_one_json_line_per_run(capsys, tmp_path):
    """--store (Kerncraft's option, JSON Lines here): two runs, two lines, nothing
    overwritten; each line is the run's --json document."""
    kernel = str(Path(__file__).resolve().parents[1] / "kernels" / "copy.c")
    store = tmp_path / "study.jsonl"
    for n in ("100", "200"):
        code, _, _ = run_cli(capsys, "-p", "LC", "-m", "CSX", kernel, "-D", "N", n,
                             "--store", str(store))
        assert code == 0
    lines = store.read_text().splitlines()
    assert [json.loads(line)["points"][0]["defines"] for line in lines] == [{"N": 100},
                                                                          {"N": 200}]
    assert json.loads(lines[0])["schema_version"] == 1
