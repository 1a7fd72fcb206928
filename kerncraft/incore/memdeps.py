"""Memory-carried dependencies of a loop body (store -> later load of the same bytes).

Addresses are tracked symbolically -- ``base + index*scale + displacement`` as
linear expressions over the registers' values at the start of the iteration,
following the loop's integer register arithmetic (``addq $8,%rax`` moves
``(%rdx,%rax)`` by 8 per iteration) -- so a store and a later load of the same
bytes, in the same or a later iteration (distance ``d``, searched within a
reorder-buffer-sized window), are found without executing anything.
:func:`kerncraft.incore.depgraph.build_graph` turns each into an edge
*store instruction -> instruction with the load* of weight
``latency(store instruction) + store_forward_latency``.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from kerncraft.incore.model import (DataFlow, Immediate, Instruction, InstructionCost, Memory,
                                    Operand, Register)
from kerncraft.incore.registers import alias_root as registers_root

__all__ = ["memory_key", "Linear", "MemoryAccess", "MemoryDependency", "memory_accesses",
           "memory_dependencies", "DEFAULT_WINDOW"]


def memory_key(mem: Memory) -> str:
    """Dependency key of a memory operand: its address expression, AT&T-like."""
    disp = (mem.symbol or "") + (f"{mem.displacement:+d}" if mem.symbol and mem.displacement
                                 else (str(mem.displacement) if mem.displacement else ""))
    regs = ",".join(filter(None, [f"%{mem.base.name}" if mem.base else "",
                                  f"%{mem.index.name}" if mem.index else ""]))
    if mem.index is not None and mem.scale != 1:
        regs += f",{mem.scale}"
    seg = f"%{mem.segment}:" if mem.segment else ""
    return f"mem:{seg}{disp}({regs})" if regs else f"mem:{seg}{disp or '0'}"


def _root(name: str) -> str:
    try:
        return registers_root(name)
    except Exception:  # noqa: BLE001 - a name the register table does not know
        return name


# ------------------------------------------------------------------ memory dependencies
#
# Addresses are linear expressions over symbols:
#   'r:<root>'  value of an integer register at the start of the iteration,
#   't:<i>:<root>'  a value instruction i computes in a way not followed (a load,
#               a multiplication of two registers, ...): known only inside one iteration,
#   's:<name>'  a link-time symbol (array in the data segment, constant pool),
#   'seg:<fs>'  a segment base.
# A register whose end-of-body value is 'r:<root>' + an invariant expression S
# advances by S per iteration (its *stride*); an address then moves by the sum of
# its registers' strides times their coefficients.


@dataclass(frozen=True)
class Linear:
    """``const + sum(coeff * symbol)`` with integer coefficients (terms sorted, no zeros)."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    @staticmethod
    def make(terms: Mapping[str, int], const: int = 0) -> "Linear":
        return Linear(tuple(sorted((s, c) for s, c in terms.items() if c)), int(const))

    @staticmethod
    def symbol(name: str) -> "Linear":
        return Linear(((name, 1),), 0)

    def __add__(self, other: "Linear") -> "Linear":
        terms = dict(self.terms)
        for s, c in other.terms:
            terms[s] = terms.get(s, 0) + c
        return Linear.make(terms, self.const + other.const)

    def __sub__(self, other: "Linear") -> "Linear":
        return self + other.scaled(-1)

    def scaled(self, k: int) -> "Linear":
        return Linear.make({s: c * k for s, c in self.terms}, self.const * k)

    def shifted(self, k: int) -> "Linear":
        return Linear(self.terms, self.const + k)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def symbols(self) -> set[str]:
        return {s for s, _ in self.terms}

    def __str__(self) -> str:
        parts = [(f"{c}*" if c != 1 else "") + s for s, c in self.terms]
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)


