"""-D constant bindings: ``-D KEY VALUE`` as in Kerncraft 0.8.18.

VALUE is a positive integer (``1000``) or a range ``start-stop[:num[log[base]]]``
(Kerncraft's ``AppendStringRange``):

* ``start-stop`` alone is every integer from start to stop, both included
  (``23-42`` -> 23, 24, ..., 42: 20 points);
* ``start-stop:num`` is num points spaced linearly between start and stop, both
  included (``10-100:4`` -> 10, 40, 70, 100);
* ``start-stop:numlog`` spaces them geometrically (``1-1000:4log`` -> 1, 10, 100,
  1000), ``logB`` in base B (``2-16:4log2``). Geometric spacing between two fixed
  endpoints does not depend on the base; as in Kerncraft the base only enters the
  floating-point arithmetic. Kerncraft's pattern also takes a colon before ``log``
  and before the base (``10-100:4:log``, ``10-100:4log:2``); so do we;
* points between the endpoints are rounded as Kerncraft rounds them (Python's
  ``round``: a tie goes to the even integer, ``10-15:3`` -> 10, 12, 15); duplicates
  that rounding produces are dropped, order kept (Kerncraft keeps them and runs
  the point twice).

Several -D options give the cartesian product of their values, first key
slowest (:func:`expand_defines`). A key given more than once sweeps the values
of all its options (``-D N 100 -D N 200`` -> N = 100 and 200), as in Kerncraft.
The key ``.`` gives a default for every constant of the kernel without an
explicit -D (:func:`resolve_bindings`). A key the kernel does not use is ignored
(:func:`unused_define_keys` names them, so the command line can warn).

The value ``0`` (``-D . 0``, Kerncraft's way to ask for the layer conditions in
symbols) leaves the constant symbolic; only :func:`expand_defines` with
``symbolic=True`` (the command line) accepts it, and only ``-p LC`` reports it.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping

from kerncraft.errors import DefineError, SourceLocation

if TYPE_CHECKING:  # pragma: no cover
    from kerncraft.kernel.model import KernelModel

DEFAULT_KEY = "."
#: The -D value that leaves a constant symbolic (Kerncraft's ``-D . 0``).
SYMBOLIC = 0

_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")
# Kerncraft's pattern allows a colon before 'log' and before the base as well
_RANGE_RE = re.compile(
    r"^(?P<start>[+-]?\d+)-(?P<stop>[+-]?\d+)"
    r"(?::(?P<num>[+-]?\d+)(?P<log>:?log(?::?(?P<base>\d+))?)?)?$")


@dataclass(frozen=True)
class Define:
    """One parsed ``-D KEY VALUE``: the key and its value(s) in order."""

    key: str
    values: tuple[int, ...]
    text: str = ""


def parse_define(key: str, value: str, symbolic: bool = False) -> Define:
    """Parse one -D binding; raise DefineError with a message naming the option.
    ``symbolic`` accepts the value 0 (:data:`SYMBOLIC`: the constant stays a symbol)."""
    if key != DEFAULT_KEY and not _KEY_RE.match(key or ""):
        raise DefineError(f"-D {key} {value}: '{key}' is not a valid constant name "
                          "(a C identifier, or '.' for the default of all constants)")
    text = value.strip()
    if re.fullmatch(r"[+-]?\d+", text):
        if symbolic and int(text) == SYMBOLIC:
            return Define(key, (SYMBOLIC,), value)
        return Define(key, (_positive(key, value, int(text), "value"),), value)
    match = _RANGE_RE.match(text)
    if match is None:
        raise DefineError(f"-D {key} {value}: value must be a positive integer or a range "
                          "start-stop[:num[log[base]]], e.g. 1000, 23-42, 10-100:4 or "
                          "1-1000:4log")
    start = _positive(key, value, int(match["start"]), "range start")
    stop = _positive(key, value, int(match["stop"]), "range stop")
    if stop < start:
        raise DefineError(f"-D {key} {value}: range stop {stop} is smaller than start {start}")
    if match["num"] is None:        # every integer of the range
        _check_range_size(key, value, stop - start + 1)
        return Define(key, tuple(range(start, stop + 1)), value)
    num = int(match["num"])
    if num < 1:
        raise DefineError(f"-D {key} {value}: number of points must be at least 1, got {num}")
    _check_range_size(key, value, num)
    if match["log"] is not None:
        base = int(match["base"]) if match["base"] else 10
        if base < 2:
            raise DefineError(f"-D {key} {value}: logarithm base must be at least 2, "
                              f"got {base}")
        points = _log_points(start, stop, num, base)
    else:
        points = _linear_points(start, stop, num)
    return Define(key, tuple(dict.fromkeys(points)), value)


def _check_range_size(key: str, value: str, count: int) -> None:
    if count > MAX_RANGE_POINTS:   # built eagerly: bound it before building
        raise DefineError(f"-D {key} {value}: a range has at most {MAX_RANGE_POINTS:,} "
                          f"points, got {count:,}")


def _positive(key: str, value: str, number: int, what: str) -> int:
    if number < 1:
        raise DefineError(f"-D {key} {value}: {what} {number} is not positive; constants "
                          "are sizes and must be at least 1")
    return number


# Both spacings compute each point as Kerncraft does (start plus i steps of one
# float step, rounded by round()), so that a point on a .5 tie rounds the same way.
def _linear_points(start: int, stop: int, num: int) -> list[int]:
    if num == 1:        # Kerncraft refuses num 1; the start is the natural answer
        return [start]
    step = (stop - start) / (num - 1)
    return [int(round(start + k * step)) for k in range(num)]


def _log_points(start: int, stop: int, num: int, base: int) -> list[int]:
    if num == 1:
        return [start]
    lo, hi = math.log(start, base), math.log(stop, base)
    step = (hi - lo) / (num - 1)
    inner = [int(round(base ** (lo + k * step))) for k in range(1, num - 1)]
    return [start, *inner, stop]   # exact endpoints despite floating-point logs


def expand_defines(pairs: Iterable[tuple[str, str]], max_points: int | None = None,
                   symbolic: bool = False) -> list[dict[str, int]]:
    """Cartesian product of all -D values, the first key varying slowest.

    ``[("N", "10-30:3"), ("M", "1-2:2")]`` gives N=10,M=1; N=10,M=2; N=20,M=1; ...
    A key given again adds its values (``[("N", "100"), ("N", "200")]``: two points).
    No pairs give one empty point, so callers can always loop over the result.
    More than ``max_points`` points (default :data:`MAX_POINTS`, 10,000; the CLI's
    ``--max-points``) is refused before any is built (:func:`check_point_count`).
    ``symbolic`` accepts the value 0 (see :func:`parse_define`).
    """
    values: dict[str, tuple[int, ...]] = {}
    for key, value in pairs:
        define = parse_define(key, value, symbolic)
        values[define.key] = tuple(dict.fromkeys(values.get(define.key, ()) + define.values))
    check_point_count(values, MAX_POINTS if max_points is None else max_points)
    keys = list(values)
    return [dict(zip(keys, combo)) for combo in itertools.product(*values.values())]


def unused_define_keys(constant_names: Iterable[str],
                       pairs: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The -D keys (in command-line order, once each) that name no constant of the
    kernel; Kerncraft ignores them silently, we ignore them with a warning (a typo).

    >>> unused_define_keys(["M", "N"], [("N", "10"), ("n", "5"), (".", "1"), ("n", "6")])
    ('n',)
    """
    names = set(constant_names)
    return tuple(dict.fromkeys(key for key, _ in pairs
                               if key != DEFAULT_KEY and key not in names))


