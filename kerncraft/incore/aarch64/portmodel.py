"""AArch64 composition rules on top of a port-model database.

A database (``databases/TX2.yml``) is loaded by the ISA-neutral
:func:`kerncraft.incore.database.load_database`; its composition rules for
memory operands are x86's (an arithmetic form plus a load). On AArch64 every
memory access is its own load/store instruction with an explicit table entry,
so only one rule is left to compose, and it is AArch64-specific:

**Writeback.** A pre- or post-indexed access (``ldr d0, [x1], #8``,
``stp x29, x30, [sp, -16]!``) is the plain access plus an addition of the
offset to the base register. Its cost is the table entry of the access form
plus the database's pseudo-form ``writeback`` (uops and latency of that
addition). The semantics make the new base a separate result of the old base
(:mod:`kerncraft.incore.aarch64.semantics`), which the dependency graph gives
its own node with the instruction's ``latency``; the composed form therefore
gets ``latency = writeback latency`` (the base register is ready that much after
its old value) and the load part ``load_latency = data latency - writeback
latency`` -- the loaded value (load node + op node) still arrives after the full
load latency.
A database without a ``writeback`` entry makes writebacks free (0 cycles, no uop).

**Register offset.** A load or store whose address adds a register
(``ldr q0, [x1, x2]``, ``str d0, [x1, x2, lsl #3]``, ``ldr x0, [x1, w2, sxtw]``)
may cost more than the immediate-offset form the table entry describes (on
ThunderX2 one more integer uop: llvm-mca-14 -mcpu=thunderx2t99). Its cost is the
entry plus the pseudo-form ``register_offset <mnemonic>`` if the database has it,
else ``register_offset``; the pseudo-form's ``latency`` delays the loaded value
(it is added to ``load_latency``). Prefetches and every other instruction are left
alone. A database without the pseudo-form makes register offsets free.

:func:`adapt_model` wraps a database whose YAML header says ``isa: aarch64``
(:attr:`PortModel.isa <kerncraft.incore.database.PortModel>`) in
:class:`AArch64PortModel`; other databases are returned unchanged.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from kerncraft.incore.model import Instruction, InstructionCost, Memory

if TYPE_CHECKING:
    from kerncraft.incore.database import PortModel
    from kerncraft.incore.protocols import PortModelLike

__all__ = ["AArch64PortModel", "adapt_model", "database_isa", "WRITEBACK_FORM",
           "REGISTER_OFFSET_FORM", "compose_writeback", "compose_register_offset"]

#: Pseudo-form key of the writeback addition in AArch64 databases.
WRITEBACK_FORM = "writeback"
#: Pseudo-form key of the extra cost of a register offset (``[x1, x2]``).
REGISTER_OFFSET_FORM = "register_offset"


def _writeback(instr: Instruction) -> bool:
    return any(isinstance(op, Memory) and (op.pre_index or op.post_index is not None)
               for op in instr.operands)


def _register_offset(instr: Instruction) -> bool:
    """A load or store (``ld*``/``st*``; not ``prfm``, whose cost llvm-mca does not
    change with the offset) with an index register in its address."""
    return instr.mnemonic.lower().startswith(("ld", "st")) and any(
        isinstance(op, Memory) and op.index is not None for op in instr.operands)


def compose_writeback(cost: InstructionCost, wb: InstructionCost) -> InstructionCost:
    """Access form + writeback addition (see the module docstring)."""
    data_latency = cost.load_latency + cost.latency
    latency = max(cost.latency, wb.latency)
    load_latency = max(data_latency - latency, 0.0) if cost.has_load else cost.load_latency
    return replace(cost, uops=cost.uops + wb.uops, latency=latency, load_latency=load_latency,
                   source=f"{cost.source} [composed: + writeback: {wb.source}]")


def compose_register_offset(cost: InstructionCost, extra: InstructionCost) -> InstructionCost:
    """Access form + the register-offset pseudo-form (see the module docstring): its
    uops are added, its latency delays only the loaded value (a store has none)."""
    load_latency = cost.load_latency + extra.latency if cost.has_load else cost.load_latency
    return replace(cost, uops=cost.uops + extra.uops, load_latency=load_latency,
                   source=f"{cost.source} [composed: + register offset: {extra.source}]")


@dataclass(frozen=True, eq=False)
class AArch64PortModel:
    """A :class:`~kerncraft.incore.database.PortModel` with the AArch64 rules.

    Every attribute not defined here (``ports``, ``arch``, ``load_ports`` ...)
    is the wrapped model's, so the analysis and the ECM model use it as they
    use a plain ``PortModel``; ``isa`` tells them to parse and interpret
    AArch64.
    """

    base: PortModel
    isa: str = "aarch64"

    def __getattr__(self, name: str) -> Any:
        # the wrapper adds rules, not fields: everything else is the database's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.base, name)

    @functools.cached_property
    def _writeback_cost(self) -> InstructionCost | None:
        return self.base.lookup_form(WRITEBACK_FORM)

    @functools.cached_property
    def _register_offset_costs(self) -> dict[str, InstructionCost | None]:
        return {}                            # per mnemonic, filled on first use

    def _register_offset_cost(self, mnemonic: str) -> InstructionCost | None:
        memo = self._register_offset_costs
        if mnemonic not in memo:
            # a mnemonic's own entry first: llvm-mca charges ldrb/ldrsw more than ldr
            memo[mnemonic] = (self.base.lookup_form(f"{REGISTER_OFFSET_FORM} {mnemonic}")
                              or self.base.lookup_form(REGISTER_OFFSET_FORM))
        return memo[mnemonic]

    def lookup(self, instr: Instruction) -> InstructionCost | None:
        """Cost of ``instr``; writeback and register-offset accesses composed;
        None if unknown."""
        cost = self.base.lookup(instr)
        if cost is None:
            return None
        if _register_offset(instr):
            extra = self._register_offset_cost(instr.mnemonic.lower())
            cost = cost if extra is None else compose_register_offset(cost, extra)
        if not _writeback(instr):
            return cost
        wb = self._writeback_cost
        return cost if wb is None else compose_writeback(cost, wb)

    def lookup_form(self, form_key: str, simple_address: bool = False
                    ) -> InstructionCost | None:
        return self.base.lookup_form(form_key, simple_address)

    def has_form(self, form_key: str) -> bool:
        return self.base.has_form(form_key)


def database_isa(model: PortModelLike) -> str:
    """ISA of a loaded database (the ``isa`` key of its YAML header), 'x86' if empty."""
    return str(model.isa or "x86").lower()


def adapt_model(model: PortModel | AArch64PortModel) -> PortModel | AArch64PortModel:
    """``model`` wrapped in :class:`AArch64PortModel` if it is an AArch64
    database (and not wrapped already), else ``model`` itself."""
    if isinstance(model, AArch64PortModel) or database_isa(model) != "aarch64":
        return model
    return AArch64PortModel(model)
