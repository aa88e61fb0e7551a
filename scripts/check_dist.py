"""Build the sdist and wheel as PyPI users get them and check them with twine.

    python scripts/check_dist.py [--no-isolation]

The default isolated build fetches setuptools (only) from PyPI; ``--no-isolation`` builds with the
setuptools already installed (>= 77), offline, as tests/test_packaging.py does.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build(out: Path, isolated: bool = True) -> list[Path]:
    """``python -m build`` into ``out``; the two artefacts (sdist, wheel)."""
    subprocess.run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out),
                    *([] if isolated else ["--no-isolation"]), str(ROOT)], check=True, capture_output=True, text=True)
    return sorted(out.iterdir(), key=lambda f: f.suffix != ".gz")  # sdist first


def twine_check(files: list[Path]) -> str:
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, files)],
                          check=True, capture_output=True, text=True)
    return done.stdout


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = build(Path(tmp), isolated="--no-isolation" not in sys.argv)
        print(twine_check(files), end="")
        for f in files:
            print(f"{f.name}: {f.stat().st_size} bytes")


if __name__ == "__main__":
    main()
