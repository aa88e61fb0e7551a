"""``doiget demo``: a small sample library (real metadata of a dozen papers, recorded from
Europe PMC and arXiv) plus a few PDFs generated with PyMuPDF, so a new user can try search,
tags and the MCP server offline."""
from __future__ import annotations

import json
import textwrap
from importlib import resources
from typing import Any

import pymupdf

from doiget.errors import DoigetError, ErrorCode
from doiget.library import Library
from doiget.models import Work

DEMO_COLLECTION = "demo"
PDF_COUNT = 3


def demo_works() -> list[Work]:
    data = json.loads(resources.files(__package__).joinpath("papers.json").read_text(encoding="utf-8"))
    return [Work.model_validate(item) for item in data]


def paper_pdf(work: Work) -> bytes:
    """A small multi-page PDF that stands in for the paper: title, authors, abstract, sections."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 200), work.title or "", fontsize=16, fontname="hebo")
    authors = ", ".join(a.name for a in work.authors[:6])
    page.insert_textbox(pymupdf.Rect(72, 210, 540, 250), authors, fontsize=10)
    page.insert_text((72, 280), "Abstract", fontsize=13, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 290, 540, 770), work.abstract or "", fontsize=10)
    page = doc.new_page()
    page.insert_text((72, 80), "1 Discussion", fontsize=13, fontname="hebo")
    paragraph = " ".join(textwrap.wrap(f"This demonstration page summarises {work.title}. " * 3))
    page.insert_textbox(pymupdf.Rect(72, 95, 540, 770), paragraph, fontsize=10)
    doc.set_metadata({"title": work.title or "", "author": authors, "subject": work.doi or work.arxiv or "",
                      "creationDate": "D:20260101000000Z", "modDate": "D:20260101000000Z",
                      "producer": "doiget demo", "creator": "doiget demo"})
    data = doc.tobytes(garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return data


def foreign_entries(lib: Library, works: list[Work]) -> int:
    """How many entries of ``lib`` (stubs aside) are not sample papers."""
    demo_ids = {(kind, value) for work in works for kind, value in work.ids().items()}
    rows = lib.sql("SELECT doi, arxiv, pmid, pmcid, openalex FROM entries WHERE is_stub = 0", max_rows=10_000)
    kinds = rows["columns"]
    if rows.get("truncated"):
        return len(rows["rows"])
    return sum(not any((k, v) in demo_ids for k, v in zip(kinds, row) if v) for row in rows["rows"])


def load_demo(lib: Library, force: bool = False) -> dict[str, Any]:
    """Add the sample papers (idempotent), tag them by topic, and attach generated PDFs.

    A library that holds papers of its own is refused (INVALID_INPUT) unless ``force``: the
    sample papers would mix with the user's."""
    works = demo_works()
    if not force and (others := foreign_entries(lib, works)):
        raise DoigetError(ErrorCode.INVALID_INPUT,
                          f"{lib.home} already holds {others} paper(s) of its own; load the demo into an empty "
                          "library (--home DIR) or pass --force to add the sample papers to this one")
    refs = []
    for work in works:
        topic = "software-testing" if work.arxiv else "oncology"
        entry = lib.add(work, tags=["demo", topic])
        refs.append(entry.ref)
    lib.collection_add(DEMO_COLLECTION, refs)
    for work, ref in zip(works[:PDF_COUNT], refs):
        lib.add_artefact(ref, "pdf", paper_pdf(work), mime="application/pdf", source="demo")
    return {"home": str(lib.home), "entries": len(works), "pdfs": PDF_COUNT, "collection": DEMO_COLLECTION}
