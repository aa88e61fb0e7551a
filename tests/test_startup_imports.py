"""``doiget --help`` and ``--version`` import no SQLAlchemy, pydantic, rich or network code (start-up time)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("sqlalchemy", "pydantic", "rich", "httpx", "alembic", "fitz", "pymupdf", "mcp")
PROBE = """
import json, sys
from doiget.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)
"""


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["search", "--help"], ["import", "--help"]])
def test_help_and_version_import_nothing_heavy(argv):
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60)
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert done.stdout.strip()
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def _loaded(argv: list[str]) -> tuple[set[str], subprocess.CompletedProcess]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60)
    return set(json.loads(done.stderr.strip().splitlines()[-1])), done


def test_search_on_a_current_library_imports_no_sqlalchemy_or_alembic(tmp_path):
    from doiget import Work, open_library

    with open_library(tmp_path) as lib:
        lib.add(Work(doi="10.1000/x", title="Protein folding in the cell"))
    loaded, done = _loaded(["--home", str(tmp_path), "search", "protein"])
    assert "doi:10.1000/x" in done.stdout
    assert not loaded & (set(HEAVY) - {"pydantic"}), sorted(loaded & set(HEAVY))


def test_search_on_an_old_library_still_migrates_it(tmp_path):
    """Skipping Alembic is only for a store already at the head revision: an older one is upgraded."""
    from old_library import engines_at

    from doiget.store import migrate

    reader, writer = engines_at(tmp_path, "0002")
    reader.dispose()
    writer.dispose()
    assert migrate.current_revision(tmp_path / "library.sqlite3") == "0002"
    loaded, done = _loaded(["--home", str(tmp_path), "search", "protein"])
    assert done.stdout.strip() == "no matches"
    assert "alembic" in loaded
    assert migrate.current_revision(tmp_path / "library.sqlite3") == migrate.HEAD


def test_mcp_server_starts_without_sqlalchemy_or_extractors(tmp_path):
    """Building the server (its tool table and tools/list) loads neither SQLAlchemy, Alembic, the PDF
    extractor nor the HTTP client: the first tool call that needs them imports them."""
    probe = ("import json, sys\nfrom doiget.config import load_config\nfrom doiget.mcp.server import build_server\n"
             f"build_server(load_config({str(tmp_path)!r}))\n"
             "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert not loaded & {"sqlalchemy", "alembic", "fitz", "pymupdf", "httpx"}, sorted(loaded)
