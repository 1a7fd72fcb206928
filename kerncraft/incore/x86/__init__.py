"""x86-64 support of the in-core analyzer: AT&T and Intel syntax.

``parse_x86`` turns AT&T assembly text into :class:`~kerncraft.incore.model.AsmLine`
objects; ``parse_x86_any`` also reads Intel syntax and ``objdump -d`` listings (into the
same AT&T representation); ``dataflow`` tells what one instruction reads and writes.
"""
from kerncraft.incore.x86.parser import parse_operand, parse_x86
from kerncraft.incore.x86.semantics import condition_code, dataflow, mnemonic_core, operand_access
from kerncraft.incore.x86.syntax import detect_syntax, parse_x86_any

__all__ = ["parse_x86", "parse_x86_any", "detect_syntax", "parse_operand", "dataflow",
           "operand_access", "mnemonic_core", "condition_code"]
