"""PDF extraction and sniffing on real PDFs generated with PyMuPDF."""
from __future__ import annotations

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext.pdf import extract_pdf, sniff_pdf
from invariants import assert_well_formed
from pdfgen import body_lines, sample_paper, write_lines


@pytest.fixture(scope="module")
def paper() -> bytes:
    return sample_paper()


@pytest.fixture(scope="module")
def doc(paper):
    return extract_pdf(paper)


def test_headings_from_font_sizes(doc):
    headings = [line for line in doc.text.splitlines() if line.startswith("#")]
    assert headings == ["# Field Methods for Soil Ecology", "## 1 Introduction", "### 1.1 Background",
                        "## 2 Two Column Results", "## 3 Measurements", "## 4 Conclusion"]
    assert doc.title == "Field Methods for Soil Ecology"
    assert {c.heading for c in doc.chunks if c.page == 2} == {"2 Two Column Results"}
    assert doc.chunks[-1].heading == "4 Conclusion"


def test_pages_offsets_and_empty_page(doc):
    assert doc.source == "pdf" and doc.page_count == 5
    assert doc.empty_pages == [4]
    assert {c.page for c in doc.chunks} == {1, 2, 3, 5}
    offsets = doc.page_offsets
    assert offsets[0] == 0 and doc.text[offsets[1]:].startswith("## 2 Two Column Results")
    assert doc.text[offsets[2]:].startswith("## 3 Measurements")
    assert offsets[3] == offsets[4] and doc.text[offsets[4]:].startswith("## 4 Conclusion")
    page_two = doc.text[offsets[1]:offsets[2]]
    assert "RIGHTCOL 7" in page_two and "intro line" not in page_two
    assert_well_formed(doc)


def test_two_columns_read_in_column_order(doc):
    text = doc.text
    lefts = [text.index(f"LEFTCOL {i} ") for i in range(20)]
    rights = [text.index(f"RIGHTCOL {i} ") for i in range(20)]
    assert lefts == sorted(lefts) and rights == sorted(rights)
    assert max(lefts) < min(rights)


def test_table_rows_and_non_ascii(doc):
    lines = doc.text.splitlines()
    assert "Species | Count | Mass" in lines
    assert "Lumbricus | 17 | 2.5" in lines
    assert "Collembola | 230 | 0.1" in lines
    assert "Sampled by Müller–Ångström ∑ 数据 team." in doc.text


def test_deterministic(paper, doc):
    again = extract_pdf(paper)
    assert again.content_sha256 == doc.content_sha256
    assert again.chunks == doc.chunks and again.page_offsets == doc.page_offsets
    assert extract_pdf(sample_paper.__wrapped__()).content_sha256 == doc.content_sha256  # made anew


def test_body_text_is_never_promoted_to_heading():
    pdf = pymupdf.open()
    page = pdf.new_page()
    write_lines(page, 72, 80, body_lines("only", 30))
    doc = extract_pdf(pdf.tobytes())
    assert "#" not in doc.text and doc.title is None
    assert doc.chunks[0].heading is None
    assert_well_formed(doc)


def test_scanned_only_pdf_yields_no_text():
    pdf = pymupdf.open()
    page = pdf.new_page()
    page.draw_rect(pymupdf.Rect(50, 50, 300, 300), color=(0, 0, 0), fill=(0.5, 0.5, 0.5))
    pdf.new_page()
    doc = extract_pdf(pdf.tobytes())
    assert doc.text == "" and doc.chunks == [] and doc.empty_pages == [1, 2]


def test_encrypted_and_broken_pdfs_are_invalid_input():
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), "secret")
    locked = pdf.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u")
    for data, needle in ((locked, "encrypted"), (b"%PDF-1.7\n garbage", "not a readable PDF"),
                         (b"hello", "not a readable PDF")):
        with pytest.raises(DoigetError) as err:
            extract_pdf(data)
        assert err.value.code is ErrorCode.INVALID_INPUT and needle in err.value.message
    with pytest.raises(DoigetError):
        sniff_pdf(locked)


