"""Every rejection of the kernel front end: message *and* file:line:col.

The CLI prints ``str(error)`` and exits 2, so the location prefix and a clear
message are the whole user interface of these paths.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kerncraft.errors import DefineError, KernelError, SourceLocation
from kerncraft.kernel.defines import resolve_bindings
from kerncraft.kernel.parser import parse_kernel

BAD = Path(__file__).resolve().parent / "data" / "kernels_bad"

# file: (line, col, message fragment)
BAD_FILES = {
    "char_type.c": (2, 6, "type 'char' is not supported"),
    "define.c": (2, 1, "preprocessor directive '#define' is not supported"),
    "do_loop.c": (5, 5, "while and do-while loops are not supported"),
    "function_def.c": (3, 6, "function definitions are not supported"),
    "goto.c": (5, 5, "goto and labels are not supported"),
    "if_in_nest.c": (4, 5, "if statements are not supported inside the loop nest"),
    "indirect.c": (5, 7, "indirect index 'b[i]' is not supported"),
    "no_loop.c": (1, 1, "kernel contains no for loop"),
    "nonaffine_product.c": (5, 14, "index 'i * j' is not affine in the loop indices"),
    "nonaffine_square.c": (4, 7, "index 'i * i' is not affine in the loop indices"),
    "pointer_arith.c": (4, 7, "pointer arithmetic ('*') is not supported"),
    "pointer_decl.c": (2, 8, "pointer declaration of 'a' is not supported"),
    "struct_type.c": (2, 31, "struct types are not supported"),
    "symbolic_step.c": (3, 29, "loop step must be a constant integer, not 'M'"),
    "syntax_error.c": (3, 1, "C syntax error before 'for'"),
    "two_nests.c": (5, 1, "only one loop nest per kernel is supported"),
    "unbalanced_brace.c": (5, 1, "C syntax error: unmatched '}'"),
    "undeclared_array.c": (4, 12, "'c' is subscripted but is not declared"),
    "unknown_function.c": (4, 12, "call of 'compute' is not supported"),
    "while_loop.c": (4, 1, "while and do-while loops are not supported"),
    "wrong_rank.c": (4, 5, "array 'a' has 2 dimension(s) but is accessed with 1 index(es)"),
    "zero_step.c": (3, 24, "loop step of 'i' is zero"),
}


def error_of(source: str, filename: str | None = "k.c") -> KernelError:
    with pytest.raises(KernelError) as info:
        parse_kernel(source, filename)
    return info.value


def test_every_bad_file_has_an_expectation():
    assert sorted(p.name for p in BAD.glob("*.c")) == sorted(BAD_FILES)


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_kernel_files(name):
    line, col, fragment = BAD_FILES[name]
    err = error_of((BAD / name).read_text(), name)
    assert err.location == SourceLocation(name, line, col)
    assert fragment in err.message
    assert str(err).startswith(f"{name}:{line}:{col}: ")
    assert err.exit_code == 2


DECL = "double a[N];\n"
LOOP = "for (int i = 0; i < N; ++i)"

# id: (source, line, col, fragment); col None means "line only"
INLINE = {
    "include": ("/* c */ double a[N];\n  #include <math.h>\n" + LOOP + " a[i] = 1.;",
                2, 3, "preprocessor directive '#include' is not supported"),
    "unterminated_comment": (DECL + "/* open\n" + LOOP + " a[i] = 1.;", 2, 1,
                             "unterminated /* comment"),
    "end_of_input": (DECL + LOOP + " { a[i] = 1.;", 2, None, "unexpected end of input"),
    "invalid_expression": (DECL + LOOP + "\n  a[i] = ;", 3, 10, "C syntax error"),
    "illegal_character": (DECL + LOOP + " a[i] = 1.@;", 2, 38, "illegal character '@'"),
    "two_inner_loops": ("double a[N][N];\nfor (int j=0; j<N; j++) {\n"
                        " for (int i=0; i<N; i++) a[j][i] = 1.;\n"
                        " for (int i=0; i<N; i++) a[j][i] = 2.;\n}",
                        4, 2, "only one loop per nesting level is supported"),
    "wrong_direction": (DECL + "for (int i = 0; i < N; i--) a[i] = 1.;", 2, 24,
                        "loop 'i' never ends: its condition needs a positive step"),
    "wrong_direction_neg": (DECL + "for (int i = N; i > 0; i++) a[i-1] = 1.;", 2, 24,
                            "needs a negative step"),
    "index_modified": (DECL + LOOP + " { a[i] = 1.; i = i + 1; }", 2, 42,
                       "loop index 'i' must not be modified in the loop body"),
    "scalar_subscripted": ("double a[N], s;\n" + LOOP + " a[i] = s[i];", 2, 36,
                           "'s' is a scalar, not an array"),
    "array_without_subscript": ("double a[N], b[N];\n" + LOOP + " a[i] = b;", 2, 36,
                                "array 'b' used without subscript (pointer arithmetic"),
    "pointer_dereference_of_address": ("double a[N], s;\n" + LOOP + " a[i] = *(&s);", 2, 39,
                                       "pointer arithmetic ('*') is not supported"),
    "address_of": ("double a[N], s;\n" + LOOP + " a[i] = 1.0 + &s;", 2, 43,
                   "pointer arithmetic ('&') is not supported"),
    "assign_undeclared": (DECL + LOOP + " t = a[i];", 2, 29,
                          "assignment to undeclared variable 't'"),
    "array_in_nest": (DECL + LOOP + " { double t[4]; a[i] = 1.; }", 2, 38,
                      "array 't' must be declared before the loop nest"),
    "zero_size": ("double a[0];\n" + LOOP + " a[i] = 1.;", 1, 10,
                  "array 'a' has non-positive size 0"),
    "float_size": ("double a[2.5];\n" + LOOP + " a[i] = 1.;", 1, 10,
                   "floating-point literal 2.5 in array size"),
    "unsized_array": ("double a[];\n" + LOOP + " a[0] = 1.;", 1, 8,
                      "array 'a' needs an explicit size"),
    "array_initialiser": ("double a[2] = {1., 2.};\n" + LOOP + " a[0] = 1.;", 1, 16,
                          "array initialisers are not supported"),
    "bound_uses_itself": (DECL + "for (int i = 0; i < i + 1; ++i) a[i] = 1.;", 2, 21,
                          "loop bound of loop 'i' must not depend on 'i' itself"),
    "bound_uses_inner_index": ("double a[N][N];\nfor (int j = 0; j < i; ++j)\n"
                               " for (int i = 0; i < N; ++i) a[j][i] = 1.;", 3, 2,
                               "'i' is used as a constant before it becomes a loop index"),
    "declared_twice": (DECL + DECL + LOOP + " a[i] = 1.;", 2, 8, "'a' is declared twice"),
    "declared_after_use": (DECL + "int N;\n" + LOOP + " a[i] = 1.;", 2, 5,
                           "'N' is declared after its use at line 1"),
    "modulo_on_double": (DECL + LOOP + " a[i] = a[i] % 2;", 2, 36,
                         "operator '%' needs integer operands"),
    "condition_not_comparison": (DECL + "for (int i = 0; N; ++i) a[i] = 1.;", 2, 17,
                                 "must compare the index with a bound"),
    "condition_other_variable": (DECL + "int k;\nfor (int i = 0; k < N; ++i) a[i] = 1.;",
                                 3, 17, "must compare the loop index 'i' with a bound"),
    "missing_init": (DECL + "int i;\nfor (; i < N; ++i) a[i] = 1.;", 3, 1,
                     "the for loop must initialise its index"),
    "multiplicative_step": (DECL + "for (int i = 1; i < N; i *= 2) a[i] = 1.;", 2, 24,
                            "unsupported increment of loop 'i'"),
    "floating_loop_index": (DECL + "for (double i = 0; i < N; ++i) a[0] = 1.;", 2, 13,
                            "loop index 'i' must be an int or long"),
    "floating_loop_variable": (DECL + "double i;\nfor (i = 0; i < N; ++i) a[0] = 1.;",
                               3, 1, "loop index 'i' must be an int or long variable"),
    "reused_index": ("double a[N][N];\nfor (int i = 0; i < N; ++i)\n"
                     " for (int i = 0; i < N; ++i) a[i][i] = 1.;", 3, 2,
                     "loop index 'i' is already used by an enclosing loop"),
    "int_scalar_in_index": (DECL + "int k;\n" + LOOP + " a[i + k] = 1.;", 3, 35,
                            "variable 'k' cannot be used in index"),
    "division_of_index": (DECL + LOOP + " a[i / 2] = 1.;", 2, 31,
                          "index 'i / 2' is not affine"),
    "unsigned_type": ("unsigned a[N];\n" + LOOP + " a[i] = 1;", 1, 10,
                      "type 'unsigned' is not supported"),
    "switch": (DECL + LOOP + " switch (i) { default: a[i] = 1.; }", 2, 29,
               "switch statements are not supported inside the loop nest"),
    "break": (DECL + LOOP + " { a[i] = 1.; break; }", 2, 42,
              "break and continue are not supported"),
    "return": (DECL + LOOP + " { a[i] = 1.; return; }", 2, 42,
               "return statements are not supported"),
    "if_outside_nest": (DECL + "if (N) a[0] = 1.;\n" + LOOP + " a[i] = 1.;", 2, 1,
                        "if statements are not supported in a kernel"),
    "typedef": ("typedef double real;\nreal a[N];\n" + LOOP + " a[i] = 1.;", 1, 16,
                "typedef is not supported"),
    "function_prototype": ("double f(double);\n" + DECL + LOOP + " a[i] = 1.;", 1, 8,
                           "function declaration of 'f' is not supported"),
    "index_after_its_loop": ("double a[N], s;\nfor (int j = 0; j < N; ++j) {\n"
                             " for (int i = 0; i < N; ++i) a[i] = 1.;\n s = a[i];\n}",
                             4, 8, "loop index 'i' is used outside its loop"),
    "two_indices_declared": (DECL + "for (int i = 0, j = 0; i < N; ++i) a[i] = 1.;", 2, 1,
                             "a for loop may declare only one loop index"),
    "string_literal": (DECL + LOOP + ' a[i] = "x";', 2, 36,
                       "character and string literals are not supported"),
    "struct_member": (DECL + LOOP + " a[i] = p.x;", 2, 36, "unsupported expression 'p.x'"),
    "while_in_nest": (DECL + LOOP + " while (1) a[0] = 1.;", 2, 29,
                      "while and do-while loops are not supported"),
    "nested_function_call": (DECL + LOOP + " a[i] = sqrt(f(a[i]));", 2, 41,
                             "call of 'f' is not supported"),
    "subscripted_loop_index": (DECL + "int k[N];\n" + LOOP + " a[i] = i[0];", 3, 36,
                               "'i' is subscripted but is a loop index"),
    "bitwise_on_double": (DECL + LOOP + " a[i] = a[i] << 1;", 2, 36,
                          "operator '<<' needs integer operands"),
    "pointer_cast": (DECL + LOOP + " a[i] = *(double *)a;", 2, 37,
                     "pointer arithmetic ('*') is not supported"),
}


@pytest.mark.parametrize("case", sorted(INLINE))
def test_inline_errors(case):
    source, line, col, fragment = INLINE[case]
    err = error_of(source)
    assert fragment in err.message, err.message
    assert (err.location.file, err.location.line, err.location.col) == ("k.c", line, col)


def test_error_without_filename_uses_input_placeholder():
    err = error_of("double *a;\n" + LOOP + " a[i] = 1.;", None)
    assert str(err).startswith("<input>:1:8: pointer declaration")


def test_unbound_constant_on_bind_points_at_first_use():
    kernel = parse_kernel("double a[N][M];\n" + LOOP + " a[i][0] = 1.;", "k.c")
    with pytest.raises(KernelError) as info:
        kernel.bind({"N": 10})
    assert info.value.location == SourceLocation("k.c", 1, 13)
    assert "constant 'M' has no value" in info.value.message


def test_non_positive_size_after_bind_points_at_declaration():
    kernel = parse_kernel("double x;\ndouble a[N-2][N];\n" + LOOP + " a[0][i] = x;", "k.c")
    with pytest.raises(KernelError) as info:
        kernel.bind({"N": 2})
    assert info.value.location == SourceLocation("k.c", 2, 8)
    assert "array 'a' dimension 1 (N - 2) is 0 after binding N=2" in info.value.message


def test_bind_rejects_non_integer_values():
    kernel = parse_kernel(DECL + LOOP + " a[i] = 1.;", "k.c")
    with pytest.raises(KernelError) as info:
        kernel.bind({"N": 2.5})
    assert "must be an integer" in info.value.message
    assert info.value.location == SourceLocation("k.c", 1, 10)


def test_resolve_bindings_missing_constant_is_a_define_error():
    kernel = parse_kernel("double a[M][N];\nfor (int i = 0; i < N; ++i) a[0][i] = 1.;", "k.c")
    with pytest.raises(DefineError) as info:
        resolve_bindings(kernel, [{"N": 10}])
    assert info.value.location == SourceLocation("k.c", 1, 10)
    assert "constant 'M' has no value; pass -D M VALUE" in info.value.message
