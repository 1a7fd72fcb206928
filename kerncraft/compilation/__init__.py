"""The compiled-loop stage: from a bound kernel to the assembly block the in-core
model analyses.

:mod:`~kerncraft.compilation.codegen` writes the kernel as compilable C,
:mod:`~kerncraft.compilation.compiler` compiles it to assembly (cached by content),
:mod:`~kerncraft.compilation.asm_block` (x86) and :mod:`~kerncraft.compilation.asm_block_aarch64`
choose the kernel's loop block in it and how many source iterations one pass does
(shared parts in :mod:`~kerncraft.compilation.blocks`).

Submodules are imported on demand; importing this package is cheap.
"""
