"""Real fixtures imported, exported, and read back: the compared fields must survive."""
from __future__ import annotations

import json

import bibtexparser
from export_helpers import COMPARED, compared_fields, imported_fixtures
from test_export_ris import read_ris

from doiget.formats.bibtex import to_bibtex
from doiget.formats.csl import to_csl_json
from doiget.formats.importer import parse_bibliography
from doiget.formats.ris import to_ris
from doiget.models import Work


def _fidelity(before: list[Work], after: list[Work]) -> float:
    assert len(before) == len(after)
    pairs = [(compared_fields(a)[name], compared_fields(b)[name]) for a, b in zip(before, after) for name in COMPARED]
    return sum(x == y for x, y in pairs) / len(pairs)


def test_bibtex_round_trip_keeps_every_compared_field():
    works = [record.work for record in imported_fixtures()]
    text = to_bibtex(works)
    assert not bibtexparser.parse_string(text).failed_blocks
    again = [record.work for record in parse_bibliography(text, "bibtex")]
    fidelity = _fidelity(works, again)
    print(f"BibTeX round-trip field fidelity: {fidelity:.4f}")
    assert fidelity == 1.0, [(a.title, b.title) for a, b in zip(works, again) if compared_fields(a) != compared_fields(b)][:3]


def test_csl_json_round_trip_keeps_every_compared_field():
    works = [record.work for record in imported_fixtures()]
    again = [record.work for record in parse_bibliography(json.dumps(to_csl_json(works)), "csl-json")]
    fidelity = _fidelity(works, again)
    print(f"CSL-JSON round-trip field fidelity: {fidelity:.4f}")
    assert fidelity == 1.0
    assert [w.arxiv for w in again] == [w.arxiv for w in works]


def test_ris_round_trip():
    works = [record.work for record in imported_fixtures()]
    records = read_ris(to_ris(works))
    for work, record in zip(works, records, strict=True):
        assert record.get("TI") == ([work.title] if work.title else None)
        assert record.get("AU", []) == [f"{a.family}, {a.given}" if a.family and a.given else a.family or a.name for a in work.authors]
        assert record.get("PY") == ([str(work.year)] if work.year else None)
        assert record.get("DO") == ([work.doi] if work.doi else None)
        assert record.get("T2") == ([work.venue] if work.venue else None)
        assert record.get("VL") == ([work.volume] if work.volume else None)
        pages = "-".join(record.get("SP", []) + record.get("EP", []))
        assert pages == (work.pages or "")
