"""What import may change in a library (fill empty fields, report conflicts, overwrite only when asked),
when two records are one work, citation keys, RIS, attachments, dedupe and merge."""
from __future__ import annotations

import json

import pytest

from cli_process import run_doiget
from corpus import CDL, read
from doiget.cli.common import entry_line, render_entry
from doiget.config import Config
from doiget.errors import DoigetError
from doiget.identity import TITLE_AGREEMENT, Marks, Side, decide, marks_agree, title_similarity
from doiget.library import Library
from doiget.models import Author, Work
from doiget.present import to_json
from doiget.services.bibliography import _file_candidates, named_pdfs


@pytest.fixture
def lib(tmp_path):
    with Library(Config(home=tmp_path / "lib", profile="full")) as library:
        yield library


def _csl(**item) -> str:
    return json.dumps([{"type": "article-journal", **item}])


def test_import_fills_empty_fields_reports_conflicts_and_overwrites_only_when_asked(lib):
    entry = lib.add(Work(doi="10.1000/a", title="My careful title", year=2020,
                         authors=[Author(name="Ann Smith", family="Smith", given="Ann")]))
    record = _csl(DOI="https://doi.org/10.1000/A", title="A sloppy title", volume="7", issued={"date-parts": [[2021]]},
                  author=[{"family": "Smyth", "given": "A."}])
    result = lib.import_bibliography(record)
    (row,) = result.report
    assert row.status == "merged" and result.conflicts == 1
    assert {c.field for c in row.conflicts} == {"title", "year", "names"}
    kept = lib.info(entry.id)
    assert (kept.title, kept.year, kept.volume, [a.family for a in kept.authors]) == (
        "My careful title", 2020, "7", ["Smith"])
    forced = lib.import_bibliography(record, overwrite=True)
    assert set(forced.report[0].overwritten) == {"title", "year", "names"}
    changed = lib.info(entry.id)
    assert (changed.title, changed.year, [a.family for a in changed.authors]) == ("A sloppy title", 2021, ["Smyth"])


def test_different_dois_never_merge_and_shared_secondary_ids_need_agreeing_titles(lib):
    lib.add(Work(doi="10.1000/chapter-1", pmid="111", title="The first chapter of the book"))
    result = lib.import_bibliography(json.dumps([
        {"type": "chapter", "DOI": "10.1000/chapter-2", "PMID": "111", "title": "The first chapter of the book"},
        {"type": "article-journal", "PMID": "111", "title": "Something else entirely about fish"},
        {"type": "article-journal", "PMID": "111", "title": "The first chapter of the book."},
    ]))
    first, second, third = result.report
    assert first.status == "added" and "different DOIs" in first.conflicts[0].reason
    assert first.conflicts[0].ids_set_aside == {"pmid": "111"}
    assert second.status == "added" and "titles differ" in second.conflicts[0].reason
    assert third.status == "merged" and third.matched.as_json() == {
        "id": "pmid:111", "entry_title": "The first chapter of the book",
        "record_title": "The first chapter of the book."}
    # The set-aside id is kept on the new entry, not dropped.
    assert lib.info(first.id).extra["conflicting-ids"] == {"pmid": "111"}


def test_a_record_whose_only_identifier_belongs_to_another_entry_is_added_without_it(lib):
    """The import failed (a bare StopIteration, nothing imported) when every id of a record was set aside
    against the library: its ref was taken from an id it no longer had."""
    lib.import_bibliography(_csl(id="a", title="Protein folding dynamics in cells", URL="https://arxiv.org/abs/2101.01234"))
    result = lib.import_bibliography(_csl(id="b", title="Quantum error correction survey",
                                          URL="https://arxiv.org/abs/2101.01234"))
    (row,) = result.report
    assert (row.status, row.ref, row.conflicts[0].entry, row.conflicts[0].ids_set_aside) == (
        "added", None, 1, {"arxiv": "2101.01234"})
    assert "titles differ" in row.conflicts[0].reason and result.fetchable == []
    assert lib.info(row.id).extra["conflicting-ids"] == {"arxiv": "2101.01234"}


