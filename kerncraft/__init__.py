"""kerncraft: loop kernel performance prediction (Roofline, ECM) for CPUs.

Public API::

    import kerncraft
    machine = kerncraft.load_machine("CSX")          # or a path to a YAML file
    kernel = kerncraft.parse_kernel(source_text, filename="2d-5pt.c")
"""
from __future__ import annotations

__version__ = "0.1.0"

from kerncraft.errors import KerncraftError  # noqa: E402


def load_machine(path_or_name):
    """Load a Kerncraft-format machine file (path, or bundled name like ``CSX``)."""
    from kerncraft.machine.loader import load_machine as _load

    return _load(path_or_name)


def parse_kernel(source: str, filename: str | None = None):
    """Parse restricted-C99 kernel source into a frozen :class:`KernelModel`."""
    from kerncraft.kernel.parser import parse_kernel as _parse

    return _parse(source, filename=filename)


__all__ = ["__version__", "KerncraftError", "load_machine", "parse_kernel"]
