"""Unit parsing, conversion and formatting (kerncraft.units)."""
from __future__ import annotations

import math

import pytest

from kerncraft import units
from kerncraft.errors import UnitError
from kerncraft.units import Quantity, format_quantity, parse_quantity


@pytest.mark.parametrize("text, value, unit", [
    ("2.5 GHz", 2.5e9, "Hz"),
    ("2.50 GHz", 2.5e9, "Hz"),
    ("2.20 GHz", 2.2e9, "Hz"),
    # Byte sizes: binary prefixes (CSX L1 = 64 sets * 8 ways * 64 B).
    ("32 kB", 64 * 8 * 64, "B"),
    ("32.00 kB", 32768, "B"),
    ("1 MB", 1024 * 16 * 64, "B"),
    ("14.00 MB", 14336 * 16 * 64, "B"),
    ("21.12 kB", 21.12 * 1024, "B"),
    ("64 B", 64, "B"),
    ("8.00 B", 8, "B"),
    ("0.00 B", 0, "B"),
    ("1 KiB", 1024, "B"),
    ("2 MiB", 2 * 1024**2, "B"),
    ("1 GB", 1024**3, "B"),
    # Rates: decimal prefixes (likwid-bench GB/s = 1e9 B/s).
    ("279.30 GB/s", 279.30e9, "B/s"),
    ("14.56 GB/s", 14.56e9, "B/s"),
    ("1 GiB/s", 2**30, "B/s"),
    ("64 B/cy", 64, "B/cy"),
    ("16 B/cy", 16, "B/cy"),
    ("2.76 GFLOP/s", 2.76e9, "FLOP/s"),
    ("3 MIt/s", 3e6, "It/s"),
    ("12.5 cy/CL", 12.5, "cy/CL"),
    ("4 cy", 4, "cy"),
    ("1.5 ms", 1.5e-3, "s"),
    # Plain numbers.
    ("8", 8, ""),
    ("2.5e9", 2.5e9, ""),
    (" 42 ", 42, ""),
    (64, 64, ""),
    (2.5, 2.5, ""),
])
def test_parse_quantity(text, value, unit):
    quantity = parse_quantity(text)
    assert quantity.unit == unit
    assert quantity.value == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("text", ["2.5 GHzz", "fast", "12 parsecs", "", "   ", "GHz",
                                  "2.5 G Hz", "1 mB", "1.2.3 GB", "--1 B"])
def test_parse_quantity_rejects_malformed(text):
    with pytest.raises(UnitError) as info:
        parse_quantity(text)
    assert repr(text) in str(info.value)


def test_parse_quantity_rejects_bool():
    with pytest.raises(UnitError):
        parse_quantity(True)


def test_expected_unit():
    assert parse_quantity("64", "B") == Quantity(64.0, "B")   # plain number taken as bytes
    assert units.parse_bytes("32 kB") == 32768
    assert units.parse_frequency("2.5 GHz") == 2.5e9
    assert units.parse_bandwidth("279.30 GB/s") == pytest.approx(279.3e9)
    assert units.parse_bytes_per_cycle("64 B/cy") == 64
    with pytest.raises(UnitError, match="expected 'Hz'"):
        parse_quantity("32 kB", "Hz")


def test_quantity_is_frozen():
    quantity = Quantity(1.0, "B")
    with pytest.raises(AttributeError):
        quantity.value = 2.0  # type: ignore[misc]
    assert float(quantity) == 1.0


# ---------------------------------------------------------------- conversions
# A kernel with 8 iterations per 64 B cache line (doubles), 2 FLOP/It, 2.5 GHz.
CLOCK, IT_PER_CL, FLOPS = 2.5e9, 8.0, 2.0


def test_iterations_per_cacheline():
    assert units.iterations_per_cacheline(64, 8) == 8
    assert units.iterations_per_cacheline(256, 4) == 64
    with pytest.raises(ValueError):
        units.iterations_per_cacheline(64, 0)


