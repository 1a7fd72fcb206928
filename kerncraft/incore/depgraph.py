"""Register/flag dependency graph of a loop body: critical path and loop-carried chains.

Graph
-----
Every instruction ``i`` is an *op* node ``(i, 'op')``. An instruction that
reads memory gets a second node ``(i, 'load')`` in front of it:

* the producers of its address registers (``DataFlow.address_sources``) feed
  the load node, and the load node feeds the op node with the load latency
  (``InstructionCost.load_latency``);
* its other register/flag sources feed the op node directly.

So a value computed just before an FMA with a memory operand is delayed only
by the FMA's own latency, while the memory operand is charged the load
latency -- the load can start as soon as its address is known, long before the
arithmetic inputs arrive (the load/arithmetic split of the thesis, Sect. 3.2.2).
Without a memory read, address registers (``lea``, stores) feed the op node.

An edge ``u -> v`` means that ``v`` reads a key (register alias root or one
status flag) last written by ``u``; its weight is the latency of the producer
(``cost.latency`` for op nodes, ``cost.load_latency`` for load -> op).
Only read-after-write edges exist: renaming removes the others. A zero idiom
(``breaks_dependency``) reads nothing, so it cuts every chain through it.
Unknown instructions (no cost) are kept as zero-latency nodes.

Memory: optionally (``store_forward_latency`` given) memory-carried
dependencies are added (:func:`memory_dependencies`). Addresses are tracked
symbolically -- ``base + index*scale + displacement`` as linear expressions over
the registers' values at the start of the iteration, following the loop's
integer register arithmetic (``addq $8,%rax`` moves ``(%rdx,%rax)`` by 8 per
iteration) -- so a store and a later load of the same bytes, in the same or a
later iteration (distance ``d``, searched within a reorder-buffer-sized window),
form an edge *store instruction -> instruction with the load* of weight
``latency(store instruction) + store_forward_latency`` (the forwarding replaces
the load latency; a read-modify-write store carries its ALU latency).

Edges carry a *distance*: 0 inside one iteration, 1 from the last writer of a
key in iteration ``k`` to a reader in iteration ``k+1`` that reads the key
before the body writes it (an upward-exposed use), ``d`` for a store read back
``d`` iterations later.

Critical path
-------------
The distance-0 edges form a DAG (they point forward in program order, load
before op). The critical path is the longest path in it, plus the latency of
its final instruction if that instruction produces a register/flag value
(stores and branches complete nothing that another instruction waits for in
this iteration, so they add 0).

Loop-carried dependencies
-------------------------
A dependency cycle whose back edges span ``k`` iterations in total, with total
latency ``L``, limits the loop to ``L/k`` cycles per iteration (the thesis's
doubled-kernel search only sees ``k = 1``; the register-swap loop of its
Sect. 3.2.3 needs ``k = 2``). The
LCD bound is the *maximum cycle ratio*, computed per strongly connected
component without enumerating paths: the heads of the back edges become the
nodes of a reduced graph ``H``; its edge ``a -> b`` carries the longest
distance-0 path from head ``a`` to the tail of a back edge into ``b``, plus that
back edge. Each cycle of the full graph splits at its back edges into such
segments (a back edge of distance ``d`` becomes ``d`` segments through dummy
nodes), so the maximum cycle ratio equals the maximum *mean* cycle of ``H``,
found exactly (latencies scaled to integers) by Karp's algorithm in
``O(|H| * |E_H|)``. A cycle attaining it is read off the edges that are tight
under the longest-path potentials for the weights ``w - lambda``.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping, Sequence

import networkx as nx

from kerncraft.incore.model import (DataFlow, DependencyChain, Immediate, Instruction,
                                    InstructionCost, Memory, Register)
from kerncraft.incore.registers import alias_root as registers_root

__all__ = ["Node", "DepEdge", "DepGraph", "CriticalPath", "build_graph", "critical_path",
           "loop_carried", "max_cycle_ratio", "memory_key", "karp_max_mean_cycle",
           "edge_contributions", "Linear", "MemoryAccess", "MemoryDependency",
           "memory_accesses", "memory_dependencies", "DEFAULT_WINDOW"]

Node = tuple[int, str]          # (instruction index, 'load' | 'op')
_KIND_ORDER = {"load": 0, "op": 1}


def _order(node: Node) -> tuple[int, int]:
    return node[0], _KIND_ORDER[node[1]]


@dataclass(frozen=True)
class DepEdge:
    src: Node
    dst: Node
    weight: float
    distance: int                 # 0 = same iteration, d = d iterations later
    keys: frozenset[str]          # registers / flags / 'mem' carrying the value


@dataclass(frozen=True)
class DepGraph:
    """Dependency graph of one loop body (see module docstring)."""

    size: int                                   # number of instructions
    nodes: tuple[Node, ...]                     # in program order
    edges: tuple[DepEdge, ...]
    completion: Mapping[Node, float] = field(default_factory=dict)   # sink latency
    memory: tuple["MemoryDependency", ...] = ()  # the store -> load edges among ``edges``

    def to_networkx(self) -> nx.MultiDiGraph:
        g = nx.MultiDiGraph()
        g.add_nodes_from(self.nodes)
        for e in self.edges:
            g.add_edge(e.src, e.dst, weight=e.weight, distance=e.distance,
                       keys=tuple(sorted(e.keys)))
        return g


@dataclass(frozen=True)
class CriticalPath:
    length: float
    nodes: tuple[Node, ...]
    instructions: tuple[int, ...]
    contributions: Mapping[int, float]           # instruction -> cycles on the path
    edges: tuple[DepEdge, ...] = ()


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


def _gpr(op: Any) -> tuple[str, int] | None:
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


def _int_immediate(op: Any) -> int | None:
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

    def _value_of(self, core: str, mnemonic: str, ops: Sequence[Any], dst: str) -> Linear | None:
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
    stores = [a for a in accesses if a.kind == "store"]
    if not stores:
        return []
    size = max(1, len(flows))
    max_distance = max(1, (window or DEFAULT_WINDOW) // size)
    found: list[MemoryDependency] = []
    for load in (a for a in accesses if a.kind == "load"):
        # per store (youngest first): address difference and whether it can repeat
        # across iterations (same known stride on both sides)
        pairs = []
        for store in reversed(stores):
            delta = load.address - store.address
            same_stride = load.stride is not None and load.stride == store.stride
            if load.stride != store.stride and load.stride is not None \
                    and store.stride is not None:
                continue                     # the two streams cross at most once
            if delta.is_const or (same_stride and not load.stride.is_const):
                pairs.append((store, delta, same_stride))
        dep = None
        for d in range(max_distance + 1):
            for store, delta, same_stride in pairs:
                if d == 0:
                    if store.instruction >= load.instruction:
                        continue
                elif not same_stride:
                    continue
                else:
                    delta = delta + load.stride.scaled(d)   # type: ignore[union-attr]
                if not delta.is_const:
                    continue
                overlaps, inside = _overlap(delta.const, load.width, store.width)
                if overlaps:
                    cost = costs[store.instruction]
                    lat = (cost.latency if cost is not None else 0.0) + store_forward_latency
                    dep = MemoryDependency(store.instruction, load.instruction, d,
                                           memory_key(load.mem), delta.const, inside, float(lat))
                    break
            if dep is not None:
                break
        if dep is not None:
            found.append(dep)
    return found


class _Builder:
    """Walks the body once, connecting every register/flag read to the key's last writer."""

    def __init__(self, flows: Sequence[DataFlow], costs: Sequence[InstructionCost | None]):
        self.flows, self.costs = flows, costs
        self.nodes: list[Node] = []
        self.edges: dict[tuple[Node, Node, int], tuple[float, set[str]]] = {}
        self.last_writer: dict[str, tuple[Node, float]] = {}
        self.exposed: list[tuple[str, Node]] = []     # reads before any write in the body
        self.completion: dict[Node, float] = {}

    def latency_of(self, node: Node) -> float:
        cost = self.costs[node[0]]
        if cost is None:
            return 0.0
        return float(cost.load_latency if node[1] == "load" else cost.latency)

    def add(self, src: Node, dst: Node, distance: int, key: str, weight: float) -> None:
        old, keys = self.edges.get((src, dst, distance), (weight, set()))
        keys.add(key)
        self.edges[(src, dst, distance)] = (max(old, weight), keys)

    def read(self, key: str, dst: Node) -> None:
        if key in self.last_writer:
            src, weight = self.last_writer[key]
            self.add(src, dst, 0, key, weight)
        else:
            self.exposed.append((key, dst))

    def instruction(self, i: int) -> None:
        flow, cost = self.flows[i], self.costs[i]
        op: Node = (i, "op")
        if flow.memory_reads or (cost is not None and cost.has_load):
            load: Node = (i, "load")
            self.nodes.append(load)
            for key in sorted(flow.address_sources):
                self.read(key, load)
            self.add(load, op, 0, "mem", self.latency_of(load))
            data_keys = flow.sources - flow.address_sources
        else:
            data_keys = flow.sources | flow.address_sources
        self.nodes.append(op)
        if not flow.breaks_dependency:
            for key in sorted(data_keys):
                self.read(key, op)
        for key in flow.destinations:
            self.last_writer[key] = (op, self.latency_of(op))
        self.completion[op] = self.latency_of(op) if flow.destinations else 0.0

    def finish(self, memory: Sequence["MemoryDependency"] = ()) -> DepGraph:
        for key, dst in self.exposed:
            if key in self.last_writer:
                src, weight = self.last_writer[key]
                self.add(src, dst, 1, key, weight)
        for dep in memory:
            self.add((dep.store, "op"), (dep.load, "op"), dep.distance, dep.key, dep.latency)
        edges = tuple(DepEdge(s, d, w, dist, frozenset(k))
                      for (s, d, dist), (w, k) in self.edges.items())
        return DepGraph(len(self.flows), tuple(self.nodes), edges, self.completion,
                        tuple(memory))


