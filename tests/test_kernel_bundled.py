"""Every bundled kernel against a hand-derived model.

Expected values come from reading the C source: loop stack, which array
elements are read and written (as per-dimension index expressions), flops per
operator, element types. Offsets are the linear element offsets of the access
relative to the loop centre (model doc).
"""
from __future__ import annotations

from pathlib import Path

import pytest
import sympy

from kerncraft.kernel.parser import parse_kernel

KERNELS = Path(__file__).resolve().parent.parent / "kernels"


def load(name: str):
    return parse_kernel((KERNELS / name).read_text(), filename=name)


def exprs(kernel, text: str) -> tuple[sympy.Expr, ...]:
    """'j, i-1' -> (j, i - 1) in the kernel's own symbols ('' -> scalar)."""
    if not text:
        return ()
    names = {lp.index: lp.symbol for lp in kernel.loops}
    names.update({c.name: c.symbol for c in kernel.constants})
    return tuple(sympy.sympify(part, locals=names) for part in text.split(","))


def access_set(kernel, kind: str) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for acc in kernel.accesses:
        if acc.kind == kind:
            out.setdefault(acc.array, []).append(acc.indices)
    return out


def expected_set(kernel, spec: dict[str, list[str]]) -> dict[str, list[tuple]]:
    return {name: [exprs(kernel, t) for t in texts] for name, texts in spec.items()}


def faces(prefix: str, radius: int = 1) -> list[str]:
    """The six axis neighbours at distance ``radius`` of [k][j][i] (3D)."""
    r = radius
    return [f"{prefix}k,j,i-{r}", f"{prefix}k,j,i+{r}", f"{prefix}k,j-{r},i",
            f"{prefix}k,j+{r},i", f"{prefix}k-{r},j,i", f"{prefix}k+{r},j,i"]


STREAM = [("i", "0", "N", 1)]
STENCIL_2D = [("j", "1", "M-1", 1), ("i", "1", "N-1", 1)]
STENCIL_3D = [("k", "1", "L-1", 1), ("j", "1", "M-1", 1), ("i", "1", "N-1", 1)]