@dataclass(frozen=True)
class MemoryAccess:
    """One memory operand of the body with its symbolic address in iteration 0.

    ``stride`` is how far the address moves per iteration (``None``: not
    comparable across iterations); ``width`` is the access size in bytes
    (``None``: unknown, only exactly equal addresses are matched).
    """

    instruction: int
    kind: str                   # 'load' | 'store'
    mem: Memory
    address: Linear
    stride: Linear | None
    width: int | None


@dataclass(frozen=True)
class MemoryDependency:
    """A store whose value a later load reads (read-after-write through memory).

    The load of instruction ``load`` in iteration ``k + distance`` reads what
    the store of instruction ``store`` wrote in iteration ``k``. ``offset`` is
    the load address minus the store address in bytes; ``forwarded`` says the
    load lies inside the stored bytes (store-to-load forwarding works),
    otherwise the accesses only overlap partially. ``latency`` is the edge
    weight: the store instruction's own latency (a read-modify-write computes
    the stored value) plus the store-forwarding latency.
    """

    store: int
    load: int
    distance: int
    key: str
    offset: int
    forwarded: bool
    latency: float


#: Reorder-buffer size assumed when the model gives none (instructions).
DEFAULT_WINDOW = 224

_CALLER_SAVED = ("rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11")
_VECTOR_BYTES = {"xmm": 16, "ymm": 32, "zmm": 64}
_GPR_BYTES = {"r64": 8, "r32": 4, "r16": 2, "r8": 1}
_SUFFIX_BYTES = {"b": 1, "w": 2, "l": 4, "q": 8}


def _gpr(op: Operand) -> tuple[str, int] | None:
    """(alias root, width in bits) of a general-purpose register operand, else None."""
    from kerncraft.incore import registers
    if not isinstance(op, Register):
        return None
    try:
        info = registers.register_info(op.name, "x86")
    except Exception:  # noqa: BLE001 - a name the x86 table does not know
        return None
    if info.cls not in _GPR_BYTES:
        return None
    return info.root, info.width


def _int_immediate(op: Operand) -> int | None:
    if isinstance(op, Immediate) and isinstance(op.value, int) and op.symbol is None:
        return op.value
    return None


