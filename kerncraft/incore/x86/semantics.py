"""What an x86 instruction reads and writes (dependency keys), AT&T syntax.

The default rule, applied to every instruction not handled otherwise:

* the **last operand is the destination**, all others are sources;
* without a ``v`` prefix (legacy/2-operand encodings) the destination is also
  **read** (``addq %rbx,%rax`` computes rax+rbx), unless the mnemonic is a pure
  write such as ``mov``/``lea``/``cvt`` (``tables.WRITE_ONLY``);
* with a ``v`` prefix (VEX/EVEX, non-destructive) the destination is **only
  written**, unless the mnemonic accumulates into it such as FMA3
  (``tables.READS_DEST_PREFIXES``).

On top of that come the exception tables of :mod:`kerncraft.incore.x86.tables`
(compares, implicit registers, flags, zero idioms) and three register-file rules:

* writing an 8/16-bit GPR keeps bits of the old value, so it also reads the
  full register (``movb $1,%al`` depends on the last writer of rax); a 32-bit
  write zero-extends and reads nothing;
* VEX/EVEX writes to xmm/ymm zero the upper bits: no read of the old value;
* AVX-512 merge masking (``{%k1}`` without ``{z}``) reads the destination and the
  mask; zero masking (``{z}``) reads only the mask.

Instructions with separate address and data results (``push``/``pop``/``call``/
``ret`` move ``rsp``, string instructions advance ``rsi``/``rdi`` and, with ``rep``,
count ``rcx``) declare those registers as ``DataFlow.separate_results``: they depend
on their own old value only, not on the data stored or loaded.

Memory operands: base/index registers are ``address_sources`` (RIP and segment
registers are left out, they never carry a data dependency in a loop); a memory
source is a ``memory_reads`` entry, a memory destination a ``memory_writes`` entry,
read-modify-write forms are both. ``lea`` reads its address registers as ordinary
sources and accesses no memory.

Not modelled: x87 stack semantics, calls clobbering caller-saved registers, the
direction flag, segment loads, and privileged/system instructions (they fall
back to the default rule).
"""
from __future__ import annotations

import re
from typing import Callable

from kerncraft.incore import registers
from kerncraft.incore.model import (DataFlow, DataFlowBuilder, Instruction, Memory, Operand,
                                    Register)
from kerncraft.incore.x86 import tables as T

__all__ = ["dataflow", "operand_access", "mnemonic_core", "condition_code"]

_MOVX_RE = re.compile(r"mov([sz])(?:[bw][wlq]|lq|x|xd)")
_SIZE_BY_SUFFIX = {"b": 8, "w": 16, "l": 32, "q": 64}
_STACK = Register("rsp")


def mnemonic_core(mnemonic: str) -> str:
    """Strip prefixes (``lock``, ``rep``), branch hints and the AT&T size suffix.

    ``'addq'`` -> ``'add'``, ``'lock xaddl'`` -> ``'xadd'``, ``'movzbl'`` ->
    ``'movzx'``, ``'kmovw'`` -> ``'kmov'``, ``'vaddpd'`` -> ``'vaddpd'``.
    Suffixes are only removed from the cores listed in ``tables.SUFFIXED_CORES``
    because many mnemonics end in b/w/l/q as part of their name
    (``cmovl``, ``setb``, ``psubb``, ``pextrq``).
    """
    name = mnemonic.rsplit(" ", 1)[-1].split(",", 1)[0]
    if name in T.SUFFIXED_CORES or name in T.K_SUFFIXED_CORES:
        return name
    m = _MOVX_RE.fullmatch(name)
    if m:
        return "movsx" if m.group(1) == "s" else "movzx"
    if name[-1:] in "bwlq" and name[:-1] in T.SUFFIXED_CORES:
        return name[:-1]
    if name[-1:] in "bwdq" and name[:-1] in T.K_SUFFIXED_CORES:
        return name[:-1]
    return name


