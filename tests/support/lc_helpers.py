"""Helpers of the layer-condition tests (tests/test_layer_conditions.py and
tests/test_layer_condition_notes.py): bundled or inline kernels and their traffic."""
from __future__ import annotations

from pathlib import Path

import kerncraft
from kerncraft.cache.layer_conditions import lc_analysis

KERNELS = Path(__file__).resolve().parents[2] / "kernels"


def bundled(name: str):
    """A bundled kernel, parsed (not bound)."""
    return kerncraft.parse_kernel((KERNELS / f"{name}.c").read_text(), f"{name}.c")


def src(text: str, name: str = "t.c"):
    """An inline kernel, parsed."""
    return kerncraft.parse_kernel(text, name)


def traffic(kernel, machine, **binds):
    """The layer-condition traffic of ``kernel`` on ``machine`` at ``binds``."""
    return lc_analysis(kernel, machine).evaluate(binds)
