"""Hostile documents for every parser of untrusted content: each one either extracts or fails with
a structured DoigetError naming the limit it hit — never a hang, never a raw exception.

Extraction runs through ``fulltext.index.extract``, which arms the CPU deadline: were one of the
linear-time fixes below to regress, the case fails with INVALID_INPUT ("CPU limit") instead of
hanging the suite.
"""
from __future__ import annotations

import json
import time

import pytest

from doiget import open_library
from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext import guard
from doiget.fulltext import index as fulltext_index
from doiget.fulltext.tex import MAX_INPUTS
from doiget.net.base import HttpResponse
from hostile_cases import tarball, tex

DEEP = 100_000


def refused(kind: str, data: bytes) -> DoigetError:
    with pytest.raises(DoigetError) as caught:
        fulltext_index.extract(kind, data)
    assert caught.value.code is ErrorCode.INVALID_INPUT
    return caught.value


# ---- ar5iv HTML ---------------------------------------------------------------------------------

def test_html_unclosed_tags_then_stray_closers_is_refused_by_depth():
    page = "<html><body><div class='ltx_document'>" + "<div><span><p>x" * 20_000 + "</b></i></em>" * 20_000
    error = refused("html", page.encode())
    assert "nested more than" in error.message and error.details["limit"] == "depth"


def test_html_many_stray_closers_under_the_depth_limit_extract():
    """Stray closing tags used to scan the whole open-element stack each: quadratic."""
    page = ("<html><body><div class='ltx_document'>" + "<div><span>" * 400 + "<p>kept text</p>"
            + "</b></i></em>" * 100_000 + "</span></div>" * 400 + "<p>after</p></div></body></html>")
    doc = fulltext_index.extract("html", page.encode())
    assert "kept text" in doc.text and "after" in doc.text


# ---- LaTeX --------------------------------------------------------------------------------------

def test_tex_inputs_that_include_each_other_are_bounded():
    files = {"main.tex": "\\documentclass{article}\\begin{document}\\input{a0}\\input{a1}\\end{document}"}
    for i in range(20):
        files[f"a{i}.tex"] = f"part {i} " + "".join(f"\\input{{a{j}}}" for j in range(20) if j != i)
    error = refused("tex", tarball(files))
    assert f"{MAX_INPUTS} inclusions" in error.message and error.details["limit"] == "latex_inputs"


def test_tex_shared_input_files_still_inline():
    files = {"main.tex": "\\documentclass{article}\\begin{document}\\input{a}\\input{b}\\end{document}",
             "a.tex": "Alpha \\input{c}", "b.tex": "Beta \\input{c}", "c.tex": "Gamma"}
    assert fulltext_index.extract("tex", tarball(files)).text.count("Gamma") == 2


def test_tex_megabyte_of_unclosed_inline_math_extracts():
    doc = fulltext_index.extract("tex", tex("text \\( a " * 100_000))
    assert doc.text.count("\\(") == 100_000


def test_tex_megabyte_of_sections_extracts():
    doc = fulltext_index.extract("tex", tex("\\section{A} para\n\n" * 55_000))
    assert len(doc.chunks) == 55_000 and doc.text.count("## A") == 55_000


@pytest.mark.parametrize("body", [
    "\\section[" * 50_000, "\\section{" * 50_000, "\\input{" * 50_000, "\\begin{abstract}" * 50_000,
    "\\begin{thebibliography}" * 50_000, "$" * 200_000, "\\[" * 100_000, "\\item[" * 50_000,
    "\\begin{equation}" * 50_000, "\\emph[" * 50_000, "\\cite[" * 50_000, "{" * 200_000,
], ids=["section[", "section{", "input{", "abstract", "thebibliography", "dollars", "display", "item[",
        "equation", "emph[", "cite[", "braces"])
def test_tex_unclosed_constructs_extract_in_linear_time(body):
    doc = fulltext_index.extract("tex", tex(body))
    assert doc.source == "tex"


def test_tex_math_spans_are_kept_as_before():
    doc = fulltext_index.extract("tex", tex(
        "Inline $a+b$ and \\(c\\) and escaped \\$5. \\[ x \\] $$y$$\n\n"
        "\\begin{equation} E=mc^2 \\end{equation}\n\nunclosed \\( tail"))
    assert "$a+b$" in doc.text and "\\(c\\)" in doc.text and "$$x$$" in doc.text and "$$y$$" in doc.text
    assert "\\begin{equation} E=mc^2 \\end{equation}" in doc.text and "$5" in doc.text and "tail" in doc.text


def test_cpu_deadline_stops_an_extraction_with_a_structured_error():
    with guard.deadline(0.01, "tex extraction"):
        with pytest.raises(DoigetError) as caught:
            fulltext_index.extract("tex", tex("\\section{A} para\n\n" * 55_000))
    assert caught.value.code is ErrorCode.INVALID_INPUT
    assert "CPU limit" in caught.value.message and caught.value.details["limit"] == "cpu_seconds"


# ---- JATS ---------------------------------------------------------------------------------------

def test_jats_deep_nesting_is_refused_not_a_recursion_error():
    xml = "<article><body>" + "<sec>" * DEEP + "x" + "</sec>" * DEEP + "</body></article>"
    assert refused("jats", xml.encode()).details["limit"] == "depth"


