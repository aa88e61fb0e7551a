"""Identifiers and titles sniffed from PDFs: the real papers' printed ids, and the shapes the
real-world failures had (a DOI printed twice over itself, old-style and ePrint-labelled arXiv ids,
file-name-like info titles), written into PDFs made with PyMuPDF."""
from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from doiget.fulltext.pdf import sniff_pdf
from doiget.fulltext.pdfmeta import _xmp_title, clean_doi, looks_like_file_name

PAPERS = Path(__file__).resolve().parent.parent / "fixtures" / "papers" / "pdf"

# file -> (DOI, arXiv id, title) as printed in the paper (checked by reading each one).
TRUTH = {
    "acl-N18-3011.pdf": (None, None, "Construction of the Literature Graph in Semantic Scholar"),
    "acl-2020.acl-main.207.pdf": (None, None, "SPECTER: Document-level Representation Learning using "
                                              "Citation-informed Transformers"),
    "ncomms-s41467-024-44806-1.pdf": ("10.1038/s41467-024-44806-1", None,
                                      "Evolution of optimal growth temperature in Asgard archaea inferred from the "
                                      "temperature dependence of GDP binding to EF-1A"),
    "bmcbiol-s12915-024-01918-w.pdf": ("10.1186/s12915-024-01918-w", None,
                                       "Exonuclease editor promotes precision of gene editing in mammalian cells"),
    "elife-91357.pdf": ("10.7554/elife.91357", None,
                        "Post-transcriptional splicing can occur in a slow-moving zone around the gene"),
    "arxiv-2201.11903-p1.pdf": (None, "2201.11903",
                                "Chain-of-Thought Prompting Elicits Reasoning in Large Language Models"),
    "arxiv-2302.13971-p1.pdf": (None, "2302.13971", "LLaMA: Open and Efficient Foundation Language Models"),
}


@pytest.mark.parametrize("name", sorted(TRUTH))
def test_real_papers_ids_and_title(name):
    doi, arxiv, title = TRUTH[name]
    sniff = sniff_pdf((PAPERS / name).read_bytes())
    assert (sniff.doi, sniff.arxiv_id, sniff.title) == (doi, arxiv, title)
    assert sniff.rejected == []


def _pdf(lines: list[tuple[str, float]], *, info_title: str = "", stamp: str | None = None) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    y = 80.0
    for text, size in lines:
        page.insert_text((72, y), text, fontsize=size)
        y += size * 1.6
    if stamp:  # arXiv's side stamp: rotated text in the left margin
        page.insert_text((30, 600), stamp, fontsize=18, rotate=90, color=(0.5, 0.5, 0.5))
    doc.set_metadata({"title": info_title})
    return doc.tobytes()


def test_doubled_doi_is_cut_to_one_copy_and_a_mixed_one_rejected():
    assert clean_doi("10.1109/dsde.2010.4910.1109/dsde.2010.49") == "10.1109/dsde.2010.49"
    assert clean_doi("10.1109/DSDE.2010.49.") == "10.1109/dsde.2010.49"
    assert clean_doi("10.1109/dsde.2010.4910.1234/other") is None
    sniff = sniff_pdf(_pdf([("Data Mining Methods for Sparse Signals", 18),
                            ("DOI 10.1109/dsde.2010.4910.1109/dsde.2010.49", 9)]))
    assert sniff.doi == "10.1109/dsde.2010.49"
    sniff = sniff_pdf(_pdf([("Data Mining Methods for Sparse Signals", 18),
                            ("doi:10.1109/dsde.2010.4910.1234/other.thing", 9)]))
    assert sniff.doi is None and sniff.rejected == ["10.1109/dsde.2010.4910.1234/other.thing"]


def test_a_wiley_sici_doi_is_read_whole():
    # 1990s Wiley DOIs hold "<pages::AID-code>"; the DOI was cut at its "<" into one that names nothing
    sniff = sniff_pdf(_pdf([("Anatomical Terms of Position in Old Texts", 18),
                            ("DOI: 10.1002/(SICI)1097-0185(19990415)257:2<50::AID-AR4>3.0.CO;2-W", 9)]))
    assert sniff.doi == "10.1002/(sici)1097-0185(19990415)257:2<50::aid-ar4>3.0.co;2-w"


def test_an_ams_sici_doi_is_read_whole():
    # AMS journals' DOIs before 2009 hold "<page:code>": the DOI was cut at its "<" into 10.1175/1520-0469(1993)050,
    # a DOI of nothing
    sniff = sniff_pdf(_pdf([("Benchmark Computations of the Euler Equations", 18),
                            ("doi: 10.1175/1520-0469(1993)050<1865:BCEWAS>2.0.CO;2", 9)]))
    assert sniff.doi == "10.1175/1520-0469(1993)050<1865:bcewas>2.0.co;2"


