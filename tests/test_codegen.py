"""Generated C programs: they compile, run, index correctly and stay opaque."""
from __future__ import annotations

import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import sympy

from kerncraft.compilation.codegen import (SUPPORT_C, constant_values, generate_c, page_offsets,
                               program_arguments, stride_constants)
from kerncraft.errors import KernelError
from kerncraft.kernel.parser import parse_kernel

KERNEL_DIR = Path(__file__).parents[1] / "kernels"
BUNDLED = sorted(KERNEL_DIR.glob("*.c"))
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

# Small sizes that keep every bundled kernel's loops non-empty (radius-4 stencils too).
SMALL = {"N": 23, "M": 13, "L": 11}

STENCIL_3D = """double a[L][M][N], b[L][M][N];
double s;
for (int k = 1; k < L - 1; ++k)
  for (int j = 1; j < M - 1; ++j)
    for (int i = 2; i < N - 1; ++i)
      b[k][j][i] = s * a[k - 1][j + 1][i - 2];
"""
COLUMN = """double a[M][N], b[M][N];
for (int j = 0; j < N; ++j)
  for (int i = 0; i < M; ++i)
    a[i][j] = 2.0 * b[i][j];
"""


def _kernel(path: Path):
    return parse_kernel(path.read_text(), str(path))


def _subscripts(c_text: str, kernel) -> set[tuple[str, sympy.Expr]]:
    """(array, linear index) of every subscript of the generated nest."""
    names = {c.name: c.symbol for c in kernel.constants}
    names.update({lp.index: lp.symbol for lp in kernel.loops})
    nest = c_text[c_text.index("for ("):c_text.index("dummy(", c_text.index("for ("))]
    found = set()
    for name, sub in re.findall(r"\b([A-Za-z_]\w*)\[([^\[\]]+)\]", nest):
        found.add((name, sympy.expand(sympy.sympify(sub, locals=names))))
    return found


# ------------------------------------------------------------------ linearisation
def test_linearizes_a_3d_access():
    kernel = parse_kernel(STENCIL_3D, "stencil.c")
    text = generate_c(kernel)
    assert "b[(((k * M) + j) * N) + i] = s * a[((((k - 1) * M) + (j + 1)) * N) + (i - 2)];" in text
    L, M, N = (c.symbol for c in kernel.constants)
    k, j, i = kernel.loop_symbols
    assert _subscripts(text, kernel) == {
        ("b", sympy.expand((k * M + j) * N + i)),
        ("a", sympy.expand(((k - 1) * M + j + 1) * N + i - 2))}


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_linear_indices_match_the_kernel_model(path):
    kernel = _kernel(path)
    text = generate_c(kernel)
    expected = {(a.array, sympy.expand(a.linear_index))
                for a in kernel.accesses + kernel.outer_accesses
                if not kernel.arrays[a.array].is_scalar}
    assert _subscripts(text, kernel) == expected


# ------------------------------------------------------------------ program shape
def test_program_shape_for_triad():
    kernel = _kernel(KERNEL_DIR / "triad.c")
    text = generate_c(kernel)
    assert "#pragma" not in text
    assert "const long N = kc_constant(argc, argv, 1);" in text
    # the written array first, then the read-only ones, one cache line apart
    for name, offset in zip("abc", (0, 64, 128)):
        assert f"char *kc_{name}_base = aligned_alloc(4096, " in text
        assert f"double *{name} = (double *)(kc_{name}_base + {offset});" in text
        assert f"kc_init_double({name}, (long)kc_{name}_n);" in text
        assert f"free(kc_{name}_base);" in text
        assert f"dummy({name});" in text
    assert "kc_init_double(&s, 1);" in text and "dummy(&s);" in text
    # the nest as written, after the initialisation and before the dummy calls
    nest = text.index("for (int i = 0; i < N; ++i)")
    assert text.index("kc_init_double(&s, 1);") < nest < text.index("dummy(a);")
    assert "a[i] = b[i] + (s * c[i]);" in text
    assert "kc_timer" not in text and "kc_rep" not in text