def build_graph(flows: Sequence[DataFlow], costs: Sequence[InstructionCost | None],
                store_forward_latency: float | None = None, *,
                instructions: Sequence[Instruction] | None = None,
                window: int | None = None, isa: str = "x86") -> DepGraph:
    """Dependency graph from per-instruction data flow and costs.

    With ``store_forward_latency`` memory-carried dependencies are added as
    found by :func:`memory_dependencies` (symbolic addresses; pass the
    ``instructions`` so that integer register arithmetic such as ``addq $8,%rax``
    can be followed, and ``window`` = the reorder-buffer size in instructions).
    Without it the graph has register and flag edges only.
    """
    builder = _Builder(flows, costs)
    for i in range(len(flows)):
        builder.instruction(i)
    memory: list[MemoryDependency] = []
    if store_forward_latency is not None:
        memory = memory_dependencies(flows, costs, store_forward_latency,
                                     instructions=instructions, window=window, isa=isa)
    return builder.finish(memory)


def critical_path(graph: DepGraph) -> CriticalPath:
    """Longest dependency path through one iteration (distance-0 edges)."""
    incoming: dict[Node, list[DepEdge]] = {n: [] for n in graph.nodes}
    for e in graph.edges:
        if e.distance == 0:
            incoming[e.dst].append(e)
    dist: dict[Node, float] = {}
    best_in: dict[Node, DepEdge | None] = {}
    for node in sorted(graph.nodes, key=_order):
        dist[node], best_in[node] = 0.0, None
        # ties go to the earliest producer: the longer, more readable chain
        for e in sorted(incoming[node], key=lambda e: _order(e.src)):
            if dist[e.src] + e.weight > dist[node]:
                dist[node], best_in[node] = dist[e.src] + e.weight, e
    if not graph.nodes:
        return CriticalPath(0.0, (), (), {})
    end = max(graph.nodes, key=lambda n: (dist[n] + graph.completion.get(n, 0.0), _order(n)))
    length = dist[end] + graph.completion.get(end, 0.0)
    path_edges: list[DepEdge] = []
    node = end
    while best_in[node] is not None:
        edge = best_in[node]
        assert edge is not None
        path_edges.append(edge)
        node = edge.src
    path_edges.reverse()
    path_nodes = (node,) + tuple(e.dst for e in path_edges)
    contributions: dict[int, float] = {}
    for e in path_edges:
        contributions[e.src[0]] = contributions.get(e.src[0], 0.0) + e.weight
    contributions[end[0]] = contributions.get(end[0], 0.0) + graph.completion.get(end, 0.0)
    instructions = tuple(dict.fromkeys(n[0] for n in path_nodes))
    return CriticalPath(length, path_nodes, instructions, contributions, tuple(path_edges))