def test_doi_and_arxiv_and_pubmed_ids_are_all_kept():
    sniff = sniff_pdf(_pdf([("Gauge Couplings at Two Loops in a Small Model", 18),
                            ("JCAP10(2008)003 doi:10.1088/1475-7516/2008/10/003", 9),
                            ("ArXiv ePrint: 0807.3577", 9),
                            ("PMID: 18927580  PMCID: PMC2572612", 9)]))
    assert [(r.kind, r.id) for r in sniff.refs] == [
        ("doi", "10.1088/1475-7516/2008/10/003"), ("arxiv", "0807.3577"), ("pmid", "18927580"),
        ("pmcid", "PMC2572612")]


def test_old_style_side_stamp_beats_an_id_the_page_cites():
    sniff = sniff_pdf(_pdf([("Neutrino Masses in Supersymmetric Models", 18),
                            ("as shown in arXiv:hep-th/9305123 and later work", 9)],
                           stamp="arXiv:hep-ph/9412269v1  8 Dec 1994"))
    assert sniff.arxiv_id == "hep-ph/9412269"
    bare = sniff_pdf(_pdf([("Neutrino Masses in Supersymmetric Models", 18)], stamp="hep-ph/9412269 8 Dec 94"))
    assert bare.arxiv_id == "hep-ph/9412269"
    stamp = sniff_pdf(_pdf([("Deep Nets for Ranking Results", 18), ("following arXiv:1706.03762", 9)],
                           stamp="arXiv:2201.11903v6 [cs.CL] 10 Jan 2023"))
    assert stamp.arxiv_id == "2201.11903"


@pytest.mark.parametrize("junk", ["paper.dvi", "doi:", "main.pdf", "Microsoft Word - draft7.docx", "x", "123",
                                  "jcap_2008_003", "10.1088/1475-7516/2008/10/003"])
def test_file_name_like_info_titles_are_not_titles(junk):
    assert looks_like_file_name(junk)
    assert sniff_pdf(_pdf([("some small body text here", 9)], info_title=junk)).title is None
    titled = sniff_pdf(_pdf([("Soil Carbon in Alpine Meadows", 20)] + [("body text of the page, on and on", 9)] * 4,
                            info_title=junk))
    assert titled.title == "Soil Carbon in Alpine Meadows"


def test_title_is_the_largest_first_page_text_over_the_info_title():
    sniff = sniff_pdf(_pdf([("JOURNAL OF THINGS 12 (2020) 1-9", 8), ("Soil Carbon in", 20),
                            ("Alpine Meadows", 20), ("A. Author and B. Author", 11)],
                           info_title="Soil carbon (accepted manuscript v3)"))
    assert sniff.title == "Soil Carbon in Alpine Meadows"
    assert not looks_like_file_name("Soil carbon (accepted manuscript v3)")


def test_words_set_as_separate_runs_keep_their_spaces_in_the_title():
    # arXiv 2308.08155's first page (tests/fixtures/papers/sniff): "AutoGen:" and "Enabling" are separate runs
    # with a space run between them, which joining the printing runs lost ("AutoGen:Enabling ...")
    sniff = sniff_pdf((PAPERS.parent / "sniff" / "arxiv-2308.08155-p1.pdf").read_bytes())
    assert (sniff.arxiv_id, sniff.title) == (
        "2308.08155", "AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation")


def test_a_banner_larger_than_the_title_loses_to_the_run_the_info_title_names():
    lines = [("EDGE ARTICLE", 16), ("", 16), ("", 16), ("Soil Carbon in Alpine", 16), ("Meadows*", 16),
             ("A. Author and B. Author", 11)] + [("body text of the page, on and on", 9)] * 4
    assert sniff_pdf(_pdf(lines, info_title="Soil carbon in alpine meadows")).title == "Soil Carbon in Alpine Meadows"
    assert sniff_pdf(_pdf(lines)).title == "EDGE ARTICLE"  # with no info title, the top run of the largest size


