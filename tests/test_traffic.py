"""The shared traffic result: unit of work, byte views, link volumes (hand-made numbers)."""
from __future__ import annotations

import pytest

import kerncraft
from kerncraft.cache.traffic import (LevelTraffic, LinkTransfer, TrafficResult,
                                     iterations_per_cacheline, transfer_volumes)
from kerncraft.errors import KerncraftError


def _kernel(source: str):
    return kerncraft.parse_kernel(source, "t.c")


def test_unit_of_work_uses_the_largest_element_size():
    doubles = _kernel("double a[N], b[N];\nfor (int i=0; i<N; ++i) a[i] = b[i];\n")
    assert iterations_per_cacheline(doubles, 64) == 8
    floats = _kernel("float a[N], b[N];\nfor (int i=0; i<N; ++i) a[i] = b[i];\n")
    assert iterations_per_cacheline(floats, 64) == 16
    mixed = _kernel("float a[N]; double b[N];\nfor (int i=0; i<N; ++i) a[i] = b[i];\n")
    assert iterations_per_cacheline(mixed, 64) == 8
    assert iterations_per_cacheline(mixed, 256) == 32


def test_unit_of_work_ignores_scalars_and_unaccessed_arrays():
    kern = _kernel("float a[N]; double c[N]; double s;\n"
                   "for (int i=0; i<N; ++i) s += a[i];\n")
    assert iterations_per_cacheline(kern, 64) == 16


def test_bytes_are_lines_times_cacheline_size():
    lvl = LevelTraffic("L1", loads=2, stores=1, misses=2, evictions=1, cacheline_size=64)
    assert (lvl.loads_bytes, lvl.stores_bytes, lvl.misses_bytes, lvl.evictions_bytes) == \
        (128, 64, 128, 64)
    res = TrafficResult(8, 64, (lvl,), "LC")
    assert res.per_iteration(lvl.loads) == 16.0      # 128 B per 8 iterations
    assert res.level("L1") is lvl
    with pytest.raises(KeyError):
        res.level("L4")


def test_breakdown_must_add_up():
    with pytest.raises(ValueError):
        LevelTraffic("L2", 2, 0, 2, 0, load_sources=(("L3", 1.0), ("MEM", 0.5)))
    lvl = LevelTraffic("L2", 2, 0, 2, 0, load_sources={"L3": 1.5, "MEM": 0.5})
    assert lvl.load_sources == (("L3", 1.5), ("MEM", 0.5))


def test_predictor_name_is_checked():
    with pytest.raises(ValueError):
        TrafficResult(8, 64, (), "XYZ")


def test_inclusive_links_default_to_next_level():
    levels = (LevelTraffic("L1", 3, 1, 3, 1), LevelTraffic("L2", 2, 1, 2, 1),
              LevelTraffic("L3", 2, 1, 2, 1))
    links = transfer_volumes(TrafficResult(8, 64, levels, "LC"))
    assert links == (LinkTransfer("L1", "L2", 3, 1), LinkTransfer("L2", "L3", 2, 1),
                     LinkTransfer("L3", "MEM", 2, 1))
    assert links[0].total_bytes == 256


def test_victim_links_charge_the_serving_level():
    # Cascade Lake copy: L2 misses bypass the victim L3 (loads from MEM), every
    # L2 victim goes to L3, L3 writes the dirty half back to memory.
    levels = (LevelTraffic("L1", 2, 1, 2, 1),
              LevelTraffic("L2", 2, 2, 2, 2, load_sources={"L3": 0.5, "MEM": 1.5},
                           store_targets={"L3": 2}),
              LevelTraffic("L3", 0, 1, 1.5, 1, hits=0.5))
    links = transfer_volumes(TrafficResult(8, 64, levels, "SIM"))
    assert [(t.upper, t.lower, t.loads, t.stores) for t in links] == [
        ("L1", "L2", 2, 1), ("L2", "L3", 0.5, 2), ("L3", "MEM", 1.5, 1)]


def test_source_above_the_level_is_rejected():
    levels = (LevelTraffic("L1", 1, 0, 1, 0), LevelTraffic("L2", 1, 0, 1, 0,
                                                           load_sources={"L1": 1}))
    with pytest.raises(KerncraftError):
        transfer_volumes(TrafficResult(8, 64, levels, "SIM"))


def test_to_dict_is_json_ready():
    import json
    levels = (LevelTraffic("L1", 2, 1, 2, 1, hits=5),)
    doc = TrafficResult(8, 64, levels, "SIM", ("note",)).to_dict()
    text = json.dumps(doc)
    assert doc["levels"][0]["loads_bytes"] == 128
    assert doc["transfers"][0]["lower"] == "MEM"
    assert "note" in text
