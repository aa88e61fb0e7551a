"""Done when: an arXiv paper and a PMC paper stored in the library can be read page by page and found
by a phrase inside them, over MCP (real stdio client) and the CLI (subprocess). Full text is fetched
from the loopback HTTPS server through the real HttpClient."""
from __future__ import annotations

import base64
import json

import anyio
import pytest
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server  # noqa: F401
from mcp import Client
from mcp.shared.exceptions import MCPError
from pdfgen import sample_paper
from test_jats_import import JATS as PAPERS_JATS
from test_mcp import server_params
from test_tex import MAIN, METHODS, tarball

from cli_process import run_doiget
from doiget.config import load_config
from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext import extract_ar5iv, extract_jats
from doiget.library import Library
from doiget.mcp.server import LibraryHolder, call_tool
from doiget.models import Work
from doiget.net.base import DEFAULT_BASES

HTML = "ar5iv/latexml_0.8.8_shamkanov_companion_trimmed.html"
JATS = PAPERS_JATS / "PMC5828200.nxml"
ARXIV_PHRASE, PMC_PHRASE = "Lyndon interpolation property", "46 million patients"


@pytest.fixture
def loopback_env(https_server, client_ca, monkeypatch, upstream):
    """Every source pointed at the loopback server, which serves the ar5iv page, the JATS and an e-print."""
    env = {f"DOIGET_{source.upper()}_BASE": https_server.url("") for source in DEFAULT_BASES}
    env.update(DOIGET_ALLOW_PRIVATE_HOSTS="127.0.0.1", DOIGET_CA_BUNDLE=str(client_ca), DOIGET_RATE_LIMITS="off")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    https_server.route("/html/1707.08567", Reply(200, (upstream / HTML).read_bytes(), {"Content-Type": "text/html"}))
    https_server.route("/PMC5828200/fullTextXML", Reply(200, JATS.read_bytes(),
                                                        {"Content-Type": "application/xml"}))
    https_server.route("/e-print/1707.08567", Reply(200, tarball({"paper.tex": MAIN.encode(),
                                                                 "sections/methods.tex": METHODS.encode()}),
                                                    {"Content-Type": "application/x-eprint-tar"}))
    return env


@pytest.fixture
def home(tmp_path, loopback_env, https_server):
    """A library holding an arXiv paper whose ar5iv HTML and e-print were fetched, and a PMC paper (not yet)."""
    home = tmp_path / "lib"
    with Library(load_config(home)) as lib:
        lib.add(Work(arxiv="1707.08567", title="A Companion to Shamkanov's Circular Proofs"))
        lib.add(Work(pmcid="PMC5828200", title="Curcuminoid submicron particle"))
        fetched = lib.fetch_fulltext("arXiv:1707.08567")
        assert [a.status for a in fetched.alternates] == ["stored", "missing", "missing"]
        tex = lib.tex_source("arXiv:1707.08567", max_chars=100)
        assert tex.downloaded and tex.main_file == "paper.tex" and tex.next_offset == len(tex.text)
        assert lib.tex_source("arXiv:1707.08567").downloaded is False
        lib.add(Work(arxiv="2101.01234", title="PDF-only submission"))
        https_server.route("/e-print/2101.01234", Reply(200, sample_paper(), {"Content-Type": "application/pdf"}))
        with pytest.raises(DoigetError) as err:
            lib.tex_source("arXiv:2101.01234")
        assert err.value.code is ErrorCode.NOT_FOUND and "not a gzip_or_tar" in err.value.message
        assert lib.info("arXiv:2101.01234").artefacts == []
        assert lib.sql("SELECT count(*) FROM v_fetch_log WHERE outcome = 'ok'")["rows"] == [[2]]
    return home


async def mcp_session(home, env, steps):
    """Run ``steps(client)`` against ``doiget serve`` spawned over stdio."""
    params = server_params(home, **env)
    async with Client(params) as client:
        return await steps(client)