class _X86Values:
    """Integer register values of one iteration as :class:`Linear` expressions.

    Followed exactly: ``mov``/``movsx`` of registers and immediates, ``lea``,
    ``add``/``sub`` of immediates and registers, ``inc``/``dec``/``neg``, shifts
    left and ``imul`` by constants, zero idioms, ``push``/``pop``; 32-bit
    arithmetic is treated like 64-bit (no wrap-around). Every other write to a
    register makes its value opaque for the rest of the iteration.
    """

    def __init__(self) -> None:
        self.state: dict[str, Linear] = {}

    def value(self, root: str) -> Linear:
        return self.state.get(root, Linear.symbol(f"r:{root}"))

    def address(self, mem: Memory) -> Linear:
        terms: Linear = Linear((), mem.displacement)
        if mem.base is not None and _root(mem.base.name) not in ("rip",):
            terms = terms + self.value(_root(mem.base.name))
        elif mem.base is not None and mem.symbol is None:
            terms = terms + Linear.symbol("s:<rip>")
        if mem.index is not None:
            terms = terms + self.value(_root(mem.index.name)).scaled(mem.scale)
        if mem.symbol:
            terms = terms + Linear.symbol(f"s:{mem.symbol}")
        if mem.segment:
            terms = terms + Linear.symbol(f"seg:{mem.segment}")
        return terms

    def apply(self, i: int, ins: Instruction, flow: DataFlow) -> None:
        from kerncraft.incore.x86.semantics import mnemonic_core
        core = mnemonic_core(ins.mnemonic)
        ops = ins.operands
        done: set[str] = set()
        dst = _gpr(ops[-1]) if ops else None
        value: Linear | None = None
        if core == "push":
            self.state["rsp"] = self.value("rsp").shifted(-8)
            done.add("rsp")
        elif core == "pop":
            self.state["rsp"] = self.value("rsp").shifted(8)
            done.add("rsp")
        elif core == "call":
            for reg in _CALLER_SAVED:
                self.state[reg] = Linear.symbol(f"t:{i}:{reg}")
            done.update(_CALLER_SAVED + ("rsp",))
        elif ins.mnemonic in ("cltq", "cdqe"):
            done.add("rax")                      # sign extension of eax: same value
        elif dst is not None and dst[1] >= 32:
            value = self._value_of(core, ins.mnemonic, ops, dst[0])
            if value is not None:
                self.state[dst[0]] = value
                done.add(dst[0])
        for key in flow.destinations:
            if key not in done and not key.startswith("flag."):
                self.state[key] = Linear.symbol(f"t:{i}:{key}")

    def _value_of(self, core: str, mnemonic: str, ops: Sequence[Operand], dst: str
                  ) -> Linear | None:
        src = ops[0] if len(ops) >= 2 else None
        imm = _int_immediate(src)
        reg = _gpr(src)
        old = self.value(dst)
        if core in ("mov", "movabs") and len(ops) == 2:
            if imm is not None:
                return Linear((), imm)
            if reg is not None and reg[1] >= 32:
                return self.value(reg[0])
            return None
        if core == "movsx" and mnemonic in ("movslq", "movsxd") and reg is not None:
            return self.value(reg[0])
        if core == "movsxd" and reg is not None:
            return self.value(reg[0])
        if core == "lea" and isinstance(src, Memory):
            return self.address(src)
        if core in ("add", "sub") and len(ops) == 2:
            sign = 1 if core == "add" else -1
            if imm is not None:
                return old.shifted(sign * imm)
            if reg is not None and reg[1] >= 32:
                if core == "sub" and reg[0] == dst:
                    return Linear()
                return old + self.value(reg[0]).scaled(sign)
            return None
        if core in ("inc", "dec") and len(ops) == 1:
            return old.shifted(1 if core == "inc" else -1)
        if core == "neg" and len(ops) == 1:
            return old.scaled(-1)
        if core in ("shl", "sal") and len(ops) == 2 and imm is not None and 0 <= imm < 63:
            return old.scaled(1 << imm)
        if core == "imul":
            if len(ops) == 3 and _int_immediate(ops[0]) is not None and _gpr(ops[1]):
                return self.value(_gpr(ops[1])[0]).scaled(_int_immediate(ops[0]))
            if len(ops) == 2 and reg is not None:
                a, b = self.value(reg[0]), old
                if a.is_const:
                    return b.scaled(a.const)
                if b.is_const:
                    return a.scaled(b.const)
            return None
        if core == "xor" and reg is not None and reg[0] == dst and len(ops) == 2:
            return Linear()
        return None


class _OpaqueValues(_X86Values):
    """Any ISA: every register write is opaque (only untouched registers keep
    their entry value, so stack slots and fixed addresses are still matched)."""

    def apply(self, i: int, ins: Instruction | None, flow: DataFlow) -> None:
        for key in flow.destinations:
            if not key.startswith("flag."):
                self.state[key] = Linear.symbol(f"t:{i}:{key}")