def test_an_empty_self_closed_xmp_title_is_no_title():
    # bioRxiv 2024.02.13.580051's page 1 (tests/fixtures/papers/sniff): its XMP writes dc:title as
    # <rdf:li xml:lang="x-default"/>, which was read as an opening tag: the title became the XMP markup up to
    # dc:creator's first </rdf:li> ("</rdf:Alt> </dc:title> <dc:description> ...")
    data = (PAPERS.parent / "sniff" / "biorxiv-2024.02.13.580051-p1.pdf").read_bytes()
    with pymupdf.open(stream=data) as doc:
        assert '<rdf:li xml:lang="x-default"/>' in doc.get_xml_metadata()
        assert _xmp_title(doc.get_xml_metadata()) == ""
    assert "<" not in (sniff_pdf(data).title or "")


def test_xmp_title_is_read_inside_dc_title_with_its_entities():
    item = '<rdf:Alt><rdf:li xml:lang="x-default">{}</rdf:li></rdf:Alt>'
    xmp = (f"<dc:description>{item.format('Not the title')}</dc:description>"
           f"<dc:title>{item.format('Fe&amp;S clusters &lt;in vivo&gt; &#955;')}</dc:title>")
    assert _xmp_title(xmp) == "Fe&S clusters <in vivo> λ"
    assert _xmp_title("<dc:title/><dc:description>" + item.format("Not the title") + "</dc:description>") == ""


def _without_metadata(data: bytes) -> bytes:
    with pymupdf.open(stream=data) as doc:
        doc.set_metadata({})
        doc.del_xml_metadata()
        return doc.tobytes()


def test_a_letter_spaced_title_reads_as_its_words():
    # Nucleic Acids Research 10.1093/nar/gkae069, page 1 (tests/fixtures/papers/sniff): the title sets its words
    # with space glyphs of their own font that take no room; joining MuPDF's spans read "leads t o degr adation
    # of RNA Polymer ase II". The title now comes from the lines the extractor reads, metadata or none.
    data = (PAPERS.parent / "sniff" / "nar-gkae069-p1.pdf").read_bytes()
    title = "Chromatin damage generated by DNA intercalators leads to degradation of RNA Polymerase II"
    assert sniff_pdf(data).title == sniff_pdf(_without_metadata(data)).title == title


def test_a_title_hyphenated_at_a_line_end_is_joined():
    # Cancer Cell 10.1016/j.ccell.2022.07.005, page 1: "... haptenated peptide neoepi-" / "topes targetable by
    # immunotherapy"; the page prints "neoepitopes" elsewhere
    data = (PAPERS.parent / "sniff" / "ccell-2022.07.005-p1.pdf").read_bytes()
    assert sniff_pdf(_without_metadata(data)).title == (
        "A covalent inhibitor of K-Ras(G12C) induces MHC class I presentation of haptenated peptide neoepitopes "
        "targetable by immunotherapy")


def test_the_info_title_spells_a_title_of_the_same_letters():
    body = [("body text of the page, on and on", 9)] * 4
    page = [("Lineag e-det ermining tr anscription", 20), ("fact ors", 20)] + body
    assert sniff_pdf(_pdf(page, info_title="Lineage-determining transcription factors")).title == (
        "Lineage-determining transcription factors")
    assert sniff_pdf(_pdf(page, info_title="Lineage-determining transcription factors in mice")).title == (
        "Lineag e-det ermining tr anscription fact ors")  # other words: the page's reading stands


def test_a_repository_cover_sheet_names_the_title_after_its_label():
    # eScholarship's cover of Science 10.1126/science.aba1624 (tests/fixtures/papers/sniff): "UCSF" and "UC San
    # Francisco Previously Published Works" are its largest text; the title follows the "Title" label
    sniff = sniff_pdf((PAPERS.parent / "sniff" / "escholarship-science.aba1624-p1.pdf").read_bytes())
    assert (sniff.doi, sniff.title) == (
        "10.1126/science.aba1624", "Synthetic cytokine circuits that drive T cells into immune-excluded tumors")


def test_a_manuscript_title_at_body_size_is_read_from_the_page():
    # bioRxiv 2024.02.13.580051's page 1: a Word manuscript, its title bold at 12 pt over 11 pt text, and no title
    # in its metadata (nothing was read); given an info title, the lines that print it are the title
    data = (PAPERS.parent / "sniff" / "biorxiv-2024.02.13.580051-p1.pdf").read_bytes()
    title = ("REV1 Coordinates a Multi-Faceted Tolerance Response to DNA Alkylation Damage and Prevents Chromosome "
             "Shattering in Drosophila melanogaster")
    assert sniff_pdf(data).title == title
    with pymupdf.open(stream=data) as doc:
        doc.set_metadata({"title": title.lower()})
        assert sniff_pdf(doc.tobytes()).title == title  # as the page spells it