# --------------------------------------------------------------------------- LCD

@functools.lru_cache(maxsize=4096)
def _frac(x: float) -> Fraction:
    """Exact rational of a latency (cached: the same few values recur)."""
    return Fraction(x).limit_denominator(10**6)


def karp_max_mean_cycle(n: int, edges: Sequence[tuple[int, int, int | Fraction]]
                        ) -> Fraction | None:
    """Maximum mean cycle of a graph with nodes ``0..n-1`` (Karp, exact).

    A virtual source reaches every node with a zero edge, so the graph need
    not be strongly connected. Weights may be ints or Fractions (ints are
    much faster). Returns ``None`` for an acyclic graph.
    """
    table: list[list[Any]] = [[0] * n]
    for _ in range(n):
        prev = table[-1]
        row: list[Any] = [None] * n
        for u, v, w in edges:
            if prev[u] is not None:
                cand = prev[u] + w
                if row[v] is None or cand > row[v]:
                    row[v] = cand
        table.append(row)
    best: Fraction | None = None
    for v in range(n):
        last = table[n][v]
        if last is None:
            continue
        worst: Fraction | None = None
        for k in range(n):
            dk = table[k][v]
            if dk is not None:
                val = Fraction(last - dk) / (n - k)
                if worst is None or val < worst:
                    worst = val
        if worst is not None and (best is None or worst > best):
            best = worst
    return best


