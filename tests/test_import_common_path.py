"""The import's common path (a plain CSL record written from its values, never made a Work:
``bibliography.COMMON_PATH``) stores and reports exactly what the general path does: every CSL-JSON fixture, a
generated bench-like file and a mixed file are imported with it and without it, into empty libraries and again
into the libraries they filled, and every row of every table (FTS content and shadow tables, search text, hit
summaries, sequences) and the typed report (fields, JSON) must be equal."""
from __future__ import annotations

import json
import random
import sqlite3
import sys
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from doiget import Library
from doiget.config import Config
from doiget.formats.csl_read import _PLAIN, Memo, csl_record, iter_csl
from doiget.formats.record import _ARXIV_IN_TEXT, _LABELLED_ID, PlainRecord, find_ids
from doiget.refs import Ref, dois_in, try_parse
from doiget.services import bibliography

FIXTURES = Path(__file__).parent / "fixtures"
CSL_FIXTURES = sorted((FIXTURES / "bib").glob("*.json")) + sorted(
    (FIXTURES / "upstream" / "crossref").glob("transform_csljson_*.json"))
sys.path.insert(0, str(Path(__file__).parents[1] / "scripts"))
from bench_import import item as bench_item  # noqa: E402 - the benchmark's own generator


def _library_state(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table (FTS tables: their content and shadow tables), times of writing blanked."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        state = {}
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
            try:
                cursor = conn.execute(f'SELECT rowid, * FROM "{name}" ORDER BY rowid')
            except sqlite3.OperationalError:  # a table WITHOUT ROWID: in key order
                cursor = conn.execute(f'SELECT * FROM "{name}"')
            timed = [i for i, column in enumerate(cursor.description) if column[0].endswith("_at")]
            state[name] = [tuple(None if i in timed else value for i, value in enumerate(row)) for row in cursor]
        return state
    finally:
        conn.close()


def _reports(report) -> tuple[dict, dict]:
    dumped = report.model_dump()
    shown = report.as_json()
    for data in (dumped, shown):
        data.pop("seconds"), data.pop("records_per_second")
    return dumped, shown


def _both_ways(tmp_path: Path, monkeypatch, steps: list[tuple[Path | str, dict]]) -> None:
    """Import ``steps`` into one library with the common path and into another without it; assert equal
    libraries after every step and equal reports of every step."""
    libraries = {}
    for common in (True, False):
        libraries[common] = Library(Config(home=tmp_path / str(common), profile="offline"))
    try:
        for source, options in steps:
            reports = {}
            for common, lib in libraries.items():
                monkeypatch.setattr(bibliography, "COMMON_PATH", common)
                reports[common] = _reports(lib.import_bibliography(source, **options))
            assert reports[True] == reports[False]
            states = [_library_state(lib.store.path) for lib in libraries.values()]
            assert states[0] == states[1]
            assert states[0]["entries"] or not reports[True][0]["entries"]
    finally:
        for lib in libraries.values():
            lib.close()


def _plain_share(text: str) -> float:
    records = list(iter_csl(text, plain=True))
    return sum(type(r) is PlainRecord for r in records) / max(len(records), 1)


@pytest.mark.parametrize("path", CSL_FIXTURES, ids=lambda p: p.name)
def test_every_csl_fixture_imports_alike_with_and_without_the_common_path(path, tmp_path, monkeypatch):
    _both_ways(tmp_path, monkeypatch, [(path, {}), (path, {}), (path, {"tags": ["Again"], "overwrite": True})])


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def _mixed(n: int, seed: int) -> list[dict]:
    """Bench items, and records that repeat or alias one (same DOI or arXiv address, other key or values),
    clash with one (a DOI of one and a PMID of another), carry only a title, editors, PMIDs in notes, markup,
    decomposed text, "and others", custom fields, odd dates, keys BibTeX cannot use, long keywords."""
    rng = random.Random(seed)
    items = [bench_item(i, rng) for i in range(n)]
    out = []
    for i, item in enumerate(items):
        kind = rng.random()
        if kind < 0.08:
            item["title"] = _nfd("Über die Ähnlichkeit " + item["title"])
            item["author"][0] = {"family": _nfd("Müller"), "given": _nfd("Zoë")}
        elif kind < 0.12:
            item["title"] = "The <i>in vivo</i> &amp; " + item["title"]
        elif kind < 0.15:
            item["editor"] = [{"family": "Editor", "given": "Ed"}]
        elif kind < 0.18:
            item["note"] = f"PMID: {30000000 + i}"
        elif kind < 0.20:
            item["author"].append({"literal": "others"})
        elif kind < 0.22:
            item["custom"] = {"arxiv": f"2101.{i:05d}", "howpublished": "online"}
        elif kind < 0.24:
            item["issued"] = {"date-parts": [["2019", "5", "32"]]}
        elif kind < 0.26:
            item["id"] = "not a key"
        elif kind < 0.28:
            item.pop("DOI", None), item.pop("URL", None)
        elif kind < 0.30:
            item["keyword"] = "x" * 120 + "; short; Short"
        elif kind < 0.32:
            item["PMID"] = str(31000000 + i)
        elif kind < 0.33:
            item.pop("id")
        out.append(item)
        if out and rng.random() < 0.1:  # a repeat of an earlier record: same ids, other key, other values
            earlier = dict(rng.choice(out))
            earlier.update(id=f"alias{i}", volume="999", title=earlier.get("title", "") + " (again)")
            out.append(earlier)
        if rng.random() < 0.02:  # another record's DOI with this record's PMID: not one work
            other = dict(rng.choice(out))
            other.update(id=f"clash{i}", title=f"Something else entirely {i}", PMID=str(32000000 + i))
            out.append(other)
    return out


@pytest.mark.parametrize("chunk", [bibliography.CHUNK_SIZE, 37])
def test_generated_files_import_alike_with_and_without_the_common_path(chunk, tmp_path, monkeypatch):
    monkeypatch.setattr(bibliography, "CHUNK_SIZE", chunk)
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([bench_item(i, random.Random(i)) for i in range(400)]), encoding="utf-8")
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps(_mixed(400, 1), ensure_ascii=False), encoding="utf-8")
    overlap = tmp_path / "overlap.json"  # half of bench again, beside new records
    overlap.write_text(json.dumps([bench_item(i, random.Random(i)) for i in range(200, 600)]), encoding="utf-8")
    assert _plain_share(bench.read_text(encoding="utf-8")) > 0.9
    assert 0.4 < _plain_share(mixed.read_text(encoding="utf-8")) < 0.9
    _both_ways(tmp_path, monkeypatch, [(bench, {}), (mixed, {}), (overlap, {}), (bench, {"overwrite": True}),
                                       (mixed, {"tags": ["Again"]}), (json.dumps(_mixed(150, 2)), {})])


