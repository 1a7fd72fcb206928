"""AArch64 register names and the operand kinds that x86 does not have.

Registers
---------
The name table is registered with :func:`kerncraft.incore.registers.register_isa`
under ``'aarch64'``, so ``registers.alias_root('w3', 'aarch64') == 'x3'``:

=========================  =======  ==========  =================================
names                      class    root        why this root
=========================  =======  ==========  =================================
``x0..x30`` / ``w0..w30``  x / w    ``x0``      a w write zero-extends into x
``sp`` / ``wsp``           x / w    ``sp``      the stack pointer is its own reg
``xzr`` / ``wzr``          x / w    ``xzr``     reads 0, writes vanish (semantics
                                                drop it from every key set)
``v0`` ``q0 d0 s0 h0 b0``  v q d..  ``v0``      views of one 128-bit SIMD reg
``z0..z31``                z        ``v0``      SVE: v0 is the low 128 bits of z0
``p0..p15``, ``ffr``       p        ``p0``      SVE predicates
=========================  =======  ==========  =================================

Operand classes in form keys (see ``databases/README.md``)
-----------------------------------------------------------
The class of a register *operand* includes its arrangement, because the cost of
a NEON instruction depends on it (``fdiv v0.4s`` and ``fdiv v0.2d`` differ):
``v0.2d`` -> ``v2d``, ``v1.16b`` -> ``v16b``, a lane ``v1.d[1]`` -> ``v.d``,
bare ``v0`` -> ``v``; SVE ``z0.d`` -> ``zd``, a lane ``z0.d[1]`` -> ``z.d``;
predicates are ``p`` whatever their qualifier (``p0/z``, ``p0/m``, ``p0.d``).
Scalar registers are their letter: ``x w q d s h b``.

Extra operand kinds
-------------------
:class:`Shift` (``lsl #3``, ``sxtw``, ``msl #8``, SVE ``mul #4``) -- form-key class
is its kind (``add x,x,x,lsl``); :class:`Condition` (``ne`` in ``csel``/``ccmp``)
-- class ``cc``. Both follow the ``type`` protocol of the model's operand
classes, so ``Instruction.form_key`` and the databases treat them uniformly.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kerncraft.incore import registers
from kerncraft.incore.model import Register
from kerncraft.incore.registers import RegisterInfo

__all__ = ["ISA", "A64Register", "Shift", "Condition", "register_info", "is_register",
           "alias_root", "register_class", "operand_class", "arrangement_bytes",
           "element_bytes", "looks_like_register", "SCALAR_FP_CLASSES", "GPR_CLASSES"]

ISA = "aarch64"

#: Bytes per element letter of an arrangement (``2d`` -> 8).
ELEMENT_BYTES: dict[str, int] = {"b": 1, "h": 2, "s": 4, "d": 8, "q": 16}
#: General-purpose register classes.
GPR_CLASSES: frozenset[str] = frozenset({"x", "w"})
#: Scalar views of a SIMD&FP register.
SCALAR_FP_CLASSES: frozenset[str] = frozenset({"q", "d", "s", "h", "b"})

_SCALAR_WIDTH = {"q": 128, "d": 64, "s": 32, "h": 16, "b": 8}
_REGISTER_SHAPE = re.compile(r"(?:[xwvqdshbz]\d+|p\d+)")


def _build_table() -> dict[str, RegisterInfo]:
    """All AArch64 register names (lower case) -> class, root, width.

    A full table (as for x86) keeps lookups to one dict access; the parser
    calls this for every register operand.
    """
    table: dict[str, RegisterInfo] = {}
    for i in range(31):
        table[f"x{i}"] = RegisterInfo("x", f"x{i}", 64)
        table[f"w{i}"] = RegisterInfo("w", f"x{i}", 32)
    table["sp"] = RegisterInfo("x", "sp", 64)
    table["wsp"] = RegisterInfo("w", "sp", 32)
    table["xzr"] = RegisterInfo("x", "xzr", 64)
    table["wzr"] = RegisterInfo("w", "xzr", 32)
    for i in range(32):
        table[f"v{i}"] = RegisterInfo("v", f"v{i}", 128)
        table[f"z{i}"] = RegisterInfo("z", f"v{i}", 2048)   # architectural maximum
        for letter, width in _SCALAR_WIDTH.items():
            table[f"{letter}{i}"] = RegisterInfo(letter, f"v{i}", width)
    for i in range(16):
        table[f"p{i}"] = RegisterInfo("p", f"p{i}", 256)
    table["ffr"] = RegisterInfo("p", "ffr", 256)
    return table


_TABLE: dict[str, RegisterInfo] = _build_table()
registers.register_isa(ISA, _TABLE.get)


def register_info(name: str) -> RegisterInfo:
    """Class, alias root and width of an AArch64 register name (raises AssemblyError if unknown)."""
    return registers.register_info(name, ISA)


def is_register(name: str) -> bool:
    return name.lower() in _TABLE


def looks_like_register(name: str) -> bool:
    """True for names shaped like a numbered register (``x31``, ``v40``, ``p16``):
    the parser reports those as unknown registers instead of taking them for
    symbols, so a typo does not silently become a relocation."""
    return _REGISTER_SHAPE.fullmatch(name.lower()) is not None


def alias_root(name: str) -> str:
    return _TABLE[name.lower()].root if name.lower() in _TABLE else register_info(name).root


def register_class(name: str) -> str:
    return _TABLE[name.lower()].cls if name.lower() in _TABLE else register_info(name).cls


def operand_class(name: str, lane: str | None) -> str:
    """Form-key class of a register operand (see the module docstring)."""
    cls = register_class(name)
    if cls not in ("v", "z") or not lane:
        return cls
    if "[" in lane:                              # 'd[1]' -> 'v.d'
        return f"{cls}.{lane.split('[', 1)[0].lstrip('0123456789')}"
    return cls + lane                            # '2d' -> 'v2d', 'd' -> 'zd'


def element_bytes(lane: str | None) -> int | None:
    """Element size of an arrangement or lane (``2d``/``d[1]`` -> 8), else None."""
    if not lane:
        return None
    letter = lane.split("[", 1)[0].lstrip("0123456789")[:1]
    return ELEMENT_BYTES.get(letter)


def arrangement_bytes(lane: str | None) -> int | None:
    """Bytes of a NEON arrangement (``2d`` -> 16, ``2s`` -> 8); None for lanes,
    SVE element suffixes (length unknown) and bare registers."""
    if not lane or "[" in lane:
        return None
    m = re.fullmatch(r"(\d+)([bhsdq])", lane)
    if m is None:
        return None
    return int(m.group(1)) * ELEMENT_BYTES[m.group(2)]


@dataclass(frozen=True)
class A64Register(Register):
    """An AArch64 register operand; ``lane`` holds the arrangement (``2d``), the
    lane (``d[1]``) or the SVE predicate qualifier (``/z``, ``/m``).

    A subclass only to resolve names in the AArch64 table ('sp' is a 16-bit
    x86 register otherwise) and to put the arrangement into the form key."""

    @property
    def type(self) -> str:
        return operand_class(self.name, self.lane)

    @property
    def root(self) -> str:
        return alias_root(self.name)


@dataclass(frozen=True)
class Shift:
    """Shift or extend modifier of the preceding operand: ``lsl #3`` ->
    ``Shift('lsl', 3)``, ``sxtw`` -> ``Shift('sxtw', None)``."""

    kind: str
    amount: int | None = None

    @property
    def type(self) -> str:
        return self.kind


@dataclass(frozen=True)
class Condition:
    """Condition-code operand (``ne`` in ``csel x0, x1, x2, ne``)."""

    code: str

    @property
    def type(self) -> str:
        return "cc"
