"""The wheel: every package directory is listed in pyproject.toml, and the top-level ``migrations/``
ships as ``doiget.migrations`` so that an installed copy (not the source tree) migrates a new store."""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_directory_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "doiget").rglob("*.py")}
    found |= {"doiget.migrations"} | {"doiget." + ".".join(p.parent.relative_to(ROOT).parts)
                                      for p in (ROOT / "migrations").rglob("*.py")}
    assert found - listed == set()


@pytest.mark.slow
def test_installed_wheel_ships_the_migrations_and_migrates(tmp_path):
    wheels, target, home = tmp_path / "wheels", tmp_path / "site", tmp_path / "home"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    wheel = next(wheels.glob("doiget-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    revisions = sorted(p.name for p in (ROOT / "migrations" / "versions").glob("*.py"))
    assert "doiget/migrations/env.py" in names and "doiget/migrations/script.py.mako" in names
    assert [n for n in names if n.startswith("doiget/migrations/versions/")] == [
        f"doiget/migrations/versions/{r}" for r in revisions]
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    probe = ("import doiget; from doiget.store import migrate; lib = doiget.open_library(%r); "
             "print(doiget.__file__, migrate.MIGRATIONS, lib.store.revision_before, lib.store.revision, migrate.HEAD)"
             % str(home))
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    assert out[0] == str(target / "doiget" / "__init__.py")
    assert out[1] == str(target / "doiget" / "migrations")
    assert out[2:4] == ["None", out[4]]
