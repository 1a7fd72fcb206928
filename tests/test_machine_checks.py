"""Machine-file values checked at load (kerncraft/machine/checks.py), unreadable
files, sweep limits and finite JSON (issue 15); every error located."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kerncraft.cli.kerncraft import main
from kerncraft.errors import DefineError, MachineFileError
from kerncraft.kernel.defines import MAX_POINTS, expand_defines
from kerncraft.machine.loader import load_machine
from kerncraft.machine.yamlnodes import BACKENDS, compose
from kerncraft.report.json import finite_or_null, to_json, write_json
from support.published import PUBLISHED_DIR

REPO = Path(__file__).resolve().parents[1]
CSX = REPO / "machine-files" / "CSX.yml"
CSX_TEXT = CSX.read_text()
PUBLISHED = PUBLISHED_DIR


def located(path: Path, text: str, needle: str, point: str | None = None) -> str:
    """'path:line:col' of ``point`` within ``needle`` within ``text`` (default: the
    value after the first ': ' of ``needle``)."""
    inner = needle.index(point) if point else needle.index(": ") + 2
    offset = text.index(needle) + inner
    line = text.count("\n", 0, offset) + 1
    return f"{path}:{line}:{offset - text.rfind(chr(10), 0, offset)}"


def refused(tmp_path: Path, old: str, new: str, point: str | None = None) -> tuple[str, str]:
    """(error text, expected location prefix) of CSX with ``old`` replaced by ``new``."""
    assert old in CSX_TEXT
    text = CSX_TEXT.replace(old, new, 1)
    path = tmp_path / "m.yml"
    path.write_text(text)
    with pytest.raises(MachineFileError) as info:
        load_machine(path)
    return str(info.value), located(path, text, new, point)


@pytest.mark.parametrize("old,new,point,message", [
    ("clock: 2.5 GHz", "clock: -2.5 GHz", None, "clock: clock must be positive"),
    ("clock: 2.5 GHz", "clock: 1e-300 Hz", None,
     "clock: clock must be between 1 MHz and 1 THz, got 1e-300 Hz"),
    ("upstream throughput: [64 B/cy, half-duplex]", "upstream throughput: [0 B/cy, half-duplex]",
     "0 B/cy", "memory hierarchy[1].upstream throughput[0]: upstream throughput must be a "
     "finite positive number, got 0.0"),
    ("DP: {ADD: 16, MUL: 16, FMA: 32, total: 32}", "DP: {ADD: 16, MUL: 16, FMA: 32, total: 0}",
     "0}", "FLOPs per cycle.DP.total: FLOPs per cycle total must be a finite positive number, "
     "got 0.0"),
    ("DP: {ADD: 16, MUL: 16, FMA: 32, total: 32}", "DP: {ADD: -16, MUL: 16, FMA: 32, total: 32}",
     "-16", "FLOPs per cycle.DP.ADD: FLOPs per cycle ADD must be finite and not negative, "
     "got -16.0"),
    ("size per group: 1 MB", "size per group: 16 kB", None,
     "memory hierarchy[1].size per group: 16384 B does not fit the geometry: sets * ways * "
     "cl_size = 1048576 B (allowed: half of that up to all of it)"),
])
def test_nonsense_values_are_refused_at_their_location(tmp_path, old, new, point, message):
    error, where = refused(tmp_path, old, new, point)
    assert error == f"{where}: {message}"


MINIMAL = (REPO / "tests" / "data" / "machines" / "minimal.yml").read_text()


def load_error(tmp_path: Path, text: str) -> tuple[Path, str]:
    """(path, error text) of loading ``text``, which must be refused."""
    path = tmp_path / "m.yml"
    path.write_text(text)
    with pytest.raises(MachineFileError) as info:
        load_machine(path)
    return path, str(info.value)


def test_a_negative_penalty_is_refused(tmp_path):
    text = CSX_TEXT.replace("  - level: MEM\n", "  - level: MEM\n"
                            "    penalty cycles per cacheline load: -3\n", 1)
    path, error = load_error(tmp_path, text)
    assert error == (
        f"{located(path, text, 'load: -3')}: memory hierarchy[3].penalty cycles per cacheline "
        "load: penalty cycles per cacheline load must be finite and not negative, got -3.0")


def test_a_zero_bandwidth_measurement_is_refused(tmp_path):
    text = MINIMAL + ("benchmarks:\n  kernels:\n    copy:\n      read streams: {streams: 1}\n"
                      "      read+write streams: {streams: 0}\n      write streams: {streams: 1}\n"
                      "  measurements:\n    MEM:\n      1:\n        cores: [1, 2]\n"
                      "        results:\n          copy: [10 GB/s, 0 GB/s]\n")
    path, error = load_error(tmp_path, text)
    assert error == (f"{located(path, text, '0 GB/s]', '0')}: benchmarks.measurements.MEM.1."
                     "results.copy[1]: a measured bandwidth must be a finite positive number, "
                     "got 0.0")


def test_cache_levels_out_of_order_are_refused(tmp_path):
    text = MINIMAL.replace("  - level: MEM\n", "  - level: L2\n    cache per group:\n"
                           "      sets: 16\n      ways: 8\n      cl_size: 64\n  - level: MEM\n")
    path, error = load_error(tmp_path, text)
    assert error == (
        f"{located(path, text, 'sets: 16')}: memory hierarchy[1].cache per group.sets: level L2 "
        "(8192 B) is smaller than the level above it, L1 (32768 B); levels must be listed from "
        "L1 down to memory")


def test_a_cache_smaller_than_its_line_is_refused(tmp_path):
    text = MINIMAL.replace("cacheline size: 64 B", "cacheline size: 4096 B").replace(
        "sets: 64\n      ways: 8", "sets: 1\n      ways: 1")
    path, error = load_error(tmp_path, text)
    assert error == (f"{located(path, text, 'sets: 1')}: memory hierarchy[0].cache per group."
                     "sets: the cache (64 B) is smaller than its cache line (4096 B)")


def _machine_files() -> list[Path]:
    published = sorted(PUBLISHED.glob("*.yml")) if PUBLISHED.is_dir() else []
    return sorted((REPO / "machine-files").glob("*.yml")) + published


@pytest.mark.parametrize("path", _machine_files(), ids=lambda p: p.name)
def test_every_bundled_and_published_machine_file_still_loads(path):
    machine = load_machine(path)
    assert machine.memory_hierarchy[-1].is_memory
    assert machine.cacheline_size in (64, 256)


# ------------------------------------------------------------ unreadable text

def test_a_non_utf8_machine_file_is_located_at_the_byte(tmp_path):
    data = CSX_TEXT.encode().replace(b"Intel(R) Xeon", b"Intel\xff Xeon", 1)
    path = tmp_path / "m.yml"
    path.write_bytes(data)
    offset = data.index(b"\xff")
    line = data.count(b"\n", 0, offset) + 1
    with pytest.raises(MachineFileError) as info:
        load_machine(path)
    assert str(info.value) == (f"{path}:{line}:18: not UTF-8: byte 0xff at byte offset {offset} "
                               "(invalid start byte)")


def test_a_control_character_is_located(tmp_path, capsys):
    text = CSX_TEXT.replace("model type:", "model\x07 type:", 1)
    path = tmp_path / "m.yml"
    path.write_text(text)
    code = main(["-p", "LC", "-m", str(path), str(REPO / "kernels" / "copy.c"), "-D", "N", "9"])
    line = text.count("\n", 0, text.index("\x07")) + 1
    assert code == 2
    assert capsys.readouterr().err == (
        f"kerncraft: error: {path}:{line}:6: invalid YAML: character U+0007 is not allowed "
        "(control characters are not allowed)\n")


# ------------------------------------------------------------ sweeps and JSON

def test_sweeps_beyond_the_point_limit_are_refused_unless_allowed():
    assert MAX_POINTS == 10_000
    with pytest.raises(DefineError) as info:
        expand_defines([("N", "1-1000000:10001")])
    assert str(info.value) == ("the -D values give 10,001 points (10001 (N)), more than the "
                               "limit of 10,000; pass --max-points 10001 to run them all")
    with pytest.raises(DefineError) as info:
        expand_defines([("N", "1-200:200"), ("M", "1-100:100")])
    assert "20,000 points (200 (N) x 100 (M))" in str(info.value)
    points = expand_defines([("N", "1-1000000:10001")], max_points=20_000)
    assert (len(points), points[0], points[-1]) == (10_001, {"N": 1}, {"N": 1_000_000})


def test_a_range_of_more_than_a_million_points_is_refused_before_it_is_built():
    with pytest.raises(DefineError) as info:
        expand_defines([("N", "1-10:1000000000")], max_points=10**12)
    assert str(info.value) == ("-D N 1-10:1000000000: a range has at most 1,000,000 points, "
                               "got 1,000,000,000")


def test_the_cli_refuses_a_10000_point_matvec_sweep(capsys):
    code = main(["-p", "LC", "-m", str(CSX), str(REPO / "kernels" / "matvec.c"),
                 "-D", "N", "1-1000000:20000", "-D", "M", "100"])
    assert code == 2
    assert capsys.readouterr().err == (
        "kerncraft: error: the -D values give 20,000 points (20000 (N) x 1 (M)), more than the "
        "limit of 10,000; pass --max-points 20000 to run them all\n")


def test_json_never_holds_a_non_finite_number(tmp_path, capsys):
    assert finite_or_null({"a": [float("inf"), 2.5, (float("nan"),)], "b": -float("inf")}) \
        == {"a": [None, 2.5, [None]], "b": None}
    assert to_json({"x": float("nan")}, indent=None) == '{"x": null}'
    write_json(str(tmp_path / "d.json"), {"ai": float("inf")}, None)
    assert (tmp_path / "d.json").read_text() == '{\n  "ai": null\n}\n'
    # triad with N = 100 fits L1: L2, L3 and memory move no bytes (unbounded intensity)
    code = main(["-p", "RooflineFLOP", "-m", str(CSX), str(REPO / "kernels" / "triad.c"),
                 "-D", "N", "100", "--json", "-"])
    out = capsys.readouterr().out
    document = json.loads(out[out.index("{"):], parse_constant=lambda c: pytest.fail(c))
    levels = document["points"][0]["models"]["RooflineFLOP"]["levels"]
    assert code == 0
    assert [lvl["arithmetic_intensity"] for lvl in levels][1:] == [None, None, None]


def test_a_level_that_loads_from_a_level_above_is_refused(tmp_path):
    # fuzz input 289 (seed 15) swapped the names of L1 and L3: an IndexError in the LC
    text = CSX_TEXT.replace("level: L1", "level: @@").replace("level: L3", "level: L1") \
        .replace("level: @@", "level: L3")
    path, error = load_error(tmp_path, text)
    assert error == (f"{located(path, text, 'store_to: L3')}: memory hierarchy[1].cache per "
                     "group.store_to: must name a level below L2 (L1, MEM), got 'L3'")


def test_missing_measurements_of_a_level_are_located(tmp_path, capsys):
    # fuzz input 35 (seed 15): a truncated file lost the L3 measurements
    cut = CSX_TEXT.index("\n    L3:", CSX_TEXT.index("measurements:"))
    text = CSX_TEXT[:cut] + "\n"
    path = tmp_path / "m.yml"
    path.write_text(text)
    code = main(["-p", "RooflineFLOP", "-m", str(path), str(REPO / "kernels" / "copy.c"),
                 "-D", "N", "20"])
    first = text.index("L1:", text.index("measurements:"))   # the mapping that lacks L3
    line = text.count("\n", 0, first) + 1
    assert code == 2
    assert capsys.readouterr().err == (
        f"kerncraft: error: {path}:{line}:{first - text.rfind(chr(10), 0, first)}: "
        "benchmarks.measurements.L3: no benchmark measurements for level 'L3' (measured "
        "levels: L1, L2)\n")


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_bad_character_message_does_not_depend_on_the_yaml_backend(backend):
    """libyaml (with PyYAML installed) and ruamel word a reader error differently; the
    message is ours (a fresh venv without PyYAML said 'special characters')."""
    with pytest.raises(MachineFileError) as info:
        compose("a: b\x07c\n", "x.yml", backend=backend)
    assert str(info.value) == ("x.yml:1:5: invalid YAML: character U+0007 is not allowed "
                               "(control characters are not allowed)")