def test_jats_deep_inline_nesting_is_refused():
    xml = "<article><body><p>" + "<italic>" * 5000 + "x" + "</italic>" * 5000 + "</p></body></article>"
    assert refused("jats", xml.encode()).details["limit"] == "depth"


@pytest.mark.parametrize("doctype", [
    '<!DOCTYPE article SYSTEM "http://example.com/x.dtd">',
    '<!DOCTYPE article SYSTEM "file:///etc/passwd">',
    '<!DOCTYPE article PUBLIC "-//X//DTD X//EN" "http://127.0.0.1:1/evil.dtd">',
    '<!DOCTYPE article SYSTEM "../../etc/x.dtd">',
    '<!DOCTYPE article [<!ELEMENT article ANY>]>',
])
def test_jats_external_or_internal_dtd_is_refused(doctype):
    xml = f'<?xml version="1.0"?>{doctype}<article><body><p>x</p></body></article>'
    error = refused("jats", xml.encode())
    assert "DTD" in error.message and error.details["limit"] == "dtd"


@pytest.mark.parametrize("doctype", [
    '<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange DTD v1.2 20190208//EN" '
    '"JATS-archivearticle1.dtd">',
    '<!DOCTYPE article PUBLIC "-//NLM//DTD Journal Publishing DTD v3.0 20080202//EN" '
    '"https://jats.nlm.nih.gov/publishing/1.2/JATS-journalpublishing1.dtd">',
])
def test_jats_publisher_doctype_is_accepted_and_never_loaded(doctype):
    xml = f'<?xml version="1.0"?>{doctype}<article><body><p>kept</p></body></article>'
    assert "kept" in fulltext_index.extract("jats", xml.encode()).text


def test_jats_entity_expansion_is_refused():
    xml = '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "xx">]><article><body><p>&x;</p></body></article>'
    refused("jats", xml.encode())


# ---- JSON: BioC, CSL-JSON import, upstream bodies ----------------------------------------------

DEEP_ARRAY = ("[" * DEEP + "]" * DEEP).encode()
DEEP_IN_DOCUMENT = ('{"documents":[{"passages":[{"text":"a","infons":' + '{"a":' * DEEP + "1" + "}" * DEEP
                    + "}]}]}").encode()


@pytest.mark.parametrize("data", [DEEP_ARRAY, DEEP_IN_DOCUMENT], ids=["array", "in-document"])
def test_bioc_deep_json_is_refused(data):
    assert refused("bioc", data).details["limit"] == "depth"


def test_bioc_bytes_in_no_encoding_are_invalid_input():
    refused("bioc", b"\xff\xfe\x00\xd8" * 10)


@pytest.mark.parametrize("data", [DEEP_ARRAY.decode(), '[{"title": "x", "note": ' + "[" * DEEP + "]" * DEEP + "}]"],
                         ids=["array", "in-item"])
def test_csl_json_import_of_deep_json_is_refused(tmp_path, data):
    with open_library(tmp_path / "lib") as lib:
        with pytest.raises(DoigetError) as caught:
            lib.import_bibliography(data, "csl-json")
        assert caught.value.code is ErrorCode.INVALID_INPUT and caught.value.details["limit"] == "depth"
        assert lib.recent() == []


def test_upstream_deep_json_is_upstream_error():
    with pytest.raises(DoigetError) as caught:
        HttpResponse(status=200, url="https://api.crossref.org/works/x", content=DEEP_ARRAY).json("crossref")
    assert caught.value.code is ErrorCode.UPSTREAM_ERROR and caught.value.details["limit"] == "depth"


def test_stored_hostile_artefact_is_reported_by_reindex_not_raised(tmp_path):
    """A hostile blob already in the store: reindex reports it as failed and goes on."""
    with open_library(tmp_path / "lib") as lib:
        entry = lib.add({"doi": "10.1/hostile", "title": "Hostile"})
        lib.add_artefact(entry.id, "jats", ("<article>" + "<sec>" * DEEP + "</sec>" * DEEP + "</article>").encode())
        lib.add_artefact(entry.id, "bioc", DEEP_ARRAY)
        report = lib.reindex()
        assert report.indexed == 0 and len(report.failed) == 2
        assert {f.error.code for f in report.failed} == {"INVALID_INPUT"}
        with pytest.raises(DoigetError) as caught:
            lib.text(entry.id)
        assert caught.value.code is ErrorCode.INVALID_INPUT
        json.dumps(report.as_json())


def test_cpu_deadline_is_noticed_within_one_clock_read():
    """Checks read the clock once in CLOCK_EVERY: a passed deadline is reported by one of the next
    CLOCK_EVERY checks, and a nested, later deadline leaves the outer one in force."""
    with guard.deadline(0.0, "pdf extraction"):
        spent = time.thread_time()
        while time.thread_time() == spent:  # let the thread's clock pass the deadline
            sum(range(1000))
        with guard.deadline(60.0, "inner"), pytest.raises(DoigetError) as caught:
            for _ in range(guard.CLOCK_EVERY):
                guard.check()
    assert caught.value.details["limit"] == "cpu_seconds" and "pdf extraction" in caught.value.message
    guard.check()  # reported once, and disarmed outside the block
