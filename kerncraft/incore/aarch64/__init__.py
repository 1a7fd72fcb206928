"""AArch64 (A64, GNU syntax) support of the in-core analyzer.

``parse_aarch64`` turns gcc/clang/armclang assembly into
:class:`~kerncraft.incore.model.AsmLine` objects; ``dataflow`` tells what one
instruction reads and writes; :mod:`.portmodel` adds the AArch64 composition
rules (pre/post-index writeback) to a port-model database. Importing this
package registers the AArch64 register names with
:mod:`kerncraft.incore.registers`.
"""
from kerncraft.incore.aarch64.operands import A64Register, Condition, Shift
from kerncraft.incore.aarch64.parser import detect_isa, parse_aarch64, parse_operand
from kerncraft.incore.aarch64.semantics import dataflow, operand_access

__all__ = ["parse_aarch64", "parse_operand", "detect_isa", "dataflow", "operand_access",
           "A64Register", "Shift", "Condition"]
