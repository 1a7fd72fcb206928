"""Kernel descriptions (Kerncraft's YAML format, issue 28 item 12).

A description lists arrays, the loop stack, the data sources and destinations and the
flops; it becomes the same KernelModel as the C kernel, so the data-traffic models give
the same numbers. The values below are derived by hand (comments), or compared with the
C kernel the description was written from.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import sympy

import kerncraft
from kerncraft.cache.traffic import transfer_volumes
from kerncraft.cli.kerncraft import main
from kerncraft.errors import KernelError
from kerncraft.kernel.description import (check_models_for, is_description_source,
                                          parse_any_kernel, parse_kernel_description)
from kerncraft.kernel.description_exprs import ExpressionError, integer_expression
from kerncraft.kernel.parser import parse_kernel

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "kernels"
CSX = str(REPO / "machine-files" / "CSX.yml")

# a[i] = b[i] + s*c[i], written by hand for these tests
TRIAD = """\
arrays:
    a: {type: double, dimension: [N]}
    b: {type: double, dimension: [N]}
    c: {type: double, dimension: [N]}
    s: {type: double, dimension: null}
loops:
    - {index: i, start: 0, stop: N, step: 1}
data sources:
    b: [[i]]
    s: [null]
    c: [[i]]
data destinations:
    a: [[i]]