def condition_code(core: str) -> tuple[str, str] | None:
    """Split a condition-code mnemonic: ``'jne'`` -> ('j', 'ne'),
    ``'cmovgeq'`` -> ('cmov', 'ge'), ``'setb'`` -> ('set', 'b'); else None."""
    for family in ("cmov", "set", "j"):
        if core.startswith(family):
            cc = core[len(family):]
            if cc in T.CONDITION_FLAGS:
                return family, cc
            if family == "cmov" and cc[-1:] in "wlq" and cc[:-1] in T.CONDITION_FLAGS:
                return family, cc[:-1]
    return None


class _Flow(DataFlowBuilder):
    """The data flow of one instruction, built operand by operand."""

    def read_reg(self, name: str) -> None:
        self.sources.add(registers.alias_root(name, "x86"))

    def write_reg(self, name: str) -> None:
        info = registers.register_info(name, "x86")
        self.destinations.add(info.root)
        if info.cls in ("r8", "r16"):      # partial write merges into the old value
            self.sources.add(info.root)

    def use_address(self, mem: Memory) -> None:
        for reg in (mem.base, mem.index):
            if reg is not None:
                root = registers.alias_root(reg.name, "x86")
                if root != "rip":
                    self.address.add(root)

    def apply(self, op: Operand, role: str) -> None:
        """Record operand ``op`` accessed as ``role`` ('r','w','rw','a','lea','')."""
        if isinstance(op, Register):
            if "r" in role:
                self.read_reg(op.name)
            if "w" in role:
                self.write_reg(op.name)
        elif isinstance(op, Memory):
            if role == "lea":
                for reg in (op.base, op.index):
                    if reg is not None and reg.name not in ("rip", "eip"):
                        self.read_reg(reg.name)
                return
            if role:
                self.use_address(op)
            if "r" in role:
                self.reads.append(op)
            if "w" in role:
                self.writes.append(op)



_Handler = Callable[[Instruction, str, _Flow], list[str]]


def _is_vex(core: str) -> bool:
    """VEX/EVEX vector mnemonics are spelled with a leading 'v'."""
    return core.startswith("v") and core not in ("verr", "verw")


def _default_roles(instr: Instruction, core: str) -> list[str]:
    """Roles of the explicit operands under the default AT&T rule."""
    n = len(instr.operands)
    if n == 0:
        return []
    if core in T.NO_EFFECT:
        return ["a" if core in T.ADDRESS_ONLY else ""] * n
    if core in T.READ_ONLY:
        return ["r"] * n
    cond = condition_code(core)
    if cond is not None and cond[0] == "j":
        return ["r"] * n
    if cond is not None and cond[0] == "set":
        return ["w"] * n
    if _is_vex(core):
        reads_dest = core.startswith(T.READS_DEST_PREFIXES) and not (
            n == T.FMA4_OPERAND_COUNT and core.startswith(("vfmadd", "vfmsub", "vfnm")))
        last = "rw" if reads_dest else "w"
    elif core in T.WRITE_ONLY:
        last = "w"
    else:
        last = "rw"
    return ["r"] * (n - 1) + [last]


def _operand_size(instr: Instruction, core: str) -> int:
    """Operand size in bits from the AT&T suffix or the first register operand."""
    name = instr.mnemonic.rsplit(" ", 1)[-1]
    if name != core and name[-1] in _SIZE_BY_SUFFIX:
        return _SIZE_BY_SUFFIX[name[-1]]
    for op in instr.operands:
        if isinstance(op, Register):
            return registers.register_width(op.name, "x86")
    return 64


# ---------------------------------------------------------------------------
# Handlers for instructions with implicit operands or unusual roles
# ---------------------------------------------------------------------------