def test_pragmas_are_dropped_and_scalar_initialisers_kept():
    src = ("double a[N];\ndouble s = 0.5;\n#pragma omp simd\n"
           "for (int i = 0; i < N; ++i)\n  s += a[i];\n")
    text = generate_c(parse_kernel(src, "red.c"))
    assert "#pragma" not in text
    assert "double s = 0.5;" in text and "kc_init_double(&s" not in text
    assert text.index("s += a[i];") < text.index("dummy(&s);")   # the reduction stays live


def test_benchmark_variant_wraps_the_nest():
    kernel = _kernel(KERNEL_DIR / "2d-5pt.c")
    text = generate_c(kernel, for_benchmark=True)
    rep = text.index("for (long kc_rep = 0; kc_rep < kc_repetitions; ++kc_rep)")
    assert text.index("kc_timer_start();") < rep < text.index("kc_timer_stop(kc_repetitions);")
    assert "const long kc_repetitions = kc_constant(argc, argv, 3);" in text
    # the analysed program has exactly the same nest
    plain = generate_c(kernel)
    nest = plain[plain.index("for (int j"):plain.index("dummy(a);")].split("\n")
    assert all(line.strip() in text for line in nest)


def test_reserved_names_are_rejected():
    src = "double dummy[N];\nfor (int i = 0; i < N; ++i)\n  dummy[i] = 1.0;\n"
    with pytest.raises(KernelError, match="name 'dummy' is reserved") as err:
        generate_c(parse_kernel(src, "bad.c"))
    assert err.value.location.line == 1
    src = "double kc_x[N];\nfor (int i = 0; i < N; ++i)\n  kc_x[i] = 1.0;\n"
    with pytest.raises(KernelError, match="'kc_x' is reserved"):
        generate_c(parse_kernel(src, "bad.c"))


# ------------------------------------------------------------------ constants
def test_runtime_constants_make_the_text_independent_of_the_values():
    kernel = _kernel(KERNEL_DIR / "3d-7pt.c")
    small = generate_c(kernel.bind({"N": 20, "M": 20, "L": 20}))
    large = generate_c(kernel.bind({"N": 2000, "M": 300, "L": 100}))
    assert small == large == generate_c(kernel)
    assert "= 20;" not in small


def test_stride_constants_become_literals():
    kernel = parse_kernel(COLUMN, "column.c")
    assert stride_constants(kernel) == {"N"}
    assert stride_constants(_kernel(KERNEL_DIR / "2d-5pt.c")) == frozenset()
    bound = kernel.bind({"M": 1000, "N": 3000})
    text = generate_c(bound)
    assert "const long N = 3000;" in text
    assert "const long M = kc_constant(argc, argv, 1);" in text
    assert generate_c(kernel.bind({"M": 1000, "N": 3001})) != text
    assert generate_c(kernel.bind({"M": 7, "N": 3000})) == text
    assert program_arguments(bound, repetitions=5) == ["1000", "5"]
    # unbound: the stride constant stays a run-time one
    assert constant_values(kernel) == {"M": None, "N": None}


def test_constant_modes():
    kernel = _kernel(KERNEL_DIR / "2d-5pt.c").bind({"M": 100, "N": 200})
    assert constant_values(kernel, constants="literal") == {"M": 100, "N": 200}
    assert constant_values(kernel, constants="runtime") == {"M": None, "N": None}
    assert constant_values(kernel, {"M": 5, "N": 6}, constants="literal") == {"M": 5, "N": 6}
    text = generate_c(kernel, constants="literal")
    assert "const long M = 100;" in text and "kc_constant" not in text.split("{", 1)[1]
    assert program_arguments(kernel, constants="literal", repetitions=3) == ["3"]
    assert program_arguments(kernel) == ["100", "200"]
    with pytest.raises(KernelError, match="constant 'N' has no value"):
        generate_c(_kernel(KERNEL_DIR / "triad.c"), constants="literal")
    with pytest.raises(KernelError, match="constant 'N' has no value"):
        program_arguments(_kernel(KERNEL_DIR / "triad.c"))
    with pytest.raises(ValueError):
        constant_values(kernel, constants="sometimes")


