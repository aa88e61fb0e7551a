"""Headings whole and only where the paper sets one (real pages where their licence allows, rebuilt pages where
not): a heading wrapped onto a second line takes it along, a run-in heading ends where its paragraph starts, a
heading with an italic word stays one; a label beside a row, a figure page's labels and the title printed again
are not headings, and a publisher's character references do not garble the title."""
from __future__ import annotations

from pathlib import Path

import pymupdf

from doiget.fulltext.pdf import extract_pdf, read_pdf, sniff_pdf
from invariants import assert_well_formed
from pdfgen import LEFT, body_lines, write_lines

SNIFF = Path(__file__).resolve().parent.parent / "fixtures" / "papers" / "sniff"


def _after(text: str, heading: str) -> str:
    """The first paragraph after ``heading`` (its line, ``#`` marks included)."""
    lines = text.split("\n")
    return next(line for line in lines[lines.index(heading) + 1:] if line.strip())


def _extract(name: str) -> str:
    doc = extract_pdf((SNIFF / name).read_bytes())
    assert_well_formed(doc)
    return doc.text


def test_a_heading_wrapped_onto_a_line_in_italics_takes_it_along():
    # NAR 10.1093/nar/gkae130, page 9: the heading's second line starts with an italic gene name, so its font is not
    # the heading's; the heading stopped at "cosa-1-4A and" and the rest opened the paragraph
    text = _extract("nar-gkae130-p9.pdf")
    heading = ("### CO designation is normal in cosa-1-4A and cosa-1-6A mutants despite the defective accumulation "
               "of COSA-1 at the CO designation sites")
    assert heading in text.split("\n")
    assert _after(text, heading).startswith("Pro-CO factors colocalize at CO-designated sites")


def test_a_wrapped_run_in_heading_ends_where_its_paragraph_starts():
    # Nat. Commun. 10.1038/s41467-022-30570-7, pages 2 and 5: bold run-in headings of two lines, the second line
    # going on in the paragraph's font after the heading's full stop, or the paragraph set beside "HsMOR."
    text = _extract("ncomms-s41467-022-30570-7-p2-5.pdf")
    first = "### Construction of an opioid biosensor in a cholesterol-producing yeast."
    assert _after(text, first).startswith("Previous work found that yeast-expressed human mu opioid receptor")
    second = "### Biosensors recapitulate the effects of missense mutants in HsMOR."
    assert _after(text, second).startswith("Our biosensor platform may enable convenient")


def test_a_run_in_heading_after_a_broken_word_ends_at_its_wide_space():
    # Diabetologia 10.1007/s00125-024-06103-w, page 6: Springer's run-in headings end in an en space, and Springer
    # breaks words with a non-breaking hyphen (U+2011): "stimula\u2011" / "tion" is one word, as "stimula-" would be
    text = _extract("diabetologia-s00125-024-06103-w-p6.pdf")
    heading = "### Metabolic inhibition of hetS118L and homS118L channels was unaffected"
    assert _after(text, heading).startswith("To investigate the effects of the S118L mutation")
    lines = text.split("\n")
    assert "### The S118L mutation does not affect KATP channel stimulation by MgADP" in lines
    assert "### The S118L mutation does not affect KATP channel ATP sensitivity" in lines
    assert "\u2011 " not in text


def test_the_title_printed_again_on_the_article_page_is_not_a_heading():
    # Cancer Cell 10.1016/j.ccell.2022.07.005: the summary page (page 1) and the article's first page (page 2) both
    # print the title; the second one was a level-2 heading under the level-1 title
    doc = pymupdf.open(SNIFF / "ccell-2022.07.005-p1.pdf")
    doc.insert_pdf(pymupdf.open(SNIFF / "ccell-2022.07.005-p2-3-13-14.pdf"))
    extracted = extract_pdf(doc.tobytes())
    assert_well_formed(extracted)
    title = ("A covalent inhibitor of K-Ras(G12C) induces MHC class I presentation of haptenated peptide neoepitopes "
             "targetable by immunotherapy")
    lines = extracted.text.split("\n")
    assert [line for line in lines if title in line] == [f"# {title}", title]  # kept on page 2, as text
    assert extracted.page_offsets[1] < extracted.text.index(f"\n{title}\n")


def test_a_label_with_smaller_text_beside_it_is_not_a_heading():
    # ACS's article header: "ACCESS" set large, "Metrics & More" and "Article Recommendations" small on its row
    # (10.1021/acs.jctc.2c00401 and 10.1021/acschembio.3c00138: not openly licensed, so the row is rebuilt here)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((LEFT, 80), "Introduction", fontsize=14, fontname="hebo")
    y = write_lines(page, LEFT, 100, body_lines("intro", 6))
    page.insert_text((LEFT, y + 30), "ACCESS", fontsize=15, fontname="helv")
    page.insert_text((LEFT + 150, y + 27), "Metrics & More", fontsize=8, fontname="helv")
    page.insert_text((LEFT + 350, y + 27), "Article Recommendations", fontsize=8, fontname="helv")
    write_lines(page, LEFT, y + 60, body_lines("abstract", 8))
    text = extract_pdf(doc.tobytes()).text
    assert [line for line in text.split("\n") if line.startswith("#")] == ["## Introduction"]
    assert "ACCESS" in text and "Metrics & More" in text


