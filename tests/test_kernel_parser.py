"""Constructs the kernel front end accepts, with hand-derived models."""
from __future__ import annotations

import dataclasses

import pytest
import sympy

from kerncraft.kernel.parser import parse_kernel

N = sympy.Symbol("N", integer=True, positive=True)
M = sympy.Symbol("M", integer=True, positive=True)
i = sympy.Symbol("i", integer=True)
j = sympy.Symbol("j", integer=True)


def parse(source: str):
    return parse_kernel(source, "k.c")


# --- loop headers ---------------------------------------------------------------------
@pytest.mark.parametrize("header, start, end, step", [
    ("for (int i = 0; i < N; i++)", 0, N, 1),
    ("for (int i = 0; i < N; ++i)", 0, N, 1),
    ("for (int i = 1; i <= N; ++i)", 1, N + 1, 1),
    ("for (int i = 0; N > i; ++i)", 0, N, 1),          # mirrored comparison
    ("for (int i = 0; i != N; ++i)", 0, N, 1),
    ("for (int i = N - 1; i >= 0; i--)", N - 1, -1, -1),
    ("for (int i = N; i > 0; --i)", N, 0, -1),
    ("for (int i = 0; i < N; i += 4)", 0, N, 4),
    ("for (int i = N; i > 0; i -= 2)", N, 0, -2),
    ("for (int i = 0; i < N; i = i + 3)", 0, N, 3),
    ("for (int i = 0; i < N; i = 2 + i)", 0, N, 2),
    ("for (int i = N; i > 0; i = i - 1)", N, 0, -1),
    ("for (long i = 0; i < 2*N+1; i += (1+1))", 0, 2 * N + 1, 2),
    ("for (i = 0; i < N; ++i)", 0, N, 1),              # index declared before the loop
])
def test_loop_header_forms(header, start, end, step):
    kernel = parse("double a[N+2];\nint i;\n" + header + " a[0] = 1.;")
    (loop,) = kernel.loops
    assert (loop.index, loop.start, loop.end, loop.step) == ("i", start, end, step)
    assert loop.line == 3
    assert "i" not in kernel.arrays                    # a loop counter is not data


def test_undeclared_loop_variable_is_accepted_as_index():
    kernel = parse("double a[N];\nfor (i = 0; i < N; i++) a[i] = 1.;")
    assert [lp.index for lp in kernel.loops] == ["i"]
    assert [c.name for c in kernel.constants] == ["N"]


def test_triangular_bounds_and_iteration_count():
    kernel = parse("double a[N][N];\nfor (int j = 0; j < N; ++j)\n"
                   "  for (int i = 0; i <= j; ++i)\n    a[j][i] = 0.;")
    assert kernel.loops[1].start == 0 and kernel.loops[1].end == j + 1
    assert sympy.simplify(kernel.iteration_count() - N * (N + 1) / 2) == 0
    assert kernel.bind({"N": 10}).iteration_count() == 55


def test_upper_triangular_and_three_deep_counts():
    upper = parse("double a[N][N];\nfor (int j = 0; j < N; ++j)\n"
                  "  for (int i = j + 1; i < N; ++i) a[j][i] = 0.;")
    assert upper.bind({"N": 10}).iteration_count() == 45
    three = parse("double a[N][N][N];\nfor (int k = 0; k < N; ++k)\n for (int j = 0; j < k; ++j)"
                  "\n  for (int i = 0; i < j; ++i) a[k][j][i] = 0.;")
    assert sympy.expand(three.iteration_count() - N * (N - 1) * (N - 2) / 6) == 0


def test_strided_and_downward_counts():
    kernel = parse("double a[N];\nfor (int i = N - 1; i >= 0; i -= 2) a[i] = 0.;")
    assert [kernel.bind({"N": n}).iteration_count() for n in (1, 9, 10)] == [1, 5, 5]
    rect = parse("double a[M][N];\nfor (int j = 1; j < M - 1; ++j)\n"
                 " for (int i = 1; i < N - 1; ++i) a[j][i] = 0.;")
    assert rect.iteration_count() == sympy.Max(0, M - 2) * sympy.Max(0, N - 2)
    assert rect.bind({"M": 1, "N": 100}).iteration_count() == 0   # empty range is 0