flops: {"+": 1, "*": 1}
"""


def _without_positions(accesses):
    return [dataclasses.replace(a, line=None, col=None) for a in accesses]


# --- the model -------------------------------------------------------------------------
def test_bundled_2d5pt_description_is_the_c_kernels_model():
    desc = parse_kernel_description((KERNELS / "2d-5pt.yml").read_text(), "2d-5pt.yml")
    c = parse_kernel((KERNELS / "2d-5pt.c").read_text(), "2d-5pt.c")
    assert desc.constant_names == c.constant_names == ("M", "N")
    assert [(lp.index, lp.start, lp.end, lp.step) for lp in desc.loops] == \
        [(lp.index, lp.start, lp.end, lp.step) for lp in c.loops]
    assert {n: (a.ctype, a.dimensions) for n, a in desc.arrays.items()} == \
        {n: (a.ctype, a.dimensions) for n, a in c.arrays.items()}
    assert _without_positions(desc.accesses) == _without_positions(c.accesses)
    # a[j-1][i] in a row of N doubles: offset -N elements (model doc)
    N = sympy.Symbol("N", integer=True, positive=True)
    assert desc.accesses[2].offset == -N
    assert desc.flops == c.flops == {"+": 3, "*": 1}


@pytest.mark.parametrize("predictor", ["LC", "SIM"])
def test_2d5pt_description_and_c_kernel_give_the_same_traffic_and_ecmdata(predictor):
    point = {"N": 1000, "M": 1000}
    desc = kerncraft.analyze(str(KERNELS / "2d-5pt.yml"), CSX, model="ECMData",
                             defines=point, cache_predictor=predictor)
    c = kerncraft.analyze(str(KERNELS / "2d-5pt.c"), CSX, model="ECMData",
                          defines=point, cache_predictor=predictor)
    assert desc.traffic.levels == c.traffic.levels       # lines per CL at every level
    assert desc.values == c.values
    if predictor == "LC":
        lc_desc = kerncraft.analyze(str(KERNELS / "2d-5pt.yml"), CSX, model="LC", defines=point)
        lc_c = kerncraft.analyze(str(KERNELS / "2d-5pt.c"), CSX, model="LC", defines=point)
        assert lc_desc.holding == lc_c.holding
        assert lc_desc.traffic.levels == lc_c.traffic.levels
        # by hand: three rows of a (3 x 8 kB = 24 kB) fit in L2 and L3, so per 8 iterations
        # memory sends the new line of a[j+1][i] and b's write-allocate, and receives b's
        # write-back: 2 loads + 1 store = 3 lines = 192 B
        mem = [link for link in transfer_volumes(lc_desc.traffic) if link.lower == "MEM"][0]
        assert (mem.loads, mem.stores, (mem.loads + mem.stores) * 64) == (2.0, 1.0, 192.0)


def test_triad_description_memory_traffic_by_hand():
    # a[i] = b[i] + s*c[i] with N = 10^7 (three 80 MB arrays: nothing is reused). Per unit
    # of work (8 doubles = one 64 B line per stream): loads b, c and the write-allocate of
    # a = 3 lines, one write-back of a = 1 line -> 4 lines x 64 B = 256 B from/to memory
    kernel = parse_kernel_description(TRIAD, "triad.yml")
    result = kerncraft.analyze(kernel, CSX, model="ECMData", defines={"N": 10**7})
    assert result.iterations_per_cacheline == 8
    links = {link.lower: link for link in result.links}
    assert (links["MEM"].loads, links["MEM"].stores, links["MEM"].bytes) == (3.0, 1.0, 256.0)
    # L1-L2: the same 4 lines at CSX's 64 B/cy (machine file) -> 256 / 64 = 4 cy/CL;
    # L2-L3: the exclusive victim L3 receives every L2 victim (a, b, c: 3 lines) at
    # 16 B/cy -> 192 / 16 = 12 cy/CL
    assert result.value("T_L1L2") == pytest.approx(4.0)
    assert result.value("T_L2L3") == pytest.approx(12.0)


def test_bundled_3d_long_range_description_matches_the_c_kernel():
    desc = parse_kernel_description((KERNELS / "3d-long-range.yml").read_text(), "x.yml")
    # by hand: lap = c0*v + sum of 4 groups c_r*(6 neighbours): 4 x 5 + 4 = 24 '+',
    # 1 + 4 = 5 '*'; the update 2.0*v - u + roc*lap: 1 '+', 1 '-', 2 '*'
    assert desc.flops == {"+": 25, "-": 1, "*": 7}
    assert len(desc.reads("v")) == 25         # the centre and 4 x 6 neighbours
    point = {"L": 100, "M": 100, "N": 100}
    results = [kerncraft.analyze(str(KERNELS / name), CSX, model="LC", defines=point)
               for name in ("3d-long-range.yml", "3d-long-range.c")]
    assert results[0].traffic.levels == results[1].traffic.levels
    assert results[0].holding == results[1].holding


def test_kerncraft_style_file_with_code_and_tuple_type():
    # Kerncraft's files carry a decorative 'code' block; a type may be a list of words
    text = ("code: |\n  for (i = 0; i < N; ++i) a[i] = b[i];\n"
            "arrays:\n  a: {type: [double], dimension: [N]}\n  b: {type: float, dimension: N}\n"
            "loops:\n  - {index: i, start: 0, stop: N, step: 1}\n"
            "data sources:\n  b: [[i], [i]]\ndata destinations:\n  a: [[i]]\nflops:\n")
    kernel = parse_kernel_description(text, "k.yml")
    assert (kernel.arrays["a"].element_size, kernel.arrays["b"].element_size) == (8, 4)
    assert len(kernel.reads("b")) == 1        # a repeated access is listed once (a set)
    assert kernel.flops == {}


def test_bounds_may_use_outer_indices_and_integer_division():
    text = ("arrays: {a: {type: double, dimension: [N, N]}}\n"
            "loops:\n  - {index: j, start: 0, stop: N/2}\n  - {index: i, start: j, stop: N}\n"
            "data sources: {}\ndata destinations: {a: [[j, i]]}\nflops: {}\n")
    kernel = parse_kernel_description(text, "tri.yml")
    # sum over j = 0..N/2-1 of (N - j) at N = 10: 10+9+8+7+6 = 40 iterations
    assert kernel.bind({"N": 10}).iteration_count() == 40
    assert kernel.loops[1].step == 1          # step defaults to 1


# --- errors: one line with file, line, column and field ----------------------------------
BASE = (KERNELS / "2d-5pt.yml").read_text()


def _line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if fragment in line)


@pytest.mark.parametrize("old, new, field, message", [
    ("stop: M-1", "stop: {x: 1}", "loops[0].stop", "expected a single value, got a mapping"),
    ("- [j+1, i]", "- [j+1]", "data sources.a[3]", "'a' needs 2 indices, got 1"),
    ("- [j+1, i]", "- [j*i, i]", "data sources.a[3][0]", "not affine"),
    ("- [j+1, i]", "- [j+1.5, i]", "data sources.a[3][0]", "is not an integer"),
    ('"*": 1', '"fma": 1', "flops.fma", "unknown operator 'fma'"),
    ("stop: M-1", "stop: i", "loops[0].stop", "loop index 'i' cannot appear"),
    ("- [j+1, i]", "- [__import__('os'), i]", "data sources.a[3][0]",
     "is not an integer expression"),
])
def test_a_bad_field_is_one_located_line(old, new, field, message):
    text = BASE.replace(old, new, 1)
    with pytest.raises(KernelError) as info:
        parse_kernel_description(text, "bad.yml")
    text_error = str(info.value)
    assert "\n" not in text_error
    line = _line_of(text, new.split("\n")[0].strip())
    assert text_error.startswith(f"bad.yml:{line}:")
    assert f": {field}: " in text_error and message in text_error


def test_missing_fields_are_named():
    text = BASE.replace("      stop: N-1\n", "")
    with pytest.raises(KernelError, match=r"^bad\.yml:\d+:\d+: loops\[1\]\.stop: missing "
                                          r"required field 'stop'$"):
        parse_kernel_description(text, "bad.yml")
    undeclared = BASE.replace("    b:\n        - [j, i]", "    c:\n        - [j, i]")
    line = _line_of(undeclared, "    c:")
    with pytest.raises(KernelError, match=rf"^bad\.yml:{line}:5: data destinations\.c: 'c' "
                                          "is not declared under 'arrays'$"):
        parse_kernel_description(undeclared, "bad.yml")


def test_invalid_yaml_and_a_c_kernel_are_reported_with_a_note():
    with pytest.raises(KernelError, match=r"^k\.c:\d+:\d+: invalid YAML") as info:
        parse_kernel_description((KERNELS / "copy.c").read_text(), "k.c")
    assert "C kernel" in info.value.notes[0]


def test_expressions_are_parsed_not_evaluated():
    N = sympy.Symbol("N", integer=True, positive=True)
    resolve = {"N": N}.__getitem__
    assert integer_expression("(N - 2) % 4 + N/2", resolve) == sympy.Mod(N - 2, 4) + \
        sympy.floor(N / 2)
    for text in ("__import__('os').system('true')", "[N]", "N if N else 1", "lambda: N"):
        with pytest.raises(ExpressionError):
            integer_expression(text, resolve)


# --- which models, the API and the command line --------------------------------------------
def test_models_that_compile_the_loop_are_refused_in_one_line():
    kernel = parse_kernel_description(BASE, "2d-5pt.yml")
    check_models_for(kernel, ["LC", "ECMData", "RooflineFLOP"])          # fine
    with pytest.raises(KernelError, match=r"^2d-5pt\.yml: model ECM needs the kernel's C "
                                          r"code .* supports ECMData, RooflineFLOP, LC$"):
        check_models_for(kernel, ["LC", "ECM"])
    c_kernel = parse_kernel((KERNELS / "2d-5pt.c").read_text())
    check_models_for(c_kernel, ["ECM"])                                   # C: not refused
    assert is_description_source(BASE) and not is_description_source(c_kernel.source)
    assert parse_any_kernel(BASE).accesses == kernel.accesses
    with pytest.raises(KernelError, match="needs the kernel's C code"):
        kerncraft.analyze(str(KERNELS / "2d-5pt.yml"), CSX, model="ECMCPU",
                          defines={"N": 100, "M": 100})


def test_cli_reads_a_yml_kernel_as_description_with_a_note(capsys):
    argv = ["-p", "LC", "-m", CSX, "-D", "N", "1000", "-D", "M", "1000"]
    code = main(argv + [str(KERNELS / "2d-5pt.yml")])
    out, err = capsys.readouterr()
    assert code == 0 and "is read as a kernel description" in err
    assert main(argv + [str(KERNELS / "2d-5pt.c")]) == 0
    assert capsys.readouterr().out == out      # the same report as for the C kernel


def test_cli_kernel_description_option_and_refused_model(capsys, tmp_path):
    kernel = tmp_path / "stencil.txt"          # any name with the option, as in Kerncraft
    kernel.write_text(BASE)
    point = ["-D", "N", "1000", "-D", "M", "1000"]
    code = main(["-p", "ECMData", "-m", CSX, "--kernel-description", str(kernel), *point])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""             # no note: the option was given
    assert main(["-p", "ECMData", "-m", CSX, str(KERNELS / "2d-5pt.c"), *point]) == 0
    assert capsys.readouterr().out == out      # the C kernel's report, number for number
    code = main(["-p", "ECM", "-m", CSX, "--kernel-description", str(kernel),
                 "-D", "N", "1000", "-D", "M", "1000"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"kerncraft: error: {kernel}: model ECM needs the kernel's C code (it compiles the "
        "loop for the in-core part); a kernel description supports ECMData, RooflineFLOP, LC"]


def test_a_description_run_is_served_warm_like_a_c_kernel(capsys, report_cache, monkeypatch):
    # the point cache keys a description by its text, as a C kernel: the second run is
    # read back (the description is not parsed again) and prints the same report
    from kerncraft.kernel import description

    argv = ["-p", "ECMData", "-p", "LC", "-m", CSX, str(KERNELS / "2d-5pt.yml"),
            "-D", "N", "500-1000:2", "-D", "M", "1000"]
    assert main(argv) == 0
    cold = capsys.readouterr().out
    monkeypatch.setattr(description, "parse_kernel_description", None)   # a call would fail
    assert main(argv) == 0
    assert capsys.readouterr().out == cold and cold.count("ECMData (layer conditions") == 2