def _mul_div(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    """mul/imul (one operand), div/idiv: implicit rax (and rdx) operands.

    8-bit forms use AX only (mul: AX = AL*src; div: AL,AH = AX/src); wider
    forms use the rdx:rax pair. A 16-bit write to dx/ax is partial, so it
    reads the old register as well.
    """
    if core == "imul" and len(instr.operands) > 1:
        return _default_roles(instr, core) if len(instr.operands) == 2 \
            else ["r"] * (len(instr.operands) - 1) + ["w"]
    size = _operand_size(instr, core)
    flow.read_reg("rax")
    flow.destinations.add("rax")
    if size > 8:
        flow.destinations.add("rdx")
        if core in ("div", "idiv") or size == 16:
            flow.read_reg("rdx")
    return ["r"] * len(instr.operands)


#: cbw/cwde/cdqe and cwd/cdq/cqo: (sources, destinations) as alias roots.
_SIGN_EXTEND: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cbtw": (("rax",), ("rax",)), "cbw": (("rax",), ("rax",)),
    "cwtl": (("rax",), ("rax",)), "cwde": (("rax",), ("rax",)),
    "cltq": (("rax",), ("rax",)), "cdqe": (("rax",), ("rax",)),
    "cwtd": (("rax", "rdx"), ("rdx",)), "cwd": (("rax", "rdx"), ("rdx",)),  # dx partial
    "cltd": (("rax",), ("rdx",)), "cdq": (("rax",), ("rdx",)),
    "cqto": (("rax",), ("rdx",)), "cqo": (("rax",), ("rdx",)),
}


