"""Compiler flags for a core, with the installed compiler asked what it knows.

Why probe: the best flags name the core itself (``-march=znver5``), but a
compiler older than the core rejects that name (gcc 12 knows neither znver4
nor znver5, gcc 12 has no emeraldrapids or graniterapids), and a machine file
whose flags its own compiler refuses makes every prediction fail. So each
candidate is tried with ``COMPILER -march=X -E -x c /dev/null`` (preprocessing
an empty file: fast, no output) and the first accepted one is used: the core's
own ``-march``, else the x86-64 ISA level of the core (``x86-64-v4`` with
AVX-512, ``x86-64-v3`` with AVX2/FMA) with ``-mtune`` of the nearest core the
compiler knows.

Vector width: gcc and clang prefer 256-bit vectors even with AVX-512.
``-mprefer-vector-width=512`` is added only where 512-bit instructions run at
full width (Intel server cores with two 512-bit FMA units, Zen 5 server and
desktop cores); Zen 4 splits them into two halves, Zen 1-3 have no AVX-512.
What was measured counts over the table (:func:`full_width_512`): more than one
512-bit FMA per cycle can only come from two full-width units.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Callable, Sequence

from kerncraft.measure.uarch import Microarchitecture

__all__ = ["CompilerFlags", "Probe", "accepts_option", "choose_flags", "choose_compiler_flags",
           "full_width_512"]

#: (compiler, option) -> True if accepted, False if rejected, None if not installed.
Probe = Callable[[str, str], "bool | None"]


@dataclass(frozen=True)
class CompilerFlags:
    """The flags written for one compiler and how they were chosen."""

    compiler: str
    flags: str
    probed: bool                   # the compiler is installed and was asked
    note: str                      # what was probed and what the compiler said


@functools.lru_cache(maxsize=64)
def accepts_option(compiler: str, option: str) -> bool | None:
    """Does ``compiler`` accept ``option`` (preprocessing an empty C file)?"""
    path = shutil.which(compiler)
    if path is None:
        return None
    try:
        out = subprocess.run([path, option, "-E", "-x", "c", os.devnull],
                             capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False               # a compiler that cannot even preprocess accepts nothing
    return out.returncode == 0


def _compose(march: str, mtune: str | None, wide: bool) -> str:
    parts = ["-O3", f"-march={march}"]
    if mtune:
        parts.append(f"-mtune={mtune}")
    if wide:
        parts.append("-mprefer-vector-width=512")
    # -ffreestanding keeps gcc from turning loops into memset/memcpy calls
    return " ".join([*parts, "-ffreestanding"])


def choose_flags(uarch: Microarchitecture, compiler: str,
                 probe: Probe = accepts_option) -> CompilerFlags:
    """Flags for ``compiler`` on ``uarch``: its own -march if accepted, else ISA level + -mtune."""
    wide = uarch.native_512
    if uarch.march is None and uarch.isa_level is None:
        return CompilerFlags(compiler, _compose("native", None, False), False,
                             "unknown core: -march=native (not probed)")
    if uarch.march is not None:
        status = probe(compiler, f"-march={uarch.march}")
        if status is None:
            return CompilerFlags(compiler, _compose(uarch.march, None, wide), False,
                                 f"{compiler} not installed here: -march={uarch.march} "
                                 "not probed")
        if status:
            return CompilerFlags(compiler, _compose(uarch.march, None, wide), True,
                                 f"-march={uarch.march} accepted by {compiler}")
        tried = f"-march={uarch.march} rejected by {compiler}"
    else:
        tried = "no -march for this core"
    return _fallback(uarch, compiler, probe, tried)


def _fallback(uarch: Microarchitecture, compiler: str, probe: Probe,
              tried: str) -> CompilerFlags:
    level = uarch.isa_level
    if level is None or not probe(compiler, f"-march={level}"):
        return CompilerFlags(compiler, _compose("native", None, False), True,
                             f"{tried}; ISA level {level or '?'} not accepted: -march=native")
    rejected: list[str] = []
    tune = None
    for candidate in uarch.mtune:          # nearest core first
        if probe(compiler, f"-mtune={candidate}"):
            tune = candidate
            break
        rejected.append(candidate)
    note = f"{tried}; -march={level} accepted"
    if tune:
        note += f", -mtune={tune} accepted"
    if rejected:
        note += f" (-mtune={', '.join(rejected)} rejected)"
    return CompilerFlags(compiler, _compose(level, tune, uarch.native_512), True, note)


def full_width_512(uarch: Microarchitecture, measured_units: int | None) -> tuple[bool, str]:
    """Whether 512-bit ops run at full width, and on what evidence: a measured FMA
    throughput of two 512-bit units proves it whatever the table says (one unit
    measured may be one full unit or two halves: the table decides)."""
    if measured_units is not None and measured_units >= 2:
        return True, "measured: two full-width 512-bit FMA units"
    if uarch.native_512:
        return True, f"as for {uarch.core}" if uarch.core else "as the table says"
    return False, ""


def choose_compiler_flags(uarch: Microarchitecture, compilers: Sequence[str] = ("gcc", "clang"),
                          probe: Probe = accepts_option) -> tuple[CompilerFlags, ...]:
    """Flags for each compiler, in the order the machine file lists them."""
    return tuple(choose_flags(uarch, c, probe) for c in compilers)
