"""Update notices (retractions, corrections): parsed from recorded Crossref and OpenAlex answers, stored
per entry, shown by info and search, listed by v_retracted, refreshed by check_retractions against
the loopback upstreams (no cached answer used)."""
from __future__ import annotations

import json

import pytest
from cli_process import run_doiget
from fetchenv import (PNAS_DOI, UPSTREAM, XGEN_DOI, crossref_path, openalex_path,
                      serve_pnas, serve_xgen, source_env)
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server  # noqa: F401

from doiget import Work, open_library
from doiget.net import crossref, openalex
from doiget.notices import GRAVE, STATUSES, UpdateNotice, status_of, warning
from doiget.present import entry_dict

PLOS_DOI = "10.1371/journal.pone.0033693"
PNAS_CORRECTION = UpdateNotice(direction="updated-by", kind="correction", doi="10.1073/pnas.1507001112",
                               date="2015-05-04", label="Correction", asserted_by="publisher", source="crossref")
# The Wakefield et al. 1998 Lancet paper and the notices Crossref lists for it (updated-by, both asserted
# by Retraction Watch), as Crossref's Retraction Watch tutorial and several public projects quote them.
# No full recorded answer for a retracted work was found, so these notices are given to the library as
# input: the tests below check storage and presentation, not parsing.
WAKEFIELD = "10.1016/s0140-6736(97)11096-0"
WAKEFIELD_NOTICES = [
    UpdateNotice(direction="updated-by", kind="correction", doi="10.1016/s0140-6736(04)15715-2",
                 date="2004-03-06", label="Correction", asserted_by="retraction-watch", source="crossref"),
    UpdateNotice(direction="updated-by", kind="retraction", doi="10.1016/s0140-6736(10)60175-4",
                 date="2010-02-06", label="Retraction", asserted_by="retraction-watch", source="crossref"),
]


def _json(name: str):
    return json.loads((UPSTREAM / name).read_text(encoding="utf-8"))


# ---- parsing recorded answers -------------------------------------------------------------

def test_crossref_updated_by_from_recorded_records():
    pnas = crossref.parse_work_response(_json("crossref/works_10.1073_pnas.1414271111.json"))
    assert pnas.updates == [PNAS_CORRECTION]
    plos = crossref.parse_work_response(_json("crossref/works_10.1371_journal.pone.0033693.json"))
    assert plos.updates == [UpdateNotice(direction="updated-by", kind="correction",
                                         doi="10.1371/annotation/c76da2c1-ccb8-4797-94c1-359d3ceceeda",
                                         date="2012-05-08", label="Correction", asserted_by="publisher",
                                         source="crossref")]
    assert status_of(plos.updates) == "corrected"


def test_crossref_update_to_marks_a_notice_not_an_updated_work():
    items = crossref.parse_list_response(_json("crossref/types_journal-article_works_rows30_cursor_page3.json"))
    notices = {s.work.doi: s.work.updates for s in items}
    assert len(notices) == 30
    assert notices.pop("10.1111/ijal.12281") == [UpdateNotice(
        direction="update-to", kind="correction", doi="10.1111/ijal.12157", date="2019-11-24",
        label="Correction", source="crossref")]  # a 2022 answer: no "source" (publisher) on updates yet
    assert all(u == [] for u in notices.values())  # asked and none: an empty list, not None
    notice = [UpdateNotice(direction="update-to", kind="correction", doi="10.1111/ijal.12157", source="crossref")]
    assert status_of(notice) is None
    assert warning(notice) == "NOTICE: this is a correction notice for doi:10.1111/ijal.12157"


def test_openalex_is_retracted_flag():
    work = openalex.parse_work(_json("openalex/works_doi_10.1073_pnas.1414271111.json"))
    assert work.updates == []  # is_retracted: false
    selected = openalex.parse_work({**_json("openalex/works_doi_10.1093_nar_gkw1164_select_open_access_doi.json"),
                                    "id": "https://openalex.org/W1"})
    assert selected.updates is None  # a select= answer without the flag says nothing


def test_merging_sources_keeps_every_notice_and_unasked_stays_none():
    pnas = crossref.parse_work_response(_json("crossref/works_10.1073_pnas.1414271111.json"))
    indexed = openalex.parse_work(_json("openalex/works_doi_10.1073_pnas.1414271111.json"))
    flagged = indexed.model_copy(update={"updates": [UpdateNotice(direction="updated-by", kind="retraction",
                                                                  label="is_retracted", source="openalex")]})
    assert pnas.merged(indexed).updates == [PNAS_CORRECTION]
    assert [n.source for n in pnas.merged(flagged).updates] == ["crossref", "openalex"]
    assert Work(doi="10.1000/x").merged(Work(doi="10.1000/x")).updates is None
    assert Work(doi="10.1000/x").merged(pnas).updates == [PNAS_CORRECTION]