def test_title_agreement_threshold():
    same = [("Deep learning", "Deep Learning."), ("Schrödinger's cat revisited", "Schrodinger's cat revisited"),
            ("The ecology of fear: a review", "The ecology of fear"), ("Attention is all you need",
                                                                       "Attention is all you ned")]
    different = [("Chapter 1: Introduction", "Chapter 2: Methods"), ("Deep learning", "Deep reinforcement learning"),
                 ("A study of cats", "A study of bats and rats")]
    assert all(title_similarity(a, b) >= TITLE_AGREEMENT for a, b in same)
    assert all(title_similarity(a, b) < TITLE_AGREEMENT for a, b in different)
    # A DOI found only in a note is a secondary id: titles must agree.
    inferred = decide(Side({"doi": "10.1/x"}, "Chapter 1: Introduction"),
                      Side({"doi": "10.1/x"}, "Chapter 2: Methods", frozenset({"doi"})))
    declared = decide(Side({"doi": "10.1/x"}, "Chapter 1: Introduction"), Side({"doi": "10.1/x"}, "Anything"))
    assert (inferred.same, declared.same) == (False, True)


def _cdl_entries(*keys: str) -> str:
    """The .bib text of the entries ``keys`` of cdl.bib (a real BibDesk library: no identifiers in these)."""
    blocks = {block.split("{", 1)[1].split(",", 1)[0]: "@" + block for block in read(CDL).split("\n@")[1:]}
    return "\n".join(blocks[key] for key in keys)


def test_records_without_ids_sharing_a_title_and_year_merge_only_when_nothing_tells_them_apart(lib):
    # Chapters filed under their book's title (different authors and pages), two letters under one heading
    # in one issue (different pages), then real duplicates: one author more, a page range cut to its first page.
    text = _cdl_entries("Conl09", "Wolf09", "SchaRitt09", "BlocLeMo94", "GerfKeef94", "Rugg00", "RuggAlla00",
                        "CronEtal98a", "CronEtal98c")
    report = lib.import_bibliography(text, "bibtex")
    assert [(row.key, row.status) for row in report.report] == [
        ("Conl09", "added"), ("Wolf09", "added"), ("SchaRitt09", "added"), ("BlocLeMo94", "added"),
        ("GerfKeef94", "added"), ("Rugg00", "added"), ("RuggAlla00", "merged"), ("CronEtal98a", "added"),
        ("CronEtal98c", "merged")]
    assert len({row.id for row in report.report}) == 7
    again = lib.import_bibliography(text, "bibtex")  # each record finds its own entry, none a sibling's
    assert [row.id for row in again.report] == [row.id for row in report.report] and again.added == 0
    later = lib.import_bibliography(_cdl_entries("Wolf09"), "bibtex")
    assert later.report[0].id == report.report[1].id
    # A chapter filed as @inbook under its book's title (its own title in `chapter`) and the book itself,
    # whose editors are filed as its authors: they share names but one is a part of the other.
    parts = lib.import_bibliography(_cdl_entries("ConwEtal07", "KaneEtal07", "BravEtal07"), "bibtex")
    assert [row.status for row in parts.report] == ["added"] * 3
    assert lib.import_bibliography(_cdl_entries("KaneEtal07"), "bibtex").report[0].id == parts.report[1].id
    # The whole PDP book and its chapter filed as an @article share title, authors and year
    pdp = lib.import_bibliography(_cdl_entries("RumeEtal86", "McClEtal86"), "bibtex")
    assert [row.status for row in pdp.report] == ["added"] * 2


def test_a_conference_paper_and_its_journal_version_stay_two_works(lib):
    versions = lib.import_bibliography(
        "@inproceedings{c, title = {Deep Sets}, author = {Zaheer, Manzil}, booktitle = {NeurIPS}, year = 2017}\n"
        "@article{j, title = {Deep Sets}, author = {Zaheer, Manzil}, journal = {JMLR}, year = 2017}\n"
        "@phdthesis{t, title = {Deep Sets}, author = {Zaheer, Manzil}, school = {CMU}, year = 2017}\n"
        "@article{again, title = {Deep sets}, author = {Zaheer, M.}, journal = {JMLR}, year = 2017}", "bibtex")
    assert [row.status for row in versions.report] == ["added", "added", "added", "merged"]
    assert versions.report[3].id == versions.report[1].id


