"""Kernel front end: restricted-C99 loop kernels -> :class:`~.model.KernelModel`.

Modules: :mod:`.parser` (entry point ``parse_kernel``), :mod:`.source`
(comments, pragmas, wrapping for pycparser), :mod:`.indices` (affine integer
expressions), :mod:`.body` (accesses, flops, types), :mod:`.model` (the model and
its -D substitution), :mod:`.binding` (what the models require of a bound kernel),
:mod:`.defines` (-D option parsing), :mod:`.summary` (-v text).
Nothing is imported here so that ``import kerncraft.kernel.model`` stays cheap.
"""
