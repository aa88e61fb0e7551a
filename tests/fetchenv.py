"""The loopback HTTPS server dressed as the upstream APIs, answering with the recorded fixtures.

Used by the fetch tests, the MCP and CLI end-to-end tests and scripts/bench_fetch.py. Every
source's base URL points at ``https://127.0.0.1:<port>/<source>``; the Unpaywall recording's
PDF link (www.pnas.org) is rewritten to a path on the same server, which serves a real PDF
generated with PyMuPDF. For batches of distinct works, the DOI (or arXiv id) inside the
recordings is rewritten to the one asked for; nothing else in them changes.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pymupdf
from loopback import LoopbackServer, Reply

from doiget.net.base import DEFAULT_BASES

UPSTREAM = Path(__file__).parent / "fixtures" / "upstream"
PNAS_DOI = "10.1073/pnas.1414271111"
PNAS_PMCID = "PMC4234579"
PNAS_PDF_LISTED = "https://www.pnas.org/content/pnas/111/45/E4832.full.pdf"  # as Unpaywall recorded it
XGEN_DOI = "10.1016/j.xgen.2025.100814"  # Crossref 404 here; OpenAlex + Unpaywall: gold, no PDF URL
ARXIV_ID = "1707.08567"
JSON = {"Content-Type": "application/json"}
PDF = {"Content-Type": "application/pdf"}


@functools.cache
def pdf_bytes(title: str = "Developing functional musculoskeletal tissues") -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), title)
    doc.set_metadata({"title": title})
    data = doc.tobytes()
    doc.close()
    return data


def source_env(server: LoopbackServer, ca_bundle: Path | str) -> dict[str, str]:
    """Environment that points every source at ``server`` and lifts the rate limits."""
    env = {f"DOIGET_{source.upper()}_BASE": server.url(f"/{source}") for source in DEFAULT_BASES}
    env.update(DOIGET_ALLOW_PRIVATE_HOSTS="127.0.0.1", DOIGET_CA_BUNDLE=str(ca_bundle), DOIGET_RATE_LIMITS="off")
    return env


def crossref_path(doi: str) -> str:
    return "/crossref/works/" + quote(doi, safe="")


def openalex_path(doi: str) -> str:
    return "/openalex/works/https://doi.org/" + quote(doi, safe="")


def unpaywall_path(doi: str) -> str:
    return "/unpaywall/v2/" + quote(doi, safe="/:")


def europepmc_pdf_path(pmcid: str) -> str:
    return f"/europepmc_pdf/articles/{pmcid}"


def arxiv_pdf_path(arxiv_id: str) -> str:
    return f"/arxiv_pdf/pdf/{arxiv_id}"


def recording(name: str, replace: dict[str, str] | None = None) -> bytes:
    """A recorded body, with each string value's ``replace`` keys substituted (JSON) or the raw text (XML)."""
    raw = (UPSTREAM / name).read_bytes()
    if not replace:
        return raw
    if name.endswith(".json"):
        return json.dumps(_substitute(json.loads(raw), replace)).encode()
    text = raw.decode()
    for old, new in replace.items():
        text = text.replace(old, new)
    return text.encode()


def _substitute(value: Any, replace: dict[str, str]) -> Any:
    if isinstance(value, str):
        for old, new in replace.items():
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [_substitute(v, replace) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, replace) for k, v in value.items()}
    return value


def serve_pnas(server: LoopbackServer, pdf: Reply | list[Reply] | None = None, *, doi: str = PNAS_DOI,
               pdf_path: str = "/publisher/pnas.pdf", openalex: bool = True,
               epmc_pdf: Reply | list[Reply] | None = None) -> str:
    """Route the PNAS paper (or a copy under ``doi``): Crossref, OpenAlex (or its recorded 404),
    Unpaywall with its PDF link at ``pdf_path``, the PDF itself (``pdf``, default the real PDF) and
    Europe PMC's render (``epmc_pdf``, default 404). Returns the PDF URL the plan will hold."""
    pdf_url = server.url(pdf_path)
    swap = {PNAS_DOI: doi} if doi != PNAS_DOI else {}
    server.route(crossref_path(doi), Reply(200, recording("crossref/works_10.1073_pnas.1414271111.json", swap), JSON))
    if openalex:
        server.route(openalex_path(doi), Reply(200, recording("openalex/works_doi_10.1073_pnas.1414271111.json", swap),
                                               JSON))
    else:
        server.route(openalex_path(doi), Reply(404, recording("openalex/works_doi_not_found_404.html"),
                                               {"Content-Type": "text/html"}))
    server.route(unpaywall_path(doi), Reply(200, recording("unpaywall/v2_10.1073_pnas.1414271111.json",
                                                           {**swap, PNAS_PDF_LISTED: pdf_url}), JSON))
    server.route(pdf_path, pdf if pdf is not None else Reply(200, pdf_bytes(), PDF))
    server.route(europepmc_pdf_path(PNAS_PMCID), epmc_pdf if epmc_pdf is not None else Reply(404, b"no such article"))
    return pdf_url


def serve_xgen(server: LoopbackServer) -> None:
    """A gold open-access paper whose only copy is a landing page: Crossref 404, OpenAlex and Unpaywall."""
    server.route(crossref_path(XGEN_DOI), Reply(404, recording("crossref/works_notarealdoi_404.txt")))
    server.route(openalex_path(XGEN_DOI), Reply(200, recording("openalex/works_doi_10.1016_j.xgen.2025.100814.json"),
                                                JSON))
    server.route(unpaywall_path(XGEN_DOI), Reply(200, recording("unpaywall/v2_10.1016_j.xgen.2025.100814.json"),
                                                 JSON))


def serve_arxiv(server: LoopbackServer, pdf: Reply | None = None, *, arxiv_ids: tuple[str, ...] = (ARXIV_ID,)) -> None:
    """The arXiv API answering for each id (the 1707.08567 recording, id rewritten) and their PDFs."""
    feeds = {i: recording("arxiv/id_list_1707.08567.xml", {ARXIV_ID: i} if i != ARXIV_ID else None)
             for i in arxiv_ids}

    def api(seen) -> Reply:
        asked = next((i for i in feeds if f"id_list={i}" in seen.query), None)
        return Reply(200, feeds[asked], {"Content-Type": "application/atom+xml"}) if asked else Reply(404)

    server.route("/arxiv/api/query", api)
    for arxiv_id in arxiv_ids:
        server.route(arxiv_pdf_path(arxiv_id), pdf if pdf is not None else Reply(200, pdf_bytes(arxiv_id), PDF))
