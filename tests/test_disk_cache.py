"""The on-disk cache: its place without a home, its bound, LRU eviction, info/clear,
and one entry per sweep rather than a file per point (issue 27, item 4)."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from kerncraft import diskstore
from kerncraft.cli import cache as cache_cli
from kerncraft.errors import KerncraftError
from kerncraft.memo import reports



@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    path = tmp_path / "cache"
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(path))
    monkeypatch.delenv("KERNCRAFT_NO_CACHE", raising=False)
    monkeypatch.delenv("KERNCRAFT_CACHE_MAX_MB", raising=False)
    monkeypatch.delenv(reports.NO_REPORT_CACHE_ENV, raising=False)
    return path


@pytest.mark.parametrize("home", [None, "", "/", "relative/home"])
def test_no_usable_home_means_the_temporary_directory_per_user(monkeypatch, home):
    # Issue 27: with HOME empty the cache was created at /.cache.
    for name in ("KERNCRAFT_CACHE_DIR", "XDG_CACHE_HOME", "KERNCRAFT_NO_CACHE"):
        monkeypatch.delenv(name, raising=False)
    if home is None:
        monkeypatch.delenv("HOME", raising=False)
    else:
        monkeypatch.setenv("HOME", home)
    expected = Path(tempfile.gettempdir()) / f"kerncraft-cache-{os.getuid()}"
    assert diskstore.cache_directory() == expected


def test_relative_xdg_cache_home_is_ignored(monkeypatch, tmp_path):
    # The XDG base directory spec says relative paths are invalid and must be ignored.
    monkeypatch.delenv("KERNCRAFT_CACHE_DIR", raising=False)
    monkeypatch.delenv("KERNCRAFT_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "rel")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert diskstore.cache_directory() == tmp_path / ".cache" / "kerncraft"


@pytest.mark.parametrize("text, expected", [("", 200_000_000), ("0", None), ("1.5", 1_500_000)])
def test_cache_limit(monkeypatch, text, expected):
    monkeypatch.setenv("KERNCRAFT_CACHE_MAX_MB", text)
    assert diskstore.cache_limit() == expected


@pytest.mark.parametrize("text", ["abc", "-1"])
def test_malformed_limit_is_an_error(monkeypatch, text):
    monkeypatch.setenv("KERNCRAFT_CACHE_MAX_MB", text)
    with pytest.raises(KerncraftError, match="KERNCRAFT_CACHE_MAX_MB"):
        diskstore.cache_limit()


def _entry(base: Path, name: str, size: int, used: float) -> Path:
    path = base / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    os.utime(path, (used, used))
    return path


def test_eviction_removes_least_recently_used_down_to_80_percent(tmp_path):
    # Five 100-byte entries, bound 350 bytes: total 500 > 350, so entries go oldest
    # first until at most 0.8 * 350 = 280 bytes remain: 500 -> 400 -> 300 -> 200, i.e.
    # the three oldest (used at t=1, 2, 3) go and the two newest stay.
    paths = [_entry(tmp_path, f"asm/{i}.s", 100, used=1000.0 + i) for i in range(1, 6)]
    removed = diskstore.enforce_limit(tmp_path, 350)
    assert removed == 300
    assert [p.exists() for p in paths] == [False, False, False, True, True]


def test_no_eviction_within_the_bound(tmp_path):
    paths = [_entry(tmp_path, f"asm/{i}.s", 100, used=1000.0 + i) for i in range(3)]
    assert diskstore.enforce_limit(tmp_path, 300) == 0
    assert all(p.exists() for p in paths)


def test_a_hit_protects_an_entry(tmp_path):
    # The oldest entry is read (mark_used): the next oldest goes instead.
    old, middle, new = (_entry(tmp_path, f"incore/{n}.json", 100, used=1000.0 + i)
                        for i, n in enumerate("abc"))
    diskstore.mark_used(old)
    diskstore.enforce_limit(tmp_path, 250)   # 300 > 250, down to 200: one entry goes
    assert old.exists() and not middle.exists() and new.exists()


def test_writes_enforce_the_bound(cache_dir, monkeypatch):
    # A bound of 1000 bytes and 20 entries of 100 bytes written in turn: the cache never
    # holds more than the bound plus what is written between two checks (1/20 of it).
    monkeypatch.setenv("KERNCRAFT_CACHE_MAX_MB", "0.001")
    monkeypatch.setattr(diskstore._WriteBudget, "checked", False)
    monkeypatch.setattr(diskstore._WriteBudget, "since_check", 0)
    for i in range(20):
        path = diskstore.entry_path("asm", f"{i:02d}.s")
        assert diskstore.atomic_write(path, "y" * 100)
        os.utime(path, (2000.0 + i, 2000.0 + i))
    usage = diskstore.cache_usage(cache_dir)
    assert usage.total_bytes <= 1000 + 100
    assert (cache_dir / "asm" / "19.s").exists()     # the newest survives
    assert not (cache_dir / "asm" / "00.s").exists()  # the oldest went


def test_stale_temporary_files_are_removed_fresh_ones_kept(tmp_path):
    stale = _entry(tmp_path, "asm/.tmp-old.s", 10, used=1.0)
    fresh = tmp_path / "asm" / ".tmp-new.s"
    fresh.write_text("in flight")
    usage = diskstore.cache_usage(tmp_path)
    assert not stale.exists() and fresh.exists()
    assert usage.total_files == 0           # files in flight are not entries


def test_info_and_clear(cache_dir):
    _entry(cache_dir, "asm/ab/1.s", 1_500_000, used=5.0)
    _entry(cache_dir, "incore/cd/2.json", 500_000, used=6.0)
    out = io.StringIO()
    assert cache_cli.main(["info"], out=out) == 0
    text = out.getvalue()
    assert f"cache directory: {cache_dir}" in text
    assert "total: 2.0 MB in 2 file(s)" in text       # 1.5 MB + 0.5 MB, MB = 10^6 B
    assert text.index("asm") < text.index("incore")         # largest kind first
    out = io.StringIO()
    assert cache_cli.main(["clear", "incore"], out=out) == 0
    assert out.getvalue().strip() == f"cleared incore of {cache_dir}: 0.5 MB freed"
    assert (cache_dir / "asm").exists() and not (cache_dir / "incore").exists()
    assert cache_cli.main(["clear", "nosuchkind"], out=io.StringIO()) == 2
    assert cache_cli.main(["clear"], out=io.StringIO()) == 0
    assert not (cache_dir / "asm").exists()


def test_clear_leaves_foreign_top_level_files(cache_dir):
    # KERNCRAFT_CACHE_DIR pointed at a folder with a user's own file in it.
    _entry(cache_dir, "notes.txt", 10, used=1.0)
    _entry(cache_dir, "asm/x.s", 10, used=1.0)
    cache_cli.main(["clear"], out=io.StringIO())
    assert (cache_dir / "notes.txt").exists() and not (cache_dir / "asm").exists()


def test_kerncraft_cache_subcommand(cache_dir):
    env = dict(os.environ, KERNCRAFT_CACHE_DIR=str(cache_dir))
    proc = subprocess.run([sys.executable, "-m", "kerncraft.cli", "cache", "info"],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert f"cache directory: {cache_dir}" in proc.stdout


def _point(value: int) -> reports.StoredPoint:
    return reports.StoredPoint({"N": value}, None, (("ECM", f"text {value}", {"N": value}),))


def test_a_sweep_is_one_file(cache_dir):
    manifest = reports.Manifest(("N",), ())
    run = "ab" * 32
    for n in range(100, 150):
        assert reports.store_point(run, manifest, _point(n), {"N": n})
    files = [p for p in (cache_dir / "points").rglob("*") if p.is_file()]
    assert len(files) == 1
    stored = reports.load_points(run, manifest, [{"N": n} for n in (149, 100, 120)])
    assert [p.reports[0][1] for p in stored] == ["text 149", "text 100", "text 120"]
    assert reports.load_points(run, manifest, [{"N": 100}, {"N": 999}]) is None
    assert reports.load_point(run, manifest, {"N": 125}).bindings == {"N": 125}


def test_a_torn_line_is_a_miss_not_an_error(cache_dir):
    manifest = reports.Manifest(("N",), ())
    run = "cd" * 32
    reports.store_point(run, manifest, _point(1), {"N": 1})
    path = next(p for p in (cache_dir / "points").rglob("*.jsonl"))
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(reports.point_key({"N": 2}) + '\t{"format": "2", "bind')   # crash
    assert reports.load_point(run, manifest, {"N": 2}) is None
    assert reports.load_point(run, manifest, {"N": 1}).reports[0][1] == "text 1"


def test_a_run_skips_the_walk_when_another_walked_within_the_hour(cache_dir, monkeypatch):
    # Walking the cache costs tens of ms: a short run trusts a walk of the last hour.
    monkeypatch.setenv("KERNCRAFT_CACHE_MAX_MB", "0.001")             # 1000 bytes
    for i in range(15):
        _entry(cache_dir, f"asm/{i:02d}.s", 100, used=1000.0 + i)      # 1500 > 1000
    (cache_dir / diskstore._SCAN_STAMP).touch()                       # walked just now
    monkeypatch.setattr(diskstore._WriteBudget, "checked", False)
    monkeypatch.setattr(diskstore._WriteBudget, "since_check", 0)
    diskstore.atomic_write(cache_dir / "asm" / "new.s", "z")
    assert diskstore.cache_usage(cache_dir).total_files == 16           # nothing evicted
    old = 1.0
    os.utime(cache_dir / diskstore._SCAN_STAMP, (old, old))            # walked long ago
    monkeypatch.setattr(diskstore._WriteBudget, "checked", False)
    diskstore.atomic_write(cache_dir / "asm" / "new2.s", "z")
    # 1502 bytes > 1000: the oldest go until at most 800 remain: 7 of 100 B stay + 2 B
    assert diskstore.cache_usage(cache_dir).total_bytes == 702
