"""The -v kernel summary: content and the 100-column limit."""
from __future__ import annotations

from pathlib import Path

import pytest

from kerncraft.kernel.parser import parse_kernel
from kerncraft.kernel.summary import format_kernel_summary

KERNELS = Path(__file__).resolve().parent.parent / "kernels"


def load(name: str):
    return parse_kernel((KERNELS / name).read_text(), filename=name)


def test_2d5pt_summary_content():
    text = format_kernel_summary(load("2d-5pt.c"))
    assert "kernel: 2d-5pt.c" in text
    assert "constants: M (unbound), N (unbound)" in text
    assert "element types: double (a, b, s)" in text
    assert "  j      1      M - 1  +1    Max(0, M - 2)" in text
    for access, offset in (("a[j][i - 1]", "-1"), ("a[j - 1][i]", "-N"), ("a[j + 1][i]", "N")):
        row = next(line for line in text.splitlines() if access in line)
        assert row.split()[-2] == offset
    assert "rel j-1; rel i" in text
    assert "flops per innermost iteration: 4 (+ 3, * 1)" in text
    assert "ignored pragmas" not in text


def test_bound_summary_shows_values_and_totals():
    kernel = load("2d-5pt.c").bind({"M": 100, "N": 200})
    text = format_kernel_summary(kernel)
    assert "constants: M = 100, N = 200" in text
    assert "total innermost iterations: 19404" in text
    assert "  a     double  [100][200]  160000" in text and "-200" in text


def test_summary_lists_types_math_calls_outer_accesses_and_pragmas():
    kernel = parse_kernel("#pragma omp parallel for\ndouble a[N], s;\nfloat f[N];\n"
                          "for (int j = 0; j < N; ++j) {\n s = 0.;\n"
                          " for (int i = 0; i < N; ++i) s += sqrt(f[i]) * a[i];\n a[j] = s;\n}",
                          "x.c")
    text = format_kernel_summary(kernel)
    assert "element types: double (a, s); float (f)" in text
    assert "math calls per iteration (not in flops): sqrt 1" in text
    assert "write s, read s, write a[j]" in text
    assert "ignored pragmas\n  #pragma omp parallel for" in text
    assert "direct" in text                              # scalar s


@pytest.mark.parametrize("name", sorted(p.name for p in KERNELS.glob("*.c")))
def test_summary_fits_100_columns(name):
    for kernel in (load(name), load(name).bind({"L": 1000, "M": 1000, "N": 1000})):
        text = format_kernel_summary(kernel)
        assert max(len(line) for line in text.splitlines()) <= 100
