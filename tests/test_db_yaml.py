"""Port-model databases are read with libyaml's composer and the YAML 1.2 core schema
(kerncraft/incore/dbfile.py, machine/yamlnodes.plain_data): the same data as ruamel's
safe loader, which read them before, and located errors."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from kerncraft.errors import KerncraftError
from kerncraft.incore.database import DATABASE_DIR, load_database
from kerncraft.machine.yamlnodes import compose, plain_data


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("path", sorted(Path(DATABASE_DIR).glob("*.yml")), ids=lambda p: p.stem)
def test_every_bundled_database_reads_as_ruamel_reads_it(path):
    text = path.read_text()
    assert _same(plain_data(compose(text, str(path))), YAML(typ="safe", pure=True).load(text))


def test_core_schema_scalars():
    # YAML 1.2 core schema: yes/no/on stay strings (1.1 made them booleans), 0DV and 2D
    # are strings, 010 is the integer 10, "1" quoted is a string, ~ is null
    text = "a: yes\nb: on\nc: 0DV\nd: 2D\ne: 010\nf: '1'\ng: ~\nh: 1.5e3\ni: [0, 1]\n"
    assert plain_data(compose(text, None)) == {
        "a": "yes", "b": "on", "c": "0DV", "d": "2D", "e": 10, "f": "1", "g": None,
        "h": 1500.0, "i": [0, 1]}


@pytest.mark.parametrize("text, where", [("ports: [0, 1\nfoo: 1\n", ":2:4: invalid YAML"),
                                         ("ports: [0, 1]\nports: [2]\n",
                                          ":2:1: duplicate key 'ports'")])
def test_a_broken_database_is_one_located_error(tmp_path, monkeypatch, text, where):
    monkeypatch.setenv("KERNCRAFT_NO_CACHE", "1")
    path = tmp_path / "mine.yml"
    path.write_text(text)
    with pytest.raises(KerncraftError) as err:
        load_database(path)
    # (the reason after "invalid YAML" is the YAML library's, libyaml's or ruamel's)
    assert str(err.value).startswith(f"port-model database {path}{where}")


def test_a_built_model_is_kept_and_a_parent_edit_is_a_miss(tmp_path, report_cache):
    # child.yml extends parent.yml (SKX.yml, "rob_size: 224"); the second load is the
    # stored model; after the parent's ROB is edited to 225, the child is built again
    from kerncraft.incore import database

    parent = (Path(DATABASE_DIR) / "SKX.yml").read_text()
    assert parent.count("rob_size: 224") == 1
    (tmp_path / "parent.yml").write_text(parent)
    (tmp_path / "child.yml").write_text(f"extends: {tmp_path / 'parent.yml'}\narch: CHILD\n")
    first = load_database(tmp_path / "child.yml")
    assert len(list((report_cache / "incore-models").rglob("*.model"))) == 1
    database._load_cached.cache_clear()
    again = load_database(tmp_path / "child.yml")
    assert again is not first and again.forms == first.forms and again.rob_size == 224
    (tmp_path / "parent.yml").write_text(parent.replace("rob_size: 224", "rob_size: 225"))
    database._load_cached.cache_clear()
    assert load_database(tmp_path / "child.yml").rob_size == 225
