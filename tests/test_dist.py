"""The sdist and wheel build offline with the installed setuptools and pass ``twine check``; the
wheel carries what an installed doiget needs (the top-level ``migrations/`` as ``doiget.migrations``,
so an installed copy migrates a new store) and depends on neither scipy nor numpy."""
from __future__ import annotations

import email
import importlib.util
import os
import subprocess
import sys
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from check_dist import build, twine_check  # noqa: E402

needs = [importlib.util.find_spec(m) for m in ("build", "twine")]


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> list[Path]:
    if None in needs or int(version("setuptools").split(".")[0]) < 77:
        pytest.skip("needs build, twine and setuptools>=77 (the test extra)")
    return build(tmp_path_factory.mktemp("dist"), isolated=False)


def test_sdist_and_wheel_pass_twine_check(dist):
    assert [f.suffix for f in dist] == [".gz", ".whl"]
    assert "PASSED" in twine_check(dist) and "WARNING" not in twine_check(dist)


def test_wheel_has_license_types_migrations_demo_styles_listing_and_main(dist):
    names = set(zipfile.ZipFile(dist[1]).namelist())
    for needed in ("doiget/py.typed", "doiget/__main__.py", "doiget/demo/papers.json", "doiget/demo/citations.json",
                   "doiget/pagerank.py", "doiget/mcp/tools_list.json", "doiget/formats/styles/apa.csl"):
        assert needed in names, needed
    assert any(n.endswith("/licenses/LICENSE") for n in names)
    assert any(n.endswith("/licenses/LICENSES/bibtexparser-MIT.txt") for n in names)  # bibtex_split.py
    assert any("migrations/versions/" in n for n in names)


def test_wheel_metadata(dist):
    with zipfile.ZipFile(dist[1]) as whl:
        meta = email.message_from_bytes(whl.read(next(n for n in whl.namelist() if n.endswith("METADATA"))))
    assert meta["License-Expression"] == "MIT"
    assert "Typing :: Typed" in meta.get_all("Classifier")
    assert {u.split(",")[0] for u in meta.get_all("Project-URL")} >= {"Homepage", "Source", "Issues"}
    required = [r for r in meta.get_all("Requires-Dist") if "extra ==" not in r]
    assert not [r for r in required if r.split(">")[0].split("<")[0].strip() in ("scipy", "numpy")]


def test_python_dash_m_doiget_is_the_cli(tmp_path):
    result = subprocess.run([sys.executable, "-m", "doiget", "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("doiget ")


def test_installed_wheel_ships_the_migrations_and_migrates(dist, tmp_path):
    wheel, target, home = dist[1], tmp_path / "site", tmp_path / "home"
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