def test_strided_triangular_count_evaluates_after_binding():
    kernel = parse("double a[N][N];\nfor (int j = 0; j < N; j += 2)\n"
                   " for (int i = 0; i < j; ++i) a[j][i] = 0.;")
    # j = 0, 2, 4, 6, 8 -> 0 + 2 + 4 + 6 + 8
    trips = sympy.floor((N + 1) / 2)                       # j = 0, 2, ..., i.e. t < trips
    assert sympy.expand(kernel.iteration_count() - trips * (trips - 1)) == 0
    assert kernel.bind({"N": 10}).iteration_count() == 20


# --- declarations and types -----------------------------------------------------------
def test_array_sizes_are_constant_expressions():
    kernel = parse("double u[N][M+3][N-2][5];\ndouble a[M*N];\n"
                   "for (int i = 0; i < N; ++i) a[i] = u[0][0][0][0];")
    assert kernel.arrays["u"].dimensions == (N, M + 3, N - 2, 5)
    assert kernel.arrays["a"].dimensions == (M * N,)
    assert [c.name for c in kernel.constants] == ["N", "M"]
    assert (kernel.constants[0].line, kernel.constants[0].col) == (1, 10)
    assert kernel.arrays["u"].total_bytes() == 8 * 5 * N * (M + 3) * (N - 2)


def test_mixed_element_types_and_qualifiers():
    kernel = parse("double restrict a[N];\nfloat f[N];\nint n[N];\nlong q[N];\nlong int r[N];\n"
                   "const double s = 2.0;\nstatic float g = 1.f;\n"
                   "for (int i = 0; i < N; ++i) a[i] = s * f[i] + g * n[i] + q[i] + r[i];")
    types = {name: (arr.ctype, arr.element_size) for name, arr in kernel.arrays.items()}
    assert types == {"a": ("double", 8), "f": ("float", 4), "n": ("int", 4),
                     "q": ("long", 8), "r": ("long", 8), "s": ("double", 8),
                     "g": ("float", 4)}
    # s*f, g*n (float), + q, + r, + (all floating point): 2 * and 3 +
    assert dict(kernel.flops) == {"*": 2, "+": 3}
    # scalar initialisers are writes outside the loop nest
    assert [(a.array, a.kind) for a in kernel.outer_accesses] == [("s", "write"), ("g", "write")]


def test_comments_and_pragmas_keep_line_numbers():
    source = ("// leading comment\n#pragma omp parallel for \\\n   schedule(static)\n"
              "double a[N]; /* a\n spanning comment */ double b[N];\n"
              "  #pragma omp simd\n"
              "for (int i = 0; i < N; ++i) // trailing\n    a[i] = b[i]; /* x */\n")
    kernel = parse(source)
    assert kernel.pragmas == ("#pragma omp parallel for schedule(static)", "#pragma omp simd")
    assert kernel.arrays["b"].line == 5 and kernel.arrays["b"].col == 29
    assert (kernel.loops[0].line, kernel.accesses[0].line, kernel.accesses[0].col) == (7, 8, 12)
    assert kernel.source == source


def test_windows_newlines():
    kernel = parse("double a[N];\r\nfor (int i = 0; i < N; ++i)\r\n  a[i] = 1.;\r\n")
    assert kernel.accesses[0].line == 3


# --- accesses ----------------------------------------------------------------------
def test_index_order_and_flattened_indices():
    kernel = parse("double a[M][N];\ndouble b[M*N];\nfor (int i = 0; i < N; ++i)\n"
                   "  for (int j = 1; j < M; ++j)\n    b[(j-1)*N + i] = a[j][i] + a[j-1][i+1];")
    reads = kernel.reads("a")
    assert [r.indices for r in reads] == [(j, i), (j - 1, i + 1)]
    assert [r.linear_index for r in reads] == [N * j + i, N * j - N + i + 1]
    assert [r.offset for r in reads] == [0, 1 - N]
    (write,) = kernel.writes()
    assert (write.array, write.indices, write.offset) == ("b", (N * j - N + i,), -N)


