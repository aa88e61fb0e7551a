from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from export_helpers import imported_fixtures

from doiget.formats.csl import to_csl_json
from doiget.models import Author, Work

SCHEMA = json.loads((Path(__file__).parent / "fixtures" / "csl-data.json").read_text(encoding="utf-8"))


def test_items_of_real_fixtures_validate_against_the_official_schema():
    works = [record.work for record in imported_fixtures()]
    works.append(Work(arxiv="1707.08567", openalex="W2741809807", type="preprint", title="A preprint", year=2017))
    items = to_csl_json(works)
    jsonschema.validate(items, SCHEMA)
    assert len(items) == len(works) == len({item["id"] for item in items})


def test_schema_rejects_what_it_should():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"id": "x", "type": "preprint"}], SCHEMA)  # CSL 1.0 has no preprint type


def test_fields():
    work = Work(
        doi="10.1038/s42256-024-00832-8", pmid="38799228", pmcid="PMC11116106", type="article-journal",
        title="Augmenting large language models with chemistry tools", venue="Nature Machine Intelligence",
        year=2024, published="2024-05-08", volume="6", issue="5", pages="525-535",
        publisher="Springer Science and Business Media LLC", abstract="Large language models ...",
        authors=[Author.from_parts("M. Bran", "Andres"), Author(name="IBM Research", literal=True)],
        url="https://doi.org/10.1038/s42256-024-00832-8",
    )
    (item,) = to_csl_json([work], keys=["bran2024"])
    assert item == {
        "id": "bran2024", "citation-key": "bran2024", "type": "article-journal",
        "title": "Augmenting large language models with chemistry tools",
        "author": [{"family": "M. Bran", "given": "Andres"}, {"literal": "IBM Research"}],
        "issued": {"date-parts": [[2024, 5, 8]]}, "container-title": "Nature Machine Intelligence",
        "volume": "6", "issue": "5", "page": "525-535", "DOI": "10.1038/s42256-024-00832-8",
        "URL": "https://doi.org/10.1038/s42256-024-00832-8", "PMID": "38799228", "PMCID": "PMC11116106",
        "publisher": "Springer Science and Business Media LLC", "abstract": "Large language models ...",
    }


def test_preprint_becomes_article_with_arxiv_number():
    (item,) = to_csl_json([Work(arxiv="1707.08567", type="preprint", year=2017)])
    assert (item["type"], item["number"], item["custom"]) == ("article", "arXiv:1707.08567", {"arxiv": "1707.08567"})
    assert item["issued"] == {"date-parts": [[2017]]}


def test_dates_before_1000_keep_their_month_and_day():
    # The export read a stored date only with a four-digit year: 54-10-13 and -100-07-13 (CSL's 100 BC) went out as
    # the year alone, 12 records of the CSL test suite lost their month and day on a CSL-JSON round trip.
    from corpus import BIB, records

    from doiget.formats.csl_read import parse_csl

    works = [r.work for r in records(BIB / "citeproc_testsuite_inputs.json")
             if r.work.published and r.work.year is not None and r.work.year < 1000]
    assert len(works) == 12 and {"-100-07-13", "54-10-13"} <= {w.published for w in works}
    again = [r.work for r in parse_csl(json.dumps(to_csl_json(works)))]
    assert [w.published for w in again] == [w.published for w in works]


def test_orcids_and_affiliations_come_back_from_doigets_own_export(tmp_path):
    # Crossref's record of the PNAS paper gives an ORCID and affiliations; CSL name objects allow no key for
    # them, so the export keeps them under custom's name-details and the reader gives them back to the names.
    from doiget import open_library
    from doiget.formats.csl_read import parse_csl
    from doiget.net.crossref import parse_work_response

    upstream = Path(__file__).parent / "fixtures" / "upstream" / "crossref" / "works_10.1073_pnas.1414271111.json"
    work = parse_work_response(json.loads(upstream.read_text(encoding="utf-8")))
    assert any(a.orcid for a in work.authors) and any(a.affiliation for a in work.authors)
    items = to_csl_json([work], keys=["pnas"])
    jsonschema.validate(items, SCHEMA)
    assert all(set(name) <= {"family", "given", "literal", "suffix", "non-dropping-particle", "dropping-particle"}
               for name in items[0]["author"])
    (record,) = parse_csl(json.dumps(items))
    assert record.work.authors == work.authors and "name-details" not in record.work.extra

    with open_library(tmp_path / "a") as lib:
        lib.add(work)
        exported = lib.export("csl-json")
    with open_library(tmp_path / "b") as lib:
        lib.import_bibliography(json.dumps(exported))
        assert lib.info(f"doi:{work.doi}").authors == work.authors


def test_name_details_that_do_not_fit_the_names_are_kept_as_given():
    from doiget.formats.csl_read import parse_csl

    details = {"author": [{"ORCID": "https://orcid.org/0000-0002-1825-0097"}]}  # one detail, two names
    item = {"id": "x", "type": "article-journal", "title": "T", "author": [{"family": "A"}, {"family": "B"}],
            "custom": {"name-details": details}}
    (record,) = parse_csl(json.dumps([item]))
    assert [a.orcid for a in record.work.authors] == [None, None]
    assert record.work.extra["name-details"] == details
    assert to_csl_json([record.work], keys=["x"])[0]["custom"] == {"name-details": details}
