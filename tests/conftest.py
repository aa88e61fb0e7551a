"""Shared test fixtures: paths to recorded upstream responses and a temp library home."""
from __future__ import annotations

from pathlib import Path

import pytest

UPSTREAM = Path(__file__).parent / "fixtures" / "upstream"


@pytest.fixture
def upstream() -> Path:
    """Directory of real recorded upstream API responses (see fixtures/upstream/SOURCES.md)."""
    return UPSTREAM


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test may see the developer's real store, profile or contact email."""
    monkeypatch.setenv("DOIGET_HOME", str(tmp_path / "home"))
    for name in ("DOIGET_PROFILE", "DOIGET_CONTACT_EMAIL", "DOIGET_LOG"):
        monkeypatch.delenv(name, raising=False)
