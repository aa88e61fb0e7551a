"""Builds real PDFs with PyMuPDF for the full-text tests and the benchmark."""
from __future__ import annotations

import functools

import pymupdf

BODY = 10
LEFT, RIGHT_EDGE, GUTTER_MID = 72, 540, 306

SENTENCE = "Ecological data were collected from {n} field sites over three seasons."


def body_lines(tag: str, count: int) -> list[str]:
    return [f"{tag} line {i}: " + SENTENCE.format(n=i + 3) for i in range(count)]


def write_lines(page: pymupdf.Page, x: float, y: float, lines: list[str], size: float = BODY) -> float:
    for line in lines:
        page.insert_text((x, y), line, fontsize=size)
        y += size * 1.3
    return y


@functools.cache
def sample_paper(*, doi: str = "10.1234/Test.Doc-42", arxiv: str = "2101.01234v2") -> bytes:
    """Five pages: title + sections, a two-column page, a table, non-ASCII text, an empty page. Made once
    per process and arguments (~0.25 s of PyMuPDF); ``sample_paper.__wrapped__`` makes it anew (two
    makings differ in their bytes, not in their content)."""
    doc = pymupdf.open()

    p1 = doc.new_page()
    p1.insert_text((LEFT, 80), "Field Methods for Soil Ecology", fontsize=20)
    p1.insert_text((LEFT, 110), f"arXiv:{arxiv} [q-bio.PE]", fontsize=BODY)
    p1.insert_text((LEFT, 140), "1 Introduction", fontsize=14)
    y = write_lines(p1, LEFT, 160, body_lines("intro", 12))
    p1.insert_text((LEFT, y + 20), "1.1 Background", fontsize=12)
    write_lines(p1, LEFT, y + 40, body_lines("background", 6))

    p2 = doc.new_page()  # two columns below a full-width heading
    p2.insert_text((LEFT, 80), "2 Two Column Results", fontsize=14)
    col = [f"LEFTCOL {i} soil cores were sieved" for i in range(20)]
    write_lines(p2, LEFT, 110, col)
    write_lines(p2, GUTTER_MID + 20, 110, [c.replace("LEFTCOL", "RIGHTCOL") for c in col])

    p3 = doc.new_page()  # a table and non-ASCII text
    p3.insert_text((LEFT, 80), "3 Measurements", fontsize=14)
    y = write_lines(p3, LEFT, 110, body_lines("table intro", 3))
    y += 10
    for row in (("Species", "Count", "Mass"), ("Lumbricus", "17", "2.5"), ("Collembola", "230", "0.1")):
        for j, cell in enumerate(row):
            p3.insert_text((LEFT + 130 * j, y), cell, fontsize=BODY)
        y += 14
    p3.insert_htmlbox(pymupdf.Rect(LEFT, y + 20, 520, y + 80),
                      f"<p style='font-size:{BODY}pt'>Sampled by Müller–Ångström ∑ 数据 team.</p>")

    doc.new_page()  # page 4: no text layer at all

    p5 = doc.new_page()
    p5.insert_text((LEFT, 80), "4 Conclusion", fontsize=14)
    write_lines(p5, LEFT, 110, body_lines("conclusion", 8))

    doc.set_metadata({"title": "Field Methods for Soil Ecology", "author": "Ada Müller; Bo Ångström",
                      "subject": f"doi:{doi}", "keywords": "soil; ecology"})
    doc.set_xml_metadata(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/" '
        f'xmlns:dc="http://purl.org/dc/elements/1.1/"><prism:doi>{doi}</prism:doi>'
        '<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Field Methods for Soil Ecology</rdf:li></rdf:Alt>'
        '</dc:title></rdf:Description></rdf:RDF></x:xmpmeta>')
    return doc.tobytes(garbage=3, deflate=True)


def long_paper(pages: int, seed: int = 0) -> bytes:
    """A plain multi-page paper (one section per page) for the benchmark."""
    doc = pymupdf.open()
    for n in range(pages):
        page = doc.new_page()
        page.insert_text((LEFT, 80), f"{n + 1} Section {n + seed}", fontsize=14)
        write_lines(page, LEFT, 110, body_lines(f"p{n}", 45))
    return doc.tobytes(garbage=3, deflate=True)
