from __future__ import annotations

import pytest

from doiget.formats.ris import ris_type, to_ris
from doiget.formats.ris_read import RIS_TO_CSL_TYPE, parse_ris
from doiget.models import Author, Work


def read_ris(text: str) -> list[dict[str, list[str]]]:
    """Minimal RIS reader: ``TAG  - value`` lines grouped into records closed by ``ER``."""
    records, current = [], {}
    for line in text.splitlines():
        if not line.strip():
            continue
        tag, sep, value = line[:2], line[2:6], line[6:]
        assert sep == "  - ", line
        if tag == "ER":
            records.append(current)
            current = {}
        else:
            current.setdefault(tag, []).append(value)
    assert not current
    return records


@pytest.mark.parametrize(("csl_type", "expected"), [
    ("article-journal", "JOUR"), ("paper-conference", "CONF"), ("chapter", "CHAP"), ("book", "BOOK"),
    ("thesis", "THES"), ("report", "RPRT"), ("preprint", "GEN"), (None, "GEN"),
])
def test_types(csl_type, expected):
    assert ris_type(Work(type=csl_type)) == expected


def test_record_fields_and_one_line_values():
    work = Work(type="article-journal", title="Developing functional\nmusculoskeletal tissues", year=2014,
                authors=[Author.from_parts("Makris", "Eleftherios A."), Author(name="PNAS Team", family="PNAS Team")],
                venue="PNAS", volume="111", issue="45", pages="E4832–E4841", doi="10.1073/pnas.1414271111",
                url="https://doi.org/10.1073/pnas.1414271111", abstract="Line one.\n\nLine two.", pmid="25349395")
    (record,) = read_ris(to_ris([work]))
    assert record == {
        "TY": ["JOUR"], "AU": ["Makris, Eleftherios A.", "PNAS Team,"],
        "TI": ["Developing functional musculoskeletal tissues"], "T2": ["PNAS"], "PY": ["2014"],
        "VL": ["111"], "IS": ["45"], "SP": ["E4832"], "EP": ["E4841"], "DO": ["10.1073/pnas.1414271111"],
        "UR": ["https://doi.org/10.1073/pnas.1414271111"], "AB": ["Line one. Line two."], "AN": ["pmid:25349395"],
    }


def test_single_page_and_several_records():
    records = read_ris(to_ris([Work(title="A", pages="e1003"), Work(title="B")]))
    assert [r["TI"] for r in records] == [["A"], ["B"]]
    assert "EP" not in records[0] and records[0]["SP"] == ["e1003"]


def test_names_keep_particles_suffixes_and_organisations():
    from doiget.formats.names import make_author
    from doiget.formats.ris import ris_name

    assert ris_name(make_author(family="Gogh", particle="van", given="Vincent")) == "van Gogh, Vincent"
    assert ris_name(make_author(family="La Fontaine", dropping_particle="de", given="Jean")) == "La Fontaine, Jean de"
    assert ris_name(make_author(family="Xu", given="Liyan", suffix="Jr.")) == "Xu, Liyan, Jr."
    assert ris_name(make_author(literal="World Health Organization")) == "World Health Organization"
    assert ris_name(make_author(family="Plato")) == "Plato," and ris_name(make_author(given="Banksy")) == ", Banksy"


def test_organisations_come_back_from_a_ris_export_as_organisations():
    # A one-word organisation (Zotero's NASA, Wikimedia, Mathworks) was written "AU  - NASA" and read back as a
    # person named NASA; a person with a family name only ("Doe Co." in the CSL test suite) was written without a
    # comma and read back as an organisation: 39 records of the corpus. A name without a comma is now an
    # organisation's (as Zotero reads RIS), and a person with one name part is written with a comma on its side.
    from corpus import BIB, records

    works = [r.work for name in ("zotero_geomatics_textbook.bib.gz", "zotero_latex_cookbook.bib",
                                 "citeproc_testsuite_inputs.json") for r in records(BIB / name)
             if any(a.literal or not (a.family and a.given) for a in r.work.authors)]
    works = [w for w in works if not any(a.literal and "," in a.name for a in w.authors)]  # (see not_carried)
    organisations = {a.name for w in works for a in w.authors if a.literal}
    assert {"NASA", "Wikimedia", "Mathworks", "USGS", "Canadian Space Agency"} <= organisations
    again = [r.work for r in parse_ris(to_ris(works))]
    assert [[(a.name, a.literal) for a in w.authors] for w in again] == [
        [(a.name, a.literal) for a in w.authors] for w in works]
    assert sum(w.authors != b.authors for w, b in zip(works, again)) == 1  # "A kasernes": a particle, as RIS reads it
    (banksy,) = [a for w in works for a in w.authors if a.name == "Banksy"]
    assert (banksy.given, banksy.family, banksy.literal) == ("Banksy", None, False)
    read_back = [r.work.authors for r in parse_ris("TY  - JOUR\nAU  - WHO\nAU  - Adler D.G.\nAU  - Plato,\nER  - \n")]
    assert [(a.literal, a.family, a.given) for a in read_back[0]] == [
        (True, None, None), (False, "Adler", "D.G."), (False, "Plato", None)]


