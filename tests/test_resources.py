"""Bundled machine files and kernels are found from any folder (kerncraft/resources.py)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import kerncraft
from kerncraft.api import read_kernel_file
from kerncraft.errors import KerncraftError
from kerncraft.resources import bundled_dir, bundled_kernel, bundled_kernel_names

REPO = Path(__file__).resolve().parents[1]


def test_checkout_folders_are_the_bundled_ones():
    assert bundled_dir("machine-files") == REPO / "machine-files"
    assert bundled_dir("kernels") == REPO / "kernels"
    assert "triad" in bundled_kernel_names() and "2d-5pt" in bundled_kernel_names()
    with pytest.raises(ValueError, match="unknown kind"):
        bundled_dir("databases")


def test_readme_kernel_path_works_from_another_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                      # no kernels/ folder here
    assert bundled_kernel("kernels/2d-5pt.c") == REPO / "kernels" / "2d-5pt.c"
    assert bundled_kernel("2d-5pt") == bundled_kernel("2d-5pt.c") == REPO / "kernels" / "2d-5pt.c"
    assert bundled_kernel("other/2d-5pt.c") is None and bundled_kernel("kernels/nope.c") is None
    assert "b[j][i]" in read_kernel_file("kernels/2d-5pt.c")
    assert kerncraft.load_machine("CSX").cacheline_size == 64
    with pytest.raises(KerncraftError, match=r"kernel file not found: kernels/nope.c "
                                             r"\(bundled kernels: 2d-5pt, 3d-27pt"):
        read_kernel_file("kernels/nope.c")
    with pytest.raises(KerncraftError, match=r"^kernel file not found: other/2d-5pt.c$"):
        read_kernel_file("other/2d-5pt.c")


def test_a_wheel_ships_every_bundled_file():
    """pyproject's data-files globs cover every machine file and kernel of the checkout
    (a wheel installs them under <prefix>/share/kerncraft/, see kerncraft/resources.py;
    .ci/run installs the built wheel in a fresh venv and runs the README command from /)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    data = config["tool"]["setuptools"]["data-files"]
    assert data == {"share/kerncraft/machine-files": ["machine-files/*.yml"],
                    "share/kerncraft/kernels": ["kernels/*.c", "kernels/*.yml"],
                    "share/kerncraft/kernels/polybench": ["kernels/polybench/*.c"]}
    # every file of kernels/ is a C kernel or a YAML kernel description, and the one
    # folder below it holds the in-core campaign's Polybench-like kernels
    assert {p.suffix for p in (REPO / "kernels").iterdir() if p.is_file()} <= {".c", ".yml"}
    assert [p.name for p in (REPO / "kernels").iterdir() if p.is_dir()] == ["polybench"]
    assert {p.suffix for p in (REPO / "kernels" / "polybench").iterdir()} == {".c"}
    assert sorted(REPO.glob("machine-files/*.yaml")) == []   # the glob must see every file
