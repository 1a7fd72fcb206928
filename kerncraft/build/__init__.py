"""The compiled-loop stage: from a bound kernel to the assembly block the in-core
model analyses.

:mod:`~kerncraft.build.codegen` writes the kernel as compilable C,
:mod:`~kerncraft.build.compiler` compiles it to assembly (cached by content),
:mod:`~kerncraft.build.asm_block` (x86) and :mod:`~kerncraft.build.asm_block_aarch64`
choose the kernel's loop block in it and how many source iterations one pass does
(shared parts in :mod:`~kerncraft.build.blocks`); :mod:`~kerncraft.build.dbcheck`
compiles the bundled kernels to check a port-model database against them.

Submodules are imported on demand; importing this package is cheap.
"""
