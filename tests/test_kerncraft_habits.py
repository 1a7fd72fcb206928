"""Kerncraft 0.8.18 habits (issue 28, items 5-8): -D ranges and repeats, Kerncraft's
remaining options, ``--store FILE.pickle`` and machine files both tools load.

Expected values are derived by hand in the comments; Kerncraft's rules are quoted from
its source (kerncraft/kerncraft.py and kerncraft/machinemodel.py of Kerncraft 0.8.18).
"""
from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kerncraft.cli.kerncraft import build_parser, main
from kerncraft.errors import AssemblyError, DefineError
from kerncraft.kernel.defines import expand_defines, parse_define

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "kernels"
COPY = str(KERNELS / "copy.c")
STENCIL = str(KERNELS / "2d-5pt.c")


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:       # argparse usage errors
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ----------------------------------------------------------------- item 5: -D values
# Kerncraft's AppendStringRange: "A range description must have the following format:
# start[-stop[:num[log[base]]]] / if stop is given, a list of integers is compiled / if num
# is given, an evenly spaced list of integers from start to stop is compiled / if log is
# given, the integers are evenly spaced on a log space / if base is given, the integers
# are evenly spaced on that base (default: 10)". Without num it takes every integer
# (Python's range(start, stop + 1)); with num each point is int(round(start + i * step)),
# so a tie rounds to the even neighbour.
@pytest.mark.parametrize("value, points", [
    # every integer from 23 to 42: 42 - 23 + 1 = 20 points (not 10)
    ("23-42", tuple(range(23, 43))),
    # step (42 - 23) / 4 = 4.75: 23, 27.75 -> 28, 32.5 -> 32 (tie to even), 37.25 -> 37, 42
    ("23-42:5", (23, 28, 32, 37, 42)),
    # ratio (42/23)^(1/4) = 1.16246: 23 x 1.16246 = 26.74 -> 27, 23 x 1.16246^2 = 31.08
    # -> 31, 23 x 1.16246^3 = 36.13 -> 36, 42
    ("23-42:5log", (23, 27, 31, 36, 42)),
    ("23-42:5log2", (23, 27, 31, 36, 42)),        # the base does not move the points
    ("2-16:4log2", (2, 4, 8, 16)),                # ratio 2
    # ratio 10^(1/3) = 2.154: 21.54 -> 22, 46.42 -> 46; Kerncraft's pattern
    # '(:?(?P<log>log)(:?(?P<base>\d+))?)?' also takes a colon before log and the base
    ("10-100:4:log", (10, 22, 46, 100)),
    ("10-100:4log:10", (10, 22, 46, 100)),
    ("10-100:4:log:10", (10, 22, 46, 100)),
    # step 2.5: 10, 12.5 -> 12 (tie to even), 15
    ("10-15:3", (10, 12, 15)),
])
def test_range_forms_as_kerncraft(value, points):
    assert parse_define("N", value).values == points


def test_a_repeated_define_sweeps_all_its_values(capsys):
    """Kerncraft's run(): 'for name, values in args.define: ... if name not in
    define_dict: define_dict[name] = [[name, v] for v in values] ... for v in values:
    ... define_dict[name].append([name, v])': a second -D N adds its values."""
    assert expand_defines([("N", "100"), ("N", "200")]) == [{"N": 100}, {"N": 200}]
    # 100 and 100-300:3 = 100, 200, 300 -> the union 100, 200, 300 (no point twice)
    assert expand_defines([("N", "100"), ("N", "100-300:3")]) == [{"N": 100}, {"N": 200},
                                                                 {"N": 300}]
    code, out, _ = run_cli(capsys, "-p", "LC", "-m", "CSX", COPY, "-D", "N", "100",
                           "-D", "N", "200")
    assert code == 0
    assert [ln for ln in out.splitlines() if ln.startswith("===")] == ["=== N=100 ===",
                                                                      "=== N=200 ==="]


def test_every_integer_of_a_range_is_a_point(capsys):
    code, out, _ = run_cli(capsys, "-p", "LC", "-m", "CSX", COPY, "-D", "N", "23-42")
    assert code == 0
    headers = [ln for ln in out.splitlines() if ln.startswith("===")]
    assert len(headers) == 20 and headers[0] == "=== N=23 ===" and headers[-1] == "=== N=42 ==="


