"""Non-temporal stores in the compiled loop: does the compiler stream the stores?

A compiler that emits non-temporal stores (x86 ``vmovntpd``/``movnti``/...,
AArch64 ``stnp`` and SVE ``stnt1*``) changes the kernel's data traffic: no
write-allocate, no write-back through the caches (kerncraft/cache/nontemporal.py).
With ``--nontemporal-stores auto`` the ECM model follows what the loop block
contains; this module finds those stores (:func:`scan_stores`). ``movntdqa`` is a
*load* and ``prefetchnta`` a prefetch: neither counts. Stores relative to the stack
pointer (register spills) are not the kernel's data and are left out of the count.

The result travels with the in-core analysis as one note (:meth:`StoreScan.note`,
read back by :meth:`StoreScan.from_notes`), so that an analysis restored from the
disk cache, which keeps its notes but not its instructions, still knows it.

>>> from kerncraft.incore.x86.parser import parse_x86
>>> lines = parse_x86("vmovupd (%rsi,%rax), %ymm0\\nvmovntpd %ymm0, (%rdi,%rax)\\n")
>>> scan = scan_stores([ln.instruction for ln in lines if ln.instruction], "x86")
>>> scan.note()
'the loop stores non-temporally: 1 of 1 stores (vmovntpd)'
>>> StoreScan.from_notes(["other", scan.note()]) == scan
True
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from kerncraft.incore.model import Instruction

__all__ = ["StoreScan", "is_nontemporal_store", "scan_stores", "scan_assembly"]

X86_NONTEMPORAL_STORES = frozenset({
    "movntps", "movntpd", "movntdq", "movnti", "movntq", "movntss", "movntsd",
    "vmovntps", "vmovntpd", "vmovntdq"})
AARCH64_NONTEMPORAL_STORES = frozenset({"stnp", "stnt1b", "stnt1h", "stnt1w", "stnt1d"})
_STACK_POINTERS = frozenset({"rsp", "esp", "sp", "wsp"})
_NOTE = "the loop stores non-temporally: "
_NOTE_PATTERN = re.compile(re.escape(_NOTE) + r"(\d+) of (\d+) stores \(([^)]*)\)$")


def is_nontemporal_store(mnemonic: str) -> bool:
    """True for a non-temporal store mnemonic of x86 (AT&T size suffix allowed:
    ``movntiq``) or AArch64.

    >>> [is_nontemporal_store(m) for m in ("vmovntpd", "movntiq", "stnp", "movntdqa", "stp")]
    [True, True, True, False, False]
    """
    name = mnemonic.lower()
    if name in X86_NONTEMPORAL_STORES or name in AARCH64_NONTEMPORAL_STORES:
        return True
    return name[-1:] in ("l", "q") and name[:-1] in X86_NONTEMPORAL_STORES


@dataclass(frozen=True)
class StoreScan:
    """The data stores of a loop block: how many, how many of them non-temporal, and
    the non-temporal mnemonics (first seen first)."""

    nontemporal: int
    stores: int
    mnemonics: tuple[str, ...] = ()

    @property
    def all_nontemporal(self) -> bool:
        """Every data store streams, so every array the loop writes is streamed."""
        return self.stores > 0 and self.nontemporal == self.stores

    def note(self) -> str:
        """One line for the report ('' when nothing streams)."""
        if not self.nontemporal:
            return ""
        return (f"{_NOTE}{self.nontemporal} of {self.stores} stores "
                f"({', '.join(self.mnemonics)})")

    @classmethod
    def from_notes(cls, notes: Iterable[str]) -> "StoreScan | None":
        """The scan recorded among ``notes`` by :meth:`note`, if any."""
        for note in notes:
            match = _NOTE_PATTERN.match(note)
            if match:
                mnemonics = tuple(m for m in match.group(3).split(", ") if m)
                return cls(int(match.group(1)), int(match.group(2)), mnemonics)
        return None


def scan_stores(instructions: Sequence[Instruction], isa: str) -> StoreScan:
    """Count the data stores of ``instructions`` (a loop block of ``isa``, 'x86' or
    'aarch64') and the non-temporal ones among them."""
    from kerncraft.incore.isa import isa_support

    dataflow = isa_support(isa)[1]
    stores = streamed = 0
    mnemonics: dict[str, None] = {}
    for ins in instructions:
        data = [m for m in dataflow(ins).memory_writes
                if m.base is None or m.base.name not in _STACK_POINTERS]
        if not data:
            continue
        stores += 1
        if is_nontemporal_store(ins.mnemonic):
            streamed += 1
            mnemonics[ins.mnemonic] = None
    return StoreScan(streamed, stores, tuple(mnemonics))


def scan_assembly(text: str) -> StoreScan:
    """:func:`scan_stores` over every instruction of an assembly text (its ISA detected
    from the registers), for a hand-written or extracted loop body."""
    from kerncraft.incore.aarch64.parser import detect_isa
    from kerncraft.incore.isa import isa_support

    isa = detect_isa(text)
    lines = isa_support(isa)[0](text, filename="<assembly>")
    return scan_stores([ln.instruction for ln in lines if ln.instruction is not None], isa)