def _read_alike(items: list) -> int:
    """Read ``items`` as plain records where they can be and by the general reading (one memo per way, as a
    file shares one); assert each plain record is the record the general reading makes. How many were plain."""
    plain_memo, general_memo, plain = Memo(), Memo(), 0
    for index, item in enumerate(items):
        general = csl_record(index, item, general_memo)
        read = csl_record(index, item, plain_memo, plain=True)
        if type(read) is PlainRecord:
            plain += 1
            read = read.record()
        assert read.work == general.work
        assert read.work.model_fields_set == general.work.model_fields_set
        assert {k: type(v) for k, v in vars(read.work).items()} == {k: type(v) for k, v in vars(general.work).items()}
        assert (read.key, read.tags, read.problems, read.inferred, read.files) == (
            general.key, general.tags, general.problems, general.inferred, general.files)
    return plain


def test_plain_records_are_read_as_the_general_reading_reads_them():
    items = [item for path in CSL_FIXTURES for item in json.loads(path.read_text(encoding="utf-8"))]
    items += _mixed(300, 3) + [bench_item(i, random.Random(i)) for i in range(300)]
    assert _read_alike(items) > 300


PLAIN_VALUE = st.none() | st.integers() | st.text(st.sampled_from("ab <i>&amp;;, \t\u00e9e\u0301-\u2013"), max_size=12) | \
    st.lists(st.text(max_size=3), max_size=2)
