"""The one-pass page reader behind PDF extraction: line boxes, dominant size and weight from MuPDF's
JSON and HTML writers, on PDFs built with PyMuPDF and on the real papers."""
from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from doiget.fulltext import pdfpage
from doiget.fulltext.pdf import extract_pdf
from pdfgen import sample_paper

PAPERS = Path(__file__).resolve().parent.parent / "fixtures" / "papers" / "pdf"


def _lines(page: pymupdf.Page) -> dict[str, pdfpage.Line]:
    return {line.text: line for _, lines in pdfpage.page_blocks(pdfpage.text_page(page.this)) for line in lines}


def _mixed_page() -> pymupdf.Page:
    doc = pymupdf.open()
    page = doc.new_page()
    y = 100
    # a bold run-in lead, then regular text on the same baseline: one line, not bold
    page.insert_text((72, y), "Methods.", fontsize=10, fontname="hebo")
    page.insert_text((72 + pymupdf.get_text_length("Methods. ", "hebo", 10), y),
                     "We sampled forty sites in spring and autumn", fontsize=10, fontname="helv")
    # a superscript footnote mark before a long body-size line: the line is body-sized
    y += 20
    page.insert_text((72, y - 3), "1", fontsize=6, fontname="helv")
    page.insert_text((76, y), "Department of Soil Ecology, University of Somewhere, Country", fontsize=10,
                     fontname="helv")
    # every run bold (two sizes of one bold font): bold, sized by the run with most characters
    y += 20
    page.insert_text((72, y), "2", fontsize=12, fontname="hebo")
    page.insert_text((82, y), "Results and Discussion", fontsize=12, fontname="hebo")
    # a side stamp set at an angle in the left margin
    page.insert_text((30, 600), "arXiv:2101.01234v2 [q-bio.PE] 3 Jan 2021", fontsize=12, rotate=90)
    return page


def test_runs_decide_size_and_weight_of_a_line():
    lines = _lines(_mixed_page())
    run_in = next(line for text, line in lines.items() if text.startswith("Methods."))
    assert "We sampled forty sites" in run_in.text and not run_in.bold
    affiliation = next(line for text, line in lines.items() if "Department of Soil Ecology" in text)
    assert affiliation.size == pytest.approx(10, abs=0.05) and not affiliation.bold
    heading = next(line for text, line in lines.items() if "Results and Discussion" in text)
    assert heading.bold and heading.size == pytest.approx(12, abs=0.05)
    stamp = next(line for text, line in lines.items() if text.startswith("arXiv:"))
    assert not stamp.upright and all(line.upright for line in lines.values() if line is not stamp)


def test_boxes_match_pymupdf_line_boxes():
    page = pymupdf.open(stream=sample_paper(), filetype="pdf")[0]
    ours = _lines(page)
    flags = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    for block in page.get_text("dict", flags=flags)["blocks"]:
        for line in block["lines"]:
            text = "".join(s["text"] for s in line["spans"]).strip()
            x0, y0, x1, y1 = ours[text].bbox
            assert abs(x0 - line["bbox"][0]) < 0.5 and abs(x1 - line["bbox"][2]) < 0.5
            assert y0 <= line["bbox"][3] and y1 >= line["bbox"][1]  # MuPDF's and PyMuPDF's heights differ a little


@pytest.mark.parametrize("name", [p.name for p in sorted(PAPERS.glob("*.pdf"))] + ["turned, annotated pages"])
def test_text_page_is_pymupdfs(name):
    """The text page read from MuPDF directly is the one PyMuPDF's Page.get_textpage builds with the same
    flags, page by page as both writers print it: the real papers, pages turned by /Rotate (which PyMuPDF
    reads unrotated) and annotations' text (a stamp, a comment)."""
    if name.startswith("turned"):
        doc = pymupdf.open(stream=sample_paper(), filetype="pdf")
        for page, rotation in zip(doc, (90, 180, 270, 0)):
            page.set_rotation(rotation)
        doc[4].add_stamp_annot(pymupdf.Rect(300, 300, 500, 360), stamp=0)
        doc[4].add_freetext_annot(pymupdf.Rect(72, 700, 400, 740), "A reviewer's comment on this page")
        data = doc.tobytes()
    else:
        data = (PAPERS / name).read_bytes()
    flags = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    ours, theirs = pymupdf.open(stream=data, filetype="pdf"), pymupdf.open(stream=data, filetype="pdf")
    for number in range(ours.page_count):
        mine = pdfpage.text_page(pymupdf.mupdf.fz_load_page(ours.this, number))
        pymupdfs = theirs[number].get_textpage(flags=flags).this
        for writer, arg in WRITERS:
            assert pdfpage._write(writer, mine, arg) == pdfpage._write(writer, pymupdfs, arg)


WRITERS = ((pymupdf.mupdf.ll_fz_print_stext_page_as_json, pdfpage.SCALE),
           (pymupdf.mupdf.ll_fz_print_stext_page_as_html, 0))


