from __future__ import annotations

import json

import pytest
from export_helpers import FIXTURES, UPSTREAM, ZOTERO_BIB, ZOTERO_CSL

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.bibtex import to_bibtex
from doiget.formats.csl import to_csl_json
from doiget.formats.importer import parse_bibliography
from doiget.formats.ris import to_ris
from doiget.models import Author, Work


def _by_key(path):
    return {r.key: r for r in parse_bibliography(path.read_text(encoding="utf-8"))}


def _names(people) -> list[tuple[str | None, str | None, str | None]]:
    return [(a.given, a.particle, a.family) for a in people]


def test_better_biblatex_export_all_entries_with_accents_decoded():
    records = _by_key(ZOTERO_BIB)
    assert len(records) == 240  # 242 @-blocks, two of them @comment (JabRef groups)
    assert all(not r.problems for r in records.values())
    chapter = records["marganne:2014crossroads"].work  # @inbook, every value double-braced
    assert chapter.title == "At the Crossroads of Greek and Roman Medicine: The Contribution of Latin Papyri"
    assert _names(chapter.authors) == [("Marie-Hélène", None, "Marganne"), ("Magali", "de", "Haro Sanchez")]
    assert _names(chapter.contributors["editor"]) == [("Brigitte", None, "Maire")]
    assert (chapter.type, chapter.venue, chapter.publisher, chapter.year, chapter.pages) == (
        "chapter", "'Greek' and 'Roman' in Latin medical texts: studies in cultural change and exchange in ancient "
        "medicine", "Brill", 2014, "92-116")
    assert chapter.doi == "10.1163/9789004273863_008"  # only in its dx.doi.org url
    gobee = records["gobee:2011anatomicaltermsinfo"]
    assert gobee.work.title.endswith("data-reuse from the Terminologia Anatomica and the foundational model of "
                                     "anatomy and potentials for future development")  # \emph{...} dropped
    assert [a.name for a in gobee.work.authors] == ["O. Paul Gobée", "Daniël Jansma", "Marco C. DeRuiter"]
    assert (gobee.work.venue, gobee.work.published, gobee.work.volume, gobee.work.issue, gobee.work.pages) == (
        "Clinical Anatomy", "2011-10", "24", "7", "817-830")
    assert gobee.tags == ["Terminologia Anatomica", "anatomical terms", "foundational model of anatomy", "informatics",
                          "translation", "web resources", "www.anatomicalterms.info"]
    article = records["stephens-borg:2012da"].work
    assert (article.pmid, article.doi, article.venue, article.volume) == (
        "23248927", None, "Journal of perioperative practice", "22")  # PMID only in the note
    assert _names(records["niermeyer:2002mediae"].work.authors) == [("J.F.", None, "Niermeyer"), ("C.", "van de", "Kieft")]
    dictionary = records["glare:1982oxford"].work  # @collection: editors only
    assert (dictionary.type, dictionary.authors, dictionary.contributors["editor"][0].name) == ("book", [], "P.G.W. Glare")
    corporate = records["federativeinternationalcommitteeonanatomicalterminology:2008terminologia"].work
    assert [(a.name, a.literal) for a in corporate.authors] == [
        ("Federative International Committee on Anatomical Terminology", True)]
    assert corporate.publisher == "Lippincott Williams & Wilkins"
    assert records[":browse"].work.type == "webpage"  # the exporter's key for an item without author or date


# Compared between the two exports of one library; not the language (``langid = {english}`` and ``"en"``),
# URLs (the old BibLaTeX export escapes ``&`` in them) or abstracts (HTML markup in CSL, LaTeX in the .bib).
SAME_IN_BOTH = ("title", "type", "year", "published", "doi", "pmid", "pmcid", "venue", "publisher", "volume", "issue",
                "pages")


def _compared(work: Work) -> dict:
    return {**{name: getattr(work, name) for name in SAME_IN_BOTH}, "authors": [a.name for a in work.authors],
            "editors": [a.name for a in work.contributors.get("editor", [])]}


