"""What PDF extraction marks as headings on a first page: the title once, and not the journal's masthead,
the authors, their addresses or the date."""
from __future__ import annotations

from pathlib import Path

import pymupdf

from doiget.fulltext.pdf import extract_pdf, read_pdf
from pdfgen import LEFT, body_lines, write_lines

SNIFF = Path(__file__).resolve().parent.parent / "fixtures" / "papers" / "sniff"


def _headings(data: bytes) -> list[str]:
    return [line for line in extract_pdf(data).text.splitlines() if line.startswith("#")]


def _centred(page: pymupdf.Page, y: float, text: str, size: float, font: str = "helv") -> None:
    width = pymupdf.get_text_length(text, fontname=font, fontsize=size)
    page.insert_text(((page.rect.width - width) / 2, y), text, fontsize=size, fontname=font)


def test_a_title_in_two_weights_is_one_heading():
    # arXiv 2308.08155's first page: "AutoGen:" in typewriter on the title's first line, the second line bold
    data = (SNIFF / "arxiv-2308.08155-p1.pdf").read_bytes()
    doc, sniff = read_pdf(data)
    title = "AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation"
    assert _headings(data) == [f"# {title}", "## Abstract"]
    assert doc.title == sniff.title == title


def test_title_page_authors_addresses_and_date_are_not_headings():
    # a LaTeX \maketitle page: title, author, address and date centred above the abstract
    doc = pymupdf.open()
    page = doc.new_page()
    _centred(page, 120, "Soil Respiration under Drought", 17)
    _centred(page, 160, "Ada Marsh", 12)
    _centred(page, 176, "ada.marsh@example.org", 12)
    _centred(page, 200, "Institute of Soil Science, Uppsala", 12)
    _centred(page, 224, "March 3, 2021", 12)
    _centred(page, 260, "Abstract", 10, "hebo")
    y = write_lines(page, LEFT, 280, body_lines("abstract", 5))
    page.insert_text((LEFT, y + 30), "1 Introduction", fontsize=14, fontname="hebo")
    write_lines(page, LEFT, y + 50, body_lines("intro", 20))
    headings = _headings(doc.tobytes())
    assert headings == ["# Soil Respiration under Drought", "### Abstract", "## 1 Introduction"]


def test_a_centred_abstract_heading_over_short_lines_stays_a_heading():
    # TeX Live's ijqc/xampl.pdf: the abstract set a line per block reads as no prose, and "Abstract", centred
    # like an author's name above it, was taken for front matter
    doc = pymupdf.open()
    page = doc.new_page()
    _centred(page, 120, "Soil Respiration under Drought", 17)
    _centred(page, 160, "Ada Marsh", 12)
    _centred(page, 200, "Abstract", 12, "hebo")
    for i, line in enumerate(["We measured it.", "It fell.", "Then it rose."]):
        page.insert_text((LEFT, 230 + 40 * i), line, fontsize=10)
    page.insert_text((LEFT, 380), "1 Introduction", fontsize=14, fontname="hebo")
    write_lines(page, LEFT, 400, body_lines("intro", 20))
    assert "Abstract" in [h.lstrip("# ") for h in _headings(doc.tobytes())]
    assert "Ada Marsh" not in [h.lstrip("# ") for h in _headings(doc.tobytes())]


def test_masthead_above_the_title_is_not_a_heading():
    # a journal's name set larger than the title, and an article-type banner in the title's size; the PDF's
    # own title says which large text is the title
    title = "Root Exudates Shape Microbial Communities"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((LEFT, 50), "Soil Letters", fontsize=22, fontname="hebo")
    page.insert_text((LEFT, 90), "RESEARCH ARTICLE", fontsize=16, fontname="hebo")
    page.insert_text((LEFT, 130), title, fontsize=16, fontname="hebo")
    y = write_lines(page, LEFT, 160, ["Ada Marsh, Bo Lind and Cy Moss"] + body_lines("abstract", 6))
    page.insert_text((LEFT, y + 30), "Introduction", fontsize=13, fontname="hebo")
    y = write_lines(page, LEFT, y + 50, body_lines("intro", 12))
    page.insert_text((LEFT, y + 30), "Methods", fontsize=13, fontname="hebo")
    write_lines(page, LEFT, y + 50, body_lines("methods", 6))
    doc.set_metadata({"title": title})
    extracted = extract_pdf(doc.tobytes())
    assert [line for line in extracted.text.splitlines() if line.startswith("#")] == [
        f"# {title}", "## Introduction", "## Methods"]
    assert extracted.title == title


def test_numbered_subsection_with_a_list_in_its_name_is_a_heading():
    # arXiv 2407.01603's "3.1 Molecular Representations, Datasets, and Benchmarks": commas alone do not make
    # a list of names when the line is numbered as a subsection
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((LEFT, 80), "3 Methods", fontsize=14, fontname="hebo")
    y = write_lines(page, LEFT, 100, body_lines("methods", 4))
    page.insert_text((LEFT, y + 20), "3.1 Soils, Sites, and Seasons", fontsize=12, fontname="hebo")
    y = write_lines(page, LEFT, y + 40, body_lines("sites", 8))
    page.insert_text((LEFT, y + 20), "Ada Marsh, Bo Lind, Cy Moss", fontsize=12, fontname="hebo")
    write_lines(page, LEFT, y + 40, body_lines("people", 8))
    assert _headings(doc.tobytes()) == ["## 3 Methods", "### 3.1 Soils, Sites, and Seasons"]  # no title: no level 1


