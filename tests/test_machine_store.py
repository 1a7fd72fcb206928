"""Machine models kept on disk (kerncraft/machine/stored.py): a file read before is
answered without YAML; an edit, another path or a corrupt entry is a miss."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kerncraft.machine import loader, stored, yamlnodes

CSX = Path(__file__).resolve().parents[1] / "machine-files" / "CSX.yml"


@pytest.fixture
def store(report_cache):
    return report_cache         # a private cache directory, every store on


def _no_yaml(monkeypatch):
    def refuse():
        raise AssertionError("the YAML composers were asked for")
    monkeypatch.setattr(yamlnodes, "_backends", refuse)


def test_second_load_comes_from_the_store(store, tmp_path, monkeypatch):
    machine = tmp_path / "m.yml"
    machine.write_bytes(CSX.read_bytes())
    first = loader.load_machine(machine)
    assert len(list((store / "machines").rglob("*.machine"))) == 1
    _no_yaml(monkeypatch)
    again = loader.load_machine(machine)
    assert again == first and again is not first
    assert again.clock == 2.5e9         # CSX.yml: "clock: 2.5 GHz"


def test_an_edit_is_a_miss(store, tmp_path):
    machine = tmp_path / "m.yml"
    text = CSX.read_text()
    assert "clock: 2.5 GHz" in text
    machine.write_text(text)
    assert loader.load_machine(machine).clock == 2.5e9
    machine.write_text(text.replace("clock: 2.5 GHz", "clock: 3.1 GHz"))
    assert loader.load_machine(machine).clock == 3.1e9
    # the same bytes at another path: the model names its path, so it is another entry
    other = tmp_path / "other.yml"
    other.write_text(text)
    assert loader.load_machine(other).path == str(other)


def test_a_corrupt_entry_is_rebuilt(store, tmp_path):
    machine = tmp_path / "m.yml"
    machine.write_bytes(CSX.read_bytes())
    first = loader.load_machine(machine)
    (entry,) = (store / "machines").rglob("*.machine")
    entry.write_text("not base64 of a pickle")
    assert loader.load_machine(machine) == first
    entry.write_bytes(b"")
    assert loader.load_machine(machine) == first


def test_no_entry_when_caching_is_off(store, tmp_path, monkeypatch):
    monkeypatch.setenv("KERNCRAFT_NO_CACHE", "1")
    loader.load_machine(CSX)
    assert not (store / "machines").exists()


def test_a_stored_model_needs_no_yaml_library(store):
    script = ("import sys; from kerncraft.machine.loader import load_machine; "
              "m = load_machine(sys.argv[1]); "
              "print(m.clock, sorted({'ruamel', 'yaml'} & {n.split('.')[0] for n in sys.modules}))")
    env_runs = [subprocess.run([sys.executable, "-c", script, str(CSX)], capture_output=True,
                               text=True, check=True,
                               env=dict(os.environ)) for _ in range(2)]
    # the first read composes with libyaml (PyYAML) or, without PyYAML, with ruamel
    assert env_runs[0].stdout.strip() in ("2500000000.0 ['yaml']", "2500000000.0 ['ruamel']")
    assert env_runs[1].stdout.strip() == "2500000000.0 []"
