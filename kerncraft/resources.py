"""Where the bundled machine files and example kernels are.

In a source checkout or an editable install they are the repository's top-level
``machine-files/`` and ``kernels/`` folders, next to the package. A wheel (``pip
install .`` or ``pip install kerncraft-*.whl``) installs them as data files under
``<prefix>/share/kerncraft/`` (``[tool.setuptools.data-files]`` in pyproject.toml),
where ``<prefix>`` is the environment's data path (``sysconfig.get_path("data")``,
the venv or ``/usr/local``). The first of these that exists is used.
"""
from __future__ import annotations

import sysconfig
from pathlib import Path

__all__ = ["BUNDLED_KINDS", "bundled_dir", "bundled_kernel", "bundled_kernel_names"]

#: The kinds of bundled files, named as their folders.
BUNDLED_KINDS = ("machine-files", "kernels")


def _candidates(kind: str) -> list[Path]:
    checkout = Path(__file__).resolve().parents[1] / kind
    installed = Path(sysconfig.get_path("data")) / "share" / "kerncraft" / kind
    return [checkout, installed]


def bundled_dir(kind: str) -> Path:
    """The folder of bundled ``kind`` files ('machine-files' or 'kernels').

    Returns the source checkout's folder when neither exists, so that messages name
    the place a user would look first.

    >>> bundled_dir("kernels").name
    'kernels'
    """
    if kind not in BUNDLED_KINDS:
        raise ValueError(f"unknown kind of bundled files {kind!r} (choose from "
                         f"{', '.join(BUNDLED_KINDS)})")
    candidates = _candidates(kind)
    return next((path for path in candidates if path.is_dir()), candidates[0])


def bundled_kernel_names() -> list[str]:
    """Names (file stems) of the bundled kernels, sorted."""
    return sorted(path.stem for path in bundled_dir("kernels").glob("*.c"))


def bundled_kernel(reference: str | Path) -> Path | None:
    """The bundled kernel a reference names: ``triad``, ``triad.c`` or
    ``kernels/triad.c`` (the README's spelling, also from another folder); None for
    anything else (other folders, unknown names).

    >>> bundled_kernel("kernels/triad.c").name
    'triad.c'
    >>> bundled_kernel("elsewhere/triad.c") is None
    True
    """
    path = Path(reference)
    if path.parent not in (Path("."), Path("kernels")):
        return None
    name = path.name if path.suffix in (".c", ".yml", ".yaml") else f"{path.name}.c"
    candidate = bundled_dir("kernels") / name
    return candidate if candidate.is_file() else None