def _x86_width(ins: Instruction, mem: Memory) -> int | None:
    """Bytes accessed through ``mem`` by ``ins`` (None if not known)."""
    from kerncraft.incore.x86.semantics import mnemonic_core
    m = ins.mnemonic.rsplit(" ", 1)[-1]
    core = mnemonic_core(m)
    if mem.broadcast:
        return 8 if re.search(r"(pd|q)$", core) else 4
    if core in ("push", "pop", "call", "ret", "leave"):
        return 8
    fixed = [(r"^v?(movsd|movq|movhpd|movlpd|movhps|movlps|movddup|vbroadcastsd|vpbroadcastq)$", 8),
             (r"^v?(movss|movd|vbroadcastss|vpbroadcastd)$", 4),
             (r"^(vbroadcast[fi]128|vinsert[fi]128|vextract[fi]128"
              r"|vbroadcast[fi](32x4|64x2))$", 16),
             (r"^v?cvtsi2s[sd]q$", 8), (r"^v?cvtsi2s[sd]l?$", 4),
             (r"^v?cvtt?sd2", 8), (r"^v?cvtt?ss2", 4)]
    for pattern, size in fixed:
        if re.match(pattern, m) or re.match(pattern, core):
            return size
    movx = re.match(r"^mov[sz]([bwl])[wlq]$", m)
    if movx:
        return _SUFFIX_BYTES[movx.group(1)]
    if re.match(r"^(?!v?p)v?[a-z0-9]*s[sd]$", core):
        return 8 if core.endswith("sd") else 4
    regs = [op for op in ins.operands if isinstance(op, Register)]
    vec = [_VECTOR_BYTES[op.type] for op in regs if op.type in _VECTOR_BYTES]
    if vec:
        return max(vec)
    gpr = [_GPR_BYTES[op.type] for op in regs if op.type in _GPR_BYTES]
    if gpr:
        return max(gpr)
    if m != core and m[-1:] in _SUFFIX_BYTES:
        return _SUFFIX_BYTES[m[-1]]
    return None


def memory_accesses(flows: Sequence[DataFlow], instructions: Sequence[Instruction] | None = None,
                    isa: str = "x86") -> list[MemoryAccess]:
    """Symbolic address, per-iteration stride and width of every memory operand.

    One pass over the body computes register values (x86 with ``instructions``;
    otherwise every register write is opaque), then the stride of each register:
    ``end value - entry value`` if that difference is loop-invariant.
    """
    x86 = instructions is not None and not isa.lower().startswith(("aarch64", "arm"))
    values: _X86Values = _X86Values() if x86 else _OpaqueValues()
    raw: list[tuple[int, str, Memory, Linear]] = []
    for i, flow in enumerate(flows):
        for mem in flow.memory_reads:
            raw.append((i, "load", mem, values.address(mem)))
        for mem in flow.memory_writes:
            raw.append((i, "store", mem, values.address(mem)))
        values.apply(i, instructions[i] if instructions is not None else None, flow)
    end = values.state
    diffs = {root: end[root] - Linear.symbol(f"r:{root}") for root in end}
    invariant = {root for root, diff in diffs.items() if diff == Linear()}

    def stable(sym: str) -> bool:
        if sym.startswith(("s:", "seg:")):
            return True
        return sym.startswith("r:") and (sym[2:] not in diffs or sym[2:] in invariant)

    stride_of: dict[str, Linear | None] = {}
    for root, diff in diffs.items():
        stride_of[root] = diff if all(stable(s) for s in diff.symbols()) else None
    out = []
    for i, kind, mem, addr in raw:
        stride: Linear | None = Linear()
        for sym, coeff in addr.terms:
            if sym.startswith(("s:", "seg:")):
                continue
            step = stride_of.get(sym[2:], Linear()) if sym.startswith("r:") else None
            if step is None:
                stride = None
                break
            stride = stride + step.scaled(coeff)
        width = _x86_width(instructions[i], mem) if x86 and instructions is not None else None
        out.append(MemoryAccess(i, kind, mem, addr, stride, width))
    return out


def _overlap(offset: int, load_width: int | None, store_width: int | None) -> tuple[bool, bool]:
    """(overlaps, load inside the stored bytes) for load address - store address = offset."""
    if load_width is None or store_width is None:
        return offset == 0, offset == 0
    overlaps = -load_width < offset < store_width
    return overlaps, overlaps and offset >= 0 and offset + load_width <= store_width


