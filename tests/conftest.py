"""Fixtures shared by several test modules."""
from __future__ import annotations

import pytest


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
