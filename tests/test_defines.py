"""-D bindings: values, ranges, products, the '.' default and every error."""
from __future__ import annotations

import pytest

from kerncraft.errors import DefineError
from kerncraft.kernel.defines import expand_defines, parse_define, resolve_bindings
from kerncraft.kernel.parser import parse_kernel


@pytest.mark.parametrize("value, points", [
    ("1000", (1000,)),
    (" 42 ", (42,)),
    ("10-100:4", (10, 40, 70, 100)),
    ("1-1000:4log", (1, 10, 100, 1000)),
    ("2-16:4log2", (2, 4, 8, 16)),
    ("1-1000:4log10", (1, 10, 100, 1000)),
    ("1-10", tuple(range(1, 11))),                     # no num: every integer (Kerncraft)
    ("10-100", tuple(range(10, 101))),                 # 91 points, not 10
    ("1-100:5log", (1, 3, 10, 32, 100)),               # rounded to nearest
    ("10-13:7", (10, 11, 12, 13)),                     # rounding duplicates dropped
    ("5-5:3", (5,)),
    ("7-100:1", (7,)),
    ("1-2:3", (1, 2)),                                 # round(1.5) = 2 (tie to even), deduplicated
])
def test_parse_define_values(value, points):
    define = parse_define("N", value)
    assert define.key == "N"
    assert define.values == points


@pytest.mark.parametrize("key, value, fragment", [
    ("N", "abc", "must be a positive integer or a range"),
    ("N", "1.5", "must be a positive integer or a range"),
    ("N", "", "must be a positive integer or a range"),
    ("N", "0", "value 0 is not positive"),
    ("N", "-5", "value -5 is not positive"),
    ("N", "0-10", "range start 0 is not positive"),
    ("N", "100-10", "range stop 10 is smaller than start 100"),
    ("N", "10-100:0", "number of points must be at least 1, got 0"),
    ("N", "10-100:-2", "number of points must be at least 1, got -2"),
    ("N", "10-100:4log1", "logarithm base must be at least 2, got 1"),
    ("N", "10-100:4lin", "must be a positive integer or a range"),
    ("N", "10-", "must be a positive integer or a range"),
    ("N", "10:4", "must be a positive integer or a range"),
    ("2N", "10", "'2N' is not a valid constant name"),
    ("", "10", "is not a valid constant name"),
])
def test_parse_define_errors(key, value, fragment):
    with pytest.raises(DefineError) as info:
        parse_define(key, value)
    assert fragment in info.value.message
    assert info.value.message.startswith(f"-D {key} {value}: ")
    assert info.value.exit_code == 2


def test_expand_is_a_cartesian_product_first_key_slowest():
    points = expand_defines([("N", "10-30:3"), ("M", "1-2:2")])
    assert points == [{"N": 10, "M": 1}, {"N": 10, "M": 2}, {"N": 20, "M": 1},
                      {"N": 20, "M": 2}, {"N": 30, "M": 1}, {"N": 30, "M": 2}]


def test_expand_edge_cases():
    assert expand_defines([]) == [{}]
    assert expand_defines([("N", "5"), ("N", "7")]) == [{"N": 5}, {"N": 7}]   # both swept
    assert expand_defines([(".", "100"), ("N", "1-2:2")]) == [{".": 100, "N": 1},
                                                              {".": 100, "N": 2}]


KERNEL = parse_kernel("double a[M][N];\nfor (int j = 0; j < M; ++j)\n"
                      " for (int i = 0; i < N; ++i) a[j][i] = 1.;", "k.c")


def test_resolve_with_default_key():
    points = expand_defines([(".", "100"), ("N", "10-20:2")])
    assert resolve_bindings(KERNEL, points) == [{"M": 100, "N": 10}, {"M": 100, "N": 20}]


def test_resolve_ignores_unused_keys_and_merges_duplicates():
    points = expand_defines([("M", "5"), ("N", "6"), ("L", "1-3:3"), (".", "1-2:2")])
    assert resolve_bindings(KERNEL, points) == [{"M": 5, "N": 6}]


def test_resolve_output_binds_cleanly():
    (binding,) = resolve_bindings(KERNEL, expand_defines([(".", "8")]))
    assert KERNEL.bind(binding).iteration_count() == 64


def test_resolve_missing_constant():
    with pytest.raises(DefineError) as info:
        resolve_bindings(KERNEL, expand_defines([("N", "10")]))
    assert str(info.value) == ("k.c:1:10: constant 'M' has no value; pass -D M VALUE "
                               "(or -D . VALUE as a default for all constants)")