def test_one_zotero_library_as_biblatex_and_as_csl_json_gives_the_same_works():
    bib, csl = _by_key(ZOTERO_BIB), _by_key(ZOTERO_CSL)
    both = bib.keys() & csl.keys()
    assert len(both) == 135  # the two exporters' keys differ for the other 73 items of the CSL file
    assert [key for key in sorted(both) if _compared(bib[key].work) != _compared(csl[key].work)] == []


def test_zotero_csl_json_ids_in_notes_markup_and_literal_names():
    records = _by_key(ZOTERO_CSL)
    assert len(records) == 208 and all(not r.problems for r in records.values())
    banay = records["banay:1948introduction"].work  # "note": "PMID: 16016791\nPMCID: PMC194697"
    assert (banay.pmid, banay.pmcid, banay.doi) == ("16016791", "PMC194697", None)
    assert (banay.venue, banay.year, banay.published, banay.volume, banay.issue, banay.pages) == (
        "Bulletin of the Medical Library Association", 1948, "1948-01", "36", "1", "1-27")  # year "1948" a string
    assert records["dirckx:1983dermatologic"].work.title == "Dermatologic terms in the De Medicina of Celsus"  # <i>
    chapter = records["ortoleva:2014meaning"].work
    assert (chapter.type, chapter.title, chapter.doi, chapter.contributors["editor"][0].name) == (
        "chapter", "The meaning and etymology of the adjective apiosus", "10.1163/9789004273863_016", "Brigitte Maire")
    assert [(a.name, a.literal) for a in records["terminology:2008terminologia"].work.authors] == [
        ("Federative International Committee on Anatomical Terminology", True)]
    assert records["glare:1982oxford"].work.authors == []  # editor-only dictionary
    assert [a.name for a in records["gobée:2011anatomicalterms"].work.authors][1] == "Daniël Jansma"


def test_csl_date_ranges_are_read_as_their_start():
    records = _by_key(FIXTURES / "bib" / "citeproc_testsuite_inputs.json")
    work = records["date_LocalizedNumericYearRange:ITEM-1"].work  # [[2005, 11, 15], [2006, 12, 20]]
    assert (work.year, work.published, work.extra["issued"]["date-parts"][1]) == (2005, "2005-11-15", [2006, 12, 20])


def test_crossref_bibtex_transform():
    (record,) = parse_bibliography((UPSTREAM / "bibtex" / "crossref_transform_x-bibtex_10.1038_s42256-024-00832-8.bib").read_text())
    work = record.work
    assert (record.key, work.doi, work.year, work.volume, work.issue, work.pages) == (
        "M_Bran_2024", "10.1038/s42256-024-00832-8", 2024, "6", "5", "525-535")
    assert [a.family for a in work.authors][:2] == ["M. Bran", "Cox"]
    assert work.venue == "Nature Machine Intelligence"


def test_identifiers_from_eprint_arxiv_dois_notes_and_urls():
    bib = r"""
@misc{a, title={Attention}, eprint={1706.03762v5}, archivePrefix={arXiv}, primaryClass={cs.CL}}
@article{b, title={B}, doi={10.48550/arXiv.2101.01234}}
@article{c, title={C}, url={https://doi.org/10.1371/journal.pone.0033693}, note={PMID: 22479434, PMCID: PMC3316557}}
@article{d, title={D}, eprint={20099996}, eprinttype={jstor}}
@article{e, title={No ids at all}, author={Nobody, Ann}, year={1999}, note={513}}
@article{f, title={F}, doi={10/abc}, url={https://arxiv.org/abs/hep-th/9901001v2}}
@article{g, title={G}, doi={10/xyz}, url={https://doi.org/10.1000/XYZ.1}}
"""
    records = {r.key: r for r in parse_bibliography(bib)}
    assert (records["a"].work.arxiv, records["a"].work.type) == ("1706.03762", "preprint")
    assert (records["b"].work.doi, records["b"].work.arxiv) == ("10.48550/arxiv.2101.01234", "2101.01234")
    assert records["c"].work.ids() == {"doi": "10.1371/journal.pone.0033693", "pmid": "22479434", "pmcid": "PMC3316557"}
    assert records["d"].work.ids() == {} and not records["d"].problems
    assert records["e"].work.title == "No ids at all" and records["e"].work.year == 1999
    assert records["e"].work.ids() == {}
    assert records["f"].work.ids() == {"arxiv": "hep-th/9901001"} and records["f"].problems == ["unreadable doi '10/abc'"]
    # a shortDOI in the DOI field, the full DOI only in the doi.org URL: the URL's DOI, and no problem
    assert records["g"].work.ids() == {"doi": "10.1000/xyz.1"} and not records["g"].problems