@pytest.mark.parametrize("name", [p.name for p in sorted(PAPERS.glob("*.pdf"))])
def test_buffered_output_prints_what_mupdfs_buffer_output_prints(name):
    """The writers' output through an output of our own buffer size is byte for byte what MuPDF's output to a
    buffer (unbuffered) gets, page by page."""
    mupdf = pymupdf.mupdf
    doc = pymupdf.open(stream=(PAPERS / name).read_bytes(), filetype="pdf")
    for number in range(doc.page_count):
        textpage = pdfpage.text_page(mupdf.fz_load_page(doc.this, number))
        for writer, arg in WRITERS:
            buffer = mupdf.fz_new_buffer(1 << 10)
            out = mupdf.FzOutput(buffer)
            writer(out.m_internal, textpage.m_internal, arg)
            out.fz_close_output()
            assert pdfpage._write(writer, textpage, arg) == mupdf.fz_buffer_extract(buffer)


def test_writers_out_of_step_fall_back_to_first_character_fonts(monkeypatch):
    data = (PAPERS / "acl-N18-3011.pdf").read_bytes()
    expected = extract_pdf(data)
    write = pdfpage._write

    def html_missing_a_line(writer, textpage, arg):
        out = write(writer, textpage, arg)
        return out.replace(b"</p>\n", b"", 1) if writer is pymupdf.mupdf.ll_fz_print_stext_page_as_html else out

    monkeypatch.setattr(pdfpage, "_write", html_missing_a_line)
    degraded = extract_pdf(data)
    # every word kept and every section found; lines mixing styles may read differently (a bold
    # run-in lead taken for a heading), which is why the runs are read when the writers agree
    def words(d):
        return sorted(w for w in d.text.split() if w.strip("#"))
    assert words(degraded) == words(expected)
    found = [h.lstrip("#").strip() for h in degraded.text.splitlines() if h.startswith("#")]
    assert all(h in found for h in ("1 Introduction", "4.4 Entity Linking Models", "References"))
    assert "I. Statistical: uses one or more statistical models" not in \
        [h.lstrip("#").strip() for h in expected.text.splitlines() if h.startswith("#")]


def _page_json(text: bytes) -> bytes:
    return (b'{"blocks":[{"type":"text","bbox":{"x":0,"y":0,"w":9,"h":9},"lines":[{"wmode":0,'
            b'"bbox":{"x":0,"y":0,"w":9,"h":9,"flags":0},"font":{"name":"F","family":"serif","weight":"normal",'
            b'"style":"normal","size":900},"x":0,"y":7,"text":"' + text + b'"}]}]}')


def test_page_json_that_msgspec_refuses_is_read_by_json():
    # MuPDF writes what a font maps a glyph to: a lone surrogate (escaped or raw) or bytes that are not
    # UTF-8 make msgspec refuse the page; json reads it as the extractor always did
    def text(raw: bytes) -> str:
        return pdfpage._parse(_page_json(raw)).blocks[0].lines[0].text

    assert text(b"a\\ud800b") == "a\ud800b"
    assert text(b"a\xffb") == "a\ufffdb"
    assert text(b"a\xc3\xa9\\u0008") == "a\u00e9\b"


def test_json_fallback_reads_the_real_papers_alike(monkeypatch):
    data = (PAPERS / "elife-91357.pdf").read_bytes()
    expected = extract_pdf(data)

    def refuse(_):
        raise pdfpage.msgspec.DecodeError("refused")

    monkeypatch.setattr(pdfpage, "_decode", refuse)
    fallback = extract_pdf(data)
    assert (fallback.text, fallback.chunks) == (expected.text, expected.chunks)


def _spaced_in_own_font(text: str, font: str, size: float) -> str:
    """Content-stream text operators for ``text`` whose spaces are Courier glyphs of their own, as Oxford
    journals set them; a ``|`` is such a space kerned back over itself (it takes no room)."""
    ops = []
    for part in text.replace(" ", "\0 \0").replace("|", "\0|\0").split("\0"):
        if part in (" ", "|"):
            ops.append(f"/cour 6.4 Tf [( ) {600 if part == '|' else 0}] TJ")
        elif part:
            ops.append(f"/{font} {size} Tf [({part})] TJ")
    return " ".join(ops)


def test_space_glyphs_that_take_no_room_do_not_part_words():
    # NAR gkae223 (CC BY-NC, not committed) prints "Gr aphical abstr act" and "Ho w e v er" this way
    doc = pymupdf.open()
    page = doc.new_page()
    for font in ("helv", "hebo", "cour"):
        page.insert_font(fontname=font)
    lines = [("Gr|aphical abstr|act", "hebo", 11)] + [
        ("Ho|w|e|v|er, the mechanism that allo|ws these comple|x|es to form is unclear", "helv", 9)] * 6
    stream = "BT " + " ".join(f"1 0 0 1 72 {700 - 14 * i} Tm {_spaced_in_own_font(*line)}"
                              for i, line in enumerate(lines)) + " ET"
    xref = doc.get_new_xref()
    doc.update_object(xref, "<<>>")
    doc.update_stream(xref, stream.encode())
    doc.xref_set_key(page.xref, "Contents", f"{xref} 0 R")
    data = doc.tobytes()
    assert "Gr aphical" in pymupdf.open(stream=data)[0].get_text()  # MuPDF reads the glyphs as spaces
    text = extract_pdf(data).text
    assert text.startswith("# Graphical abstract\n")
    assert text.count("However, the mechanism that allows these complexes to form is unclear") == 6
