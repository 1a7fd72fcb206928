"""``swap(a, b);`` after the nest (Kerncraft's 3d-7pt-swapped example; issue 12)."""
from __future__ import annotations

import pytest

import kerncraft
from kerncraft.compilation.codegen import generate_c
from kerncraft.errors import KernelError
from kerncraft.kernel.summary import format_kernel_summary

NEST = ("double a[N][N], b[N][N];\ndouble c[N];\nfor (int j = 1; j < N - 1; ++j)\n"
        "    for (int i = 1; i < N - 1; ++i)\n        b[j][i] = a[j][i-1] + a[j][i+1];\n")


def test_swap_after_the_nest_is_recorded_and_left_out_of_the_program():
    kernel = kerncraft.parse_kernel(NEST + "swap(a, b);\n", filename="k.c")
    assert kernel.swaps == (("a", "b"),)
    plain = kerncraft.parse_kernel(NEST, filename="k.c")
    assert kernel.accesses == plain.accesses and kernel.loops == plain.loops
    assert "swap" not in generate_c(kernel.bind({"N": 100}))
    assert "after the nest: swap(a, b)" in format_kernel_summary(kernel)


@pytest.mark.parametrize("text, message", [
    ("swap(a, b);\n" + NEST, r"k.c:1:1: swap\(\.\.\.\) is only supported after the loop nest"),
    (NEST + "swap(a, c);\n", r"swap\(a, c\) needs arrays of one type and shape"),
    (NEST + "swap(a, x);\n", r"swap\(a, x\) needs two declared arrays"),
])
def test_other_swaps_are_refused_with_a_location(text, message):
    with pytest.raises(KernelError, match=message):
        kerncraft.parse_kernel(text, filename="k.c")


def test_swapped_stencil_predicts_like_the_plain_one():
    """The same nest with and without the swap: the same ECM data transfers (LC)."""
    swapped = kerncraft.analyze(NEST + "swap(a, b);\n", "CSX", model="ECMData",
                                defines={"N": 1000})
    plain = kerncraft.analyze(NEST, "CSX", model="ECMData", defines={"N": 1000})
    assert swapped.to_dict()["values"] == plain.to_dict()["values"]
