"""Quantities with units: parsing, conversion and formatting, all in one place.

Machine files write their numbers as strings with units ('2.5 GHz', '32 kB',
'64 B/cy', '279.30 GB/s'); reports show numbers to people the same way; and
the models convert between the performance units a user can ask for
(cy/CL, cy/It, It/s, FLOP/s). Keeping all of this here means there is exactly
one definition of what 'k' or 'M' means and one formula per conversion.

Prefix decision
---------------
*Byte sizes* ('B' alone) use **binary** prefixes: ``k``/``K`` = 1024,
``M`` = 1024**2, ``G`` = 1024**3, ``T`` = 1024**4. Machine files state cache
sizes this way: the Cascade Lake L1 of '32 kB' is 64 sets x 8 ways x 64 B =
32768 B and its L3 slice group of '14.00 MB' is 14336 x 16 x 64 B = 14680064 B.
Reading 'kB' as 1000 B would make the stated size disagree with the geometry.

*Rates and everything else* ('Hz', 'B/s', 'B/cy', 'FLOP/s', 'It/s', ...) use
**decimal** SI prefixes: 'GB/s' = 1e9 B/s, as likwid-bench reports
bandwidths, and 'GHz' = 1e9 Hz.

The IEC prefixes ``Ki``, ``Mi``, ``Gi``, ``Ti`` are accepted with any unit and
are always binary ('1 MiB', '2 GiB/s'). Sub-unit prefixes (``m``, ``u``,
``µ``, ``n``) are accepted only for seconds, because '1 mB' is nonsense.

Values are stored in base units as floats; :class:`Quantity` carries the base
unit so that a caller can check it got the kind of quantity it expected.

Performance units
-----------------
The internal time unit of every model is core cycles per cache line of work
(cy/CL). With ``clock`` in Hz, ``iterations_per_cacheline`` (how many loop
iterations make up one cache line of work) and ``flops_per_iteration``::

    cy/It  = cy/CL / iterations_per_cacheline
    It/s   = clock * iterations_per_cacheline / (cy/CL)
    FLOP/s = It/s * flops_per_iteration
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from kerncraft.errors import UnitError

__all__ = [
    "Quantity", "BASE_UNITS", "PERFORMANCE_UNITS",
    "parse_quantity", "parse_bytes", "parse_frequency", "parse_bandwidth",
    "parse_bytes_per_cycle",
    "iterations_per_cacheline", "cy_per_cl_to_cy_per_it", "cy_per_it_to_cy_per_cl",
    "cy_per_cl_to_it_per_s", "it_per_s_to_cy_per_cl",
    "cy_per_cl_to_flop_per_s", "flop_per_s_to_cy_per_cl",
    "convert_performance", "bytes_per_second_to_bytes_per_cycle",
    "bytes_per_cycle_to_bytes_per_second", "transfer_cycles",
    "format_quantity", "format_machine_size",
]


@dataclass(frozen=True)
class Quantity:
    """A number in base units (``value``) and the base unit's name (``unit``).

    ``unit`` is '' for a plain number, otherwise one of :data:`BASE_UNITS`.
    """

    value: float
    unit: str

    def __float__(self) -> float:
        return float(self.value)


#: Units this module understands, without prefix. Longer names are matched
#: first so that 'B/cy' is not read as a prefixed 'cy'.
BASE_UNITS: tuple[str, ...] = (
    "FLOP/cy", "FLOP/s", "FLOP/It", "FLOP", "cy/CL", "cy/It", "It/s", "It/cy",
    "B/cy", "B/s", "B/It", "Hz", "It", "CL", "cy", "B", "s",
)

#: Units in which a model result can be expressed (``--unit``).
PERFORMANCE_UNITS: tuple[str, ...] = ("cy/CL", "cy/It", "It/s", "FLOP/s")

_DECIMAL = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BINARY = {"": 1, "k": 2**10, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50}
_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50}
_SUB = {"m": 1e-3, "u": 1e-6, "µ": 1e-6, "n": 1e-9}

_NUMBER_RE = re.compile(
    r"^\s*(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(?P<unit>\S*)\s*$")


def _prefix_factor(prefix: str, base: str) -> float | None:
    """Multiplier for ``prefix`` in front of ``base``; None if not allowed."""
    if prefix in _IEC:
        return float(_IEC[prefix])
    if base == "B":
        return float(_BINARY[prefix]) if prefix in _BINARY else None
    if base == "s" and prefix in _SUB:
        return _SUB[prefix]
    return _DECIMAL.get(prefix)


@lru_cache(maxsize=256)
def _split_unit(unit: str) -> tuple[str, float] | None:
    """Split '(prefix)(base)' into (base, factor); None if not a known unit."""
    for base in BASE_UNITS:
        if unit.endswith(base):
            factor = _prefix_factor(unit[: len(unit) - len(base)], base)
            if factor is not None:
                return base, factor
    return None


def parse_quantity(text: str | int | float, expected: str | None = None) -> Quantity:
    """Parse '2.5 GHz', '32 kB', '64 B/cy', '279.30 GB/s', '8' ... into a Quantity.

    Plain numbers (int/float or a numeric string without unit) give unit ''.
    If ``expected`` is a base unit, the result must have that unit; a plain
    number is then taken to be already in that unit (old machine files write
    'cacheline size: 64'). Raises :class:`UnitError` naming the string.
    """
    if isinstance(text, bool):
        raise UnitError(f"expected a quantity, got boolean {text!r}")
    if isinstance(text, (int, float)):
        value, unit = float(text), ""
    else:
        match = _NUMBER_RE.match(str(text))
        if match is None:
            raise UnitError(f"cannot parse quantity {text!r}: expected a number "
                            "optionally followed by a unit such as 'GHz', 'kB' or 'GB/s'")
        value, unit = float(match["num"]), match["unit"]
        if unit:
            split = _split_unit(unit)
            if split is None:
                raise UnitError(f"unknown unit {unit!r} in quantity {text!r} "
                                f"(known units: {', '.join(BASE_UNITS)} with SI/IEC prefixes)")
            unit, factor = split
            value *= factor
    if expected is not None and unit != expected:
        if unit == "":
            unit = expected
        else:
            raise UnitError(f"quantity {text!r} has unit {unit!r}, expected {expected!r}")
    return Quantity(value, unit)


def parse_bytes(text: str | int | float) -> float:
    """Bytes from '32 kB' (binary prefixes), '14.00 MB', '64 B' or a plain number."""
    return parse_quantity(text, "B").value


def parse_frequency(text: str | int | float) -> float:
    """Hz from '2.5 GHz' or a plain number in Hz."""
    return parse_quantity(text, "Hz").value


def parse_bandwidth(text: str | int | float) -> float:
    """B/s from '279.30 GB/s' (decimal prefixes) or a plain number in B/s."""
    return parse_quantity(text, "B/s").value


def parse_bytes_per_cycle(text: str | int | float) -> float:
    """B/cy from '64 B/cy' or a plain number."""
    return parse_quantity(text, "B/cy").value


# ---------------------------------------------------------------- conversions

def iterations_per_cacheline(cacheline_size: float, bytes_per_iteration: float) -> float:
    """Loop iterations that make up one cache line of work.

    ``bytes_per_iteration`` is the element size of the stream that defines a
    unit of work (usually the largest data type of the innermost loop).
    """
    if bytes_per_iteration <= 0:
        raise ValueError("bytes_per_iteration must be positive")
    return cacheline_size / bytes_per_iteration


def cy_per_cl_to_cy_per_it(cy_per_cl: float, iterations_per_cl: float) -> float:
    """Cycles per cache line -> cycles per iteration."""
    return cy_per_cl / iterations_per_cl


def cy_per_it_to_cy_per_cl(cy_per_it: float, iterations_per_cl: float) -> float:
    """Cycles per iteration -> cycles per cache line."""
    return cy_per_it * iterations_per_cl


def cy_per_cl_to_it_per_s(cy_per_cl: float, clock: float, iterations_per_cl: float) -> float:
    """Cycles per cache line -> iterations per second (inf for zero cycles)."""
    if cy_per_cl == 0:
        return math.inf
    return clock * iterations_per_cl / cy_per_cl


def it_per_s_to_cy_per_cl(it_per_s: float, clock: float, iterations_per_cl: float) -> float:
    """Iterations per second -> cycles per cache line (inf for zero rate)."""
    if it_per_s == 0:
        return math.inf
    return clock * iterations_per_cl / it_per_s


def cy_per_cl_to_flop_per_s(cy_per_cl: float, clock: float, iterations_per_cl: float,
                            flops_per_iteration: float) -> float:
    """Cycles per cache line -> floating-point operations per second."""
    return cy_per_cl_to_it_per_s(cy_per_cl, clock, iterations_per_cl) * flops_per_iteration


def flop_per_s_to_cy_per_cl(flop_per_s: float, clock: float, iterations_per_cl: float,
                            flops_per_iteration: float) -> float:
    """Floating-point operations per second -> cycles per cache line."""
    if flops_per_iteration == 0:
        raise ValueError("cannot convert FLOP/s to cy/CL for a kernel without FLOPs")
    return it_per_s_to_cy_per_cl(flop_per_s / flops_per_iteration, clock, iterations_per_cl)


def convert_performance(value: float, from_unit: str, to_unit: str, *, clock: float,
                        iterations_per_cl: float, flops_per_iteration: float = 0.0) -> float:
    """Convert between any two of cy/CL, cy/It, It/s and FLOP/s.

    Goes through cy/CL, the internal unit, so each formula exists only once.
    """
    for unit in (from_unit, to_unit):
        if unit not in PERFORMANCE_UNITS:
            raise UnitError(f"unknown performance unit {unit!r} "
                            f"(choose from {', '.join(PERFORMANCE_UNITS)})")
    if from_unit == to_unit:
        return value
    if to_unit == "FLOP/s" and flops_per_iteration == 0:
        raise UnitError("FLOP/s is undefined for a kernel without floating-point operations")
    to_cycles = {
        "cy/CL": lambda v: v,
        "cy/It": lambda v: cy_per_it_to_cy_per_cl(v, iterations_per_cl),
        "It/s": lambda v: it_per_s_to_cy_per_cl(v, clock, iterations_per_cl),
        "FLOP/s": lambda v: flop_per_s_to_cy_per_cl(v, clock, iterations_per_cl,
                                                    flops_per_iteration),
    }
    from_cycles = {
        "cy/CL": lambda c: c,
        "cy/It": lambda c: cy_per_cl_to_cy_per_it(c, iterations_per_cl),
        "It/s": lambda c: cy_per_cl_to_it_per_s(c, clock, iterations_per_cl),
        "FLOP/s": lambda c: cy_per_cl_to_flop_per_s(c, clock, iterations_per_cl,
                                                    flops_per_iteration),
    }
    return from_cycles[to_unit](to_cycles[from_unit](value))


def bytes_per_second_to_bytes_per_cycle(bandwidth: float, clock: float) -> float:
    """B/s -> B/cy at the given core clock (Hz)."""
    return bandwidth / clock


def bytes_per_cycle_to_bytes_per_second(bytes_per_cycle: float, clock: float) -> float:
    """B/cy -> B/s at the given core clock (Hz)."""
    return bytes_per_cycle * clock


def transfer_cycles(nbytes: float, bandwidth: float, clock: float) -> float:
    """Core cycles needed to move ``nbytes`` at ``bandwidth`` B/s.

    This is how a measured bandwidth turns into an ECM/Roofline time:
    e.g. one 64 B cache line at 14.56 GB/s on a 2.5 GHz core costs
    64 * 2.5e9 / 14.56e9 = 10.99 cy.
    """
    if bandwidth <= 0:
        raise ValueError("bandwidth must be positive")
    return nbytes * clock / bandwidth


# ---------------------------------------------------------------- formatting

_DECIMAL_STEPS = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
_BINARY_STEPS = ((2.0**50, "Pi"), (2.0**40, "Ti"), (2.0**30, "Gi"), (2.0**20, "Mi"),
                 (2.0**10, "Ki"))
_UNPREFIXED = {"cy", "cy/CL", "cy/It", "CL", "It", "B/cy", "FLOP/cy", "It/cy", "B/It",
               "FLOP/It"}


def _significant(value: float, digits: int) -> str:
    """``value`` rounded to ``digits`` significant digits, never in e-notation."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    rounded = float(f"{value:.{digits}g}")
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(rounded)))))
    text = f"{rounded:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def format_quantity(value: float, unit: str, digits: int = 3) -> str:
    """Format a base-unit value for people: '2.76 GFLOP/s', '12.4 GB/s', '32 KiB'.

    Byte sizes ('B') get binary IEC prefixes (so '32 KiB' is unambiguous);
    rates get decimal SI prefixes; cycle-based units (cy/CL, cy/It, B/cy...)
    are never prefixed because their magnitudes are small and people compare
    them directly. Seconds also get m/µ/n. ``digits`` significant digits.
    """
    if not math.isfinite(value):
        return f"{value} {unit}".strip()
    magnitude = abs(value)
    if unit in _UNPREFIXED or not unit or magnitude == 0:
        return f"{_significant(value, digits)} {unit}".strip()
    steps = _BINARY_STEPS if unit == "B" else _DECIMAL_STEPS
    if unit == "s" and magnitude < 1:
        steps = ((1e-3, "m"), (1e-6, "µ"), (1e-9, "n"))
        for factor, prefix in steps:
            if magnitude >= factor * (1 - 0.5 * 10 ** (1 - digits)):
                return f"{_significant(value / factor, digits)} {prefix}{unit}"
        return f"{_significant(value / 1e-9, digits)} n{unit}"
    for factor, prefix in steps:
        # Round first so that 999.7e6 is shown as '1 G..' and not '1000 M..'.
        if float(_significant(magnitude / factor, digits)) >= 1:
            return f"{_significant(value / factor, digits)} {prefix}{unit}"
    return f"{_significant(value, digits)} {unit}"


def format_machine_size(nbytes: float) -> str:
    """A byte size as machine files write it: binary prefixes, two decimals
    ('48.00 kB' = 48 x 1024 B, see the module doc), whole bytes below 1 kB."""
    for factor, unit in ((1024**3, "GB"), (1024**2, "MB"), (1024, "kB")):
        if nbytes >= factor:
            return f"{nbytes / factor:.2f} {unit}"
    return f"{nbytes:.0f} B"