def unused_define_warnings(constant_names: Iterable[str],
                           pairs: Iterable[tuple[str, str]]) -> list[str]:
    """One warning per -D key the kernel does not use (:func:`unused_define_keys`).

    >>> unused_define_warnings(["M", "N"], [("n", "5")])
    ["-D n: the kernel has no constant 'n' (its constants: M, N); ignored"]
    """
    names = tuple(constant_names)
    known = ", ".join(names) or "none"
    return [f"-D {key}: the kernel has no constant '{key}' (its constants: {known}); ignored"
            for key in unused_define_keys(names, pairs)]


def symbolic_names(points: Iterable[Mapping[str, int]]) -> tuple[str, ...]:
    """The keys some point leaves symbolic (value :data:`SYMBOLIC`), sorted.

    >>> symbolic_names([{"N": 0, "M": 10}, {"N": 0, "M": 20}])
    ('N',)
    """
    return tuple(sorted({k for p in points for k, v in p.items() if v == SYMBOLIC}))


def resolve_bindings(kernel: "KernelModel",
                     define_points: Iterable[Mapping[str, int]]) -> list[dict[str, int]]:
    """Complete each point to a value for every constant of ``kernel``.

    Explicit keys win over the ``.`` default; keys the kernel does not use are
    dropped (one command line may serve several kernels). A constant without
    any value raises DefineError at its first use in the kernel. Points that
    become identical (e.g. a ``.`` range shadowed by explicit keys) are merged.
    """
    resolved = complete_points(kernel.constant_names, define_points)
    if isinstance(resolved, str):
        const = next(c for c in kernel.constants if c.name == resolved)
        raise DefineError(
            f"constant '{const.name}' has no value; pass -D {const.name} VALUE "
            f"(or -D . VALUE as a default for all constants)",
            SourceLocation(kernel.filename, const.line, const.col))
    return resolved


def complete_points(names: Iterable[str], define_points: Iterable[Mapping[str, int]]
                    ) -> list[dict[str, int]] | str:
    """:func:`resolve_bindings` by constant names alone (the warm path of the
    command line has no parsed kernel); the name of a constant without a value
    instead of the list."""
    names = tuple(names)
    resolved: list[dict[str, int]] = []
    seen: set[tuple] = set()        # a list look-up per point is quadratic in long sweeps
    for point in define_points:
        binding: dict[str, int] = {}
        for name in names:
            if name in point:
                binding[name] = point[name]
            elif DEFAULT_KEY in point:
                binding[name] = point[DEFAULT_KEY]
            else:
                return name
        key = tuple(binding.items())
        if key not in seen:
            seen.add(key)
            resolved.append(binding)
    return resolved


#: Most points a -D sweep may have unless the caller allows more (the CLI's
#: ``--max-points N``); each point runs every model, so 10,000 points of ECM take
#: minutes. A single range is built eagerly and has at most MAX_RANGE_POINTS points.
MAX_POINTS = 10_000
MAX_RANGE_POINTS = 1_000_000


def check_point_count(values: Mapping[str, tuple[int, ...]], max_points: int) -> int:
    """The number of points of the cartesian product of ``values``; more than
    ``max_points`` raises DefineError naming the option that allows it."""
    count = math.prod(len(v) for v in values.values())
    if count > max_points:
        sizes = " x ".join(f"{len(v)} ({key})" for key, v in values.items())
        raise DefineError(f"the -D values give {count:,} points ({sizes}), more than the "
                          f"limit of {max_points:,}; pass --max-points {count} to run them all")
    return count
