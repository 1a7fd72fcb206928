"""Set sampling for the SIM predictor: simulate a few classes of sets, stop when they agree.

Why it is exact per set
-----------------------
Sets of a cache never interact, and when a factor ``F`` divides every level's
set count, a line ``x`` maps to a set ``s`` with ``s % F == x % F`` at every
level. The lines of one *class* ``x % F == r`` therefore meet exactly the sets
of class ``r`` everywhere, and simulating only those lines
(:func:`kerncraft.cache.line_chunks.line_chunks` with ``sample=F, residue=r``)
reproduces every event of those sets of the full simulation. What sampling
adds is the estimate of the other classes.

Why the estimate is good, and when it is checked
------------------------------------------------
Dense streams (every line of a row touched, no stride) that move in lockstep
give every set the same sequence of events shifted in time, so each class
sees the same traffic up to row starts, halos and the window's edges. Classes
are simulated one after the other (:func:`class_order`: 0, then residues
that differ from the ones before in their low bits) with the same warm-up
and window, and each gives an estimate of the whole (its counts times
``F``). After at least ``MIN_CLASSES`` classes the simulation stops once the
standard error of the mean of every judged quantity (loads and stores of
every level, non-temporal lines) is at most ``PRECISION`` of its value (or of
``FLOOR`` lines per unit for small ones), with the finite-population
correction: all ``F`` classes are the full simulation, error zero.

When it is used (:func:`sampling_factor`)
-----------------------------------------
Only where a simulation is long (data and total capacity of at least
``SAMPLE_MIN_LINES`` lines), every stream is dense and moves with the
innermost loop (no strided and no loop-invariant stream such as ``x[j]``
under an inner ``i``, whose single line per row would make some classes
special) and no statement sits outside the innermost loop. ``F`` is the
largest power of two up to ``MAX_FACTOR`` that divides every level's set
count and leaves each class at least ``MIN_SETS_PER_CLASS`` sets of every
level. The SIM predictor also checks that the kept accesses are a fraction
``1/F`` of all (:class:`kerncraft.cache.line_chunks.Coverage`), and falls back
to the full simulation if not.
"""
from __future__ import annotations

import math
from typing import Sequence

from kerncraft.cache.line_chunks import LineClass
from kerncraft.cache.sim_levels import LevelSpec

__all__ = ["MIN_CLASSES", "PRECISION", "line_classes", "precise_enough", "sampling_modulus"]

MAX_MODULUS = 64
MAX_CLASSES = 8
SAMPLE_MIN_LINES = 1 << 15
MIN_SETS_PER_CLASS = 4
MIN_CLASSES = 2
PRECISION = 0.002
FLOOR = 0.01


def sampling_modulus(levels: Sequence[LevelSpec], gen) -> int:
    """The modulus of the classes of lines for this kernel (``gen``: its
    :class:`~kerncraft.cache.addresses.UnitGenerator`) and hierarchy; 1: no sampling."""
    capacity = sum(s.lines for s in levels)
    data = sum(lay.size_bytes for lay in gen.layout.values()) // levels[0].cl_size
    if min(capacity, data) < SAMPLE_MIN_LINES or gen.outer_streams or not gen.streams:
        return 1
    row = next(gen.walker.rows())
    if any(strided or d == 0 for _, _, _, d, strided in gen.row_streams(row, gen.streams)):
        return 1
    modulus = MAX_MODULUS
    while modulus > 1 and not all(
            s.sets % modulus == 0
            and s.sets // min(modulus, MAX_CLASSES) >= MIN_SETS_PER_CLASS for s in levels):
        modulus //= 2
    return modulus


def line_classes(modulus: int) -> list[LineClass]:
    """The classes (at most ``MAX_CLASSES``) in the order they are simulated (module doc).

    Residue ``r = C q + p`` (``C`` classes) belongs to class ``(p - q) % C``, a Latin
    square: every class holds one residue of each ``p`` and of each ``q``, so a
    structure with a period of ``C`` lines, or of ``modulus``, meets all classes alike.
    Classes come in complementary pairs ``(c, C - 1 - c)`` (they differ in every bit),
    the pairs in bit-reversed order, so that the first two, four, ... classes are
    balanced in every bit of their number.
    """
    count = min(modulus, MAX_CLASSES)
    bits = (count // 2).bit_length() - 1
    order = []
    for i in range(count // 2):
        c = int(format(i, f"0{bits}b")[::-1], 2) if bits else 0
        order += [c, count - 1 - c]
    return [LineClass(modulus, frozenset(count * q + (c + q) % count
                                         for q in range(modulus // count))) for c in order]


def precise_enough(estimates: Sequence[Sequence[float]], classes: int) -> bool:
    """Whether the mean of the ``estimates`` (one row of quantities per class simulated,
    of ``classes`` in all) is within ``PRECISION`` (one standard error) of the full
    simulation's value."""
    k = len(estimates)
    if k >= classes:
        return True
    if k < MIN_CLASSES:
        return False
    correction = math.sqrt((classes - k) / (classes - 1) / k)
    for values in zip(*estimates):
        mean = sum(values) / k
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (k - 1))
        if sd * correction > PRECISION * max(abs(mean), FLOOR):
            return False
    return True
