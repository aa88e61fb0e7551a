"""A PDF's identifiers are its own, not those it cites: a DOI or arXiv id printed after a reference list's
heading on the first pages (a short paper, a letter, a style's sample page) names a cited work, which
``add_pdf`` would otherwise resolve and file the PDF under. Of TeX Live's 524 documentation PDFs, 71 took
a cited identifier as their own before; 6 still do (a .bib listing, endnotes without a heading)."""
from __future__ import annotations

import pymupdf

from doiget.fulltext.pdf import sniff_pdf

CITED = ["[1] J. Baez and A. Lauda. Higher-dimensional algebra V: 2-groups. arXiv: math/0307200v3 [math.QA].",
         "[2] A. Author. A cited article. J. Chem. Phys. 124 (2006). doi:10.1063/1.2172593.",
         "[3] PMID: 11433607."]


def letter(*lines: str, stamp: str | None = None) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "A Short Letter on Two-Groups", fontsize=18)
    y = 120
    for line in lines:
        page.insert_text((72, y), line, fontsize=9)
        y += 14
    if stamp:
        page.insert_text((30, 700), stamp, fontsize=9, rotate=90)
    return doc.tobytes()


def test_identifiers_after_a_references_heading_are_cited_not_the_documents():
    assert sniff_pdf(letter("We extend earlier work [1, 2].", "References", *CITED)).refs == []
    assert sniff_pdf(letter("We extend earlier work [1, 2].", "5. Bibliography", *CITED)).refs == []


def test_the_documents_own_identifiers_before_the_references_still_count():
    own = sniff_pdf(letter("https://doi.org/10.1234/letter.2024.1", "We extend earlier work.", "References", *CITED))
    assert [str(r) for r in own.refs] == ["doi:10.1234/letter.2024.1"]
    stamped = sniff_pdf(letter("We extend earlier work.", "References", *CITED,
                               stamp="arXiv:2401.01234v2  [math.QA]  3 Jan 2024"))
    assert [str(r) for r in stamped.refs] == ["arxiv:2401.01234"]  # the side stamp wherever its text falls
