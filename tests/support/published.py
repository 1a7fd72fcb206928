"""Where the tests find Kerncraft's published machine files.

``KERNCRAFT_PUBLISHED_FILES`` names a folder holding them; by default the
``shared/reference/kerncraft-machine-files/`` folder beside the checkout. Tests that need
one skip, with :data:`HOW_TO_GET` as the reason, when it is absent: the files are in
Kerncraft's repository under ``examples/machine-files/``.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

_DEFAULT = Path(__file__).resolve().parents[2].parent / "shared" / "reference" \
    / "kerncraft-machine-files"
PUBLISHED_DIR = Path(os.environ.get("KERNCRAFT_PUBLISHED_FILES") or _DEFAULT)

HOW_TO_GET = (f"Kerncraft's published machine files not found in {PUBLISHED_DIR}: copy "
              "examples/machine-files/ of Kerncraft's repository there, or set "
              "KERNCRAFT_PUBLISHED_FILES to a folder holding them")


def published(name: str) -> Path:
    """The published file ``name`` (it may not exist: use :data:`needs_published`)."""
    return PUBLISHED_DIR / name


needs_published = pytest.mark.skipif(not PUBLISHED_DIR.is_dir(), reason=HOW_TO_GET)