def test_no_conflict_for_one_language_named_two_ways_or_white_space(lib):
    lib.import_bibliography(_csl(DOI="10.1000/l", title="T", language="en", note="PMID: 1\nPMCID: PMC2"))
    same = lib.import_bibliography("@article{k, doi = {10.1000/l}, title = {T}, langid = {english}, "
                                   "note = {PMID: 1 PMCID: PMC2}}", "bibtex")
    assert same.report[0].status == "merged" and same.report[0].conflicts == []
    other = lib.import_bibliography("@article{k, doi = {10.1000/l}, title = {T}, langid = {ngerman}}", "bibtex")
    assert [(c.field, c.library, c.file) for c in other.report[0].conflicts] == [("language", "en", "ngerman")]


def test_and_others_goes_with_the_names_it_ends(lib):
    full = [{"family": "Makris", "given": "E."}, {"family": "Hu", "given": "J."}, {"family": "Athanasiou", "given": "K."}]
    lib.import_bibliography(_csl(DOI="10.1000/o", title="T", author=full))
    cut = "@article{k, doi = {10.1000/o}, title = {T}, author = {Makris, E. and others}}"
    kept = lib.import_bibliography(cut, "bibtex").report[0]
    assert kept.status == "merged" and [c.field for c in kept.conflicts] == ["names"]
    assert "bibtex-others" not in lib.info("10.1000/o").extra  # the stored list is complete
    assert "author = {Makris, E. and Hu, J. and Athanasiou, K.}" in lib.export("bibtex")
    lib.import_bibliography(cut, "bibtex", overwrite=True)  # the record's names replace the entry's
    assert "author = {Makris, E. and others}" in lib.export("bibtex")
    lib.add(Work(doi="10.1000/o", title="T", authors=[Author.from_parts(a["family"], a["given"]) for a in full]))
    assert "and others" not in lib.export("bibtex")  # an explicit add's complete list replaces it


def test_an_author_list_cut_short_shows_et_al(lib):
    lib.import_bibliography("@article{k, title = {T}, author = {Makris, E. and others}, year = 2014}", "bibtex")
    entry = to_json(lib.info("@k"))
    assert render_entry({"entry": entry}).splitlines()[1] == "E. Makris, et al."
    assert entry_line(entry).startswith("#1  E. Makris et al. (2014)")  # not a sole author
    assert repr(lib.info("@k")).startswith("<Entry #1 E. Makris et al. (2014)")
    assert "E. Makris et al." in lib.info("@k")._repr_html_()


def test_a_ris_list_ending_in_et_al_is_cut_short_not_a_person(lib):
    lib.import_bibliography("TY  - JOUR\nID  - r\nTI  - T\nAU  - Makris, E.\nAU  - et al.\nPY  - 2014\nER  - \n", "ris")
    entry = lib.info("@r")
    assert [a.name for a in entry.authors] == ["E. Makris"] and entry.authors_cut_short
    assert "author = {Makris, E. and others}" in lib.export("bibtex")


def test_a_csl_list_ending_in_others_is_cut_short_not_a_person(lib):
    # pandoc writes BibTeX's "and others" as a last name {"literal": "others"}; an editor list too
    item = {"id": "k", "type": "chapter", "title": "T", "issued": {"date-parts": [[2014]]},
            "author": [{"family": "Makris", "given": "E."}, {"literal": "others"}],
            "editor": [{"family": "Doe", "given": "J."}, {"literal": "Others"}]}
    lib.import_bibliography(json.dumps([item]), "csl-json")
    entry = lib.info("@k")
    assert [a.name for a in entry.authors] == ["E. Makris"] and entry.extra["bibtex-others"] == ["author", "editor"]
    assert [a.name for a in entry.contributors["editor"]] == ["J. Doe"]
    assert "author = {Makris, E. and others}" in lib.export("bibtex")
    assert "editor = {Doe, J. and others}" in lib.export("bibtex")
    (out,) = lib.export("csl-json")
    assert (out["author"][-1], out["editor"][-1]) == ({"literal": "others"}, {"literal": "others"})
    assert "others" not in lib.cite(["@k"]).references[0]  # citeproc-py would print it as a name


def test_marks_that_tell_works_apart():
    chapter = Marks.of("289--301", None, ["Wolfensteller"])
    assert not marks_agree(chapter, Marks.of("109-117", None, ["Conlin"]))  # first pages differ
    assert not marks_agree(Marks.of(None, "15", ["Daw"]), Marks.of(None, "16", ["Daw"]))  # volumes differ
    assert not marks_agree(Marks.of(None, None, ["Gerfen", "Keefe"]), Marks.of(None, None, ["Bloch", "Le Moine"]))
    assert marks_agree(Marks.of("2301--2315", "121", ["Crone"]), Marks.of("2301", "121", ["Crone", "Lesser"]))
    assert not marks_agree(Marks.of("21--48", None, ["Kane"], "chapter"), Marks.of(None, None, ["Kane"], "book"))
    assert marks_agree(Marks.of(None, None, ["Kane"], "chapter"), Marks.of(None, None, ["Kane"], "paper-conference"))
    assert marks_agree(chapter, Marks.of(None, None, []))  # nothing known: nothing disagrees