# ------------------------------------------------------------------ it compiles and runs
def _build_and_run(tmp: Path, name: str, c_text: str, args: list[str], flags: list[str]) -> str:
    (tmp / f"{name}.c").write_text(c_text)
    exe = tmp / name
    cmd = ["gcc", *flags, "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
           f"{name}.c", "support.c", "-o", name]
    proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(exe), *args], cwd=tmp, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    return run.stdout


@needs_gcc
def test_every_bundled_kernel_compiles_and_runs_cleanly(tmp_path):
    """Benchmark variant with the address and undefined-behaviour sanitizers:
    an index linearised wrongly would read outside the heap arrays."""
    (tmp_path / "support.c").write_text(SUPPORT_C)
    kernels = [_kernel(p) for p in BUNDLED]
    flags = ["-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    if subprocess.run(["gcc", "-fsanitize=address", "-x", "c", "-", "-o", str(tmp_path / "t")],
                      input="int main(void){return 0;}", text=True,
                      capture_output=True).returncode:
        flags = ["-O1"]

    def one(item):
        path, kernel = item
        bound = kernel.bind({k: v for k, v in SMALL.items() if k in kernel.constant_names})
        text = generate_c(bound, for_benchmark=True)
        return _build_and_run(tmp_path, path.stem.replace("-", "_"), text,
                              program_arguments(bound, repetitions=2), flags)

    with ThreadPoolExecutor(8) as pool:
        outputs = list(pool.map(one, zip(BUNDLED, kernels)))
    for out in outputs:
        assert out.startswith("repetitions 2\nseconds ")


@needs_gcc
@pytest.mark.parametrize("std", ["c99", "gnu17"])
def test_analysis_program_compiles_with_machine_flags(tmp_path, std):
    for path in BUNDLED:
        text = generate_c(_kernel(path))
        src = tmp_path / "k.c"
        src.write_text(text)
        proc = subprocess.run(["gcc", "-O3", "-march=cascadelake", "-ffreestanding", f"-std={std}",
                               "-Wall", "-Wextra", "-Werror", "-S", "-o", "k.s", "k.c"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, (path.name, proc.stderr)


@needs_gcc
def test_missing_argument_is_reported_by_the_program(tmp_path):
    (tmp_path / "support.c").write_text(SUPPORT_C)
    text = generate_c(_kernel(KERNEL_DIR / "copy.c"), for_benchmark=True)
    (tmp_path / "p.c").write_text(text)
    subprocess.run(["gcc", "-O1", "p.c", "support.c", "-o", "p"], cwd=tmp_path, check=True)
    run = subprocess.run([str(tmp_path / "p"), "100"], capture_output=True, text=True)
    assert run.returncode == 2 and "missing command-line argument 2" in run.stderr


@needs_gcc
def test_page_offsets_put_read_only_arrays_above_written_ones():
    assert page_offsets(["a"]) == {"a": 0}
    assert page_offsets(["b", "a"], written=["a"]) == {"a": 0, "b": 64}
    assert page_offsets(list("abcde"), written=["c", "e"]) == {
        "c": 0, "e": 64, "a": 128, "b": 192, "d": 256}
    assert page_offsets([f"x{i}" for i in range(65)])["x64"] == 0      # wraps at a page


def test_int_and_float_kernels_run(tmp_path):
    (tmp_path / "support.c").write_text(SUPPORT_C)
    src = ("int a[N], b[N];\nfloat x[N], y[N];\nlong s;\n"
           "for (int i = 0; i < N; ++i) {\n  a[i] = b[i] + 3;\n  x[i] = 2.0f * y[i];\n"
           "  s += b[i];\n}\n")
    kernel = parse_kernel(src, "mixed.c").bind({"N": 100})
    text = generate_c(kernel, for_benchmark=True)
    assert "int *a = (int *)(kc_a_base + 0);" in text
    # written: a, x (offsets 0, 64); read only: b, y (128, 192)
    assert "float *x = (float *)(kc_x_base + 64);" in text
    assert "int *b = (int *)(kc_b_base + 128);" in text
    assert "long s;" in text and "kc_init_long(&s, 1);" in text
    out = _build_and_run(tmp_path, "mixed", text, program_arguments(kernel, repetitions=3),
                         ["-O2"])
    assert out.startswith("repetitions 3\n")