def _critical_cycle(n: int, edges: Sequence[tuple[int, int, int]], lam: Fraction) -> list[int]:
    """Indices into ``edges`` of one cycle whose mean weight is ``lam``.

    Longest-path potentials for the weights ``w - lam`` (scaled by the
    denominator of ``lam`` to stay in integers); every cycle made of tight
    edges has mean exactly ``lam``.
    """
    p, q = lam.numerator, lam.denominator
    shifted = [(u, v, w * q - p) for u, v, w in edges]
    pot = [0] * n
    for _ in range(n):
        changed = False
        for u, v, w in shifted:
            if pot[u] + w > pot[v]:
                pot[v] = pot[u] + w
                changed = True
        if not changed:
            break
    tight = nx.DiGraph()
    for idx, (u, v, w) in enumerate(shifted):
        if pot[u] + w == pot[v]:
            tight.add_edge(u, v, idx=idx)
    cycle = nx.find_cycle(tight)
    return [tight.edges[u, v]["idx"] for u, v in cycle]


def _longest_from(start: Node, ordered: Sequence[Node], members: set[Node],
                  succ: Mapping[Node, list[tuple[DepEdge, int]]]
                  ) -> tuple[dict[Node, int], dict[Node, DepEdge]]:
    """Longest distance-0 paths from ``start`` inside one SCC (integer weights).

    ``ordered`` lists the SCC in program order, a topological order of the
    distance-0 edges.
    """
    dist: dict[Node, int] = {start: 0}
    pred: dict[Node, DepEdge] = {}
    for node in ordered[ordered.index(start):]:
        if node not in dist:
            continue
        for e, w in succ.get(node, ()):
            if e.dst in members:
                cand = dist[node] + w
                if e.dst not in dist or cand > dist[e.dst]:
                    dist[e.dst], pred[e.dst] = cand, e
    return dist, pred