def test_titles_and_names_in_other_scripts_keep_different_works_apart(lib):
    # ASCII folding left nothing of these titles: before, all three were "one work" and two were lost.
    result = lib.import_bibliography(json.dumps([
        {"type": "book", "title": "Квантовая механика", "author": [{"family": "Иванов", "given": "Иван"}],
         "issued": {"date-parts": [[2020]]}},
        {"type": "book", "title": "Теория чисел", "author": [{"family": "Петров", "given": "Пётр"}],
         "issued": {"date-parts": [[2020]]}},
        {"type": "book", "title": "量子力学", "author": [{"literal": "张三"}], "issued": {"date-parts": [[2020]]}},
        {"type": "article-journal", "PMID": "222", "title": "Θεωρία αριθμών"},
        {"type": "article-journal", "PMID": "222", "title": "Ποιήματα και πεζά"},
        {"type": "article-journal", "PMID": "222", "title": "Θεωρία  αριθμών."},
    ]))
    assert [row.status for row in result.report] == ["added"] * 5 + ["merged"]
    assert "titles differ" in result.report[4].conflicts[0].reason
    assert [h.title for h in lib.search("Петров")] == ["Теория чисел"]
    assert title_similarity("Квантовая механика", "Теория чисел") < TITLE_AGREEMENT


def test_citation_keys_are_kept_suffixed_on_clash_settable_and_never_change_on_export(lib):
    bib = "@article{goodfellowDeepLearning2016, title={Deep Learning}, year={2016}, author={Goodfellow, Ian}}\n"
    first = lib.import_bibliography(bib).report[0]
    assert lib.info(first.id).citekey == "goodfellowDeepLearning2016"
    clash = lib.import_bibliography(bib.replace("Deep Learning", "Deep Learning II")).report[0]
    assert clash.citekey == "goodfellowDeepLearning2016a" and "already used" in clash.problems[0]
    new = lib.add(Work(doi="10.1000/k", title="Literate programming", year=1984,
                       authors=[Author(name="Donald Knuth", family="Knuth", given="Donald")]))
    assert new.citekey == "knuthLiterateProgramming1984"
    alone, together = lib.export("bibtex", refs=[new.id]), lib.export("bibtex")
    assert "@misc{knuthLiterateProgramming1984," in alone and "@misc{knuthLiterateProgramming1984," in together
    assert lib.set_citekey(new.id, "knuth84").citekey == "knuth84"
    with pytest.raises(DoigetError, match="already used"):
        lib.set_citekey(new.id, "GOODFELLOWDEEPLEARNING2016")
    with pytest.raises(DoigetError, match="not usable"):
        lib.set_citekey(new.id, "has space")
    assert lib.export("csl-json", refs=[new.id])[0]["citation-key"] == "knuth84"


def test_ris_import_with_tags_exported_as_keywords(lib):
    ris = "TY  - JOUR\nAU  - Marx, Karl\nA2  - Engels, Friedrich\nTI  - Capital\nPY  - 1867\nKW  - economics\n" \
          "DO  - 10.1000/capital\nSN  - 1234-5678\nER  - \n"
    (row,) = lib.import_bibliography(ris).report
    entry = lib.info(row.id)
    assert [a.family for a in entry.authors] == ["Marx"] and entry.contributors["editor"][0].family == "Engels"
    assert entry.extra["ISSN"] == "1234-5678" and entry.tags == ["economics"]
    assert "keywords = {economics}" in lib.export("bibtex", refs=[entry.id])
    assert lib.export("csl-json", refs=[entry.id])[0]["keyword"] == "economics"


