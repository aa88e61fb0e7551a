"""``doiget demo``: a small sample library, so a new user can try every command offline.

Real metadata of thirteen papers (recorded from Europe PMC, arXiv and Crossref), a three-page PDF
generated with PyMuPDF for ten of them (title, authors, abstract, two short sections; indexed as full
text), and illustrative citation edges among them (``citations.json``, stored with source
``demo``)."""
from __future__ import annotations

import json
import textwrap
from importlib import resources
from typing import Any

import pymupdf

from doiget.errors import DoigetError, ErrorCode
from doiget.library import Library
from doiget.models import Work
from doiget.refs import Ref
from doiget.store import citations as citation_store
from doiget.store import entries as entry_store

DEMO_COLLECTION = "demo"
EDGE_SOURCE = "demo"


def _data(name: str) -> Any:
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


def demo_works() -> list[Work]:
    return [Work.model_validate(item) for item in _data("papers.json")]


def demo_edges() -> list[tuple[Ref, Ref]]:
    """The illustrative (citing, cited) pairs among the sample papers."""
    return [(Ref.parse(a), Ref.parse(b)) for a, b in _data("citations.json")["edges"]]


def has_pdf(index: int) -> bool:
    """Every sample paper but three Europe PMC records gets a PDF, so ``has_pdf`` filters see both kinds."""
    return index not in (3, 4, 5)


def topic(work: Work) -> str:
    return "software-testing" if work.arxiv else "oncology" if work.pmid else "tissue-engineering"


def paper_pdf(work: Work) -> bytes:
    """A three-page PDF that stands in for the paper: title, authors, abstract, then two sections."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 200), work.title or "", fontsize=16, fontname="hebo")
    authors = ", ".join(a.name for a in work.authors[:6])
    page.insert_textbox(pymupdf.Rect(72, 210, 540, 250), authors, fontsize=10)
    page.insert_text((72, 280), "Abstract", fontsize=13, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 290, 540, 770), work.abstract or "", fontsize=10)
    for number, heading, sentence in (
            (1, "Introduction", f"This demonstration page introduces {work.title}. "),
            (2, "Discussion", f"This demonstration page summarises {work.title}. ")):
        page = doc.new_page()
        page.insert_text((72, 80), f"{number} {heading}", fontsize=13, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(72, 95, 540, 770), " ".join(textwrap.wrap(sentence * 3)), fontsize=10)
    doc.set_metadata({"title": work.title or "", "author": authors, "subject": work.doi or work.arxiv or "",
                      "creationDate": "D:20260101000000Z", "modDate": "D:20260101000000Z",
                      "producer": "doiget demo", "creator": "doiget demo"})
    data = doc.tobytes(garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return data


def foreign_entries(lib: Library, works: list[Work]) -> int:
    """How many entries of ``lib`` (stubs aside) are not sample papers."""
    health = lib.health()
    if not health.exists or health.counts is None:
        return 0
    counts = health.counts
    with lib.store.read() as conn:
        present = sum(entry_store.find_id(conn, work.primary_ref()) is not None for work in works)
    return counts["entries"] - counts["stubs"] - present


def load_demo(lib: Library, force: bool = False) -> dict[str, Any]:
    """Add the sample papers (idempotent), tag them by topic, and attach generated PDFs.

    A library that holds papers of its own is refused (INVALID_INPUT) unless ``force``: the
    sample papers would mix with the user's."""
    works = demo_works()
    if not force and (others := foreign_entries(lib, works)):
        raise DoigetError(ErrorCode.INVALID_INPUT,
                          f"{lib.home} already holds {others} paper(s) of its own; load the demo into an empty "
                          "library (--home DIR) or pass --force to add the sample papers to this one")
    refs = [lib.add(work, tags=["demo", topic(work)]).ref for work in works]
    lib.collection_add(DEMO_COLLECTION, refs)
    with lib.store.write() as conn:
        ids = {ref: entry_store.require_id(conn, ref) for ref in {r for edge in demo_edges() for r in edge}}
        citation_store.add_edges(conn, [(ids[a], ids[b]) for a, b in demo_edges()], EDGE_SOURCE)
    pdfs = [(work, ref) for i, (work, ref) in enumerate(zip(works, refs)) if has_pdf(i)]
    for work, ref in pdfs:
        lib.add_artefact(ref, "pdf", paper_pdf(work), mime="application/pdf", source="demo")
    return {"home": str(lib.home), "entries": len(works), "pdfs": len(pdfs), "citations": len(demo_edges()),
            "collection": DEMO_COLLECTION}