def _scc_chain(members: set[Node], edges: Sequence[DepEdge]
               ) -> tuple[Fraction, list[DepEdge]] | None:
    """Maximum cycle ratio of one SCC and the edges of a cycle attaining it.

    ``edges`` are the edges inside the SCC. The reduced graph has one node per
    distinct *head* of a back edge; its edge ``a -> b`` (per distance ``d`` of
    the closing back edge) is the heaviest "longest path from head a to the
    tail of a back edge into b, plus that back edge". A back edge spanning
    ``d > 1`` iterations (memory dependencies) becomes a chain of ``d``
    reduced edges through ``d - 1`` dummy nodes, so that the maximum *mean*
    cycle of the reduced graph is the maximum of latency / iterations.
    Latencies are scaled to integers for speed and exactness.
    """
    back = [e for e in edges if e.distance >= 1]
    if not back:
        return None
    scale = math.lcm(*(_frac(e.weight).denominator for e in edges))
    weight = {e: int(_frac(e.weight) * scale) for e in edges}
    succ: dict[Node, list[tuple[DepEdge, int]]] = {}
    for e in edges:
        if e.distance == 0:
            succ.setdefault(e.src, []).append((e, weight[e]))
    ordered = sorted(members, key=_order)
    heads = sorted({e.dst for e in back}, key=_order)
    index = {h: k for k, h in enumerate(heads)}
    longest = {h: _longest_from(h, ordered, members, succ) for h in heads}
    best: dict[tuple[int, int, int], tuple[int, DepEdge]] = {}
    for a, head in enumerate(heads):
        dist = longest[head][0]
        for e in back:
            if e.src in dist:
                w = dist[e.src] + weight[e]
                key = (a, index[e.dst], e.distance)
                if key not in best or w > best[key][0]:
                    best[key] = (w, e)
    reduced: list[tuple[int, int, int]] = []
    origin: list[tuple[int, int, int] | None] = []
    n = len(heads)
    for (a, b, d), (w, _) in best.items():
        chain = [a] + list(range(n, n + d - 1)) + [b]
        n += d - 1
        for k in range(d):
            reduced.append((chain[k], chain[k + 1], w if k == 0 else 0))
            origin.append((a, b, d) if k == 0 else None)
    lam = karp_max_mean_cycle(n, reduced)
    if lam is None:
        return None
    cycle_edges: list[DepEdge] = []
    for idx in _critical_cycle(n, reduced, lam):
        if origin[idx] is None:
            continue
        a, b, d = origin[idx]
        closing = best[(a, b, d)][1]
        pred = longest[heads[a]][1]
        path: list[DepEdge] = []
        node = closing.src
        while node != heads[a]:
            path.append(pred[node])
            node = pred[node].src
        cycle_edges.extend(reversed(path))
        cycle_edges.append(closing)
    return lam / scale, cycle_edges


def _chain_from_edges(lam: Fraction, cycle: list[DepEdge]) -> DependencyChain:
    first = min(range(len(cycle)), key=lambda k: _order(cycle[k].src))
    cycle = cycle[first:] + cycle[:first]          # start at the earliest instruction
    instructions = tuple(dict.fromkeys(e.src[0] for e in cycle))
    via: list[str] = []
    for e in cycle:
        for key in sorted(e.keys):
            if key not in via:
                via.append(key)
    return DependencyChain(instructions=instructions, latency=float(lam), via=tuple(via))


def loop_carried(graph: DepGraph) -> tuple[float, tuple[DependencyChain, ...],
                                           tuple[tuple[DepEdge, ...], ...]]:
    """LCD bound (cycles per iteration), one chain per cyclic SCC, and its edges.

    Chains are sorted by decreasing latency, so ``chains[0]`` is the LCD.
    """
    g = nx.DiGraph()
    g.add_nodes_from(graph.nodes)
    g.add_edges_from((e.src, e.dst) for e in graph.edges)
    components = [set(c) for c in nx.strongly_connected_components(g)]
    where = {node: k for k, comp in enumerate(components) for node in comp}
    inside: list[list[DepEdge]] = [[] for _ in components]
    for e in graph.edges:
        if where[e.src] == where[e.dst]:
            inside[where[e.src]].append(e)
    found: list[tuple[DependencyChain, tuple[DepEdge, ...]]] = []
    for component, edges in zip(components, inside):
        result = _scc_chain(component, edges) if edges else None
        if result is not None:
            lam, edges = result
            found.append((_chain_from_edges(lam, edges), tuple(edges)))
    found.sort(key=lambda item: (-item[0].latency, item[0].instructions))
    lcd = found[0][0].latency if found else 0.0
    return lcd, tuple(c for c, _ in found), tuple(e for _, e in found)


def max_cycle_ratio(graph: DepGraph) -> float:
    """Convenience: the LCD bound alone."""
    return loop_carried(graph)[0]


def edge_contributions(edges: Sequence[DepEdge]) -> dict[int, float]:
    """Cycles each instruction contributes along a path or cycle (by producer)."""
    out: dict[int, float] = {}
    for e in edges:
        out[e.src[0]] = out.get(e.src[0], 0.0) + e.weight
    return out