def test_an_unused_define_is_ignored_with_a_warning(capsys):
    """Kerncraft's run(): 'if name not in [str(n) for n in required_consts]: # ignore
    continue'. We ignore it too, and name it on stderr (a typo must not pass silently)."""
    code, out, err = run_cli(capsys, "-p", "LC", "-m", "CSX", COPY, "-D", "N", "100",
                             "-D", "n", "5")
    assert code == 0
    assert err == ("kerncraft: warning: -D n: the kernel has no constant 'n' (its "
                   "constants: N); ignored\n")
    code, plain, err = run_cli(capsys, "-p", "LC", "-m", "CSX", COPY, "-D", "N", "100")
    assert (code, err, plain) == (0, "", out)     # same report as without it


def test_zero_is_only_a_symbol_on_the_command_line():
    # the library keeps refusing 0 (a size); the command line reads it as Kerncraft's
    # "-D . 0" (constants left symbolic)
    with pytest.raises(DefineError, match="value 0 is not positive"):
        parse_define("N", "0")
    assert expand_defines([(".", "0")], symbolic=True) == [{".": 0}]


# ----------------------------------------------------------------- item 6: options
def test_iaca_is_named_as_unavailable_with_the_alternatives(capsys):
    code, _, err = run_cli(capsys, "-p", "ECMData", "-m", "CSX", COPY, "-D", "N", "100",
                           "-i", "IACA")
    assert code == 2
    assert err == ("kerncraft: error: the IACA in-core model is not available (Intel "
                   "discontinued IACA); use -i kerncraft (built-in, the default), "
                   "-i LLVM-MCA or -i OSACA\n")


def test_kerncraft_housekeeping_options_are_accepted_without_effect(capsys):
    _, plain, _ = run_cli(capsys, "-p", "LC", "-m", "CSX", COPY, "-D", "N", "1000")
    code, out, err = run_cli(capsys, "-p", "LC", "-m", "CSX", COPY, "-D", "N", "1000",
                             "--ignore-warnings", "--no-phenoecm", "--clean-intermediates",
                             "--iterations", "20")
    assert (code, err, out) == (0, "", plain)
    args = build_parser().parse_args(["-p", "LC", "-m", "CSX", "k.c", "--iterations", "20"])
    assert args.iterations == 20
    code, _, err = run_cli(capsys, "-p", "LC", "-m", "CSX", COPY, "--iterations", "0")
    assert code == 2 and "expected a positive integer, got '0'" in err


def test_iterations_is_the_first_repetition_count_of_the_benchmark(monkeypatch):
    """Kerncraft: '--iterations: Number of outer-loop iterations (e.g. time loop) during
    benchmarking. Default is 10, but actual number will be adapted to at least 0.2s
    runtime.' Ours: the count run_benchmark starts at (and grows until 0.2 s)."""
    from kerncraft.benchmark import kernel_run
    from kerncraft.options import AnalysisOptions
    from kerncraft.runner.table import MODELS

    import inspect

    seen = {}

    def fake_run_benchmark(kernel, machine, **kwargs):
        seen.clear()
        seen.update(kwargs)
        raise RuntimeError("stop here")

    # without --iterations the measurement starts at run_benchmark's own default, 1
    assert inspect.signature(kernel_run.run_benchmark).parameters["repetitions"].default == 1
    monkeypatch.setattr(kernel_run, "run_benchmark", fake_run_benchmark)
    for given, first in ((7, 7), (None, None)):
        with pytest.raises(RuntimeError):
            MODELS["Benchmark"].compute(None, None, AnalysisOptions(iterations=given))
        assert seen.get("repetitions") == first


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_pointer_increment_manual_always_asks():
    """Kerncraft: '"manual": always prompt user'. The triad loop below advances its
    pointers by 64 B (derivable: 8 doubles per assembly iteration); answering 32 B
    makes it 32 / 8 = 4 iterations, so the answer, not the derivation, is used."""
    from kerncraft.incore.x86.parser import parse_x86
    from kerncraft.compilation.asm_block import select_block
    from kerncraft.kernel.parser import parse_kernel

    asm = parse_x86("\t.text\nmain:\n.L4:\n\tvmovupd\t(%rdx,%rax), %ymm0\n"
                    "\tvfmadd213pd\t(%rcx,%rax), %ymm1, %ymm0\n\tvmovupd\t%ymm0, (%rsi,%rax)\n"
                    "\tvmovupd\t32(%rdx,%rax), %ymm2\n\tvfmadd213pd\t32(%rcx,%rax), %ymm1, %ymm2\n"
                    "\tvmovupd\t%ymm2, 32(%rsi,%rax)\n\taddq\t$64, %rax\n\tcmpq\t%rax, %rdi\n"
                    "\tjne\t.L4\n\tret\n")
    triad = parse_kernel((KERNELS / "triad.c").read_text(), "triad.c").bind({"N": 1000})
    assert select_block(asm, triad).iterations_per_asm_iteration == 8
    out = io.StringIO()
    sel = select_block(asm, triad, pointer_increment="manual", stdin=FakeTTY("32\n"),
                       stdout=out)
    assert sel.iterations_per_asm_iteration == 4
    assert "pointer increment in bytes per assembly iteration: " in out.getvalue()
    with pytest.raises(AssemblyError, match="--pointer-increment manual needs an interactive"):
        select_block(asm, triad, pointer_increment="manual", stdin=io.StringIO("32\n"))
    assert build_parser().parse_args(["-p", "ECM", "-m", "CSX", "k.c", "--pointer-increment",
                                      "manual"]).pointer_increment == "manual"


