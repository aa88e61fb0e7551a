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