def test_sniff_reads_xmp_info_and_first_pages(paper):
    sniff = sniff_pdf(paper)
    assert sniff.doi == "10.1234/test.doc-42"
    assert sniff.arxiv_id == "2101.01234"
    assert sniff.title == "Field Methods for Soil Ecology"
    assert [a.name for a in sniff.authors] == ["Ada Müller", "Bo Ångström"]
    assert sniff.page_count == 5


def test_sniff_falls_back_to_page_text_and_old_style_arxiv_ids():
    pdf = pymupdf.open()
    pdf.new_page()
    page = pdf.new_page()
    page.insert_text((72, 72), "Published as https://doi.org/10.1038/NATURE12373.", fontsize=9)
    page.insert_text((72, 90), "Preprint arXiv:astro-ph/0601001v1", fontsize=9)
    sniff = sniff_pdf(pdf.tobytes())
    assert sniff.doi == "10.1038/nature12373"
    assert sniff.arxiv_id == "astro-ph/0601001"
    assert sniff.title is None and sniff.authors == []


def test_sniff_ignores_ids_after_the_second_page():
    pdf = pymupdf.open()
    pdf.new_page()
    pdf.new_page()
    pdf.new_page().insert_text((72, 72), "doi:10.5555/late.page", fontsize=9)
    sniff = sniff_pdf(pdf.tobytes())
    assert sniff.doi is None and sniff.arxiv_id is None


def _paper_with_font_headings() -> bytes:
    """Subsection headings set only in a font of their own (Times) at body size above Helvetica
    paragraphs, and Courier used both for two paragraph leads and for five stand-alone labels."""
    doc = pymupdf.open()
    page = doc.new_page()
    y = 80
    for title in ("Sampling design of the field survey", "Soil cores and their storage", "Statistical analysis"):
        page.insert_text((72, y), title, fontsize=10, fontname="tiro")
        y = write_lines(page, 72, y + 13, body_lines(title.split()[0].lower(), 4)) + 14
    for lead in ("Station records kept on site", "Weather data from the station"):
        page.insert_text((72, y), lead, fontsize=10, fontname="cour")
        y = write_lines(page, 72, y + 13, body_lines("station", 3)) + 14
    for label in ("Plot A", "Plot B", "Plot C", "Plot D", "Plot E"):
        page.insert_text((400, y), label, fontsize=10, fontname="cour")
        y += 30
    return doc.tobytes()


def test_headings_set_only_in_a_font_of_their_own():
    doc = extract_pdf(_paper_with_font_headings())
    headings = [line for line in doc.text.splitlines() if line.startswith("#")]
    assert headings == ["### Sampling design of the field survey", "### Soil cores and their storage",
                        "### Statistical analysis"]
    assert "Station records kept on site" in doc.text and "Plot C" in doc.text


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(0, 800, allow_nan=False), min_size=1, max_size=8),
       st.lists(st.tuples(st.floats(0, 800, allow_nan=False), st.floats(1, 30, allow_nan=False)), min_size=1,
                max_size=8))
def test_aligned_columns_found_by_nearest_tops_as_by_every_pair(left_tops, right):
    # the nearest left top on either side of a right block's top decides what comparing every pair decides
    from types import SimpleNamespace

    from doiget.fulltext.pdf import _aligned

    left = [SimpleNamespace(bbox=(0, top, 1, top + 1), size=10.0, lines=[0]) for top in left_tops]
    blocks = [SimpleNamespace(bbox=(0, top, 1, top + 1), size=size, lines=[0]) for top, size in right]
    hits = sum(1 for b in blocks if any(abs(b.bbox[1] - t) < 0.5 * b.size for t in left_tops))
    assert _aligned(left, blocks) == (hits * 2 > len(blocks))


def test_a_damaged_file_is_refused_without_mupdf_printing(capfd):
    with pytest.raises(DoigetError, match="not a readable PDF"):
        extract_pdf(b"%PDF-1.7\n not really")
    with pytest.raises(DoigetError, match="not a readable PDF"):
        extract_pdf(b"")
    assert "MuPDF" not in capfd.readouterr().out