async def call(client, name, arguments):
    result = await client.call_tool(name, arguments)
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def test_read_and_find_both_papers_over_mcp(home, loopback_env, upstream, tmp_path):
    html_text = extract_ar5iv((upstream / HTML).read_bytes()).text
    jats_text = extract_jats(JATS.read_bytes()).text
    pdf = sample_paper(doi="10.5555/imported.1")

    async def steps(client):
        out = {"fetch": await call(client, "doiget_fetch_fulltext", {"ref": "PMC5828200"})}
        for ref in ("arXiv:1707.08567", "PMC5828200"):
            pages, offset = [], 0
            while offset is not None:
                page = await call(client, "doiget_paper_text", {"ref": ref, "offset": offset, "max_chars": 2500})
                assert page["ok"], page
                pages.append(page)
                offset = page["next_offset"]
            out[ref] = pages
        out["hits"] = [await call(client, "doiget_search_fulltext", {"query": f'"{phrase}"'})
                       for phrase in (ARXIV_PHRASE, PMC_PHRASE)]
        out["templates"] = (await client.list_resource_templates()).resource_templates
        first = out["arXiv:1707.08567"][0]
        out["resource"] = (await client.read_resource(first["resource_uri"])).contents[0]
        out["next"] = (await client.read_resource(out["resource"].meta["next_uri"])).contents[0]
        out["metadata"] = (await client.read_resource(f"doiget://entry/{first['id']}/metadata")).contents[0]
        out["resource_errors"] = []
        for uri in ("doiget://entry/999/metadata", "doiget://entry/1/text?offset=x", "https://example.org/"):
            with pytest.raises(MCPError) as err:
                await client.read_resource(uri)
            out["resource_errors"].append(err.value)
        out["added"] = await call(client, "doiget_add_pdf", {"content_base64": base64.b64encode(pdf).decode()})
        out["pdf_page"] = await call(client, "doiget_paper_text", {"ref": "10.5555/imported.1", "page": 3})
        crows = (PAPERS_JATS / "PMC6398430.nxml").read_bytes()
        out["jats"] = await call(client, "doiget_add_pdf", {"content_base64": base64.b64encode(crows).decode(),
                                                            "format": "jats"})
        out["tex"] = await call(client, "doiget_paper_tex_source", {"ref": "arXiv:1707.08567", "max_chars": 50})
        out["bad"] = [await call(client, "doiget_add_pdf", {"content_base64": base64.b64encode(b"GIF89a").decode()}),
                      await call(client, "doiget_add_pdf", {"content_base64": "not base64!"}),
                      await call(client, "doiget_search_fulltext", {"query": "(unbalanced"})]
        return out

    out = anyio.run(mcp_session, home, loopback_env, steps)
    assert [a["status"] for a in out["fetch"]["alternates"]] == ["missing", "stored", "skipped"]
    for ref, text, source in (("arXiv:1707.08567", html_text, "ar5iv"), ("PMC5828200", jats_text, "jats")):
        pages = out[ref]
        assert "".join(p["text"] for p in pages) == text and len(pages) >= 3
        assert {p["source"] for p in pages} == {source} and pages[-1]["next_uri"] is None
    arxiv_hit, pmc_hit = (result["hits"][0] for result in out["hits"])
    assert arxiv_hit["ref"] == "arxiv:1707.08567" and f"**{ARXIV_PHRASE}**" in arxiv_hit["snippet"]
    assert pmc_hit["ref"] == "pmcid:PMC5828200" and f"**{PMC_PHRASE}**" in pmc_hit["snippet"]
    assert ARXIV_PHRASE in html_text[arxiv_hit["char_start"]:arxiv_hit["char_end"]]

    assert {t.uri_template for t in out["templates"]} == {"doiget://entry/{id}/metadata",
                                                          "doiget://entry/{id}/text{?offset,max_chars}"}
    first = out["arXiv:1707.08567"][0]
    assert out["resource"].mime_type == "text/markdown"
    assert out["resource"].text == html_text[:len(out["resource"].text)]
    assert out["resource"].meta["content_sha256"] == first["content_sha256"]
    assert out["next"].text.startswith(html_text[out["resource"].meta["next_offset"]:][:50])
    assert json.loads(out["metadata"].text)["arxiv"] == "1707.08567"
    assert [e.code for e in out["resource_errors"]] == [-32002, -32602, -32602]
    assert out["resource_errors"][0].message.startswith("NOT_FOUND")

    assert out["added"]["ok"] and out["added"]["identified_by"] == "doi" and out["added"]["duplicate"] is False
    assert out["added"]["text_uri"] == f"doiget://entry/{out['added']['entry']['id']}/text"
    assert out["pdf_page"]["text"].startswith("## 3 Measurements") and out["pdf_page"]["page_range"] == [3, 3]
    assert out["tex"]["main_file"] == "paper.tex" and out["tex"]["downloaded"] is False
    assert out["jats"]["ok"] and out["jats"]["entry"]["doi"] == "10.1093/beheco/ary157"
    assert (out["jats"]["references"], out["jats"]["citation_edges"]) == (80, 80)
    assert [b["error"]["code"] for b in out["bad"]] == ["INVALID_INPUT", "INVALID_INPUT", "INVALID_QUERY"]


