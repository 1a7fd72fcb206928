"""x86-64 (AT&T syntax) support of the in-core analyzer.

``parse_x86`` turns assembly text into :class:`~kerncraft.incore.model.AsmLine`
objects; ``dataflow`` tells what one instruction reads and writes.
"""
from kerncraft.incore.x86.parser import parse_operand, parse_x86
from kerncraft.incore.x86.semantics import condition_code, dataflow, mnemonic_core, operand_access

__all__ = ["parse_x86", "parse_operand", "dataflow", "operand_access", "mnemonic_core",
           "condition_code"]