def test_symbolic_layer_conditions_with_define_dot_zero(capsys):
    """Kerncraft's '-p LC -D . 0' prints the layer conditions in symbols. On CSX, L1 may
    hold 0.5 x 32 kB = 16384 B; 2d-5pt's condition 2 needs 32*N - 80 B (the point
    report at N=1000 prints 31.17 kB = 31920 B = 32 x 1000 - 80 for it), so it holds
    up to N = (16384 + 80) / 32 = 514.5 -> 514."""
    code, out, _ = run_cli(capsys, "-p", "LC", "-m", "CSX", STENCIL, "-D", ".", "0")
    assert code == 0
    assert out.splitlines()[0].startswith("Layer conditions (LC) in symbols: M, N;")
    assert "      condition: 32*N - 80 <= 16384   (N <= 514)" in out.splitlines()
    # the evaluated model agrees: condition 2 holds in L1 at N = 514, not at 515
    import kerncraft

    held = [kerncraft.analyze(STENCIL, "CSX", model="LC", defines={"N": n, "M": 1000})
            .holding["L1"] for n in (514, 515)]
    assert held == [2, 1]
    code, _, err = run_cli(capsys, "-p", "ECM", "-m", "CSX", STENCIL, "-D", ".", "0")
    assert code == 2 and "which only -p LC reports" in err


# ----------------------------------------------------------------- item 7: --store
# Kerncraft's run(): 'result_storage[result_identifier] = model.results' with
# 'result_identifier = identifier_from_arguments(args, define=to_tuple(define),
# pmodel=model_name)': its options sorted by name, without 'verbose', 'store', 'unit' and
# 'clean_intermediates'; the whole dict is pickled into the --store file.
def _key(n: int, model: str = "LC") -> tuple:
    return (("asm_block", "auto"), ("cache_predictor", "LC"), ("code_file", COPY),
            ("compiler", None), ("compiler_flags", None), ("cores", 1),
            ("define", (("N", n),)), ("ignore_warnings", False),
            ("incore_model", "kerncraft"), ("iterations", None), ("json", None),
            ("kernel_description", False), ("machine", "CSX"), ("no_phenoecm", False),
            ("pmodel", model), ("pointer_increment", "auto"))


def test_store_pickle_has_kerncrafts_layout(capsys, tmp_path):
    store = tmp_path / "study.pickle"
    for n in ("100", "200", "100"):         # the third run replaces the first one's entry
        code, _, _ = run_cli(capsys, "-p", "LC", "-m", "CSX", COPY, "-D", "N", n,
                             "--store", store)
        assert code == 0
    with open(store, "rb") as handle:
        stored = pickle.load(handle)
    assert sorted(stored) == [_key(100), _key(200)]
    # copy.c keeps a[N] and b[N] of doubles: 2 x 8 x N bytes in its one condition; a cache
    # line of 64 B holds 8 doubles, the unit of work
    for n in (100, 200):
        lc = stored[_key(n)]
        assert lc["unit_of_work_iterations"] == 8
        assert lc["levels"][0]["conditions"][1]["footprint_bytes"] == 16 * n
    assert sorted(os.listdir(tmp_path)) == ["study.pickle"]      # no temporary left


def test_store_pickle_refuses_a_file_it_cannot_read_safely(capsys, tmp_path):
    store = tmp_path / "kerncraft.pickle"
    store.write_bytes(pickle.dumps({"x": Path("/")}))      # a class: not plain data
    before = store.read_bytes()
    code, _, err = run_cli(capsys, "-p", "LC", "-m", "CSX", COPY, "-D", "N", "100",
                           "--store", store)
    assert code != 0 and store.read_bytes() == before
    assert err.startswith(f"kerncraft: error: cannot merge into the store file {store}: it "
                          "holds pathlib.")
    store.write_bytes(b"not a pickle")
    code, _, err = run_cli(capsys, "-p", "LC", "-m", "CSX", COPY, "-D", "N", "100",
                           "--store", store)
    assert code != 0 and "is not a pickled dict" in err


