"""Typed intermediate results of the in-core analyzer.

Pipeline: assembly text --parser--> ``AsmLine`` list --marker/loop finder-->
kernel ``Instruction`` list --semantics--> sources/destinations per instruction
--database--> ``InstructionCost`` per instruction --analysis--> ``InCoreResult``.

Operand type names (used in instruction-form keys of the databases):
``r8 r16 r32 r64`` general-purpose registers, ``xmm ymm zmm`` vector registers,
``k`` AVX-512 mask registers, ``mem`` a memory operand, ``imm`` an immediate,
``lbl`` a label/symbol (branch target). AArch64 adds its own classes
(``x w v q d s h b z p``). A form key is ``"mnemonic op1,op2,..."`` with operands
in *source (AT&T) order*, e.g. ``"vfmadd231pd ymm,ymm,mem"``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Union


@dataclass(frozen=True)
class Register:
    name: str                     # canonical lower-case name without '%', e.g. 'rax', 'zmm3', 'k1'
    lane: str | None = None       # AArch64 arrangement/lane suffix ('2d', 'd[1]'), else None

    @property
    def type(self) -> str:
        from kerncraft.incore import registers  # late import: table lives there
        return registers.register_class(self.name)


@dataclass(frozen=True)
class Immediate:
    value: int | float | None     # None if symbolic
    symbol: str | None = None

    @property
    def type(self) -> str:
        return "imm"


@dataclass(frozen=True)
class Memory:
    base: Register | None = None
    index: Register | None = None
    scale: int = 1
    displacement: int = 0
    symbol: str | None = None       # symbolic displacement, e.g. 'a.0' or '.LC0'
    segment: str | None = None      # 'fs', ...
    broadcast: str | None = None    # AVX-512 '{1to8}' -> '1to8'
    pre_index: bool = False         # AArch64 '[x0, #16]!' (base written back)
    post_index: int | None = None   # AArch64 '[x0], #16' (base written back)

    @property
    def type(self) -> str:
        return "mem"


@dataclass(frozen=True)
class Label:
    name: str

    @property
    def type(self) -> str:
        return "lbl"


Operand = Union[Register, Immediate, Memory, Label]


@dataclass(frozen=True)
class Instruction:
    """One parsed instruction, operands in source order (AT&T: sources first)."""

    mnemonic: str                       # lower-case, as written (suffix kept: 'addq')
    operands: tuple[Operand, ...]
    line_number: int                    # 1-based line in the input file
    text: str = ""                      # the source line, stripped
    mask: Register | None = None        # AVX-512 '{%k1}'
    zeroing: bool = False               # '{z}'
    rounding: str | None = None         # '{rn-sae}' -> 'rn-sae'

    @property
    def form_key(self) -> str:
        ops = ",".join(op.type for op in self.operands)
        return f"{self.mnemonic} {ops}".strip()


@dataclass(frozen=True)
class AsmLine:
    """One line of an assembly file."""

    line_number: int
    text: str
    label: str | None = None
    directive: tuple[str, tuple[str, ...]] | None = None   # ('.byte', ('100','103','144'))
    instruction: Instruction | None = None
    comment: str | None = None


@dataclass(frozen=True)
class Uop:
    """One micro-op: may issue to any port of ``ports``, occupying it ``cycles``."""

    ports: frozenset[str]
    cycles: float = 1.0


@dataclass(frozen=True)
class InstructionCost:
    """Database answer for one instruction (memory operands already composed).

    ``latency`` is the register-to-register latency of the arithmetic part;
    ``load_latency`` is the extra latency on the path from the address registers /
    memory to the result when the form has a memory source (kept separate so the
    critical path can split loads off); ``store`` marks forms that write memory.
    """

    form_key: str
    uops: tuple[Uop, ...]
    latency: float
    load_latency: float = 0.0
    has_load: bool = False
    has_store: bool = False
    throughput: float | None = None     # reciprocal throughput from the source, informative
    source: str = ""                    # where the data came from
    # Consumer-dependent latency: ``latency`` holds when the consumer belongs to the
    # same forwarding group (``bypass``), ``latency_other`` for every other consumer.
    bypass: str | None = None
    latency_other: float | None = None

    def latency_to(self, consumer: "InstructionCost | None", reads_address: bool = False) -> float:
        """Latency of this result as seen by ``consumer`` (address reads never bypass)."""
        if self.latency_other is None:
            return self.latency
        if reads_address or consumer is None or consumer.bypass != self.bypass:
            return self.latency_other
        return self.latency


@dataclass(frozen=True)
class DependencyChain:
    """A loop-carried dependency cycle: instructions (indices into the kernel)."""

    instructions: tuple[int, ...]
    latency: float                      # cycles per assembly iteration
    via: tuple[str, ...] = ()           # registers / flags / memory carrying it


@dataclass(frozen=True)
class InCoreResult:
    """Result of analysing one assembly loop body (cycles per assembly iteration)."""

    arch: str
    instructions: tuple[Instruction, ...]
    costs: tuple[InstructionCost | None, ...]            # None where unknown
    port_pressure: tuple[Mapping[str, float], ...]       # per instruction: port -> cycles
    port_totals: Mapping[str, float]
    throughput: float                                    # optimal port balancing
    critical_path: float
    critical_path_instructions: tuple[int, ...]
    lcd: float
    lcd_chains: tuple[DependencyChain, ...]
    unknown_forms: tuple[str, ...] = ()
    frontend: float | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    # cycles the loads and stores need in program order (kerncraft.incore.memissue);
    # None where the port model does not declare memory_issue
    memory_issue: float | None = None

    @property
    def prediction(self) -> float:
        return loop_bound(self.throughput, self.lcd, self.frontend, self.memory_issue)


def loop_bound(throughput: float, lcd: float, frontend: float | None,
               memory_issue: float | None = None) -> float:
    """Cycles per assembly iteration: the largest of the port throughput, the
    loop-carried dependency and (where modelled) the front end and the memory issue
    order."""
    return max(throughput, lcd, frontend or 0.0, memory_issue or 0.0)


@dataclass(frozen=True)
class DataFlow:
    """What one instruction reads and writes, as dependency *keys*.

    Keys are alias roots from :func:`kerncraft.incore.registers.alias_root`
    (``'rax'`` for al/ax/eax/rax, ``'v3'`` for xmm3/ymm3/zmm3, ``'k1'``) and one
    key per status flag (``'flag.c'``, ``'flag.z'``, ``'flag.s'``, ``'flag.o'``,
    ``'flag.p'``, ``'flag.a'``). ``address_sources`` are the registers of memory
    operands' addresses (they feed the load/store, not the arithmetic).
    ``breaks_dependency`` marks zero idioms (``vxorpd %x,%x,%x``) whose result
    does not depend on their register sources.

    ``separate_results`` lists destinations that are computed from a subset of
    the sources only, as ``(destination, its sources)`` pairs: the *address
    results* of an instruction with separate address and data results (the
    written-back base of ``str d5, [x14], #8`` depends on the old ``x14`` only, not
    on ``d5``; ``rsp`` of ``push``/``pop``; ``rsi``/``rdi`` of string instructions).
    Every other destination depends on all ``sources``. A source named there
    that is not an address source (the increment register of ``[x0], x2``)
    feeds only those destinations.
    """

    sources: frozenset[str]
    destinations: frozenset[str]
    address_sources: frozenset[str] = frozenset()
    memory_reads: tuple[Memory, ...] = ()
    memory_writes: tuple[Memory, ...] = ()
    breaks_dependency: bool = False
    separate_results: tuple[tuple[str, frozenset[str]], ...] = ()

    def sources_of(self, destination: str) -> frozenset[str]:
        """The sources ``destination`` depends on (all sources unless separate)."""
        for key, srcs in self.separate_results:
            if key == destination:
                return srcs
        return self.sources

    @property
    def separate_only_sources(self) -> frozenset[str]:
        """Sources read only for the separate results (see the class docstring)."""
        used = frozenset().union(*(s for _, s in self.separate_results))
        return used - self.address_sources


@dataclass
class DataFlowBuilder:
    """Mutable accumulator of one instruction's :class:`DataFlow`; the ISA semantics
    (x86, AArch64) subclass it with their operand rules and call :meth:`freeze`."""

    sources: set[str] = field(default_factory=set)
    destinations: set[str] = field(default_factory=set)
    address: set[str] = field(default_factory=set)
    reads: list[Memory] = field(default_factory=list)
    writes: list[Memory] = field(default_factory=list)
    breaks: bool = False
    separate: dict[str, set[str]] = field(default_factory=dict)

    def separate_result(self, destination: str, sources: set[str] | frozenset[str]) -> None:
        """Record ``destination`` as written from ``sources`` only (an address result);
        both are added to the destinations and sources as well."""
        self.destinations.add(destination)
        self.sources.update(sources)
        self.separate.setdefault(destination, set()).update(sources)

    def freeze(self) -> DataFlow:
        return DataFlow(sources=frozenset(self.sources),
                        destinations=frozenset(self.destinations),
                        address_sources=frozenset(self.address),
                        memory_reads=tuple(self.reads), memory_writes=tuple(self.writes),
                        breaks_dependency=self.breaks,
                        separate_results=tuple(sorted(
                            (k, frozenset(v)) for k, v in self.separate.items())))
