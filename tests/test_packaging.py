"""Every package directory is listed in pyproject.toml (the wheel itself is tested in test_dist.py)."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_directory_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "doiget").rglob("*.py")}
    found |= {"doiget.migrations"} | {"doiget." + ".".join(p.parent.relative_to(ROOT).parts)
                                      for p in (ROOT / "migrations").rglob("*.py")}
    assert found - listed == set()