def test_one_bad_bibtex_entry_does_not_stop_the_rest():
    bib = "@article{ok1, title={Fine}}\n@article{broken, title={unbalanced}\n@book{ok2, title={Also fine}}\n" \
          "@article{ok1, title={Duplicate key}}\n"
    records = parse_bibliography(bib)
    assert [r.work.title for r in records] == ["Fine", None, "Also fine", "Duplicate key"]
    assert records[1].problems == ["unreadable entry at line 2: syntax error (unexpected block start '@book' "
                                   "inside a field value)"]
    assert records[3].problems == ["duplicate key 'ok1' at line 4"]
    assert not records[0].problems and not records[2].problems


def test_a_ris_record_missing_its_er_or_ty_line_is_read_not_lost_or_merged():
    """rispy drops a last record cut short of its ER line, joins a record missing its ER to the next
    one (both titles in one record) and drops tags before any TY; each record is now read alone."""
    lines = (FIXTURES / "bib" / "rispy_example_full.ris").read_text(encoding="utf-8").splitlines()
    expected = [r.work for r in parse_bibliography("\n".join(lines))]
    first_er, last_er = [i for i, line in enumerate(lines) if line.startswith("ER  -")]
    assert [w.title for w in expected] == ["Title of reference", "The title of the reference"]
    cases = (("\n".join(lines[:last_er]), 1, "no ER line: the file ends inside the record"),
             ("\n".join(lines[:first_er] + lines[first_er + 1:]), 0, "no ER line: the record ends where the next TY"),
             ("\n".join(line for i, line in enumerate(lines) if line != "TY  - JOUR" or i > first_er),
              0, "no TY line: read as a generic (GEN) record"))
    for text, repaired, problem in cases:
        records = parse_bibliography(text, "ris")
        assert [r.work.title for r in records] == [w.title for w in expected]
        assert [bool(r.problems) for r in records] == [i == repaired for i in (0, 1)]
        assert records[repaired].problems[-1].startswith(problem)
        if "TY line" not in problem:
            assert [r.work for r in records] == expected  # nothing else changed


@pytest.mark.parametrize(("date", "published"), [
    ("2020-21", None),  # a biblatex season (spring), not month 21
    ("2019-02-29", "2019-02"), ("2020-13-45", None), ("2020-05/2020-07", "2020-05"),
])
def test_a_biblatex_date_is_read_as_far_as_it_is_a_calendar_date_and_kept_as_written(date, published):
    [record] = parse_bibliography(f"@article{{k, title = {{T}}, date = {{{date}}}, urldate = {{{date}}}}}")
    assert (record.work.year, record.work.published) == (int(date[:4]), published)
    assert record.work.extra["accessed"] == {"raw": date}
    if "/" in date:  # a range of two calendar dates is read as one (and written back as biblatex writes it)
        assert record.work.extra["issued"] == {"date-parts": [[2020, 5], [2020, 7]]}
    else:
        assert record.work.extra["bibtex"]["date"] == date


