"""The seams of the in-core analyzer: what its stages require of the objects they get.

* :class:`PortModelLike` -- a port model of either ISA: the x86
  :class:`~kerncraft.incore.database.PortModel`, its AArch64 wrapper
  :class:`~kerncraft.incore.aarch64.portmodel.AArch64PortModel`, or a hand-written
  model (tests, library users). It must name its core and ISA, list its ports and
  cost an instruction.
* :class:`PortModelTraits` -- the optional rest of a port model (front end, reorder
  buffer, port groups, line-split costs ...), read once by :func:`traits_of`. The
  databases declare every trait; a hand-written model may leave any out, and the
  analysis then treats it as absent (no front-end bound, no store forwarding, ...).
* :class:`AnalysedLoop` -- an analysed loop body as the cycle-level simulation reads
  it: an :class:`~kerncraft.incore.analysis.InCoreAnalysis`, the result cache's lazy
  stand-in for one (:mod:`kerncraft.memo.incore_analyses`) or the same with line-split
  uops added (:mod:`kerncraft.incore.split_uops`).
* :class:`SelectedBlock` -- the loop block the ECM pipeline chose, as the external
  backends read it (a :class:`~kerncraft.compilation.blocks.BlockSelection`, which
  lives in a higher layer, or its cached stand-in).

Members are read-only properties so that frozen dataclasses match them.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Mapping, Protocol, Sequence

if TYPE_CHECKING:
    from kerncraft.incore.depgraph import DepGraph
    from kerncraft.incore.linesplit import LineSplitEstimate, SplitCost
    from kerncraft.incore.markers import LoopBlock
    from kerncraft.incore.memissue import MemoryIssue
    from kerncraft.incore.model import DependencyChain, Instruction, InstructionCost

__all__ = ["PortModelLike", "PortModelTraits", "traits_of", "AnalysedLoop", "SelectedBlock"]


class PortModelLike(Protocol):
    """What every port model has (see the module docstring)."""

    @property
    def arch(self) -> str: ...           # database name, e.g. 'SKX', 'TX2'

    @property
    def isa(self) -> str: ...            # 'x86' | 'aarch64'

    @property
    def ports(self) -> tuple[str, ...]: ...

    def lookup(self, instr: Instruction) -> InstructionCost | None: ...


@dataclass(frozen=True)
class PortModelTraits:
    """The optional parts of a port model; the defaults stand for 'not modelled'."""

    frontend_width: float | None = None          # uops issued per cycle
    rob_size: int | None = None                  # reorder-buffer entries
    scheduler_size: int | None = None            # uops waiting for a port
    store_forward_latency: float | None = None   # None: no dependencies through memory
    load_ports: tuple[str, ...] = ()
    load_data_ports: tuple[str, ...] = ()
    store_address_ports: tuple[str, ...] = ()
    simple_store_address_ports: tuple[str, ...] = ()
    divider_ports: tuple[str, ...] = ()
    line_split: tuple[SplitCost, ...] = ()       # cost of a cache-line split per access
    code_block_bytes: int | None = None          # front-end fetch block
    memory_issue: MemoryIssue | None = None      # oldest-first pick of loads/stores


_SEQUENCES = {f.name for f in fields(PortModelTraits) if f.default == ()}


def traits_of(model: PortModelLike) -> PortModelTraits:
    """The optional parts ``model`` declares, the defaults for the others."""
    found = {}
    for f in fields(PortModelTraits):
        # the one open read of a port model: a hand-written one declares only what it has
        value = getattr(model, f.name, None)
        found[f.name] = tuple(value or ()) if f.name in _SEQUENCES else value
    return PortModelTraits(**found)


class AnalysedLoop(Protocol):
    """What the cycle-level simulation reads of an analysed loop body (cycles per
    assembly iteration)."""

    @property
    def arch(self) -> str: ...

    @property
    def instructions(self) -> Sequence[Instruction]: ...

    @property
    def costs(self) -> Sequence[InstructionCost | None]: ...

    @property
    def port_totals(self) -> Mapping[str, float]: ...

    @property
    def lcd(self) -> float: ...

    @property
    def lcd_chains(self) -> Sequence[DependencyChain]: ...

    @property
    def fused_uops(self) -> Sequence[int]: ...

    @property
    def line_splits(self) -> LineSplitEstimate | None: ...

    @property
    def graph(self) -> DepGraph | None: ...

    @property
    def prediction(self) -> float: ...


class SelectedBlock(Protocol):
    """A selected loop block: its instructions and the loop they came from."""

    @property
    def instructions(self) -> Sequence[Instruction]: ...

    @property
    def block(self) -> LoopBlock: ...
