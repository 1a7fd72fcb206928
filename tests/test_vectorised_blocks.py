"""Outer-loop and SLP vectorised loops are chosen automatically (issue 12, item 3).

Kernels in ``tests/data/kernels_vectorised/`` (written for these tests after the
computations of Kerncraft's ``matsq`` and ``3d-7pt-2unrolled`` examples).
"""
from __future__ import annotations

from pathlib import Path

import pytest

import kerncraft

DATA = Path(__file__).parent / "data" / "kernels_vectorised"
KERNELS = Path(__file__).resolve().parents[1] / "kernels"


def test_outer_loop_vectorised_matsq():
    # gcc vectorises j (4 doubles per ymm on CSX) around the innermost k loop: the asm
    # loop advances k by 1 (8 B along a[i][k]) and its 4 FMA lanes are 4 j iterations, so
    # one asm iteration is 1 x 4 = 4 source iterations; 2 flops each = 8 flops.
    result = kerncraft.analyze(str(DATA / "matsq.c"), "CSX", model="ECMCPU", defines={"N": 200})
    sel = result.prediction.selection
    assert (sel.simd_width, sel.outer_unroll, sel.iterations_per_asm_iteration) == (4, 4, 4)
    assert "vectorised the outer loop" in sel.explanation


def test_slp_vectorised_two_way_unrolled_stencil():
    # i += 2 with two statements packed into one ymm: 32 B per asm iteration = 2 source
    # iterations of 16 B, i.e. 4 elements = one vector.
    defines = {"N": 200, "M": 200}
    result = kerncraft.analyze(str(DATA / "3d-7pt-2unrolled.c"), "CSX", model="ECMCPU",
                               defines=defines)
    sel = result.prediction.selection
    assert (sel.iterations_per_asm_iteration, sel.simd_width, sel.unroll) == (2, 4, 1)
    # A cache line of work is 8 elements = 4 iterations of the step-2 loop, so the data
    # transfers per cache line equal the plain stencil's on the same grid.
    unrolled = kerncraft.analyze(str(DATA / "3d-7pt-2unrolled.c"), "CSX", model="ECMData",
                                 defines=defines).to_dict()
    plain = kerncraft.analyze(str(KERNELS / "3d-7pt.c"), "CSX", model="ECMData",
                              defines={**defines, "L": 200}).to_dict()
    assert unrolled["iterations_per_cacheline"] == 4
    assert plain["iterations_per_cacheline"] == 8
    for term, value in plain["values"].items():
        assert unrolled["values"][term] == pytest.approx(value)