def test_every_type_the_reader_knows_comes_back():
    # a statute, standard, map, blog post, ... was written as GEN and came back a "document" (citation.js's
    # biblatex @legislation through RIS)
    for csl_type in set(RIS_TO_CSL_TYPE.values()):
        (record,) = parse_ris(to_ris([Work(title="T", type=csl_type)]))
        assert record.work.type == csl_type


def test_particles_come_back_from_a_ris_export_as_they_were():
    # RIS writes "van de Kieft, C." and "La Fontaine, Jean de"; the reader took the whole part before the comma for
    # the family name ("van de Kieft") and the particle after the given name for one: 30 records of the corpus
    # changed their names on a RIS round trip that way.
    from corpus import BIB, records

    from doiget.formats.names import make_author

    works = [r.work for r in records(BIB / "zotero_latin_greek_terminology.bib") if r.key == "niermeyer:2002mediae"]
    works += [Work(title="Fables", authors=[make_author(family="La Fontaine", dropping_particle="de", given="Jean")])]
    again = [r.work for r in parse_ris(to_ris(works))]
    assert [w.authors for w in again] == [w.authors for w in works]
    assert works[0].authors[1].particle == "van de"


def test_what_ris_cannot_carry_is_named():
    # RIS has no tag for a BibTeX-only field (rights, editora) or for some CSL variables (number of pages, the
    # event's place): the export names them, and the library's export warns of them, never silently drops them.
    from corpus import BIB, records

    from doiget.formats.ris import not_carried

    work = next(r.work for r in records(BIB / "zotero_latin_greek_terminology.bib") if "rights" in r.work.extra.get("bibtex", {}))
    lost = not_carried(work)
    assert "BibTeX field rights" in lost and "title" not in " ".join(lost)
    assert not_carried(Work(title="T", extra={"number-of-pages": "12", "ISBN": "978-3-16-148410-0"})) == [
        "number-of-pages"]
    # a structured abstract's lines (AB is one line) and a CSL type RIS has no TY for (a speech: GEN) were lost
    # without a word: 18 records of the corpus
    structured = [r.work for r in records(BIB / "zotero_latin_greek_terminology.csl.json") if "\n" in (r.work.abstract or "")]
    assert len(structured) == 12 and all("abstract line breaks" in not_carried(w) for w in structured)
    speech = next(r.work for r in records(BIB / "citeproc_testsuite_inputs.json") if r.work.type == "speech")
    assert "type" in not_carried(speech) and parse_ris(to_ris([speech]))[0].work.type == "document"
    assert "type" not in not_carried(Work(title="T", type="article-journal"))
    file_field = next(r.work for r in records(BIB / "mendeley_vera_sport_vision.bib"))
    assert "BibTeX field file" not in not_carried(file_field)
    (back,) = parse_ris(to_ris([file_field]))
    assert back.files == [file_field.extra["bibtex"]["file"]]


def test_the_library_export_says_once_what_ris_cannot_carry(tmp_path, caplog):
    # The export logged one warning per entry (240 lines for this Zotero library) and its result did not say
    # what was left out. Now one warning names each field with its number of entries, and export_result
    # returns the same as not_carried.
    from corpus import BIB, read, records

    from doiget.config import Config
    from doiget.library import Library

    with_rights = sum("rights" in r.work.extra.get("bibtex", {}) for r in records(BIB / "zotero_latin_greek_terminology.bib"))
    with Library(Config(home=tmp_path, profile="full")) as lib:
        lib.import_bibliography(read(BIB / "zotero_latin_greek_terminology.bib"), "bibtex")
        with caplog.at_level("WARNING"):
            result = lib.export_result("ris")
            text = lib.export("ris")
        warned = [r.getMessage() for r in caplog.records if "RIS has no tag for" in r.getMessage()]
        assert len(warned) == 2  # one per export, whatever its number of entries
        assert f"BibTeX field rights ({with_rights} entries)" in warned[0] and "of 240 entries" in warned[0]
        assert result.text == text and result.count == 240 and result.items is None
        gaps = {gap.field: gap.entries for gap in result.not_carried}
        assert gaps["BibTeX field rights"] == with_rights > 1
        assert all(f"{name} ({n} entr" in warned[0] for name, n in gaps.items())
        caplog.clear()
        bibtex = lib.export_result("bibtex")
        assert bibtex.not_carried == [] and bibtex.text.startswith("@")
        assert lib.export_result("csl-json").items and not [r for r in caplog.records if "RIS has no tag" in r.getMessage()]


