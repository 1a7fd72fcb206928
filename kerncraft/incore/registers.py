"""Register names: operand class, dependency key (alias root) and width.

The in-core analyzer needs three facts about every register name it meets:

* its *operand class* (``r64``, ``xmm``, ``k`` ...), because instruction-form
  keys in the port-model databases are spelled with classes, not names;
* its *alias root*, the key under which data dependencies are tracked: writing
  ``%eax`` must be seen by a later reader of ``%rax``, and ``%xmm3``, ``%ymm3``
  and ``%zmm3`` are views of one physical vector register;
* its *width* in bits, used e.g. to decide whether a write is partial (an 8/16-bit
  GPR write merges into the old value, a 32-bit write zero-extends).

The tables are built once per ISA. x86 is complete here; other ISAs (AArch64) add
their own resolver with :func:`register_isa`, so this module does not need to be
edited when a new ISA arrives. Names are looked up lower-case without ``%``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from kerncraft.errors import AssemblyError


@dataclass(frozen=True)
class RegisterInfo:
    """Everything the analyzer needs to know about one register name."""

    cls: str      # operand class used in form keys ('r64', 'xmm', 'k', ...)
    root: str     # dependency key shared by all aliases ('rax', 'v3', 'k1')
    width: int    # bits


def _build_x86() -> dict[str, RegisterInfo]:
    """Build the x86-64 name table.

    Why a full table rather than regexes: it is built once, lookups are then a
    single dict access (the parser calls this for every register operand), and
    the legacy names (``ah``, ``sil``, ``bpl``) do not follow one pattern anyway.
    """
    table: dict[str, RegisterInfo] = {}
    legacy = {  # root: (32, 16, low 8, high 8 or None)
        "rax": ("eax", "ax", "al", "ah"),
        "rbx": ("ebx", "bx", "bl", "bh"),
        "rcx": ("ecx", "cx", "cl", "ch"),
        "rdx": ("edx", "dx", "dl", "dh"),
        "rsi": ("esi", "si", "sil", None),
        "rdi": ("edi", "di", "dil", None),
        "rbp": ("ebp", "bp", "bpl", None),
        "rsp": ("esp", "sp", "spl", None),
    }
    for root, (r32, r16, r8, r8h) in legacy.items():
        table[root] = RegisterInfo("r64", root, 64)
        table[r32] = RegisterInfo("r32", root, 32)
        table[r16] = RegisterInfo("r16", root, 16)
        table[r8] = RegisterInfo("r8", root, 8)
        if r8h:
            table[r8h] = RegisterInfo("r8", root, 8)
    for i in range(8, 16):
        root = f"r{i}"
        table[root] = RegisterInfo("r64", root, 64)
        table[f"r{i}d"] = RegisterInfo("r32", root, 32)
        table[f"r{i}w"] = RegisterInfo("r16", root, 16)
        table[f"r{i}b"] = RegisterInfo("r8", root, 8)
        table[f"r{i}l"] = RegisterInfo("r8", root, 8)   # Intel's spelling of r8b
    for i in range(32):
        root = f"v{i}"
        table[f"xmm{i}"] = RegisterInfo("xmm", root, 128)
        table[f"ymm{i}"] = RegisterInfo("ymm", root, 256)
        table[f"zmm{i}"] = RegisterInfo("zmm", root, 512)
    for i in range(8):
        table[f"k{i}"] = RegisterInfo("k", f"k{i}", 64)
        # MMX registers alias the x87 stack physically, but compilers never mix
        # them inside a loop, so separate roots are good enough.
        table[f"mm{i}"] = RegisterInfo("mm", f"mm{i}", 64)
        table[f"st{i}"] = RegisterInfo("st", f"st{i}", 80)
    table["st"] = table["st0"]
    table["rip"] = RegisterInfo("rip", "rip", 64)
    table["eip"] = RegisterInfo("rip", "rip", 32)
    for seg in ("cs", "ds", "es", "fs", "gs", "ss"):
        table[seg] = RegisterInfo("seg", seg, 16)
    return table


_X86: dict[str, RegisterInfo] = _build_x86()

# Resolvers are tried in registration order when no ISA is named. x86 comes
# first; the only clash with AArch64 is 'sp' (x86 16-bit vs AArch64 64-bit stack
# pointer), which AArch64 callers avoid by passing ``isa='aarch64'``.
_RESOLVERS: dict[str, Callable[[str], RegisterInfo | None]] = {"x86": _X86.get}


def register_isa(isa: str, resolver: Callable[[str], RegisterInfo | None]) -> None:
    """Add (or replace) the name resolver of another ISA.

    ``resolver`` gets a lower-case name without prefix and returns a
    :class:`RegisterInfo` or ``None`` if the name is not one of its registers.
    This is the hook through which the AArch64 support adds its classes
    (``x w v q d s h b z p``) without editing the x86 tables.
    """
    _RESOLVERS[isa] = resolver


def register_info(name: str, isa: str | None = None) -> RegisterInfo:
    """Look up ``name`` (case-insensitive, optional leading ``%``).

    Raises :class:`AssemblyError` for unknown names, so a typo in hand-written
    assembly is reported instead of silently becoming a new register.
    """
    key = name.lower().lstrip("%")
    key = _normalise_x87(key)
    resolvers = [_RESOLVERS[isa]] if isa is not None else _RESOLVERS.values()
    for resolve in resolvers:
        info = resolve(key)
        if info is not None:
            return info
    raise AssemblyError(f"unknown register '{name}'")


def _normalise_x87(key: str) -> str:
    """Map the AT&T spelling ``st(1)`` to the table key ``st1``."""
    if key.startswith("st(") and key.endswith(")"):
        return "st" + key[3:-1].strip()
    return key


def is_register(name: str, isa: str | None = None) -> bool:
    """True if ``name`` is a known register of ``isa`` (or of any ISA)."""
    try:
        register_info(name, isa)
    except AssemblyError:
        return False
    return True


def register_class(name: str, isa: str | None = None) -> str:
    """Operand class of ``name``: 'r8','r16','r32','r64','xmm','ymm','zmm','k',
    'rip','seg' (plus 'mm' and 'st' for MMX/x87) on x86."""
    return register_info(name, isa).cls


def alias_root(name: str, isa: str | None = None) -> str:
    """Dependency key of ``name``: al/ah/ax/eax/rax -> 'rax', r8b..r8 -> 'r8',
    xmm3/ymm3/zmm3 -> 'v3', k1 -> 'k1'."""
    return register_info(name, isa).root


def register_width(name: str, isa: str | None = None) -> int:
    """Width of ``name`` in bits (al -> 8, eax -> 32, ymm0 -> 256)."""
    return register_info(name, isa).width


#: Classes that denote SIMD/vector registers; used to count vector instructions.
VECTOR_CLASSES: frozenset[str] = frozenset({"xmm", "ymm", "zmm"})

#: General-purpose register classes of x86.
GPR_CLASSES: frozenset[str] = frozenset({"r8", "r16", "r32", "r64"})


def is_high_byte(name: str) -> bool:
    """True for ah/bh/ch/dh, which cannot be encoded together with a REX prefix
    and whose writes merge into bits 15:8 of the 64-bit register."""
    return name.lower().lstrip("%") in ("ah", "bh", "ch", "dh")


def guess_register_class(name: str) -> str:
    """x86 register class from the name alone (a name the register table lacks)."""
    n = name.lower().lstrip("%")
    m = re.match(r"^([xyz]mm)\d+$", n)
    if m:
        return m.group(1)
    if re.match(r"^k[0-7]$", n):
        return "k"
    if re.match(r"^(r\d+|r[a-d]x|r[sd]i|r[sb]p)$", n):
        return "r64"
    if re.match(r"^(r\d+d|e[a-d]x|e[sd]i|e[sb]p)$", n):
        return "r32"
    if re.match(r"^(r\d+w|[a-d]x|[sd]i|[sb]p)$", n):
        return "r16"
    return "r8"