def test_character_references_in_the_info_dictionary_title_are_read():
    # Oxford writes the info dictionary of NAR 10.1093/nar/gkae105 with HTML character references; where the page
    # does not print the title, the sniff takes the metadata's
    doc = pymupdf.open()
    page = doc.new_page()
    write_lines(page, LEFT, 80, body_lines("telomeres", 12))
    doc.set_metadata({"title": "DNA-PK controls Apollo&rsquo;s access to leading-end telomeres",
                      "author": "Sonmez Ceylan, Bj&#xF6;rn Wallner"})
    data = doc.tobytes()
    sniff = sniff_pdf(data)
    assert sniff.title == "DNA-PK controls Apollo’s access to leading-end telomeres"
    assert [author.name for author in sniff.authors] == ["Sonmez Ceylan", "Björn Wallner"]
    assert read_pdf(data)[1].title == sniff.title


def test_labels_on_a_page_of_figures_are_not_headings():
    # bioRxiv preprints put their figures last, their legends pages before: a figure page's bold or large labels
    # ("Chaperone Networks", "Gem2", "Horseshoe Intermediate" in 10.1101/2024.05.15.594402, whose CC BY-NC-ND
    # licence does not allow a fixture) read as headings. A page of one short note keeps its heading.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((LEFT, 80), "Results", fontsize=14, fontname="hebo")
    write_lines(page, LEFT, 100, body_lines("results", 30))
    page = doc.new_page()
    page.insert_text((LEFT, 80), "Chaperone Networks", fontsize=14, fontname="hebo")
    for row, labels in enumerate([("Gem2", "Gem3", "SMN"), ("Hsp70 Hsp27", "Tud", "YG Box"),
                                  ("Horseshoe Intermediate", "Sm Proteins", "CCT8"), ("Cbp80 Cbp20", "Nap1", "Lic")]):
        for col, label in enumerate(labels):
            page.insert_text((LEFT + 160 * col, 140 + 90 * row), label, fontsize=11, fontname="hebo")
            page.insert_text((LEFT + 160 * col, 155 + 90 * row), f"{row}.{col} fold", fontsize=7)
    page = doc.new_page()
    page.insert_text((LEFT, 80), "Keywords", fontsize=14, fontname="hebo")
    write_lines(page, LEFT, 100, ["Chromatin", "Cell fate", "Hoxa9"])
    extracted = extract_pdf(doc.tobytes())
    assert [line for line in extracted.text.split("\n") if line.startswith("#")] == ["## Results", "## Keywords"]
    assert "Horseshoe Intermediate" in extracted.text and "Chaperone Networks" in extracted.text


def _run(page: pymupdf.Page, y: float, parts: list[tuple[str, str]], size: float) -> float:
    """One line set in several fonts, part after part."""
    x = LEFT
    for text, font in parts:
        page.insert_text((x, y), text, fontsize=size, fontname=font)
        x += pymupdf.get_text_length(text, fontname=font, fontsize=size)
    return y + size * 1.3


def test_a_heading_in_the_heading_font_with_an_italic_word_is_a_heading():
    # BMC Biology 10.1186/s12915-024-01840-1 (its fonts are not subset, so its pages make no small fixture): Results
    # subsections bold in the font of the Methods' run-in headings, 9.2 pt over 9.8 pt text, with italic gene and
    # species names ("Loss of adr-1 or adr-2 increases sensitivity of C. elegans"); they were body text
    doc = pymupdf.open()
    page = doc.new_page()
    y = 60.0
    for i, heading in enumerate(["Worm strains and maintenance", "Pathogenic bacterial growth", "Slow-killing assay"]):
        y = _run(page, y, [(heading, "hebo")], 9.2)
        y = write_lines(page, LEFT, y, body_lines(f"methods{i}", 4), size=9.8) + 8
    y = _run(page, y, [("Loss of ", "hebo"), ("adr-1", "hebi"), (" increases sensitivity of ", "hebo"),
                       ("C. elegans", "hebi")], 9.2)
    write_lines(page, LEFT, y, body_lines("results", 5), size=9.8)
    text = extract_pdf(doc.tobytes()).text
    assert [line for line in text.split("\n") if line.startswith("#")] == [
        "### Worm strains and maintenance", "### Pathogenic bacterial growth", "### Slow-killing assay",
        "### Loss of adr-1 increases sensitivity of C. elegans"]
