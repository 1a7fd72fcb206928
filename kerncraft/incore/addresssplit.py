"""Cache-line splits of a loop body from its own addresses (``kerncraft-incore FILE.s``,
no kernel): the stand-alone half of :mod:`kerncraft.incore.linesplit` (see its module
doc, last part).

Every packed vector access is ``base + index*scale + displacement``, followed through the
loop's pointer increments (:func:`kerncraft.incore.memdeps.memory_accesses`), so its
offset in a line in iteration ``k`` is ``(s + d + k*advance) mod line``. ``s`` comes
from the entry values of the address's registers: known values
(``--register-offset``) are added exactly, the rest follow the stated alignment.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import TYPE_CHECKING, Mapping, Sequence

from kerncraft.incore.line_offsets import combine_offsets, offset_residues, uniform_split_share
from kerncraft.incore.linesplit import (AccessSplit, LineSplitEstimate, LineSplitRow, SplitCost,
                                        is_contiguous_vector)

if TYPE_CHECKING:
    from kerncraft.incore.memdeps import MemoryAccess
    from kerncraft.incore.model import DataFlow, Instruction

__all__ = ["address_line_splits", "register_root", "four_k_aliases"]


_ELEMENT_BYTES = ((re.compile(r"(pd|q|64)$"), 8), (re.compile(r"(ps|d|32)$"), 4),
                  (re.compile(r"(w|16)$"), 2))


def _element_bytes(ins: Instruction) -> int:
    from kerncraft.incore.x86.semantics import mnemonic_core
    core = mnemonic_core(ins.mnemonic)
    return next((size for pattern, size in _ELEMENT_BYTES if pattern.search(core)), 1)


def _address_fraction(offset: int, advance: int, width: int, alignment: int,
                      line: int) -> float:
    """Share of the accesses at ``s + offset + k*advance`` that cross a line, exact over
    one period of ``k`` and every start ``s`` a multiple of ``alignment`` allows."""
    step = min(alignment, line)
    starts = offset_residues(range(line // step), step, line)
    period = line // math.gcd(line, advance % line)     # gcd(line, 0) = line: 1 iteration
    walk = combine_offsets(offset_residues(range(period), advance, line),
                           Counter({offset % line: 1}), line)
    dist = combine_offsets(starts, walk, line)
    return sum(n for r, n in dist.items() if r + width > line) / sum(dist.values())


def _offset_and_advance(access: MemoryAccess) -> tuple[int, int] | None:
    """(displacement, bytes per iteration) of a memdeps access whose address is the
    entry values of registers and symbols plus a constant, moving by a constant."""
    if any(sym.startswith("t:") for sym in access.address.symbols()):
        return None                          # computed from a load or the like
    if access.stride is None or not access.stride.is_const:
        return None
    return access.address.const, access.stride.const


def _known_start(access: MemoryAccess, values: Mapping[str, int]) -> tuple[int, bool]:
    """(bytes the registers of ``values`` add to the address at loop entry, whether every
    register and symbol of the address is one of them)."""
    added, exact = 0, True
    for sym, coeff in access.address.terms:
        if sym.startswith("r:") and sym[2:] in values:
            added += coeff * values[sym[2:]]
        else:
            exact = False
    return added, exact


def _access_split(access: MemoryAccess, ins: Instruction, width: int, alignment: int, line: int,
                  values: Mapping[str, int]) -> AccessSplit:
    from kerncraft.incore.memdeps import memory_key
    known = _offset_and_advance(access)
    added, exact = _known_start(access, values) if known else (0, False)
    if known is None or not (alignment or exact):
        fraction = uniform_split_share(_element_bytes(ins), width, line)
        return AccessSplit(ins.line_number, access.kind, width, memory_key(access.mem),
                           None, None, fraction)
    offset, advance = known[0] + added, known[1]
    start_alignment = line if exact else alignment
    return AccessSplit(ins.line_number, access.kind, width, memory_key(access.mem), offset,
                       advance, _address_fraction(offset, advance, width, start_alignment,
                                                  line))


def address_line_splits(instructions: Sequence[Instruction], flows: Sequence[DataFlow],
                        costs: Sequence[SplitCost], alignment: int, line_size: int = 64,
                        register_values: Mapping[str, int] | None = None
                        ) -> LineSplitEstimate | None:
    """Line splits of an x86 loop body from its own addresses (see the module doc):
    ``alignment`` in bytes (a power of two) of every address register and symbol at
    loop entry, 0 if unknown; ``register_values`` the entry values (modulo the line) of
    registers whose placement is known, e.g. ``{"rsi": 8}`` for a pointer 8 B past a
    line start (they override ``alignment`` for those registers). None when the body has
    no packed vector access."""
    from kerncraft.incore.memdeps import memory_accesses
    from kerncraft.incore.x86.vectors import packed_access_bytes
    if alignment < 0 or alignment & (alignment - 1):
        raise ValueError(f"alignment must be 0 (unknown) or a power of two, got {alignment}")
    values = {register_root(r): int(v) % line_size for r, v in (register_values or {}).items()}
    found = []
    for access in memory_accesses(flows, instructions):
        ins = instructions[access.instruction]
        width = packed_access_bytes(ins)
        # a broadcast operand reads one element, not a vector
        if width and not access.mem.broadcast and is_contiguous_vector(ins.mnemonic):
            found.append(_access_split(access, ins, width, alignment, line_size, values))
    if not found:
        return None
    table = {(c.kind, c.vector_bytes): c for c in costs}
    groups: dict[tuple[str, int], list[float]] = {}
    for a in found:
        groups.setdefault((a.kind, a.vector_bytes), []).append(a.fraction)
    rows = tuple(LineSplitRow(kind, width, len(f), sum(f) / len(f), table.get((kind, width)))
                 for (kind, width), f in sorted(groups.items()))
    return LineSplitEstimate(line_size, rows, _address_assumption(found, alignment, values),
                             tuple(found))


def register_root(name: str) -> str:
    """The 64-bit register a name stands for (``%esi`` and ``rsi`` -> ``rsi``);
    ValueError for anything that is not an x86 general-purpose register."""
    from kerncraft.errors import AssemblyError
    from kerncraft.incore.registers import GPR_CLASSES, register_info
    try:
        info = register_info(name.strip().lstrip("%").lower())
    except AssemblyError as exc:
        raise ValueError(f"unknown register {name!r}") from exc
    if info.cls not in GPR_CLASSES:
        raise ValueError(f"{name!r} is not a general-purpose (address) register")
    return info.root


def _address_assumption(found: Sequence[AccessSplit], alignment: int,
                        values: Mapping[str, int]) -> str:
    given = ", ".join(f"{r} = {v} mod 64" for r, v in sorted(values.items()))
    if not alignment:
        text = "alignment unknown: vector start addresses uniform over the element size"
        return f"{given} at loop entry, other addresses: {text}" if given else text
    text = (f"address registers and symbols {alignment}-B aligned at loop entry"
            + (f" (given: {given})" if given else "")
            + ", addresses followed through the loop's increments")
    unknown = sum(a.advance is None for a in found)
    if unknown:
        text += f"; {unknown} access(es) not followed: uniform start addresses"
    return text


#: Page offset bits a load is compared on before its full address is known.
ALIAS_BITS = 12
#: Later iterations searched for a 4K-aliasing overlap (a store stays in the store
#: buffer for some dozens of cycles; farther overlaps are not reported).
ALIAS_WINDOW = 16


def four_k_aliases(instructions: Sequence[Instruction], flows: Sequence[DataFlow],
                   register_values: Mapping[str, int]) -> list[str]:
    """Notes on loads that overlap an earlier store in the low 12 address bits while
    addressed through other registers ("4K aliasing": the core holds the load back until
    the store's full address shows that they differ). Only accesses whose registers all
    have known entry values (``register_values``, full addresses) are compared; both must
    move by the same bytes per iteration. The nearest overlap within
    :data:`ALIAS_WINDOW` iterations is reported."""
    from kerncraft.incore.memdeps import memory_accesses
    page = 1 << ALIAS_BITS
    values = {register_root(r): int(v) % page for r, v in register_values.items()}
    exact = []
    for access in memory_accesses(flows, instructions):
        known = _offset_and_advance(access)
        added, complete = _known_start(access, values) if known else (0, False)
        if known and complete and access.width:
            exact.append((access, (known[0] + added) % page, known[1]))
    notes = []
    for load, at, advance in (e for e in exact if e[0].kind == "load"):
        for store, st_at, st_advance in (e for e in exact if e[0].kind == "store"):
            if store.address.terms == load.address.terms or st_advance != advance:
                continue        # same registers: a real dependency (memdeps) or none
            j = _first_alias(at - st_at, advance, load.width, store.width,
                             first=0 if load.instruction > store.instruction else 1)
            if j is not None:
                notes.append(_alias_note(instructions, load, store, j))
    return notes


def _first_alias(distance: int, advance: int, load_width: int, store_width: int,
                 first: int) -> int | None:
    """Smallest j >= first with the load of iteration k + j overlapping the store of
    iteration k modulo the page (``distance`` = load - store address in one iteration)."""
    page = 1 << ALIAS_BITS
    for j in range(first, ALIAS_WINDOW + 1):
        diff = (distance + j * advance + page // 2) % page - page // 2
        if -load_width < diff < store_width:
            return j
    return None


def _alias_note(instructions: Sequence[Instruction], load: MemoryAccess, store: MemoryAccess,
                j: int) -> str:
    when = "in the same iteration" if j == 0 else \
        f"{j} iteration{'s' if j > 1 else ''} earlier"
    return (f"4K aliasing: the load of line {instructions[load.instruction].line_number} "
            f"overlaps, in the low {ALIAS_BITS} address bits, the store of line "
            f"{instructions[store.instruction].line_number} {when} (other registers; "
            "the core may hold the load until the store's address is known in full); "
            "not in the prediction")