def test_dates_before_1000_and_before_year_1_come_back():
    # RIS export wrote "PY  - 499" and no DA for 54-10-13 or -100-07-13, and the reader took only four-digit years
    # (its fallback only 1500-2199): the 14 records of the CSL test suite dated before 1000 or BC lost their date on
    # a RIS round trip. Years are written in four digits as Zotero writes them (PY 0499, DA 0499/07/13/), a year
    # before 1 with its minus sign (CSL's count: -100 is 100 BC).
    from corpus import BIB, records

    works = [r.work for r in records(BIB / "citeproc_testsuite_inputs.json")
             if r.work.year is not None and r.work.year < 1000]
    assert len(works) == 14 and {-250, -100, -44, 54, 68, 499} <= {w.year for w in works}
    text = to_ris(works)
    assert "PY  - 0499" in text and "DA  - 0054/10/13/" in text and "DA  - -0100/07/13/" in text
    again = [r.work for r in parse_ris(text)]
    assert [(w.year, w.published) for w in again] == [(w.year, w.published) for w in works]
    # Zotero's shape of an early date, a three-digit year, and what stays no early date: EndNote's US-style and
    # day-and-month DA values (the year then comes from a four-digit year in them, as before)
    shapes = parse_ris("TY  - BOOK\nPY  - 0300\nDA  - 0300/03/01/\nER  - \n\nTY  - BOOK\nPY  - 499\nER  - \n\n"
                       "TY  - JOUR\nDA  - 12/25/1999\nER  - \n\nTY  - JOUR\nPY  - 1999\nDA  - 15 March\nER  - \n")
    assert [(r.work.year, r.work.published) for r in shapes] == [(300, "300-03-01"), (499, None), (1999, None),
                                                                 (1999, None)]
    assert shapes[3].work.extra["ris"] == {"date": "15 March"}  # kept as written


def test_names_ris_reads_back_otherwise_and_a_time_of_access_are_named():
    # RIS has no place for a particle written inside a family name ("van Regenmortel": read back as particle "van"),
    # an organisation's name with a comma (Typst's "{Corbet, Johnathan}": read back as a person), a time of day in
    # an access date, or a conference's name that is also its proceedings' title (T2 = C3: read back as no event):
    # 17 records of the corpus changed on a RIS round trip without a word.
    from corpus import BIB, records

    from doiget.formats.ris import not_carried

    cited = {r.key: r.work for r in records(BIB / "zotero_latin_greek_terminology.csl.json")}
    typst = {r.key: r.work for r in records(BIB / "typst_ds.bib")}
    regenmortel, corbet = cited["regenmortel:2000relative"], typst["lwn_softirqs"]
    assert "author name parts" in not_carried(regenmortel) and "author name parts" in not_carried(corbet)
    assert parse_ris(to_ris([corbet]))[0].work.authors[0].literal is False  # why: a comma makes a person
    kieft = next(r.work for r in records(BIB / "zotero_latin_greek_terminology.bib") if r.key == "niermeyer:2002mediae")
    assert "author name parts" not in not_carried(kieft)  # "van de Kieft, C." with its particle apart comes back
    suite = {r.key: r.work for r in records(BIB / "citeproc_testsuite_inputs.json")}
    assert "accessed" in not_carried(suite["disambiguate_ByCiteIncremental1:ITEM-1"])  # season "22:56:08"
    assert "accessed" not in not_carried(suite["disambiguate_PrimaryNameWithNonDroppingParticle:Santos2020BiodiversityVCarboline"])
    same = typst["hanninenPresentFutureRequirements2006"]
    assert same.extra["event-title"] == same.venue and "event-title" in not_carried(same)