def test_direct_indices_have_constant_offsets():
    kernel = parse("double x[3][M][N];\nfor (int j = 0; j < M; ++j)\n"
                   "  for (int i = 0; i < N; ++i) x[0][j][i+1] = x[2][M-1-j][N/2];")
    read, write = kernel.accesses
    assert read.indices == (2, M - 1 - j, sympy.floor(N / 2))
    assert read.offset == sympy.expand(2 * M * N + (M - 1) * N + sympy.floor(N / 2))
    assert write.offset == 1


def test_access_order_compound_assignment_and_scalars():
    kernel = parse("double a[N], b[N], s;\nfor (int i = 0; i < N; ++i) {\n"
                   "  double t = b[i] * 2.0;\n  a[i] += t;\n  s = s + a[i];\n}")
    assert [(a.array, a.kind) for a in kernel.accesses] == [
        ("b", "read"), ("t", "write"), ("a", "read"), ("t", "read"), ("a", "write"),
        ("s", "read"), ("a", "read"), ("s", "write")]
    assert dict(kernel.flops) == {"*": 1, "+": 2}
    scalar = kernel.writes("s")[0]
    assert (scalar.indices, scalar.linear_index, scalar.offset) == ((), 0, 0)
    assert kernel.arrays["t"].is_scalar and kernel.arrays["t"].line == 3


def test_statements_outside_the_innermost_loop():
    kernel = parse("double a[M][N], b[M], s;\nfor (int j = 0; j < M; ++j) {\n  s = 0.;\n"
                   "  for (int i = 0; i < N; ++i)\n    s += a[j][i] * a[j][i];\n"
                   "  b[j] = sqrt(s) * 2.0;\n}")
    assert [(a.array, a.kind) for a in kernel.accesses] == [
        ("s", "read"), ("a", "read"), ("a", "read"), ("s", "write")]
    assert [(a.array, a.kind, a.indices) for a in kernel.outer_accesses] == [
        ("s", "write", ()), ("s", "read", ()), ("b", "write", (j,))]
    assert dict(kernel.flops) == {"+": 1, "*": 1}      # outer flops are not counted
    assert dict(kernel.math_calls) == {}               # nor outer math calls


# --- flop counting rules -------------------------------------------------------------
@pytest.mark.parametrize("expr, flops, calls", [
    ("b[i] + c[i]", {"+": 1}, {}),
    ("b[i] - c[i] * 2.0 / c[i]", {"-": 1, "*": 1, "/": 1}, {}),
    ("-b[i]", {}, {}),                                  # unary minus is not a flop
    ("-(b[i] * c[i])", {"*": 1}, {}),
    ("(double)(i + 1) * b[i]", {"*": 1}, {}),          # integer arithmetic is no flop
    ("b[i + 2*N - 1]", {}, {}),
    ("n[i] * 2 + 1", {}, {}),                          # int array, int arithmetic
    ("n[i] * 2.0", {"*": 1}, {}),                      # promoted to double
    ("i * N", {}, {}),
    ("b[i] > 0.0 ? b[i] * 2.0 : c[i] + 1.0", {"*": 1, "+": 1}, {}),   # both arms
    ("sqrt(b[i]) + exp(c[i]) * pow(b[i], 3.0)", {"+": 1, "*": 1},
     {"sqrt": 1, "exp": 1, "pow": 1}),
    ("fabs(b[i] - c[i]) + sqrtf(f[i])", {"-": 1, "+": 1}, {"fabs": 1, "sqrtf": 1}),
    ("f[i] * 2.f", {"*": 1}, {}),
    ("(float)b[i]", {}, {}),
    ("b[i] + +c[i]", {"+": 1}, {}),
])
def test_flop_rules(expr, flops, calls):
    kernel = parse("double a[N], b[3*N], c[N];\nfloat f[N];\nint n[N];\n"
                   f"for (int i = 0; i < N; ++i) a[i] = {expr};")
    assert dict(kernel.flops) == flops
    assert dict(kernel.math_calls) == calls
    assert kernel.total_flops == sum(flops.values())


