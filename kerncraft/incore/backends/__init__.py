"""External in-core analyzers as alternative backends (``-i LLVM-MCA``, ``-i OSACA``).

Our own block selection (:func:`kerncraft.compilation.asm_block.select_block`) picks the
loop; the backend writes that block, between the tool's comment markers
(``# LLVM-MCA-BEGIN`` / ``# LLVM-MCA-END``, ``# OSACA-BEGIN`` / ``# OSACA-END``),
into a fresh temporary directory, runs the tool there with an argument list
(never a shell string) and parses its text output into a
:class:`BackendAnalysis`: cycles per *assembly iteration* on every port the
tool models, its throughput, and (OSACA) critical path and loop-carried
dependency. The ECM models then use the machine file's non-overlapping ports
for that tool (``non-overlapping model: ports: LLVM-MCA: [SKXPort2, SKXPort3]``)
exactly as for our analyzer, so ``ECMCPU`` has the same shape with every backend.

The tools are optional and detected at run time; their absence is one clear
error line. Their names and per-tool architecture arguments come from the
machine file's ``in-core model`` entry for the tool.

This module chooses the backend; what every backend shares has modules of its own:
:mod:`.result` (:class:`BackendAnalysis`) and :mod:`.tool_run` (the marked block,
finding and running the tool), re-exported here.
"""
from __future__ import annotations

from kerncraft.errors import KerncraftError
# what every backend shares, in modules of their own (the backends import them too)
from kerncraft.incore.backends.result import BackendAnalysis
from kerncraft.incore.backends.tool_run import (TOOL_TIMEOUT, find_versioned, marked_block,
                                                run_tool, tool_identity)

__all__ = ["BackendAnalysis", "BACKENDS", "canonical_backend", "get_backend", "marked_block",
           "run_tool", "find_versioned", "tool_identity", "TOOL_TIMEOUT"]

#: Canonical backend names (the machine-file keys) by lower-case spelling.
BACKENDS = {"kerncraft": "kerncraft", "osaca": "OSACA", "llvm-mca": "LLVM-MCA",
            "llvm_mca": "LLVM-MCA", "llvmmca": "LLVM-MCA", "mca": "LLVM-MCA"}


def canonical_backend(name: str | None) -> str:
    """'kerncraft', 'OSACA' or 'LLVM-MCA' for any accepted spelling."""
    if name is None:
        return "kerncraft"
    try:
        return BACKENDS[str(name).strip().lower()]
    except KeyError:
        raise KerncraftError(f"unknown in-core model {name!r} (choose from kerncraft, OSACA, "
                             "LLVM-MCA)") from None


def get_backend(name: str):
    """The module implementing a backend ('OSACA' or 'LLVM-MCA')."""
    name = canonical_backend(name)
    if name == "LLVM-MCA":
        from kerncraft.incore.backends import llvm_mca
        return llvm_mca
    if name == "OSACA":
        from kerncraft.incore.backends import osaca
        return osaca
    raise KerncraftError(f"{name} is not an external backend")