def _sign_extend(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    srcs, dsts = _SIGN_EXTEND[core]
    flow.sources.update(srcs)
    flow.destinations.update(dsts)
    return []


def _stack_slot(offset: int) -> Memory:
    return Memory(base=_STACK, displacement=offset)


def _stack(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    """push/pop/call/ret/leave/pushf/popf: rsp is read and written, and the
    stack slot is a memory access (so store-to-load forwarding through the
    stack stays visible to a memory-dependency analysis)."""
    n = len(instr.operands)
    if core == "leave":                 # mov %rbp,%rsp; pop %rbp
        flow.read_reg("rbp")
        flow.address.add("rbp")
        flow.destinations.add("rbp")
        flow.separate_result("rsp", {"rbp"})
        flow.reads.append(Memory(base=Register("rbp")))
        return []
    flow.separate_result("rsp", {"rsp"})    # the stack pointer moves on its own
    flow.address.add("rsp")
    if core in ("push", "call", "pushf"):
        flow.writes.append(_stack_slot(-8))
        return ["r"] * n
    flow.reads.append(_stack_slot(0))   # pop, ret, popf
    return ["w"] * n if core == "pop" else ["r"] * n


def _exchange(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    """xchg/xadd swap (and add), so both operands are read and written;
    cmpxchg also reads and writes rax (the comparand / old value)."""
    if core == "cmpxchg":
        flow.read_reg("rax")
        flow.destinations.add("rax")
        return ["r", "rw"][-len(instr.operands):]
    return ["rw"] * len(instr.operands)


def _string_op(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    """movs/stos/lods/scas/cmps: implicit rsi/rdi pointers (advanced after the
    access) and rax as data register; with a rep prefix also rcx."""
    if instr.operands and core == "movs":
        return _default_roles(instr, core)
    src, dst = Memory(base=Register("rsi")), Memory(base=Register("rdi"))
    uses_src = core in ("movs", "lods", "cmps")
    uses_dst = core in ("movs", "stos", "scas", "cmps")
    for reg, mem, used in (("rsi", src, uses_src), ("rdi", dst, uses_dst)):
        if used:                        # the pointers advance on their own
            flow.separate_result(reg, {reg})
            flow.address.add(reg)
    if uses_src:
        flow.reads.append(src)
    if core in ("scas", "cmps"):
        flow.reads.append(dst)
    elif uses_dst:
        flow.writes.append(dst)
    if core in ("stos", "scas"):
        flow.sources.add("rax")
    if core == "lods":
        flow.sources.add("rax")        # conservative: 8/16-bit loads merge
        flow.destinations.add("rax")
    if any(p.startswith("rep") for p in instr.mnemonic.split()[:-1]):
        flow.separate_result("rcx", {"rcx"})
    return ["r"] * len(instr.operands)


def _lea(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    return ["lea"] + ["w"] * (len(instr.operands) - 1)


def _mulx(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    """mulx src, lo, hi: rdx * src, two destinations, no flags."""
    flow.read_reg("rdx")
    return ["r", "w", "w"][:len(instr.operands)]


def _merging_move(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    """movss/movsd/movlpd...: a load from memory writes the whole xmm (movss,
    movsd) or merges (movlpd/movhpd), a register-register move merges, a store
    writes memory only."""
    ops = instr.operands
    if isinstance(ops[-1], Memory):
        return ["r"] * (len(ops) - 1) + ["w"]
    if isinstance(ops[0], Memory) and core in ("movss", "movsd", "movsh"):
        return ["r", "w"]
    return ["r"] * (len(ops) - 1) + ["rw"]


def _implicit_xmm0(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    """Legacy variable blends take the selector in xmm0 without naming it."""
    flow.sources.add("v0")
    return _default_roles(instr, core)


def _string_compare(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    """pcmpistri/pcmpestri write ecx, the ...m forms write xmm0; explicit
    operands are all sources; the explicit-length forms read rax and rdx."""
    if "estr" in core:
        flow.sources.update(("rax", "rdx"))
    flow.destinations.add("rcx" if core.endswith("i") else "v0")
    return ["r"] * len(instr.operands)


def _gather_scatter(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    """Gathers and scatters clear their mask as elements complete, so the mask
    (a k register, or the first vector operand of AVX2 gathers) is written."""
    roles = _default_roles(instr, core)
    if instr.mask is not None:
        flow.destinations.add(registers.alias_root(instr.mask.name, "x86"))
    elif len(instr.operands) == 3 and isinstance(instr.operands[0], Register):
        roles[0] = "rw"
    return roles


def _loop(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    """loop/loope/loopne decrement rcx; jrcxz/jecxz only test it."""
    flow.sources.add("rcx")
    if core.startswith("loop"):
        flow.destinations.add("rcx")
        if core in ("loope", "loopz", "loopne", "loopnz"):
            flow.sources.add(T.Z)
    return ["r"] * len(instr.operands)


#: Implicit register sets of a few system-ish instructions: (reads, writes).
_IMPLICIT: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cpuid": (("rax", "rcx"), ("rax", "rbx", "rcx", "rdx")),
    "rdtsc": ((), ("rax", "rdx")),
    "rdtscp": ((), ("rax", "rdx", "rcx")),
    "rdpmc": (("rcx",), ("rax", "rdx")),
    "xgetbv": (("rcx",), ("rax", "rdx")),
    "lahf": (("rax",), ("rax",)),       # writes ah: partial
    "sahf": (("rax",), ()),
}


def _implicit(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    srcs, dsts = _IMPLICIT[core]
    flow.sources.update(srcs)
    flow.destinations.update(dsts)
    return ["r"] * len(instr.operands)


def _maskmov(instr: Instruction, core: str, flow: _Flow) -> list[str]:
    """maskmovdqu stores to (%rdi) under a byte mask."""
    flow.address.add("rdi")
    flow.writes.append(Memory(base=Register("rdi")))
    return ["r"] * len(instr.operands)


_HANDLERS: dict[str, _Handler] = {
    **{m: _mul_div for m in ("mul", "imul", "div", "idiv")},
    **{m: _sign_extend for m in _SIGN_EXTEND},
    **{m: _stack for m in ("push", "pop", "call", "ret", "leave", "pushf", "popf",
                           "pushfq", "popfq")},
    **{m: _exchange for m in ("xchg", "xadd", "cmpxchg")},
    **{m: _string_op for m in ("movs", "stos", "lods", "scas", "cmps")},
    **{m: _merging_move for m in T.MERGING_MOVES},
    **{m: _implicit_xmm0 for m in T.IMPLICIT_XMM0},
    **{m: _string_compare for m in ("pcmpistri", "pcmpestri", "pcmpistrm",
                                    "pcmpestrm")},
    **{m: _loop for m in ("loop", "loope", "loopz", "loopne", "loopnz", "jcxz",
                          "jecxz", "jrcxz")},
    **{m: _implicit for m in _IMPLICIT},
    "lea": _lea, "mulx": _mulx, "maskmovdqu": _maskmov, "vmaskmovdqu": _maskmov,
}


def _handler(core: str) -> _Handler | None:
    handler = _HANDLERS.get(core)
    if handler is None and core.startswith(("vgather", "vpgather", "vscatter",
                                            "vpscatter")):
        handler = _gather_scatter
    return handler


# ---------------------------------------------------------------------------
# Cross-cutting rules: flags, masks, idioms
# ---------------------------------------------------------------------------

def _apply_flags(instr: Instruction, core: str, flow: _Flow) -> None:
    """Add flag keys read/written by ``core`` (tables + condition codes)."""
    cond = condition_code(core)
    if cond is not None:
        flow.sources |= T.CONDITION_FLAGS[cond[1]]
    written = T.FLAG_WRITES.get(core, frozenset())
    flow.sources |= T.FLAG_READS.get(core, frozenset())
    if core in T.SHIFTS and len(instr.operands) >= 2:
        count = instr.operands[0]
        if isinstance(count, Register) and count.name == "cl":
            flow.sources |= written    # count 0 leaves the flags unchanged
    flow.destinations |= written


def _apply_mask(instr: Instruction, flow: _Flow) -> None:
    """AVX-512 write masks: the mask is read; merge masking also reads the
    destination register (elements not selected keep their old value). Writes
    to a k register are always zero-masked."""
    if instr.mask is None:
        return
    flow.read_reg(instr.mask.name)
    if instr.zeroing or not instr.operands:
        return
    dest = instr.operands[-1]
    if isinstance(dest, Register) and registers.register_class(dest.name, "x86") \
            in registers.VECTOR_CLASSES:
        flow.read_reg(dest.name)


def _apply_idioms(instr: Instruction, core: str, flow: _Flow) -> None:
    """Zero/ones idioms: ``xor %eax,%eax``, ``vpxor %x1,%x1,%x2``, ``pcmpeqd``,
    ``sbb %eax,%eax``. The result does not depend on the (equal) register
    sources, so they are dropped from ``sources`` and ``breaks_dependency`` set.
    Only full-width (>= 32-bit) GPR forms qualify, and not under merge masking."""
    if core not in T.ZERO_IDIOMS and core not in T.ONES_IDIOMS \
            and core not in T.CARRY_ONLY_IDIOMS:
        return
    ops = instr.operands
    if len(ops) not in (2, 3) or (len(ops) == 3 and not _is_vex(core)):
        return
    if instr.mask is not None and not instr.zeroing:
        return
    a, b = ops[0], ops[1]
    if not (isinstance(a, Register) and isinstance(b, Register)) or a.name != b.name:
        return
    info = registers.register_info(a.name, "x86")
    if info.cls in ("r8", "r16"):
        return
    dest = ops[-1]
    if isinstance(dest, Register) and registers.register_class(dest.name, "x86") == "k":
        return      # compare-into-mask forms are not renamer idioms
    flow.sources.discard(info.root)
    flow.breaks = True


#: Operand-less spellings shared by a string instruction and an SSE instruction.
_STRING_ALIASES = {"movsd": "movs", "cmpsd": "cmps", "movsl": "movs", "cmpsl": "cmps"}


def _core_of(instr: Instruction) -> str:
    """Mnemonic core, with ``movsd``/``cmpsd`` without operands read as the
    string instructions (movs/cmps, dword) rather than the SSE ones."""
    core = mnemonic_core(instr.mnemonic)
    if not instr.operands and core in _STRING_ALIASES:
        return _STRING_ALIASES[core]
    return core


def operand_access(instr: Instruction) -> tuple[str, ...]:
    """Access role of each explicit operand: 'r', 'w', 'rw', 'a' (address used,
    no access), 'lea' (address registers read as values) or '' (unused)."""
    core = _core_of(instr)
    handler = _handler(core)
    roles = handler(instr, core, _Flow()) if handler else _default_roles(instr, core)
    return tuple(roles)


def dataflow(instr: Instruction) -> DataFlow:
    """Sources, destinations and memory accesses of one x86 instruction.

    See the module docstring for the rules and ``tables`` for the exceptions.
    """
    core = _core_of(instr)
    flow = _Flow()
    handler = _handler(core)
    roles = handler(instr, core, flow) if handler else _default_roles(instr, core)
    for op, role in zip(instr.operands, roles):
        flow.apply(op, role)
    _apply_flags(instr, core, flow)
    _apply_mask(instr, flow)
    _apply_idioms(instr, core, flow)
    return flow.freeze()
