"""AnalysisOptions: the models' settings without argparse (issue 16)."""
from __future__ import annotations

import ast
from argparse import Namespace
from pathlib import Path

import pytest

from kerncraft.errors import KerncraftError
from kerncraft.options import AnalysisOptions, as_options, canonical_incore_model

ROOT = Path(__file__).resolve().parents[1]
CLI_MODULES = {"kerncraft/cli/kerncraft.py", "kerncraft/cli/incore.py", "kerncraft/cli/machine.py"}


def is_command_module(path: Path) -> bool:
    """The command-line layer: the modules of the ``kerncraft/cli/`` package."""
    return path.parent.name == "cli" and path.parent.parent.name == "kerncraft"


# Built at the same time as AnalysisOptions by another session, still handing the models
# an argparse.Namespace; it should pass AnalysisOptions and then leave this set.
PENDING: set[str] = set()


def test_defaults_are_the_command_line_defaults():
    from kerncraft.cli.kerncraft import build_parser, options_from_args

    args = build_parser().parse_args(["-p", "ECM", "-m", "CSX", "k.c"])
    assert options_from_args(args) == AnalysisOptions()


def test_cli_conversion_carries_every_option():
    from kerncraft.cli.kerncraft import build_parser, options_from_args

    args = build_parser().parse_args(
        ["-p", "ECM", "-m", "CSX", "k.c", "-c", "3", "-P", "SIM", "--unit", "It/s", "-vv",
         "-i", "llvm-mca", "-C", "clang", "--compiler-flags=-O2", "--asm-block", "2",
         "--pointer-increment", "16", "--ignore-unknown"])
    assert options_from_args(args) == AnalysisOptions(
        cache_predictor="SIM", cores=3, unit="It/s", verbose=2, incore_model="LLVM-MCA",
        compiler="clang", compiler_flags="-O2", asm_block=2, pointer_increment=16,
        ignore_unknown=True)


def test_options_are_frozen_and_validated():
    options = AnalysisOptions()
    with pytest.raises(AttributeError):
        options.cores = 2                                  # type: ignore[misc]
    for bad in (dict(cores=0), dict(cores=True), dict(cores=1.5), dict(unit="GHz"),
                dict(cache_predictor="lru"), dict(incore_model="IACA"),
                dict(incore_model="uica")):
        with pytest.raises(KerncraftError):
            AnalysisOptions(**bad)
    assert options.replace(cores=4).cores == 4 and options.cores == 1
    with pytest.raises(KerncraftError):
        options.replace(cores=-1)


def test_cache_fill_mapping_is_read_only():
    options = AnalysisOptions(cache_fill={"L2": 0.5})
    with pytest.raises(TypeError):
        options.cache_fill["L2"] = 1.0                     # type: ignore[index]
    assert dict(options.cache_fill) == {"L2": 0.5}


def test_namespace_converts_with_missing_and_none_attributes_defaulted():
    options = as_options(Namespace(cores=2, unit=None, verbose=1, json="-"))
    assert options == AnalysisOptions(cores=2, verbose=1)
    same = AnalysisOptions(cores=3)
    assert as_options(same) is same


def test_incore_model_spellings():
    assert [canonical_incore_model(n) for n in ("KERNCRAFT", "osaca", "llvm_mca", None)] == [
        "kerncraft", "OSACA", "LLVM-MCA", "kerncraft"]
    with pytest.raises(KerncraftError, match="discontinued"):
        canonical_incore_model("iaca")


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_command_line_modules_import_argparse():
    importers = {p for p in (ROOT / "kerncraft").rglob("*.py") if "argparse" in _imports(p)}
    outside = {str(p.relative_to(ROOT)) for p in importers if not is_command_module(p)}
    assert outside <= PENDING
    # the check sees real imports: the three commands parse their options with argparse
    assert CLI_MODULES <= {str(p.relative_to(ROOT)) for p in importers}


def test_docstring_examples_run():
    import doctest

    import kerncraft.options

    result = doctest.testmod(kerncraft.options)
    assert result.failed == 0 and result.attempted >= 10