def test_add_pdf_size_cap_is_checked_before_decoding(home, monkeypatch):
    monkeypatch.setattr("doiget.mcp.tools.fulltext.MAX_PDF_BASE64", 8)
    holder = LibraryHolder(load_config(home))
    try:
        # Not even valid base64: the cap is hit before decoding is attempted.
        result = call_tool(holder, "doiget_add_pdf", {"content_base64": "%" * 9})
    finally:
        holder.close()
    assert result["error"]["code"] == "TOO_LARGE"


def cli(home, *args):
    return run_doiget(home, *args, env={"DOIGET_PROFILE": "offline"})


def test_read_and_find_both_papers_from_the_cli(home, upstream, tmp_path):
    with Library(load_config(home)) as lib:
        lib.fetch_fulltext("PMC5828200")
    for ref, phrase, text in (("arXiv:1707.08567", ARXIV_PHRASE, extract_ar5iv((upstream / HTML).read_bytes()).text),
                              ("PMC5828200", PMC_PHRASE, extract_jats(JATS.read_bytes()).text)):
        grep = cli(home, "grep", f'"{phrase}"')
        assert grep.returncode == 0 and f"**{phrase}**" in grep.stdout
        assert grep.stdout.startswith(f"1. {ref.lower() if ref.startswith('arXiv') else 'pmcid:' + ref}")
        pieces, offset = [], 0
        while offset is not None:
            page = json.loads(cli(home, "--json", "text", ref, "--offset", str(offset), "--max-chars", "4000").stdout)
            pieces.append(page["text"])
            offset = page["next_offset"]
        assert "".join(pieces) == text and len(pieces) >= 2
    human = cli(home, "text", "PMC5828200", "--max-chars", "500")
    assert human.stdout.startswith("# Curcuminoid submicron particle")
    assert "next: doiget text pmcid:PMC5828200 --offset" in human.stdout

    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(sample_paper())
    added = cli(home, "add", str(pdf), str(pdf))
    assert added.returncode == 0, added.stderr
    first, second, summary = added.stdout.splitlines()
    assert summary == "2 added, 0 failed"
    assert first.startswith(f"{pdf}: added doi:10.1234/test.doc-42")
    assert second.startswith(f"{pdf}: already stored as doi:10.1234/test.doc-42")
    page = cli(home, "text", "10.1234/test.doc-42", "--page", "2")
    assert page.stdout.startswith("## 2 Two Column Results") and "page 2 of 5" in page.stdout
    assert "**RIGHTCOL**" in cli(home, "grep", "RIGHTCOL", "--ref", "10.1234/test.doc-42", "-n", "1").stdout

    reindex = cli(home, "--json", "reindex")
    report = json.loads(reindex.stdout)
    assert reindex.returncode == 0 and report["artefacts"] == 4 and report["indexed"] == 4 and report["changed"] == 0
    missing = cli(home, "text", "10.9999/absent")
    assert missing.returncode == 1 and "NOT_FOUND" in missing.stderr
    bad = cli(home, "grep", "AND")
    assert bad.returncode == 1 and "INVALID_QUERY" in bad.stderr
