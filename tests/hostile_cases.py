"""Hostile inputs shared by the hostile-input tests and ``scripts/hostile_report.py``: named
cases and hypothesis strategies for every parser of untrusted content, and hostile arguments
for every MCP tool.

A parser run is acceptable when it returns, or raises a DoigetError with a code other than
INTERNAL_ERROR; anything else (a raw exception, a hang) is a failure.
"""
from __future__ import annotations

import base64
import io
import json
import tarfile
from collections.abc import Callable

from hypothesis import strategies as st

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.importer import parse_bibliography
from doiget.fulltext import index as fulltext_index
from doiget.net import arxiv, crossref, europepmc, openalex
from doiget.net.base import HttpResponse

DEEP = 100_000


def _upstream(parse: Callable, source: str) -> Callable[[bytes], object]:
    return lambda data: parse(HttpResponse(status=200, url=f"https://{source}.test/", content=data).json(source))


PARSERS: dict[str, Callable[[bytes], object]] = {
    **{kind: (lambda kind: lambda data: fulltext_index.extract(kind, data))(kind)
       for kind in ("html", "tex", "jats", "bioc", "pdf")},
    "bibtex": lambda data: parse_bibliography(data.decode("utf-8", "surrogateescape"), "bibtex"),
    "csl-json": lambda data: parse_bibliography(data.decode("utf-8", "surrogateescape"), "csl-json"),
    "arxiv-atom": arxiv.parse_feed,
    "crossref-json": _upstream(crossref.parse_work_response, "crossref"),
    "openalex-json": _upstream(openalex.parse_work, "openalex"),
    "europepmc-json": _upstream(europepmc.parse_search, "europepmc"),
}


def run_parser(name: str, data: bytes) -> str:
    """'ok' or the error code; raises AssertionError on a raw exception or INTERNAL_ERROR."""
    try:
        PARSERS[name](data)
    except DoigetError as exc:
        assert exc.code is not ErrorCode.INTERNAL_ERROR, exc.to_dict()
        return exc.code.value
    return "ok"


