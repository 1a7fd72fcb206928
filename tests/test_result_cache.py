"""Persistent in-core result cache (kerncraft/memo/incore_analyses.py).

What must hold: a warm run gives exactly the numbers and text of a cold run;
it does not import the assembly parser, the analyzer or networkx; the key
changes with everything the result depends on; a broken or foreign entry is
a miss; KERNCRAFT_NO_CACHE disables it; interactive choices are not cached.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kerncraft.memo import incore_analyses as rc
from kerncraft.models import incore_prediction as ip

ROOT = Path(__file__).parent.parent
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")



def _entries(cache: Path) -> list[Path]:
    return sorted((cache / "incore").rglob("*.json")) if (cache / "incore").exists() else []


def _bound(name: str, **values):
    import kerncraft

    kernel = kerncraft.parse_kernel((ROOT / "kernels" / f"{name}.c").read_text(),
                                    f"kernels/{name}.c")
    return kernel.bind({c: values.get(c, 1000) for c in kernel.constant_names})


def _args(**kw):
    base = dict(cache_predictor="LC", cores=1, unit=None, verbose=0, compiler=None,
                compiler_flags=None, asm_block="auto", pointer_increment="auto",
                ignore_unknown=False, incore_model="kerncraft", json=None)
    base.update(kw)
    return argparse.Namespace(**base)


def test_bundled_database_names_match_the_database_module():
    from kerncraft.incore.database import DATABASE_DIR, available_databases

    assert rc.bundled_databases() == available_databases()
    assert rc.DATABASE_DIR == DATABASE_DIR.resolve()


@needs_gcc
@pytest.mark.parametrize("name", ["triad", "2d-5pt", "3d-7pt", "sum_reduction"])
def test_warm_result_equals_cold_result(cache_dir, name):
    import kerncraft
    from kerncraft.runner.run import model_report

    machine = kerncraft.load_machine("CSX")
    kernel = _bound(name)
    cold = ip.predict_incore(kernel, machine, iterations_per_cacheline=8)
    cold_text = model_report("ECM", kernel, machine, _args()).text
    cold_verbose = model_report("ECM", kernel, machine, _args(verbose=1)).text
    assert len(_entries(cache_dir)) == 1
    assert not isinstance(cold.analysis, rc.CachedAnalysis)

    ip._analyse_source.cache_clear()
    warm = ip.predict_incore(kernel, machine, iterations_per_cacheline=8)
    assert isinstance(warm.analysis, rc.CachedAnalysis)
    assert isinstance(warm.selection, rc.CachedSelection)
    assert warm.to_dict() == cold.to_dict()
    assert json.dumps(warm.to_dict()) == json.dumps(cold.to_dict())     # int/float kept
    assert (warm.t_ol, warm.t_nol, warm.t_ol_source) == (cold.t_ol, cold.t_nol, cold.t_ol_source)
    assert warm.selection.describe() == cold.selection.describe()
    assert model_report("ECM", kernel, machine, _args()).text == cold_text
    # -v needs the instruction table: the cached objects compute it on first use
    ip._analyse_source.cache_clear()
    assert model_report("ECM", kernel, machine, _args(verbose=1)).text == cold_verbose


@needs_gcc
def test_lazy_objects_delegate_to_the_full_result(cache_dir):
    import kerncraft

    machine = kerncraft.load_machine("CSX")
    kernel = _bound("2d-5pt")
    cold = ip.predict_incore(kernel, machine, iterations_per_cacheline=8)
    ip._analyse_source.cache_clear()
    warm = ip.predict_incore(kernel, machine, iterations_per_cacheline=8)
    assert warm.analysis.instructions == cold.analysis.instructions
    assert warm.analysis.port_pressure == cold.analysis.port_pressure
    assert warm.selection.block == cold.selection.block
    assert warm.analysis.prediction == cold.analysis.prediction
    with pytest.raises(AttributeError):
        warm.analysis.no_such_attribute


@needs_gcc
def test_warm_run_imports_neither_parser_nor_networkx(cache_dir):
    script = (
        "import sys\n"
        "from kerncraft.cli.kerncraft import main\n"
        "code = main(['-p', 'ECM', '-m', 'CSX', 'kernels/2d-5pt.c', '-D', 'N', '1000',"
        " '-D', 'M', '1000'])\n"
        "heavy = [m for m in ('networkx', 'pyparsing', 'kerncraft.incore.x86.parser',"
        " 'kerncraft.incore.analysis', 'kerncraft.incore.depgraph', 'kerncraft.compilation.asm_block',"
        " 'kerncraft.incore.database') if m in sys.modules]\n"
        "print('HEAVY', heavy, code, file=sys.stderr)\n")
    env = dict(os.environ, KERNCRAFT_CACHE_DIR=str(cache_dir))
    runs = [subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                           capture_output=True, text=True) for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout and "ECM (CSX" in runs[0].stdout
    assert "HEAVY [] 0" not in runs[0].stderr          # the cold run needs them
    assert "HEAVY [] 0" in runs[1].stderr, runs[1].stderr


@needs_gcc
def test_broken_or_foreign_entry_is_a_miss_and_rewritten(cache_dir):
    import kerncraft

    machine = kerncraft.load_machine("CSX")
    kernel = _bound("triad")
    first = ip.predict_incore(kernel, machine, iterations_per_cacheline=8).to_dict()
    (entry,) = _entries(cache_dir)
    good = entry.read_text()
    for broken in ("{not json", json.dumps({"format": "0", "key": entry.stem}),
                   json.dumps({"format": rc.FORMAT_VERSION, "key": "another key"}),
                   good.replace('"selection"', '"selektion"')):
        entry.write_text(broken)
        ip._analyse_source.cache_clear()
        again = ip.predict_incore(kernel, machine, iterations_per_cacheline=8)
        assert not isinstance(again.analysis, rc.CachedAnalysis)
        assert again.to_dict() == first
        assert json.loads(entry.read_text())["key"] == entry.stem     # rewritten


@needs_gcc
def test_no_cache_env_disables_it(cache_dir, monkeypatch):
    import kerncraft

    monkeypatch.setenv("KERNCRAFT_NO_CACHE", "1")
    ip.predict_incore(_bound("triad"), kerncraft.load_machine("CSX"), iterations_per_cacheline=8)
    assert _entries(cache_dir) == []


@needs_gcc
def test_interactive_choices_are_not_cached_but_block_numbers_are(cache_dir):
    import kerncraft

    machine = kerncraft.load_machine("CSX")
    ip.predict_incore(_bound("triad"), machine, iterations_per_cacheline=8,
                      pointer_increment="auto_with_manual_fallback")
    assert _entries(cache_dir) == []
    auto = ip.predict_incore(_bound("triad"), machine, iterations_per_cacheline=8)
    index = ip.predict_incore(_bound("triad"), machine, iterations_per_cacheline=8,
                              asm_block=auto.selection.index)
    assert len(_entries(cache_dir)) == 2                # options are part of the key
    assert index.to_dict() == auto.to_dict()


def test_key_depends_on_analyzer_and_parts(monkeypatch):
    base = rc.result_key("incore", "kerncraft", "asm-hash", (("N", 1),))
    assert base == rc.result_key("incore", "kerncraft", "asm-hash", (("N", 1),))
    assert base != rc.result_key("incore", "kerncraft", "asm-hash", (("N", 2),))
    assert base != rc.result_key("incore", "OSACA", "asm-hash", (("N", 1),))
    monkeypatch.setattr(rc, "analyzer_fingerprint", lambda: "edited analyzer")
    assert base != rc.result_key("incore", "kerncraft", "asm-hash", (("N", 1),))


def test_analyzer_fingerprint_covers_the_analyzer_sources():
    import hashlib

    fingerprint = rc.analyzer_fingerprint()
    assert len(fingerprint) == 64
    # the recipe reads these files; each of them exists
    for rel in ("incore/analysis.py", "incore/depgraph.py", "incore/x86/parser.py",
                "kernel/parser.py", "compilation/asm_block.py", "models/incore_prediction.py"):
        assert (ROOT / "kerncraft" / rel).is_file(), rel
    assert fingerprint != hashlib.sha256(b"").hexdigest()


def test_database_fingerprint_follows_extends(tmp_path):
    base = tmp_path / "base.yml"
    child = tmp_path / "child.yml"
    base.write_text("arch: BASE\nports: ['0']\n")
    child.write_text(f"extends: {base}\narch: CHILD\n")
    rc.database_fingerprint.cache_clear()
    before = rc.database_fingerprint(str(child))
    base.write_text("arch: BASE\nports: ['0', '1']\n")
    rc.database_fingerprint.cache_clear()
    assert rc.database_fingerprint(str(child)) != before
    assert rc.database_fingerprint("CSX") != rc.database_fingerprint("SKX")
    rc.database_fingerprint.cache_clear()


def test_store_and_load_roundtrip_and_failures(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.delenv("KERNCRAFT_NO_CACHE", raising=False)
    key = "ab" + "0" * 62
    assert rc.load(key) is None
    assert rc.store(key, {"x": [1, 2.5, None]})
    assert rc.load(key)["x"] == [1, 2.5, None]
    assert not rc.store(key, {"x": float("nan")})        # never a non-JSON document
    assert not rc.store(key, {"x": object()})
    assert not list((tmp_path / "c" / "incore" / "ab").glob(".tmp-*"))
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(blocker))  # not a directory: disabled
    assert rc.store(key, {"x": 1}) is False and rc.load(key) is None


@pytest.mark.parametrize("name", ["2d-5pt", "3d-7pt", "matvec", "himeno", "uxx"])
def test_sweep_memos_equal_codegen(name):
    """Stride constants are found once per source; literals and C text as codegen says."""
    import kerncraft
    from kerncraft.compilation.codegen import constant_values, generate_c

    kernel = kerncraft.parse_kernel((ROOT / "kernels" / f"{name}.c").read_text(),
                                    f"kernels/{name}.c")
    for values in ({c: 1000 for c in kernel.constant_names},
                   {c: 37 + 4 * i for i, c in enumerate(kernel.constant_names)},
                   dict(list({c: 64 for c in kernel.constant_names}.items())[1:])):
        bound = kernel.bind(values, partial=True)
        expected = tuple(sorted((k, v) for k, v in constant_values(bound).items()
                                if v is not None))
        assert ip._binding_key(bound) == expected
        assert ip._generated_c(bound, expected) == generate_c(bound)