@pytest.mark.parametrize("stmt, flops", [
    ("s += b[i];", {"+": 1}),
    ("s -= b[i];", {"-": 1}),
    ("s *= b[i];", {"*": 1}),
    ("s /= b[i];", {"/": 1}),
    ("s++;", {"+": 1}),
    ("--s;", {"-": 1}),
    ("k += n[i];", {}),                                 # integer compound
    ("k %= 3;", {}),
    ("k++;", {}),
    ("s += b[i], k++;", {"+": 1}),                       # comma operator
])
def test_compound_assignments(stmt, flops):
    kernel = parse("double b[N], s;\nint n[N], k;\n"
                   f"for (int i = 0; i < N; ++i) {{ {stmt} }}")
    assert dict(kernel.flops) == flops
    target = stmt.strip("+-; ")[0]
    assert kernel.reads(target) and kernel.writes(target)


def test_literal_types_and_integer_literals():
    kernel = parse("double a[0x10][010][2u][3L];\n"
                   "for (int i = 0; i < 2; ++i) a[i][0][0][0] = 1e3 + 1.5e-2;")
    assert kernel.arrays["a"].dimensions == (16, 8, 2, 3)
    assert dict(kernel.flops) == {"+": 1}
    assert kernel.constants == ()


# --- model API ----------------------------------------------------------------------
def test_model_is_frozen_and_views():
    kernel = parse("double a[N], b[N];\nfor (int i = 0; i < N; ++i) a[i] = b[i];")
    with pytest.raises(dataclasses.FrozenInstanceError):
        kernel.filename = "x"  # type: ignore[misc]
    assert kernel.loop_symbols == (i,)
    assert kernel.constant_names == ("N",)
    assert kernel.unbound_constants() == kernel.constants
    assert kernel.reads("a") == ()


def test_bind_substitutes_everywhere():
    kernel = parse("double a[M][N];\nfor (int j = 1; j < M - 1; ++j)\n"
                   " for (int i = 0; i < N; ++i) a[j][i] = a[j-1][i];")
    bound = kernel.bind({"M": 5, "N": 7, "UNUSED": 3})
    assert bound.bindings == {"M": 5, "N": 7}
    assert bound.arrays["a"].dimensions == (5, 7)
    assert [(lp.start, lp.end) for lp in bound.loops] == [(1, 4), (0, 7)]
    assert bound.reads("a")[0].offset == -7
    assert bound.reads("a")[0].linear_index == 7 * j + i - 7
    assert bound.iteration_count() == 3 * 7
    assert bound.constants == kernel.constants          # names kept for reports
    assert bound.unbound_constants() == ()
    assert kernel.bindings == {}                        # original unchanged


def test_partial_bind_then_complete():
    kernel = parse("double a[M][N];\nfor (int i = 0; i < N; ++i) a[0][i] = 1.;")
    half = kernel.bind({"N": 4}, partial=True)
    assert half.arrays["a"].dimensions == (M, 4)
    assert [c.name for c in half.unbound_constants()] == ["M"]
    full = half.bind({"M": 2})
    assert full.arrays["a"].dimensions == (2, 4) and full.bindings == {"N": 4, "M": 2}


def test_count_without_closed_form_is_a_sum_until_bound():
    kernel = parse("double a[N][N];\nfor (int j = 0; j < N; ++j)\n"
                   " for (int i = 0; i < j; i += 2) a[j][i] = 0.;")
    assert isinstance(kernel.iteration_count(), sympy.Sum)
    # ceil(j/2) for j = 0..9: 0+1+1+2+2+3+3+4+4+5
    assert kernel.bind({"N": 10}).iteration_count() == 25
