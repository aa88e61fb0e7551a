from __future__ import annotations

import json

import pytest
from export_helpers import UPSTREAM

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.bibtex import to_bibtex
from doiget.formats.csl import to_csl_json
from doiget.formats.importer import parse_bibliography
from doiget.models import Author, Work

BBT = UPSTREAM / "bibtex" / "zotero_bbt_export_bunge_collection_901.bib"
ZOTERO_CSL = UPSTREAM / "csl_json" / "zotero_bbt_export_deterministic_ordering_1178.csl.json"
PANDOC_CSL = UPSTREAM / "csl_json" / "zotero_bbt_export_pandoc_citation.csl.json"


def _by_key(path):
    return {r.key: r for r in parse_bibliography(path.read_text(encoding="utf-8"))}


def test_better_bibtex_export_all_entries_with_accents_decoded():
    records = _by_key(BBT)
    assert len(records) == 36  # 38 @-blocks, two of them @comment
    assert all(not r.problems for r in records.values())
    bunge = records["Bunge-2003-Considerationsdunphilosophe"].work
    assert bunge.title == "Considérations d'un philosophe sur l'économique du néo-conservatisme (néo-libéralisme)"
    assert bunge.type == "article-journal" and bunge.authors[0].family == "Bunge"
    assert records["Bunge-1977-GeneralSystemsHolism"].work.authors[0].given == "MA"
    assert records["Sayre-McCord-1988-MoralTheoryExplanatory"].work.authors[0].family == "Sayre-McCord"
    assert records["--__theorytruthinauthor"].work.title.startswith('__"theory of truth"')
    chapter = records["Bunge-1967-TurnTide"]
    assert (chapter.work.type, chapter.work.venue, chapter.work.doi) == (
        "chapter", "Quantum Theory and Reality", "10.1007/978-3-642-88026-1_1")
    apostol = records["Apostol-1985-MarioBungesCritical"].work
    assert (apostol.year, apostol.volume, apostol.issue, apostol.pages, apostol.arxiv) == (1985, "29", "2", "89-136", None)
    assert records["Agassi-1982-Scientificphilosophytoday"].tags == ["Bunge Mario", "Philosophy", "Science"]
    assert records["Bunge-1978-modelevolution"].work.doi == "10.1016/0307-904x(78)90008-2"


def test_crossref_bibtex_transform():
    (record,) = parse_bibliography((UPSTREAM / "bibtex" / "crossref_transform_x-bibtex_10.1038_s42256-024-00832-8.bib").read_text())
    work = record.work
    assert (record.key, work.doi, work.year, work.volume, work.issue, work.pages) == (
        "M_Bran_2024", "10.1038/s42256-024-00832-8", 2024, "6", "5", "525-535")
    assert [a.family for a in work.authors][:2] == ["M. Bran", "Cox"]
    assert work.venue == "Nature Machine Intelligence"


def test_zotero_csl_json_short_dois_fall_back_to_url():
    records = _by_key(ZOTERO_CSL)
    assert len(records) == 26
    assert records["brittain2004"].work.doi == "10.1177/0193723504268729"  # DOI field holds shortDOI 10/fqd6hj
    assert records["brittain2004"].work.pages == "429-452"
    tannenbaum = records["tannenbaum2019"]  # shortDOI only, no doi.org URL: kept without DOI, with a problem
    assert tannenbaum.work.doi is None and tannenbaum.work.title == "Sex, gender, and sports"
    assert tannenbaum.problems == ["unreadable doi '10/gfzxgh'"]
    assert records["courtofarbitrationforsport2019"].work.authors[0].name == "Court of Arbitration for Sport"


def test_pandoc_csl_json_markup_and_date_ranges():
    records = _by_key(PANDOC_CSL)
    adams = records["Adams2001"].work
    assert adams.title == "The physical volcanology of the 1600 eruption of Huaynaputina, southern Peru"
    assert (adams.year, adams.published) == (2014, "2014-12-31")
    assert records["Berndt1994"].work.title.startswith("Skizze zur Auslegungsgeschichte der Bücher Prouerbia")
    assert records["Wordsworth1883"].work.authors == []  # editor-only book


def test_identifiers_from_eprint_arxiv_dois_notes_and_urls():
    bib = r"""
@misc{a, title={Attention}, eprint={1706.03762v5}, archivePrefix={arXiv}, primaryClass={cs.CL}}
@article{b, title={B}, doi={10.48550/arXiv.2101.01234}}
@article{c, title={C}, url={https://doi.org/10.1371/journal.pone.0033693}, note={PMID: 22479434, PMCID: PMC3316557}}
@article{d, title={D}, eprint={20099996}, eprinttype={jstor}}
@article{e, title={No ids at all}, author={Nobody, Ann}, year={1999}, note={513}}
@article{f, title={F}, doi={10/abc}, url={https://arxiv.org/abs/hep-th/9901001v2}}
"""
    records = {r.key: r for r in parse_bibliography(bib)}
    assert (records["a"].work.arxiv, records["a"].work.type) == ("1706.03762", "preprint")
    assert (records["b"].work.doi, records["b"].work.arxiv) == ("10.48550/arxiv.2101.01234", "2101.01234")
    assert records["c"].work.ids() == {"doi": "10.1371/journal.pone.0033693", "pmid": "22479434", "pmcid": "PMC3316557"}
    assert records["d"].work.ids() == {} and not records["d"].problems
    assert records["e"].work.title == "No ids at all" and records["e"].work.year == 1999
    assert records["e"].work.ids() == {}
    assert records["f"].work.ids() == {"arxiv": "hep-th/9901001"} and records["f"].problems == ["unreadable doi '10/abc'"]


def test_one_bad_bibtex_entry_does_not_stop_the_rest():
    bib = "@article{ok1, title={Fine}}\n@article{broken, title={unbalanced}\n@book{ok2, title={Also fine}}\n" \
          "@article{ok1, title={Duplicate key}}\n"
    records = parse_bibliography(bib)
    assert [r.work.title for r in records] == ["Fine", None, "Also fine", "Duplicate key"]
    assert records[1].problems == ["unreadable entry at line 2: syntax error (unexpected block start '@book' "
                                   "inside a field value)"]
    assert records[3].problems == ["duplicate key 'ok1' at line 4"]
    assert not records[0].problems and not records[2].problems


def test_one_bad_csl_item_does_not_stop_the_rest():
    records = parse_bibliography('[{"id": "x", "type": "book", "title": "T", "issued": {"date-parts": [["abc"]]}}, 7]')
    assert records[0].work.title == "T" and records[0].work.year is None
    assert records[1].problems == ["item 1 is not a JSON object"]


@pytest.mark.parametrize(("text", "format", "where"), [
    ('[{"id": "x",\n "title": }]', "auto", "line 2"),
    ("just some words", "auto", "not a bibliography"),
    ("@article{x, title={never closed}", "bibtex", "line 1"),
    ('"a string"', "csl-json", "array"),
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