def tarball(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, text in files.items():
            data = text.encode()
            member = tarfile.TarInfo(name)
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    return buffer.getvalue()


def tex(body: str) -> bytes:
    return ("\\documentclass{article}\n\\begin{document}\n" + body + "\n\\end{document}\n").encode()


def _fanout() -> bytes:
    files = {"main.tex": "\\documentclass{article}\\begin{document}\\input{a0}\\end{document}"}
    for i in range(20):
        files[f"a{i}.tex"] = "".join(f"\\input{{a{j}}}" for j in range(20) if j != i)
    return tarball(files)


def _deep_json(opener: str, closer: str) -> bytes:
    return (opener * DEEP + closer * DEEP).encode()


_COMMON = {
    "empty": lambda: b"", "nul-bytes": lambda: b"\x00" * 1000, "not-utf8": lambda: b"\xff\xfe\xfd" * 1000,
    "deep-json-array": lambda: _deep_json("[", "]"), "deep-xml": lambda: b"<a>" * DEEP + b"</a>" * DEEP,
    "megabyte-of-braces": lambda: b"{" * 1_000_000,
}
NAMED: dict[str, dict[str, Callable[[], bytes]]] = {
    "html": {"unclosed-then-stray-closers": lambda: ("<div class='ltx_document'>" + "<div><span><p>x" * 20_000
                                                     + "</b></i></em>" * 20_000).encode(),
             "stray-closers": lambda: ("<div class='ltx_document'>" + "</p></div>" * 200_000).encode(),
             "unclosed-comment": lambda: b"<!--" + b"x" * 1_000_000,
             "charrefs": lambda: b"&#x110000;&#0;&#xd800;" * 10_000},
    "tex": {"input-fanout": _fanout, "unclosed-inline-math": lambda: tex("text \\( a " * 100_000),
            "many-sections": lambda: tex("\\section{A} para\n\n" * 55_000),
            "unclosed-section-option": lambda: tex("\\section[" * 50_000),
            "unclosed-dollars": lambda: tex("$" * 200_000), "self-input": lambda: tarball(
                {"main.tex": "\\documentclass{article}\\begin{document}\\input{main}\\end{document}"}),
            "gzip-garbage": lambda: b"\x1f\x8b" + b"\x00" * 100},
    "jats": {"deep-sections": lambda: b"<article><body>" + b"<sec>" * DEEP + b"</sec>" * DEEP + b"</body></article>",
             "external-dtd": lambda: b'<!DOCTYPE article SYSTEM "http://127.0.0.1:1/x.dtd"><article/>',
             "internal-subset": lambda: b'<!DOCTYPE article [<!ELEMENT article ANY>]><article/>',
             "billion-laughs": lambda: (b'<!DOCTYPE a [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>'
                                        b"<article>&b;</article>"),
             "xxe": lambda: b'<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><article>&x;</article>'},
    "bioc": {"deep-object": lambda: _deep_json('{"a":', "}")[:-1] + b"1" + b"}",
             "passages-not-list": lambda: b'{"documents":[{"passages":{"a":1}}]}',
             "huge-offsets": lambda: json.dumps({"documents": [{"passages": [
                 {"offset": 10 ** 30, "text": "x", "infons": {"type": 5}}] * 1000}]}).encode()},
    "pdf": {"header-only": lambda: b"%PDF-1.7\n" + b"\x00" * 1000, "truncated-xref": lambda: (
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\nxref\n0 99999999\n"
        b"trailer<</Size 99999999/Root 1 0 R>>")},
    "bibtex": {"unclosed-brace": lambda: b"@article{x, title={" + b"{" * 100_000,
               "many-entries-no-fields": lambda: b"@misc{a,}\n" * 20_000,
               "deep-braces": lambda: b"@article{x, title=" + b"{" * 5000 + b"t" + b"}" * 5000 + b"}"},
    "csl-json": {"deep-in-item": lambda: b'[{"title": "x", "note": ' + _deep_json("[", "]") + b"}]",
                 "wrong-types": lambda: json.dumps([{"title": 5, "author": "x", "issued": {"date-parts": "2020"},
                                                     "DOI": [1], "type": None}] * 100).encode()},
    "arxiv-atom": {"not-a-feed": lambda: b"<html/>", "entry-with-junk": lambda: (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x</id><published>99999</published>'
        + b"<author>" * 500 + b"</author>" * 500 + b"</entry></feed>")},
    "crossref-json": {"message-not-object": lambda: b'{"message": []}',
                      "title-deep": lambda: b'{"message": {"title": ' + _deep_json("[", "]") + b"}}"},
    "openalex-json": {"abstract-index-huge": lambda: json.dumps(
        {"id": "https://openalex.org/W1", "abstract_inverted_index": {"w": [10 ** 9]}}).encode(),
                      "authorships-junk": lambda: b'{"id": 5, "authorships": [1, null, "x", {"author": 3}]}'},
    "europepmc-json": {"results-junk": lambda: b'{"resultList": {"result": [1, null, {"pmcid": []}]}}'},
}
for _cases in NAMED.values():
    _cases.update({f"common:{k}": v for k, v in _COMMON.items()})

#: Random documents: fragments of each format's syntax glued together, plus raw bytes.
_FRAGMENTS = {
    "html": ["<div class='ltx_document'>", "<p>", "</p>", "<math alttext='x'>", "</math>", "</div>", "<h2 class="
             "'ltx_title ltx_title_section'>", "</h2>", "<script>", "&amp;", "<!--", "-->", "<", ">", "x "],
    "tex": ["\\section{", "\\section[", "}", "{", "]", "$", "$$", "\\(", "\\)", "\\[", "\\]", "\\begin{equation}",
            "\\end{equation}", "\\begin{abstract}", "\\input{", "\\cite{", "\\emph{", "%", "\\\\", "\n\n", "x "],
    "jats": ["<article>", "<body>", "<sec>", "</sec>", "<p>", "</p>", "<title>", "</title>", "<italic>",
             "</italic>", "<!DOCTYPE article>", "&amp;", "<![CDATA[", "]]>", "x "],
    "bioc": ['{"documents":[{"passages":[', '{"text":', '"x"', '"infons":{', '"type":"title_1"', "}", "]", ",",
             "[", "{", "null", "1e999"],
    "bibtex": ["@article{", "key,", "title={", "}", "{", "author=", '"', " and ", "@comment{", "@string{", "x ",
               "\\'", "%", "\n"],
}
_FRAGMENTS["csl-json"] = _FRAGMENTS["crossref-json"] = _FRAGMENTS["openalex-json"] = \
    _FRAGMENTS["europepmc-json"] = _FRAGMENTS["bioc"]
_FRAGMENTS["arxiv-atom"] = _FRAGMENTS["jats"]
_FRAGMENTS["pdf"] = ["%PDF-1.7\n", "1 0 obj", "<<", ">>", "endobj", "stream\n", "endstream", "xref", "trailer",
                     "/Root 1 0 R", "/Pages", "[", "]", "(", ")"]


def documents(parser: str) -> st.SearchStrategy[bytes]:
    """Hostile documents for ``parser``: its syntax fragments repeated and shuffled, or raw bytes."""
    pieces = st.lists(st.tuples(st.sampled_from(_FRAGMENTS[parser]), st.integers(1, 2000)), max_size=12)
    glued = pieces.map(lambda parts: "".join(text * count for text, count in parts).encode())
    if parser == "tex":
        glued = glued.map(lambda body: tex(body.decode()))
    return st.one_of(glued, st.binary(max_size=2000))


# ---- MCP tools ----------------------------------------------------------------------------------

HOSTILE_STRINGS = {"nul": "a\x00b", "escape": "x\x1b[2J", "long": "x" * 100_001, "rtl": "\u202e\ufeff",
                   "sql": "' OR 1=1 --", "fts": '"NEAR(a b)" *:x', "path": "../../etc/passwd",
                   "url": "https://169.254.169.254/latest", "emoji": "🧬" * 500}
HOSTILE_VALUES = {"deep-list": [[[[[[[[[[["x"]]]]]]]]]]], "big-int": 2 ** 70, "float": 1e308, "null": None,
                  "object": {"$ref": "#"}, "many": ["x"] * 5000}
HOSTILE_PDF = base64.b64encode(NAMED["pdf"]["truncated-xref"]()).decode()
HOSTILE_BIBLIOGRAPHY = {"csl-deep": NAMED["csl-json"]["deep-in-item"]().decode(),
                        "bibtex-unclosed": NAMED["bibtex"]["unclosed-brace"]().decode()[:90_000]}


def tool_cases(tools: dict) -> list[tuple[str, str, dict]]:
    """(tool, case name, arguments): each hostile value in each field of each tool, alone."""
    cases = []
    for name, spec in sorted(tools.items()):
        properties = spec.input_schema().get("properties", {})
        cases.append((name, "no-arguments", {}))
        for field in properties:
            for label, value in {**HOSTILE_STRINGS, **HOSTILE_VALUES}.items():
                cases.append((name, f"{field}={label}", {field: value}))
        if "content_base64" in properties:
            cases.append((name, "hostile-pdf", {"content_base64": HOSTILE_PDF}))
        if "content" in properties:
            for label, text in HOSTILE_BIBLIOGRAPHY.items():
                cases.append((name, label, {"content": text}))
    return cases