NAMES = st.lists(st.dictionaries(st.sampled_from(["family", "given", "literal", "suffix"]), PLAIN_VALUE, max_size=2) |
                 st.just({"literal": "others"}) | PLAIN_VALUE, max_size=3)
DATES = st.none() | st.fixed_dictionaries({"date-parts": st.lists(st.lists(st.integers(0, 2030) | st.text("12"),
                                                                           max_size=3), max_size=2)}) | PLAIN_VALUE


@settings(max_examples=200, deadline=None)
@example({"title": "Caf\u00e9 e\u0301", "volume": 3, "page": "1\u20132"}, [{"given": "Zoe\u0308", "family": "A"}],
         {"date-parts": [[0]]}, "")
@example({"title": "<i>x</i>"}, [{"family": "A"}, {"literal": "others"}], {"date-parts": [[2020, 13]]}, "10.1/x")
@given(st.dictionaries(st.sampled_from(sorted(_PLAIN - {"author", "issued"})), PLAIN_VALUE, max_size=8),
       NAMES, DATES, st.sampled_from(["", "10.1/x", "https://arxiv.org/abs/2101.00001", "doi.org/10.2/Y%2Fz"]))
def test_generated_plain_items_are_read_as_the_general_reading_reads_them(item, names, issued, url):
    item.update(author=names, issued=issued, URL=url or item.get("URL"))
    _read_alike([item, dict(item), {**item, "id": "k2"}])


def _ids_searching_every_text(texts: list[str]) -> tuple[dict, list]:
    """``find_ids``'s reading of free text as it was before it left out the searches an address made useless:
    every text searched for a DOI, arXiv ids and labelled PubMed ids, whatever its address gave."""
    found = []
    for text in filter(None, texts):
        if text.startswith(("http://", "https://")):
            found.append(try_parse(unquote(text).strip() if "%" in text else text.strip()))
            text = unquote(text) if "%" in text else text
        found += [Ref("doi", doi) for doi in dois_in(text)[:1]]
        found += [try_parse(f"arxiv:{m}") for m in _ARXIV_IN_TEXT.findall(text)]
        found += [try_parse(f"{label.lower()}:{value}") for label, value in _LABELLED_ID.findall(text)]
    doi = next((r.id for r in found if r and r.kind == "doi"), "")
    if doi.startswith("10.48550/arxiv."):
        found.append(try_parse("arxiv:" + doi.removeprefix("10.48550/arxiv.")))
    ids, inferred = {}, []
    for ref in filter(None, found):
        if ref.kind not in ids:
            ids[ref.kind], _ = ref.id, inferred.append(ref.kind)
    return ids, inferred


ADDRESS_PARTS = ["https://", "http://", "arxiv.org/abs/", "arxiv.org/pdf/", "doi.org/", "dx.doi.org/", "10.1234/ab",
                 "10.48550/arXiv.2101.00002", "2101.00001", "hep-th/9901001", "v2", ".pdf", "?x=", "&y", "#f", "%2F",
                 "/", " ", "arxiv:", "PMID: 12", "pubmed.ncbi.nlm.nih.gov/", "123"]


@settings(max_examples=150, deadline=None)
@example(["https://arxiv.org/abs/2101.00001 arxiv:2101.00003"])
@example(["https://doi.org/10.1234/ab?x=10.5555/other"])
@given(st.lists(st.lists(st.sampled_from(ADDRESS_PARTS), max_size=7).map("".join), max_size=3))
def test_free_text_gives_the_ids_every_search_would_give(texts):
    ids, inferred, _ = find_ids({}, texts)
    assert (ids, inferred) == _ids_searching_every_text(texts)