def test_file_fields_attach_existing_pdfs_only_with_the_flag(lib, tmp_path):
    pdf = tmp_path / "papers" / "smith.pdf"
    pdf.parent.mkdir()
    import fitz

    document = fitz.open()
    document.new_page().insert_text((72, 72), "Smith's paper, the attached copy")
    pdf.write_bytes(document.tobytes())
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{s, title={Smith's paper}, file={Full Text:papers/smith.pdf:application/pdf}}\n"
                   "@article{t, title={Missing file}, file={:papers/none.pdf:pdf}}\n", encoding="utf-8")
    plain = lib.import_bibliography(bib)
    assert "attached" not in plain and not lib.info(plain.report[0].id).has_pdf
    attached = lib.import_bibliography(bib, attach_files=True)
    assert [a.path for a in attached.attached] == [str(pdf)]
    assert [(m.id, m.file) for m in attached.not_found] == [(attached.report[1].id, ":papers/none.pdf:pdf")]
    assert lib.info(attached.report[0].id).has_pdf
    assert "file = {Full Text:papers/smith.pdf:application/pdf}" in lib.export("bibtex")


def test_mendeley_file_fields_name_their_pdfs(tmp_path):
    """Mendeley writes a path without its leading '/' (``:home/me/x.pdf:pdf``) and a drive letter's colon as
    ``C$\\backslash$:``; both used to name no file."""
    pdf = tmp_path / "Mendeley Desktop" / "paper.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes(b"%PDF-1.4")
    files = {1: [f":{str(pdf).lstrip('/')}:pdf"], 2: [":C$\\backslash$:/Users/me/paper.pdf:pdf"]}
    found, missing = named_pdfs(files, tmp_path / "elsewhere")
    assert found == [(1, pdf)] and missing == [(2, ":C$\\backslash$:/Users/me/paper.pdf:pdf")]
    assert _file_candidates(files[2][0])[1] == "C:/Users/me/paper.pdf"


def test_dedupe_lists_likely_duplicates_and_merge_loses_nothing(lib):
    a = lib.add(Work(doi="10.1000/m", title="Octopus cognition", year=2019,
                     authors=[Author(name="Peter Godfrey", family="Godfrey", given="Peter")]))
    b = lib.add(Work(arxiv="1901.00001", title="Octopus Cognition.", year=2019, volume="3",
                     authors=[Author(name="P. Godfrey", family="Godfrey", given="P.")]))
    lib.tag(b.id, ["cephalopods"])
    lib.annotate(b.id, "read twice")
    groups = lib.dedupe()
    assert [g.as_json() for g in groups] == [{"reason": "same title, year and first author", "entries": [
        {"id": a.id, "ref": "doi:10.1000/m", "citekey": a.citekey, "title": "Octopus cognition", "year": 2019},
        {"id": b.id, "ref": "arxiv:1901.00001", "citekey": b.citekey, "title": "Octopus Cognition.", "year": 2019}]}]
    outcome = lib.merge(a.id, b.id)
    merged = outcome.entry
    assert (merged.doi, merged.arxiv, merged.volume, merged.tags) == ("10.1000/m", "1901.00001", "3", ["cephalopods"])
    assert merged.annotation == "read twice"
    assert merged.extra["merged"][0]["title"] == "Octopus Cognition." and merged.extra["bibtex"]["ids"] == b.citekey
    assert lib.dedupe() == []
    c = lib.add(Work(doi="10.1000/other", title="Octopus cognition", year=2019))
    with pytest.raises(DoigetError, match="different DOIs"):
        lib.merge(a.id, c.id)


def test_cli_dedupe_merge_citekey_and_import_overwrite(tmp_path):
    home = tmp_path / "home"
    bib = tmp_path / "a.bib"
    bib.write_text("@article{k1, title={Same title}, year={2001}, author={Doe, Jane}, doi={10.1000/x}}\n"
                   "@article{k2, title={Same title}, year={2001}, author={Doe, J.}}\n", encoding="utf-8")

    def run(*args):
        done = run_doiget(home, "--json", *args)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert run("import", str(bib))["added"] == 2
    (group,) = run("dedupe")["groups"]
    assert [e["citekey"] for e in group["entries"]] == ["k1", "k2"]
    assert run("merge", group["entries"][0]["ref"], f"#{group['entries'][1]['id']}")["merged"]
    assert run("citekey", "doi:10.1000/x", "doe2001")["citekey"] == "doe2001"
    bib.write_text("@article{k1, title={Other title}, doi={10.1000/x}}\n", encoding="utf-8")
    assert run("import", str(bib))["conflicts"] == 1
    assert run("import", "--overwrite", str(bib))["report"][0]["overwritten"] == ["title"]
