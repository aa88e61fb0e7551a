"""Time extract_pdf against raw PyMuPDF page.get_text() over the same generated PDFs.

    python scripts/bench_fulltext.py [--pdfs 20] [--pages 12] [--repeat 3]

Prints pages/s for both and the ratio (how much slower full extraction + chunking is
than bare text extraction). Indexing cost is not included.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fulltext"))

from doiget.fulltext.pdf import extract_pdf  # noqa: E402
from pdfgen import long_paper  # noqa: E402


def raw_text(data: bytes) -> int:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return sum(len(page.get_text()) for page in doc)


def best_of(repeat: int, func, blobs: list[bytes]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for blob in blobs:
            func(blob)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdfs", type=int, default=20)
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i in range(args.pdfs):
            path = Path(tmp) / f"paper{i}.pdf"
            path.write_bytes(long_paper(args.pages, seed=i))
            paths.append(path)
        blobs = [p.read_bytes() for p in paths]

    pages = args.pdfs * args.pages
    raw = best_of(args.repeat, raw_text, blobs)
    full = best_of(args.repeat, extract_pdf, blobs)
    chunks = sum(len(extract_pdf(b).chunks) for b in blobs)
    print(f"{args.pdfs} PDFs x {args.pages} pages = {pages} pages, {chunks} chunks (best of {args.repeat})")
    print(f"raw page.get_text():  {pages / raw:10.1f} pages/s  ({raw:.3f} s)")
    print(f"extract_pdf:          {pages / full:10.1f} pages/s  ({full:.3f} s)")
    print(f"ratio extract/raw:    {full / raw:10.2f}x slower")


if __name__ == "__main__":
    main()