def test_bold_list_items_and_notes_are_not_headings():
    # BMC's figure note "* Out of frame" (biblatex-oxref's bold bullets "• Roles expressed as functions" alike;
    # the base-14 fonts insert_text uses print neither a bullet nor a dagger)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((LEFT, 80), "Methods", fontsize=14, fontname="hebo")
    y = write_lines(page, LEFT, 100, body_lines("methods", 4))
    for mark in ("* Equal contributions to the design", "* Out of frame"):
        page.insert_text((LEFT, y + 16), mark, fontsize=10, fontname="hebo")
        y = write_lines(page, LEFT, y + 32, body_lines("item", 4))
    text = extract_pdf(doc.tobytes()).text
    assert [line for line in text.splitlines() if line.startswith("#")] == ["## Methods"]  # no title: no level 1
    assert "\n\n* Equal contributions to the design\n\n" in text and "\n\n* Out of frame\n\n" in text


def test_the_documents_title_is_the_one_the_sniff_reads():
    # Page 1 of Exp. Mol. Med. 10.1038/s12276-023-01094-x: the "REVIEW ARTICLE" banner was the level-1 heading,
    # the title (a list: "in immunity, metabolism, and disease") not a heading at all; of Cancer Cell
    # 10.1016/j.ccell.2022.07.005: the summary page's title set smaller than headings elsewhere, so no level 1;
    # of eScholarship's cover of Science 10.1126/science.aba1624: the title at body size after its label
    for name, title in [
            ("emm-s12276-023-01094-x-p1.pdf", "Phosphocode-dependent glutamyl-prolyl-tRNA synthetase 1 signaling in "
                                              "immunity, metabolism, and disease"),
            ("ccell-2022.07.005-p1.pdf", "A covalent inhibitor of K-Ras(G12C) induces MHC class I presentation of "
                                         "haptenated peptide neoepitopes targetable by immunotherapy"),
            ("escholarship-science.aba1624-p1.pdf", "Synthetic cytokine circuits that drive T cells into "
                                                    "immune-excluded tumors")]:
        doc, sniff = read_pdf((SNIFF / name).read_bytes())
        assert doc.title == sniff.title == title
        assert [line for line in doc.text.splitlines() if line.startswith("# ")] == [f"# {title}"]
    text = extract_pdf((SNIFF / "emm-s12276-023-01094-x-p1.pdf").read_bytes()).text
    assert text.index("REVIEW ARTICLE") < text.index("# Phosphocode")  # the banner is kept, as text


def test_a_running_head_reaching_below_the_margin_band_is_dropped():
    # Cancer Cell 10.1016/j.ccell.2022.07.005, pages 2, 3, 13 and 14 (tests/fixtures/papers/sniff): Cell Press sets
    # "Report" at the head of each page from 65 to 79 pt, its foot below the top tenth (78.3 pt) of the page; it
    # was a "## Report" heading on every page (64 headings "Article" or "Report" in 6 Cell Press PDFs of litqa)
    text = extract_pdf((SNIFF / "ccell-2022.07.005-p2-3-13-14.pdf").read_bytes()).text
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert "## Report" not in headings
    assert text.count("Report") == 1  # the article's first page prints it above the title, not as a running head


def test_a_heading_in_a_heading_font_does_not_take_in_the_paragraph_it_leads():
    # the same pages: STAR Methods' "Lead contact" in the heading font, then a short paragraph in the body font,
    # were merged into one heading "Lead contact Further information and requests for ..."
    text = extract_pdf((SNIFF / "ccell-2022.07.005-p2-3-13-14.pdf").read_bytes()).text
    for heading in ("Lead contact", "Materials availability", "Mice", "Competition ELISA with ARS1620 and AMG510"):
        assert f"\n### {heading}\n\n" in text
    assert "\n\nFurther information and requests for resources and reagents" in text


def test_the_rest_of_an_author_list_is_not_a_heading():
    # Nat. Commun. 10.1038/s41467-023-39119-8, page 1: the author list's last lines ", Asis Palazon" and
    # "& June Ereño-Orbea" are set apart and were headings
    text = extract_pdf((SNIFF / "ncomms-s41467-023-39119-8-p1.pdf").read_bytes()).text
    assert [line for line in text.splitlines() if line.startswith("#")] == [
        "# Structural insights into Siglec-15 reveal glycosylation dependency for its interaction with T cells "
        "through integrin CD11b"]
    assert "Asis Palazon" in text and "June Ereño-Orbea" in text


def test_a_sentence_is_not_a_heading():
    # Nucleic Acids Research 10.1093/nar/gkae252, page 13: "None declared." under "Conflict of interest statement",
    # set as large as the headings (so in 6 NAR PDFs of litqa; other papers' "The authors declare no conflict of
    # interest.", data availability statements alike)
    text = extract_pdf((SNIFF / "nar-gkae252-p13.pdf").read_bytes()).text
    assert "\n## Conflict of interest statement\n\nNone declared.\n\n## References\n" in text