def test_status_is_the_gravest_notice():
    assert status_of(WAKEFIELD_NOTICES) == "retracted"
    assert warning(WAKEFIELD_NOTICES) == ("RETRACTED: retraction doi:10.1016/s0140-6736(10)60175-4 "
                                          "(2010-02-06, retraction-watch)")
    assert status_of(WAKEFIELD_NOTICES[:1]) == "corrected"
    eoc = UpdateNotice(direction="updated-by", kind="expression_of_concern", source="crossref")
    assert status_of([WAKEFIELD_NOTICES[0], eoc]) == "expression of concern"
    assert status_of([UpdateNotice(direction="updated-by", kind="new_version", source="crossref")]) == "updated"
    assert status_of([]) is None


def test_migration_kinds_match_the_grave_statuses():
    import importlib.util

    from doiget.store.migrate import MIGRATIONS

    spec = importlib.util.spec_from_file_location("m0006", MIGRATIONS / "versions" / "0006_update_notices.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert set(module.GRAVE_KINDS) == {k for status, kinds in STATUSES if status in GRAVE for k in kinds}


# ---- the library -------------------------------------------------------------------------

def test_notices_stored_shown_and_listed(tmp_path):
    with open_library(tmp_path / "lib") as lib:
        lib.add(Work(doi=WAKEFIELD, title="Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and "
                     "pervasive developmental disorder in children", year=1998, sources=["crossref"],
                     updates=WAKEFIELD_NOTICES))
        lib.add(Work(doi=PNAS_DOI, title="Developing functional musculoskeletal tissues", year=2014,
                     sources=["crossref", "openalex"], updates=[PNAS_CORRECTION]))
        lib.add(Work(doi="10.1000/unchecked", title="Developing a paper nobody checked", sources=["bibtex"]))
        retracted = lib.info(f"doi:{WAKEFIELD}")
        assert [n.kind for n in retracted.updates] == ["correction", "retraction"]
        assert all(n.fetched_at for n in retracted.updates)
        shown = entry_dict(retracted)
        assert shown["update_status"] == "retracted" and shown["update_warning"].startswith("RETRACTED: retraction")
        assert lib.info(f"doi:{PNAS_DOI}").updates == [PNAS_CORRECTION.model_copy(
            update={"fetched_at": lib.info(f"doi:{PNAS_DOI}").updates[0].fetched_at})]
        assert lib.info("doi:10.1000/unchecked").updates is None  # never asked, not "no notice"
        hits = {h.ref: h.update_status for h in lib.search("developing OR ileal")}
        assert hits == {f"doi:{WAKEFIELD}": "retracted", f"doi:{PNAS_DOI}": "corrected", "doi:10.1000/unchecked": None}
        rows = lib.sql("SELECT ref, kind, notice_doi, notice_date, asserted_by FROM v_retracted")
        assert [tuple(r) for r in rows.rows] == [(f"doi:{WAKEFIELD}", "retraction", "10.1016/s0140-6736(10)60175-4",
                                                  "2010-02-06", "retraction-watch")]
        # a fresh answer from the same source replaces what it said before; other sources' notices stay
        lib.add(Work(doi=PNAS_DOI, sources=["openalex"], updates=[
            UpdateNotice(direction="updated-by", kind="retraction", label="is_retracted", source="openalex")]))
        assert [(n.source, n.kind) for n in lib.info(f"doi:{PNAS_DOI}").updates] == [
            ("crossref", "correction"), ("openalex", "retraction")]
        lib.add(Work(doi=PNAS_DOI, sources=["openalex"], updates=[]))
        assert [n.source for n in lib.info(f"doi:{PNAS_DOI}").updates] == ["crossref"]


def test_a_notice_in_the_library_marks_the_work_it_retracts(tmp_path):
    with open_library(tmp_path / "lib") as lib:
        lib.add(Work(doi=WAKEFIELD, title="Ileal-lymphoid-nodular hyperplasia", sources=["bibtex"]))
        lib.add(Work(doi="10.1016/s0140-6736(10)60175-4", title="Retraction—Ileal-lymphoid-nodular hyperplasia",
                     sources=["crossref"], updates=[UpdateNotice(direction="update-to", kind="retraction",
                                                                 doi=WAKEFIELD, date="2010-02-06",
                                                                 source="crossref")]))
        rows = lib.sql("SELECT ref, kind, notice_doi FROM v_retracted")
        assert [tuple(r) for r in rows.rows] == [(f"doi:{WAKEFIELD}", "retraction", "10.1016/s0140-6736(10)60175-4")]
        notice = entry_dict(lib.info("doi:10.1016/s0140-6736(10)60175-4"))
        assert "update_status" not in notice
        assert notice["update_warning"] == f"NOTICE: this is a retraction notice for doi:{WAKEFIELD}"


def test_merging_duplicates_keeps_the_notices(tmp_path):
    with open_library(tmp_path / "lib") as lib:
        lib.add(Work(doi=WAKEFIELD, title="Ileal", sources=["crossref"], updates=WAKEFIELD_NOTICES))
        lib.add(Work(pmid="9500320", title="Ileal", sources=["bibtex"]))
        lib.add(Work(doi=WAKEFIELD, pmid="9500320", sources=["europepmc"]))  # links the two: they merge
        assert lib.health().counts["entries"] == 1
        assert status_of(lib.info("pmid:9500320").updates) == "retracted"


# ---- check_retractions against the loopback upstreams -------------------------------------

@pytest.fixture
def upstream(https_server, client_ca, monkeypatch):
    for name, value in source_env(https_server, client_ca).items():
        monkeypatch.setenv(name, value)
    serve_pnas(https_server)
    serve_xgen(https_server)
    return https_server


def test_check_retractions_asks_afresh_and_stores(tmp_path, upstream):
    arxiv_doi = "10.48550/arxiv.1707.08567"
    upstream.route(openalex_path(arxiv_doi), Reply(404, (UPSTREAM / "openalex/works_doi_not_found_404.html").read_bytes(),
                                                   {"Content-Type": "text/html"}))
    with open_library(tmp_path / "lib") as lib:
        lib.resolve(PNAS_DOI)
        assert status_of(lib.info(f"doi:{PNAS_DOI}").updates) == "corrected"  # stored by resolve already
        lib.resolve(XGEN_DOI)
        lib.add(Work(arxiv="1707.08567", title="No DOI here"))
        lib.add(Work(title="An imported PDF without identifiers"))
        before = len(upstream.seen)
        seen: list[tuple[int, int]] = []
        result = lib.check_retractions(progress=lambda done, total, _r: seen.append((done, total)))
        asked = [s.path for s in upstream.seen[before:]]
        assert asked == [crossref_path(PNAS_DOI), openalex_path(PNAS_DOI), crossref_path(XGEN_DOI),
                         openalex_path(XGEN_DOI), openalex_path(arxiv_doi)]  # not from the response cache
        assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
        pnas, xgen, preprint, bare = result.results
        assert pnas.ok and pnas.status == "corrected" and pnas.checked == ["crossref", "openalex"]
        # Crossref 404 (not registered there), OpenAlex answers: checked, no notice
        assert xgen.ok and xgen.checked == ["openalex"] and xgen.status is None
        assert not preprint.ok and preprint.ref == "arxiv:1707.08567" and preprint.error.code == "NOT_FOUND"
        assert not bare.ok and bare.error.code == "INVALID_REF"
        assert result.summary.as_json() == {"total": 4, "ok": 2, "errors": 2, "by_status": {"corrected": 1, "none": 1},
                                     "by_error": {"NOT_FOUND": 1, "INVALID_REF": 1}}
        checks = lib.sql("SELECT e.doi, c.source FROM update_checks c JOIN entries e ON e.id = c.entry_id "
                         "ORDER BY e.doi, c.source")
        assert [tuple(r) for r in checks.rows] == [(XGEN_DOI, "openalex"), (PNAS_DOI, "crossref"),
                                                   (PNAS_DOI, "openalex")]


def test_check_retractions_reports_failures(tmp_path, upstream):
    with open_library(tmp_path / "lib") as lib:
        lib.resolve(PNAS_DOI)
        upstream.route(crossref_path(PNAS_DOI), Reply(500, b"upstream trouble", {"Retry-After": "0"}))
        result = lib.check_retractions([f"doi:{PNAS_DOI}"])
        failed, = result.results
        assert not failed.ok and failed.error.message.startswith("crossref:")
        assert failed.checked == ["openalex"]  # what OpenAlex said is stored all the same
        assert result.summary.errors == 1
        # Crossref's correction, read when the paper was resolved, is kept: Crossref was not heard this time
        assert [(n.source, n.kind) for n in lib.info(f"doi:{PNAS_DOI}").updates] == [("crossref", "correction")]


def test_cli_check_retractions(tmp_path, upstream):
    def run(*args):
        return run_doiget(tmp_path / "h", *args)

    assert run("resolve", PNAS_DOI).returncode == 0
    done = run("check-retractions")
    assert done.returncode == 0, done.stderr
    assert f"[1/1] doi:{PNAS_DOI}: corrected" in done.stderr
    assert "CORRECTED: correction doi:10.1073/pnas.1507001112" in done.stdout
    assert "1 papers checked: 1 corrected; 0 failed" in done.stdout
    info = run("info", PNAS_DOI)
    assert "note: CORRECTED: correction doi:10.1073/pnas.1507001112 (2015-05-04, publisher)" in info.stdout
    upstream.route(openalex_path(PNAS_DOI), Reply(503, b"busy", {"Retry-After": "0"}))
    partial = run("--json", "check-retractions", PNAS_DOI)
    assert partial.returncode == 3
    body = json.loads(partial.stdout)
    assert body["failed"] == 1 and body["results"][0]["source_errors"]["openalex"]["code"]


# ---- exports and formatted references -----------------------------------------------------

def test_exports_say_a_work_is_retracted(tmp_path, caplog):
    with open_library(tmp_path / "lib") as lib:
        lib.add(Work(doi=WAKEFIELD, title="Ileal-lymphoid-nodular hyperplasia", year=1998, venue="The Lancet",
                     type="article-journal", extra={"note": "Early report"}, sources=["crossref"],
                     updates=WAKEFIELD_NOTICES))
        lib.add(Work(doi=PNAS_DOI, title="Developing functional musculoskeletal tissues", year=2014,
                     type="article-journal", sources=["crossref"], updates=[PNAS_CORRECTION]))
        with caplog.at_level("WARNING"):
            bib = lib.export("bibtex")
        said = "Retracted: see doi:10.1016/s0140-6736(10)60175-4 (2010-02-06)"
        assert f"note = {{Early report. {said}}}" in bib and bib.count("note = ") == 1  # the PNAS correction: none
        assert [r.getMessage() for r in caplog.records] == [f"doi:{WAKEFIELD} is exported as it is stored, but: {said}"]
        items = {i["DOI"]: i for i in lib.export("csl-json")}
        assert items[WAKEFIELD]["status"] == "retracted" and "status" not in items[PNAS_DOI]
        assert items[WAKEFIELD]["note"] == "Early report"
        notes = [line for line in lib.export("ris").splitlines() if line.startswith("N1  - ")]
        assert notes == ["N1  - Early report", f"N1  - {said}"]  # the work's own note, then what the notices say
        cited = lib.cite([f"doi:{WAKEFIELD}", f"doi:{PNAS_DOI}"], style="apa")
        assert cited.warnings == [f"{WAKEFIELD}: retracted"] and len(cited.references) == 2
        assert "warnings" not in lib.cite([f"doi:{PNAS_DOI}"], style="apa")


def test_cli_export_warns_on_stderr(tmp_path):
    with open_library(tmp_path / "lib") as lib:
        lib.add(Work(doi=WAKEFIELD, title="Ileal-lymphoid-nodular hyperplasia", year=1998, sources=["crossref"],
                     updates=WAKEFIELD_NOTICES))
    for args in (("export", "--format", "bibtex"), ("cite", WAKEFIELD)):
        done = run_doiget(tmp_path / "lib", *args)
        assert done.returncode == 0, done.stderr
        assert f"doi:{WAKEFIELD} is exported as it is stored, but: Retracted: see doi:10.1016/s0140-6736(10)60175-4" \
            in done.stderr
    assert "[RETRACTED]" in run_doiget(tmp_path / "lib", "search", "ileal").stdout


def test_notebook_views_show_the_status(tmp_path):
    with open_library(tmp_path / "lib") as lib:
        lib.add(Work(doi=WAKEFIELD, title="Ileal-lymphoid-nodular hyperplasia", sources=["crossref"],
                     updates=WAKEFIELD_NOTICES))
        card = lib.info(f"doi:{WAKEFIELD}")._repr_html_()
        assert "<b>RETRACTED: retraction doi:10.1016/s0140-6736(10)60175-4 (2010-02-06, retraction-watch)</b>" in card
        table = lib.search("ileal")._repr_html_()
        assert "<th>status</th>" in table and "<td>retracted</td>" in table


def test_an_unchanged_answer_leaves_the_stored_notices_alone(tmp_path):
    with open_library(tmp_path / "lib") as lib:
        lib.add(Work(doi=WAKEFIELD, sources=["crossref"], updates=WAKEFIELD_NOTICES))
        first = lib.sql("SELECT id, fetched_at FROM entry_updates ORDER BY id").rows
        checked = lib.sql("SELECT checked_at FROM update_checks").rows
        lib.add(Work(doi=WAKEFIELD, sources=["crossref"], updates=WAKEFIELD_NOTICES))
        assert lib.sql("SELECT id, fetched_at FROM entry_updates ORDER BY id").rows == first
        assert lib.sql("SELECT checked_at FROM update_checks").rows >= checked
        lib.add(Work(doi=WAKEFIELD, sources=["crossref"], updates=WAKEFIELD_NOTICES[1:]))
        assert [r[0] for r in lib.sql("SELECT kind FROM entry_updates").rows] == ["retraction"]