@pytest.mark.parametrize(("issued", "year", "published"), [
    ({"date-parts": [[2020, 21]]}, 2020, None),  # CSL's season (spring), not month 21
    ({"date-parts": [[2019, 2, 29]]}, 2019, "2019-02"), ({"raw": "2019-02-29"}, 2019, "2019-02"),
    ({"raw": "2019-05-01"}, 2019, "2019-05-01"), ({"raw": "2019-05-01T10:00"}, 2019, "2019-05-01"),
])
def test_a_csl_date_is_read_as_far_as_it_is_a_calendar_date_and_kept_as_written(issued, year, published):
    [record] = parse_bibliography(json.dumps([{"id": "k", "type": "book", "title": "T", "issued": issued}]))
    assert (record.work.year, record.work.published) == (year, published)
    assert record.work.extra["issued"] == issued


def test_a_bibtex_date_the_year_does_not_say_all_of_is_kept_and_written_back():
    for fields, year in (("date = {circa 1975}, year = {1975}", 1975), ("date = {{1975\\_2013}}", 1975)):
        [record] = parse_bibliography(f"@book{{k, title = {{T}}, {fields}}}")
        assert record.work.year == year and record.work.extra["bibtex"]["date"] in fields
        assert parse_bibliography(to_bibtex([record.work]))[0].work == record.work


def test_a_ris_date_with_more_than_a_date_keeps_it_and_writes_it_back():
    ris = "TY  - JOUR\nTI  - T\nPY  - 2014///Spring\nDA  - 2014/13/\nY2  - 2014/09/09/16:06:39\nER  - \n"
    [record] = parse_bibliography(ris)
    assert (record.work.year, record.work.published) == (2014, None)
    assert record.work.extra["ris"] == {"year": "2014///Spring", "date": "2014/13/"}
    assert record.work.extra["accessed"] == {"date-parts": [[2014, 9, 9]]}  # an access time is no part of it
    written = to_ris([record.work])
    assert "PY  - 2014///Spring" in written and "DA  - 2014/13/" in written and written.count("PY  -") == 1
    assert parse_bibliography(written)[0].work == record.work


def test_one_bad_csl_item_does_not_stop_the_rest():
    records = parse_bibliography('[{"id": "x", "type": "book", "title": "T", "issued": {"date-parts": [["abc"]]}}, 7]')
    assert records[0].work.title == "T" and records[0].work.year is None
    assert records[1].problems == ["item 1 is not a JSON object"]


@pytest.mark.parametrize(("text", "format", "where"), [
    ('[{"id": "x",\n "title": }]', "auto", "line 2"),
    ("just some words", "auto", "not a bibliography"),
    ("@article{x, title={never closed}", "bibtex", "line 1"),
    ('"a string"', "csl-json", "array"),
    # Formats doiget does not read say so and what to export instead (an EndNote XML note's e-mail
    # address made the file "BibTeX", which then held no entry).
    ('<?xml version="1.0"?><xml><records><record><ref-type name="Journal Article">17</ref-type>'
     "<notes>ask a@b.org</notes></record></records></xml>", "auto", "EndNote XML is not a format doiget reads"),
    ("%0 Journal Article\n%A Smith, J.\n%T A title\n%D 2020\n", "auto", "export as RIS instead"),
    ('<rdf:RDF xmlns:z="http://www.zotero.org/namespaces/export#"></rdf:RDF>', "auto", "Zotero RDF"),
    ("<html><body>refs: a@b.org</body></html>", "auto", "not a bibliography"),
    # A Web of Science or PubMed tagged file with an e-mail address in it was "BibTeX" of no entry: imported as
    # 0 records, exit code 0 (the first lines of python-bibx's real Web of Science export; a PubMed record)
    ("\ufeffFN Thomson Reuters Web of Science\u2122\nVR 1.0\nPT J\nAU Sun, ZW\n   Russell, TP\nEM russell@mail.pse."
     "umass.edu\nER\n", "auto", "Web of Science tagged text is not a format doiget reads"),
    ("PMID- 31452104\nOWN - NLM\nTI  - A title\nFAU - Smith, Ann\nAD  - a@b.org\n", "auto", "PMID"),
    ("Write to ann@example.org for the data.", "auto", "not a bibliography"),
])
def test_malformed_input_is_invalid_input_with_location(text, format, where):
    with pytest.raises(DoigetError) as error:
        parse_bibliography(text, format)
    assert error.value.code is ErrorCode.INVALID_INPUT
    assert where in error.value.message