def _store_latency(flow: DataFlow, cost: InstructionCost | None) -> float:
    """ALU latency a store adds before its data can be forwarded: a read-modify-write
    store's ``cost.latency``; 0 for a plain store, also when its ``cost.latency`` is
    that of a separate address result (the writeback of ``str d0, [x1], #8``)."""
    if cost is None or (flow.separate_results and not flow.memory_reads):
        return 0.0
    return float(cost.latency)


def memory_dependencies(flows: Sequence[DataFlow], costs: Sequence[InstructionCost | None],
                        store_forward_latency: float, *,
                        instructions: Sequence[Instruction] | None = None,
                        window: int | None = None, isa: str = "x86") -> list[MemoryDependency]:
    """Store -> load dependencies through memory within a reorder-buffer window.

    For every load the *youngest* earlier store (in dynamic order: same
    iteration before it, then 1, 2, ... iterations back) whose bytes overlap
    it is its producer. A store ``d`` iterations back is at address
    ``A_store + k*S`` while the load reads ``A_load + (k+d)*S``; they meet
    when ``A_load - A_store + d*S`` is a constant inside the stored bytes
    (both addresses must move by the same stride ``S``, else they cross once
    at most and carry nothing in the steady state). ``d`` is searched up to
    ``window // len(body)`` iterations (the reorder buffer holds no more).
    Symbolic differences that do not cancel (two different base pointers)
    are taken as *no* alias, like ``restrict``.
    """
    accesses = memory_accesses(flows, instructions, isa)
    stores = _StoreIndex([a for a in accesses if a.kind == "store"])
    if not stores.buckets:
        return []
    max_distance = max(1, (window or DEFAULT_WINDOW) // max(1, len(flows)))
    found: list[MemoryDependency] = []
    for load in (a for a in accesses if a.kind == "load"):
        producer = stores.youngest_producer(load, max_distance)
        if producer is not None:
            store, d, offset, inside = producer
            lat = _store_latency(flows[store.instruction],
                                 costs[store.instruction]) + store_forward_latency
            found.append(MemoryDependency(store.instruction, load.instruction, d,
                                          memory_key(load.mem), offset, inside, float(lat)))
    return found


class _StoreIndex:
    """The body's stores grouped by the symbolic part of their address.

    A load and a store ``d`` iterations back can only meet when the load's address
    plus ``d`` strides has the store's symbolic terms (the rest is a constant byte
    offset), so a load looks at one group per distance instead of every store: the
    search is linear in the body, not quadratic (a 5,000-instruction spill chain).
    """

    def __init__(self, stores: Sequence[MemoryAccess]):
        self.buckets: dict[tuple, list[MemoryAccess]] = {}
        for store in stores:                       # program order within a bucket
            self.buckets.setdefault(store.address.terms, []).append(store)
        self.positions = {k: [s.instruction for s in v] for k, v in self.buckets.items()}

    def youngest_producer(self, load: MemoryAccess, max_distance: int
                          ) -> tuple[MemoryAccess, int, int, bool] | None:
        """(store, distance, offset, forwarded) of the youngest earlier store in dynamic
        order (same iteration before the load, then 1, 2, ... back) overlapping the load."""
        for d in range(max_distance + 1):
            if d == 0:
                target = load.address
            elif load.stride is None:
                return None                        # not comparable across iterations
            else:
                target = load.address + load.stride.scaled(d)
            bucket = self.buckets.get(target.terms)
            if not bucket:
                continue
            last = (bisect.bisect_left(self.positions[target.terms], load.instruction)
                    if d == 0 else len(bucket))
            for position in range(last - 1, -1, -1):
                store = bucket[position]
                if d == 0:
                    if (load.stride != store.stride and load.stride is not None
                            and store.stride is not None):
                        continue                   # the two streams cross at most once
                elif store.stride != load.stride:
                    continue
                offset = target.const - store.address.const
                overlaps, inside = _overlap(offset, load.width, store.width)
                if overlaps:
                    return store, d, offset, inside
        return None


