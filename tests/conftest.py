"""Fixtures shared by several test modules."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_report_cache(monkeypatch):
    """Reports stored by one test must not be read by another that patches kerncraft's
    functions (same command line, other numbers): the report caches of
    kerncraft.memo.reports are off unless a test turns them on with ``report_cache``."""
    monkeypatch.setenv("KERNCRAFT_NO_REPORT_CACHE", "1")


@pytest.fixture
def report_cache(tmp_path, monkeypatch):
    """The report caches on, in a private, empty cache directory."""
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path / "report-cache"))
    monkeypatch.delenv("KERNCRAFT_NO_CACHE", raising=False)
    monkeypatch.delenv("KERNCRAFT_NO_REPORT_CACHE", raising=False)
    return tmp_path / "report-cache"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A private, empty kerncraft cache directory, with the in-core memo cleared
    before and after (so a test sees cold and warm runs of its own)."""
    from kerncraft.models import incore_prediction as ip

    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KERNCRAFT_NO_CACHE", raising=False)
    ip._analyse_source.cache_clear()
    yield tmp_path / "cache"
    ip._analyse_source.cache_clear()
