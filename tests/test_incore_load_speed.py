"""The fast load path of ``kerncraft-incore``: built port models kept on disk
(incore/dbstore.py) and ISA patterns compiled on first use (incore/isa_extensions.py).
No timing here: each test checks that the fast path gives the same answer."""
from __future__ import annotations

from kerncraft.diskstore import read_pickled, write_pickled
from kerncraft.incore import database
from kerncraft.incore.database import load_database
from kerncraft.incore.isa_extensions import required_extensions


def _fresh(name: str):
    database._load_cached.cache_clear()     # the in-process memo, not the disk store
    return load_database(name)


def _entries(root):
    return sorted(root.rglob("*.model"))


def test_built_model_from_store_equals_a_fresh_build(report_cache, monkeypatch):
    built = _fresh("CSX")                    # miss: built from the YAML, then stored
    entries = _entries(report_cache)
    # one entry for CSX (its extends chain, SKX, is named inside it, not stored apart)
    assert len(entries) == 1
    stored = _fresh("CSX")                   # hit: unpickled
    assert stored == built
    monkeypatch.setenv("KERNCRAFT_NO_CACHE", "1")
    assert _fresh("CSX") == built            # built without any store
    database._load_cached.cache_clear()


def test_corrupt_entry_is_rebuilt_not_an_error(report_cache):
    built = _fresh("CSX")
    (entry,) = _entries(report_cache)
    entry.write_bytes(b"\x80\x04garbage, not a pickle")
    again = _fresh("CSX")                    # the garbage is a miss: rebuilt
    assert again == built
    # and the rebuilt model replaced the garbage with a readable entry
    assert read_pickled(entry)["model"] == built
    database._load_cached.cache_clear()


def test_foreign_entry_is_a_miss(report_cache):
    built = _fresh("CSX")
    (entry,) = _entries(report_cache)
    # a readable pickle of another shape (an older format) must not be used as a model
    assert write_pickled(entry, {"format": "0", "files": [], "model": "not a model"})
    assert _fresh("CSX") == built
    database._load_cached.cache_clear()


def test_isa_patterns_compiled_on_first_use_classify_as_documented():
    # Intel SDM vol. 2: VPDPBUSD is AVX512_VNNI (EVEX), VFMADD231PD ymm is FMA (VEX),
    # KMOVB is AVX512DQ, PDEP is BMI2, VPADDB zmm is AVX512BW; ADDPD xmm is SSE2-era base
    # code (no extension beyond the x86-64 baseline set)
    assert required_extensions("x86", "vpdpbusd", ("zmm", "zmm", "zmm")) == {"AVX512VNNI"}
    assert required_extensions("x86", "vfmadd231pd", ("ymm", "ymm", "ymm")) == {"FMA"}
    assert required_extensions("x86", "kmovb", ("k", "r32")) == {"AVX512DQ"}
    assert required_extensions("x86", "pdep", ("r64", "r64", "r64")) == {"BMI2"}
    assert required_extensions("x86", "vpaddb", ("zmm", "zmm", "zmm")) == {"AVX512BW"}