# name: (loops, reads, writes, flops, element types)
CASES = {
    "copy.c": (STREAM, {"b": ["i"]}, {"a": ["i"]}, {}, {"a": "double", "b": "double"}),
    "add.c": (STREAM, {"b": ["i"], "c": ["i"]}, {"a": ["i"]}, {"+": 1}, None),
    "update.c": (STREAM, {"s": [""], "a": ["i"]}, {"a": ["i"]}, {"*": 1}, None),
    "daxpy.c": (STREAM, {"a": ["i"], "s": [""], "b": ["i"]}, {"a": ["i"]},
                {"+": 1, "*": 1}, None),
    "triad.c": (STREAM, {"b": ["i"], "s": [""], "c": ["i"]}, {"a": ["i"]},
                {"+": 1, "*": 1}, None),
    "striad.c": (STREAM, {"b": ["i"], "c": ["i"], "d": ["i"]}, {"a": ["i"]},
                 {"+": 1, "*": 1}, None),
    "sum_reduction.c": (STREAM, {"s": [""], "a": ["i"]}, {"s": [""]}, {"+": 1}, None),
    "scalar_product.c": (STREAM, {"s": [""], "a": ["i"], "b": ["i"]}, {"s": [""]},
                         {"+": 1, "*": 1}, None),
    "kahan-dot.c": (STREAM,
                    {"a": ["i"], "b": ["i"], "c": [""], "s": ["", ""], "y": ["", ""],
                     "t": ["", ""]},
                    {"y": [""], "t": [""], "c": [""], "s": [""]},
                    {"+": 1, "-": 3, "*": 1}, None),
    "2d-5pt.c": (STENCIL_2D, {"a": ["j,i-1", "j,i+1", "j-1,i", "j+1,i"], "s": [""]},
                 {"b": ["j,i"]}, {"+": 3, "*": 1}, None),
    "gs-2d-5pt.c": (STENCIL_2D, {"a": ["j,i-1", "j,i+1", "j-1,i", "j+1,i"], "s": [""]},
                    {"a": ["j,i"]}, {"+": 3, "*": 1}, None),
    "3d-7pt.c": (STENCIL_3D, {"c0": [""], "a": ["k,j,i", *faces("")], "c1": [""]},
                 {"b": ["k,j,i"]}, {"+": 6, "*": 2}, None),
    "matvec.c": ([("i", "0", "M", 1), ("j", "0", "N", 1)],
                 {"y": ["i"], "A": ["i,j"], "x": ["j"]}, {"y": ["i"]}, {"+": 1, "*": 1},
                 None),
    "matvec_trans.c": ([("j", "0", "M", 1), ("i", "0", "N", 1)],
                       {"y": ["i"], "A": ["j,i"], "x": ["j"]}, {"y": ["i"]},
                       {"+": 1, "*": 1}, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bundled_kernel_model(name):
    kernel = load(name)
    loops, reads, writes, flops, types = CASES[name]
    assert [(lp.index, lp.start, lp.end, lp.step) for lp in kernel.loops] == [
        (idx, *exprs(kernel, start), *exprs(kernel, end), step)
        for idx, start, end, step in loops]
    assert access_set(kernel, "read") == expected_set(kernel, reads)
    assert access_set(kernel, "write") == expected_set(kernel, writes)
    assert dict(kernel.flops) == flops
    assert dict(kernel.math_calls) == {}
    if types:
        assert {n: a.ctype for n, a in kernel.arrays.items()} == types


def test_all_bundled_kernels_are_covered_and_documented():
    files = sorted(p.name for p in KERNELS.glob("*.c"))
    covered = set(CASES) | {"3d-27pt.c", "3d-long-range.c", "uxx.c", "himeno.c"}
    assert set(files) == covered
    for name in files:
        first = (KERNELS / name).read_text().splitlines()[0]
        assert first.startswith("/*") and first.endswith("*/"), name


def test_2d5pt_offsets_and_locations():
    kernel = load("2d-5pt.c")
    N = kernel.constants[1].symbol
    assert [c.name for c in kernel.constants] == ["M", "N"]
    assert [a.offset for a in kernel.reads("a")] == [-1, 1, -N, N]
    j, i = kernel.loop_symbols
    assert kernel.writes("b")[0].linear_index == N * j + i
    assert [(a.line, a.col) for a in kernel.accesses] == [
        (8, 20), (8, 34), (8, 48), (8, 62), (8, 77), (8, 9)]
    assert kernel.arrays["a"].dimensions == exprs(kernel, "M, N")
    assert kernel.arrays["s"].is_scalar


def test_3d_27pt():
    kernel = load("3d-27pt.c")
    assert [(lp.index, lp.step) for lp in kernel.loops] == [("k", 1), ("j", 1), ("i", 1)]
    reads = kernel.reads("a")
    assert len(reads) == 27
    k, j, i = kernel.loop_symbols
    shifts = {tuple(idx - sym for idx, sym in zip(a.indices, (k, j, i))) for a in reads}
    assert shifts == {(dk, dj, di) for dk in (-1, 0, 1) for dj in (-1, 0, 1) for di in (-1, 0, 1)}
    assert len(kernel.reads()) == 27 + 4          # plus the coefficients c0..c3
    assert kernel.writes() == kernel.writes("b")
    # c0*a + c1*(6 terms) + c2*(12 terms) + c3*(8 terms): 5+11+7 inside, 3 between.
    assert dict(kernel.flops) == {"+": 26, "*": 4}


def test_3d_long_range():
    kernel = load("3d-long-range.c")
    assert [(lp.index, str(lp.start), str(lp.end)) for lp in kernel.loops] == [
        ("k", "4", "L - 4"), ("j", "4", "M - 4"), ("i", "4", "N - 4")]
    v_reads = [a.indices for a in kernel.reads("v")]
    expected = [exprs(kernel, "k,j,i")]
    for radius in range(1, 5):
        expected += [exprs(kernel, t) for t in faces("", radius)]
    expected.append(exprs(kernel, "k,j,i"))       # 2.0*v[k][j][i] in the update
    assert v_reads == expected
    assert [a.indices for a in kernel.reads("u")] == [exprs(kernel, "k,j,i")]
    assert {a.array for a in kernel.writes()} == {"lap", "u"}
    # lap: c0*v (1 *), 4 radii x (5 + and 1 *), 4 + joining; update: 2.0*v - u + roc*lap.
    assert dict(kernel.flops) == {"+": 25, "-": 1, "*": 7}


def test_uxx():
    kernel = load("uxx.c")
    assert [a.indices for a in kernel.reads("d1")] == [
        exprs(kernel, t) for t in ("k,j,i", "k,j-1,i", "k-1,j,i", "k-1,j-1,i")]
    assert [a.indices for a in kernel.reads("xx")] == [
        exprs(kernel, t) for t in ("k,j,i", "k,j,i-1", "k,j,i+1", "k,j,i-2")]
    assert [a.indices for a in kernel.reads("xz")] == [
        exprs(kernel, t) for t in ("k,j,i", "k-1,j,i", "k+1,j,i", "k-2,j,i")]
    assert [a.array for a in kernel.writes()] == ["d", "u1"]
    # d = 1/(0.25*(4 terms)): 3 +, 1 *, 1 /; update: 6 differences, 6 coefficient
    # products, 5 + joining, dth*d and *(...), u1 + ...
    assert dict(kernel.flops) == {"+": 9, "-": 6, "*": 9, "/": 1}
    N = kernel.arrays["u1"].dimensions[2]
    M = kernel.arrays["u1"].dimensions[1]
    assert [a.offset for a in kernel.reads("xy")] == [0, -N, N, -2 * N]
    assert kernel.reads("d1")[3].offset == -M * N - N


def test_himeno():
    kernel = load("himeno.c")
    assert [lp.index for lp in kernel.loops] == ["i", "j", "k"]
    assert kernel.arrays["a"].dimensions == exprs(kernel, "4, L, M, N")
    assert kernel.arrays["b"].dimensions == exprs(kernel, "3, L, M, N")
    p_reads = [a.indices for a in kernel.reads("p")]
    assert len(p_reads) == 20                     # 18 neighbours, centre read twice
    assert len(set(p_reads)) == 19
    assert [a.indices for a in kernel.reads("a")] == [
        exprs(kernel, f"{n},i,j,k") for n in range(4)]
    assert {a.array for a in kernel.writes()} == {"s0", "ss", "gosa", "wrk2"}
    assert kernel.reads("gosa") and kernel.writes("gosa")
    assert dict(kernel.flops) == {"+": 14, "-": 7, "*": 13}
    assert kernel.total_flops == 34               # the benchmark's own count
    L, M, N = (c.symbol for c in kernel.constants)
    assert kernel.reads("a")[3].offset == 3 * L * M * N   # direct first dimension


def test_iteration_count_and_bind_of_bundled_stencil():
    kernel = load("3d-7pt.c").bind({"L": 10, "M": 20, "N": 30})
    assert kernel.iteration_count() == 8 * 18 * 28
    assert kernel.arrays["a"].dimensions == (10, 20, 30)
    assert kernel.reads("a")[-1].offset == 600