def test_cycle_conversions_by_hand():
    # 10 cy/CL = 1.25 cy/It; 2.5e9 cy/s / 1.25 cy/It = 2e9 It/s = 4e9 FLOP/s.
    assert units.cy_per_cl_to_cy_per_it(10, IT_PER_CL) == 1.25
    assert units.cy_per_it_to_cy_per_cl(1.25, IT_PER_CL) == 10
    assert units.cy_per_cl_to_it_per_s(10, CLOCK, IT_PER_CL) == pytest.approx(2e9)
    assert units.it_per_s_to_cy_per_cl(2e9, CLOCK, IT_PER_CL) == pytest.approx(10)
    assert units.cy_per_cl_to_flop_per_s(10, CLOCK, IT_PER_CL, FLOPS) == pytest.approx(4e9)
    assert units.flop_per_s_to_cy_per_cl(4e9, CLOCK, IT_PER_CL, FLOPS) == pytest.approx(10)
    assert units.cy_per_cl_to_it_per_s(0, CLOCK, IT_PER_CL) == math.inf
    with pytest.raises(ValueError):
        units.flop_per_s_to_cy_per_cl(1e9, CLOCK, IT_PER_CL, 0)


@pytest.mark.parametrize("unit, expected", [
    ("cy/CL", 10.0), ("cy/It", 1.25), ("It/s", 2e9), ("FLOP/s", 4e9)])
def test_convert_performance(unit, expected):
    kw = dict(clock=CLOCK, iterations_per_cl=IT_PER_CL, flops_per_iteration=FLOPS)
    converted = units.convert_performance(10.0, "cy/CL", unit, **kw)
    assert converted == pytest.approx(expected)
    assert units.convert_performance(converted, unit, "cy/CL", **kw) == pytest.approx(10.0)


def test_convert_performance_errors():
    with pytest.raises(UnitError, match="unknown performance unit"):
        units.convert_performance(1.0, "cy/CL", "furlongs", clock=CLOCK, iterations_per_cl=8)
    with pytest.raises(UnitError, match="FLOP/s is undefined"):
        units.convert_performance(1.0, "cy/CL", "FLOP/s", clock=CLOCK, iterations_per_cl=8)


def test_bandwidth_conversions():
    assert units.bytes_per_second_to_bytes_per_cycle(160e9, 2.5e9) == 64
    assert units.bytes_per_cycle_to_bytes_per_second(64, 2.5e9) == 160e9
    # One 64 B line at 14.56 GB/s on a 2.5 GHz core: 64 * 2.5 / 14.56 cy.
    assert units.transfer_cycles(64, 14.56e9, 2.5e9) == pytest.approx(10.989, abs=1e-3)
    with pytest.raises(ValueError):
        units.transfer_cycles(64, 0, 2.5e9)


# ---------------------------------------------------------------- formatting

@pytest.mark.parametrize("value, unit, text", [
    (2.76e9, "FLOP/s", "2.76 GFLOP/s"),
    (12.4e9, "B/s", "12.4 GB/s"),
    (12.449e9, "B/s", "12.4 GB/s"),
    (279.30e9, "B/s", "279 GB/s"),
    (999.7e6, "B/s", "1 GB/s"),
    (2.5e9, "Hz", "2.5 GHz"),
    (1.5e6, "It/s", "1.5 MIt/s"),
    (32768, "B", "32 KiB"),
    (14 * 2**20, "B", "14 MiB"),
    (1.5 * 2**20, "B", "1.5 MiB"),
    (512, "B", "512 B"),
    (0, "B", "0 B"),
    (12.345, "cy/CL", "12.3 cy/CL"),
    (1234.5, "cy/CL", "1230 cy/CL"),
    (0.5, "cy/It", "0.5 cy/It"),
    (64, "B/cy", "64 B/cy"),
    (1.5e-3, "s", "1.5 ms"),
    (42, "", "42"),
])
def test_format_quantity(value, unit, text):
    assert format_quantity(value, unit) == text


def test_format_quantity_digits_and_specials():
    assert format_quantity(2.7654e9, "FLOP/s", digits=4) == "2.765 GFLOP/s"
    assert format_quantity(math.inf, "cy/CL") == "inf cy/CL"
    assert format_quantity(-12.4e9, "B/s") == "-12.4 GB/s"