def _generated(n: int) -> list[Work]:
    return [Work(title=f"Study {i} of Müller’s αβ effect in Łódź", year=1950 + i % 70, type="article-journal",
                 authors=[Author.from_parts(f"Gödel{i % 97}", "Kurt"), Author.from_parts("Smith", "Ann")],
                 venue="Journal of Ørsted Studies", volume=str(i % 40), issue="2", pages=f"{i}-{i + 9}",
                 doi=f"10.1234/gen.{i}") for i in range(n)]


# No timing assertion here (it fails on a loaded machine): parse speed is measured by scripts/bench_import.py.
@pytest.mark.slow
@pytest.mark.parametrize("render", [lambda w: to_bibtex(w), lambda w: json.dumps(to_csl_json(w))], ids=["bibtex", "csl"])
def test_thousands_of_generated_entries_parse_cleanly(render):
    text = render(_generated(3_000))
    records = parse_bibliography(text)
    assert len(records) == 3_000 and not any(r.problems for r in records)
    assert records[1234].work.title == "Study 1234 of Müller’s αβ effect in Łódź"


def test_biblatex_xdata_is_inherited_and_bibtex_sort_macros_print_nothing():
    bib = r"""
@xdata{hup, publisher = {Harvard University Press}, location = {Cambridge, Mass.}}
@xdata{hup2, xdata = {hup}, edition = {2}}
@book{a, author = {{\noopsort{a}}Zed, Z.}, title = {\SortNoop{b}A Book}, year = {2001}, xdata = {hup2}}
@book{b, title = {B}, xdata = {missing}}
"""
    records = {r.key: r for r in parse_bibliography(bib)}
    work = records["a"].work
    assert (work.publisher, work.extra["publisher-place"], work.extra["edition"]) == (
        "Harvard University Press", "Cambridge, Mass.", "2")
    assert (work.title, [a.family for a in work.authors]) == ("A Book", ["Zed"])
    assert records["b"].problems == ["xdata 'missing' is not in the file"]


def test_a_howpublished_url_is_the_address_not_the_venue_and_is_kept_as_written():
    # the usual way to cite a web resource in classic BibTeX, which has no url field
    (misc, other) = parse_bibliography(r"""
@misc{m, author = {Doe, J.}, title = {Some dataset}, howpublished = {\url{https://example.org/my\_data}}, year = {2020}}
@misc{n, title = {Web}, howpublished = {Online}, url = {https://x.org}}""")
    assert (misc.work.venue, misc.work.url) == (None, "https://example.org/my_data")
    assert "howpublished = {\\url{https://example.org/my\\_data}}" in to_bibtex([misc.work])
    assert (other.work.venue, other.work.url) == ("Online", "https://x.org")


def test_a_csl_raw_iso_date_gives_the_published_date_and_is_kept_as_written():
    # citation.js and pandoc write issued as {"raw": "2019-05-01"}
    items = [{"id": i, "type": "book", "title": "T", "issued": issued} for i, issued in
             enumerate([{"raw": "2019-05-01"}, {"raw": "2019-05"}, {"raw": "Spring 2019"}, {"raw": "2019-13-01"}])]
    works = [r.work for r in parse_bibliography(json.dumps(items), "csl-json")]
    assert [(w.year, w.published) for w in works] == [(2019, "2019-05-01"), (2019, "2019-05"), (2019, None), (2019, None)]
    assert works[0].extra["issued"] == {"raw": "2019-05-01"}