def test_store_other_names_stay_json_lines(capsys, tmp_path):
    store = tmp_path / "study.jsonl"
    for n in ("100", "200"):
        assert run_cli(capsys, "-p", "LC", "-m", "CSX", COPY, "-D", "N", n,
                       "--store", store)[0] == 0
    assert len(store.read_text().splitlines()) == 2


# ----------------------------------------------------------------- item 8: machine files
# Kerncraft 0.8.18, kerncraft/machinemodel.py: MIN_SUPPORTED_VERSION = "0.8.3.dev0" and
# MachineModel.__init__ raises unless LooseVersion(MIN_SUPPORTED_VERSION) <=
# LooseVersion(file['kerncraft version']) <= LooseVersion(__version__ = '0.8.18'); the key
# is required ('assert 'kerncraft version' in self._data'). Our files say 0.8.18.
KERNCRAFT_ACCEPTS = "0.8.18"
BUNDLED = sorted((REPO / "machine-files").glob("*.yml"))


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_bundled_machine_files_carry_a_version_kerncraft_accepts(path):
    from kerncraft.machine.loader import load_machine

    data = yaml.safe_load(path.read_text())
    assert data["kerncraft version"] == KERNCRAFT_ACCEPTS
    assert load_machine(str(path)).kerncraft_version == KERNCRAFT_ACCEPTS


def _generated_text() -> str:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_machine_gen import fake_probes
    from kerncraft.machinegen import generate as mg

    return mg.generate_machine_file(mg.GenerationPlan.quick(), fake_probes(), lambda m: None,
                                    command="kerncraft-machine --quick")


def test_generated_machine_files_carry_a_version_kerncraft_accepts():
    from kerncraft.machine.loader import parse_machine_text

    text = _generated_text()
    assert yaml.safe_load(text)["kerncraft version"] == KERNCRAFT_ACCEPTS
    assert parse_machine_text(text, "HOST.yml").kerncraft_version == KERNCRAFT_ACCEPTS


def _reference_python() -> str | None:
    """A Python with Kerncraft 0.8.18 installed (KERNCRAFT_REFERENCE_PYTHON), or None."""
    for candidate in (os.environ.get("KERNCRAFT_REFERENCE_PYTHON"),):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def test_kerncraft_itself_loads_every_machine_file(tmp_path):
    python = _reference_python()
    if python is None:
        pytest.skip("Kerncraft 0.8.18 is not installed (KERNCRAFT_REFERENCE_PYTHON)")
    generated = tmp_path / "generated.yml"
    generated.write_text(_generated_text())
    paths = [str(p) for p in BUNDLED] + [str(generated)]
    code = ("import sys\nfrom kerncraft.machinemodel import MachineModel\n"
            "for p in sys.argv[1:]:\n    MachineModel(p)\nprint('ok', len(sys.argv) - 1)\n")
    done = subprocess.run([python, "-c", code, *paths], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.stdout.strip() == f"ok {len(paths)}", done.stderr[-2000:]


def _osaca_split(data: dict) -> tuple[list, list] | None:
    models = dict(data.get("in-core model") or {})     # !!omap loads as (key, value) pairs
    if "OSACA" not in models:
        return None
    return (data["overlapping model"]["ports"].get("OSACA"),
            data["non-overlapping model"]["ports"].get("OSACA"))


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_files_naming_an_osaca_model_give_its_ecm_ports(path):
    # Kerncraft 0.8.18's ECM and ECMCPU read ports['OSACA'] of both splits (its default
    # in-core model); without them its ECM stops with KeyError: 'OSACA'.
    split = _osaca_split(yaml.safe_load(path.read_text()))
    if split is None:
        pytest.skip(f"{path.name} names no OSACA model")
    overlapping, non_overlapping = split
    assert overlapping and non_overlapping
    assert not set(overlapping) & set(non_overlapping)


def test_generated_file_gives_osacas_ecm_ports():
    # The fake probes describe an Ice Lake-SP host (OSACA model ICX): load-data ports 2D,
    # 3D (osaca/data/icx.yml load_throughput_default), the other twelve ports overlap.
    data = yaml.safe_load(_generated_text())
    overlapping, non_overlapping = _osaca_split(data)
    assert dict(data["in-core model"])["OSACA"] == "ICX"
    assert non_overlapping == ["2D", "3D"]
    assert overlapping == ["0", "0DV", "1", "1DV", "2", "3", "4", "5", "6", "7", "8", "9"]
