"""A PDF opened with MuPDF itself reads the info fields, the XMP packet and the page count PyMuPDF's Document gives."""
from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from doiget.errors import DoigetError
from doiget.fulltext.pdf import extract_pdf
from doiget.fulltext.pdffile import PdfFile

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "papers"


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*/*.pdf")), ids=lambda p: p.name)
def test_metadata_and_pages_are_pymupdfs(path):
    data = path.read_bytes()
    ours, theirs = PdfFile(data), pymupdf.open(stream=data, filetype="pdf")
    for field in ("title", "author", "subject", "keywords"):
        assert ours.info(field.capitalize()) == theirs.metadata[field]
    assert ours.xml_metadata() == (theirs.get_xml_metadata() or "")
    assert (ours.page_count, ours.needs_pass) == (theirs.page_count, bool(theirs.needs_pass))


def test_a_file_that_sets_no_field_reads_empty():
    doc = pymupdf.open()
    doc.new_page()
    pdf = PdfFile(doc.tobytes())
    assert (pdf.info("Title"), pdf.xml_metadata(), pdf.page_count) == ("", "", 1)


def test_a_damaged_file_is_refused_without_mupdf_printing(capfd):
    with pytest.raises(DoigetError, match="not a readable PDF"):
        extract_pdf(b"%PDF-1.7\n not really")
    with pytest.raises(DoigetError, match="not a readable PDF"):
        extract_pdf(b"")
    assert "MuPDF" not in capfd.readouterr().out
