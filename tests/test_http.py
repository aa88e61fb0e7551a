"""HttpClient against a real loopback HTTPS server: policy, limits, retries, downloads, provenance."""
from __future__ import annotations

import functools
import gzip
import hashlib
import io
import json
import socket
import tarfile
import threading
import time
import tracemalloc
import zlib
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pymupdf
import pytest
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server, redirect, repeat  # noqa: F401

from doiget.errors import DoigetError, ErrorCode
from doiget.net.base import DEFAULT_BASES, HttpResponse
from doiget.net.cache import MemoryCache
from doiget.net.http import HttpClient, parse_retry_after
from doiget.net.policy import allowed_hosts, host_allowed, is_forbidden_address
from doiget.net.redact import redact_url
from doiget.net.throttle import Throttle

EMAIL = "agent.secret@example.org"
JSON = {"Content-Type": "application/json"}
PDF = {"Content-Type": "application/pdf"}


class FakeTime:
    """An injectable clock and sleep; sleeping advances the clock unless ``advance`` is off."""

    def __init__(self, advance: bool = True) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []
        self.advance = advance
        self._lock = threading.Lock()

    def clock(self) -> float:
        with self._lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            if self.advance:
                self.now += seconds


@pytest.fixture
def fake() -> FakeTime:
    return FakeTime()


@pytest.fixture
def records() -> list:
    """Provenance records of the test; none may ever contain the contact email."""
    seen: list = []
    yield seen
    assert EMAIL not in repr(seen)


@pytest.fixture
def make_client(client_ca, records, fake, monkeypatch, https_server):
    """Clients whose every source base points at the loopback server."""
    for source in DEFAULT_BASES:
        monkeypatch.setenv(f"DOIGET_{source.upper()}_BASE", https_server.url(""))
    made: list[HttpClient] = []

    def make(**overrides) -> HttpClient:
        options = dict(ca_bundle=client_ca, record=records.append, contact_email=EMAIL,
                       allow_private_hosts=frozenset({"127.0.0.1"}), rate_limits=False,
                       sleep=fake.sleep, clock=fake.clock, throttle=Throttle())
        options.update(overrides)
        made.append(HttpClient(**options))
        return made[-1]

    yield make
    for client in made:
        client.close()


@pytest.fixture
def client(make_client) -> HttpClient:
    return make_client()


@pytest.fixture
def dest(tmp_path: Path) -> Path:
    path = tmp_path / "incoming"
    path.mkdir()
    return path


def pdf_bytes(text: str = "Hello doiget") -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text)
    data = doc.tobytes()
    doc.close()
    return data


@functools.cache
def gzip_bomb(decoded_mib: int = 64) -> bytes:
    """A gzip stream of a PDF header then ``decoded_mib`` MiB of zeros (about 1000:1)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [packer.compress(b"%PDF-1.7\n")]
    zeros = bytes(1 << 20)
    parts += [packer.compress(zeros) for _ in range(decoded_mib)]
    return b"".join(parts) + packer.flush()


def raises(code: ErrorCode, call, *args, **kwargs) -> DoigetError:
    with pytest.raises(DoigetError) as info:
        call(*args, **kwargs)
    assert info.value.code is code, info.value.to_dict()
    return info.value


# --- plain requests and the contact email -------------------------------------------------------

def test_get_returns_json_and_records_one_attempt(client, https_server, records):
    body = json.dumps({"status": "ok", "message": {"DOI": "10.1/x"}}).encode()
    https_server.route("/works/10.1/x", Reply(200, body, JSON))
    response = client.get("crossref", https_server.url("/works/10.1/x"))
    assert response.status == 200 and not response.from_cache
    assert response.json("crossref")["message"]["DOI"] == "10.1/x"
    assert response.headers["content-type"] == "application/json"
    [record] = records
    assert (record.source, record.status, record.bytes, record.outcome) == ("crossref", 200, len(body), "ok")
    assert record.time.endswith("+00:00") and record.duration_ms >= 0


@pytest.mark.parametrize(("source", "param"), [("crossref", "mailto"), ("openalex", "mailto"),
                                               ("unpaywall", "email"), ("arxiv", None)])
def test_contact_email_sent_as_each_api_asks(client, https_server, records, source, param):
    https_server.route("/q", Reply(200, b"{}", JSON))
    response = client.get(source, https_server.url("/q"), params={"filter": "x"})
    [seen] = https_server.seen
    assert ("%s=%s" % (param, EMAIL.replace("@", "%40")) in seen.query) is (param is not None)
    assert seen.headers["user-agent"].endswith(f"(mailto:{EMAIL})")
    assert EMAIL not in response.url and EMAIL not in client.cache_key(source, "https://h/q", {"mailto": EMAIL})
    if param:
        assert f"{param}=REDACTED" in records[0].url


def test_contact_email_not_sent_to_publisher_hosts(client, https_server):
    https_server.route("/paper.pdf", Reply(200, pdf_bytes(), PDF))
    client.get("oa_pdf", https_server.url("/paper.pdf"))
    [seen] = https_server.seen
    assert EMAIL not in seen.headers["user-agent"] and EMAIL not in seen.query


def test_contact_email_absent_from_errors_and_logs(client, https_server, records, caplog):
    caplog.set_level("DEBUG", logger="doiget.http")
    https_server.route("/works/missing", Reply(404, b"Resource not found."))
    https_server.route("/works/echo", Reply(500, b"down"))
    err = raises(ErrorCode.NOT_FOUND, client.get, "crossref", https_server.url("/works/missing"),
                 params={"api_key": "k3y"})
    assert "mailto=REDACTED" in err.message and "api_key=REDACTED" in err.message
    err = raises(ErrorCode.UPSTREAM_ERROR, client.get, "crossref", https_server.url(f"/works/echo?to={EMAIL}"))
    for text in (err.message, repr(err.details), caplog.text, repr(records)):
        assert EMAIL not in text and "k3y" not in text
    assert records and caplog.text


def test_unknown_source_is_an_internal_error(client):
    raises(ErrorCode.INTERNAL_ERROR, client.get, "scihub", "https://example.org/")


# --- redirect and address policy ----------------------------------------------------------------

def test_redirect_within_allowlist_is_followed(client, https_server, records):
    https_server.route("/old", redirect("/new", 301))
    https_server.route("/new", Reply(200, b"{}", JSON))
    response = client.get("crossref", https_server.url("/old"))
    assert response.url.startswith(https_server.url("/new"))
    assert [(r.status, r.outcome) for r in records] == [(301, "ok"), (200, "ok")]
    assert "redirect to" in records[0].detail


def test_redirect_to_host_outside_allowlist_is_blocked(client, https_server, records):
    https_server.route("/a", redirect(https_server.url("/b", host="localhost")))
    err = raises(ErrorCode.BLOCKED, client.get, "crossref", https_server.url("/a"))
    assert err.details["reason"] == "host_not_allowed" and err.details["host"] == "localhost"
    assert https_server.hits("/b") == 0
    assert [r.outcome for r in records] == ["ok", "BLOCKED"] and records[1].status is None


@pytest.fixture
def connections(monkeypatch) -> list:
    """Every address httpcore opens a TCP connection to."""
    opened: list = []
    real = socket.create_connection

    def spy(address, *args, **kwargs):
        opened.append(address[0])
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", spy)
    return opened


@pytest.mark.parametrize("target", ["https://169.254.169.254/latest/meta-data/", "https://10.0.0.1/admin",
                                    "https://[::ffff:127.0.0.2]/", "https://[::1]:9/"])
def test_redirect_to_private_address_refused_before_connecting(client, https_server, records, connections, target):
    https_server.route("/pdf", redirect(target))
    err = raises(ErrorCode.BLOCKED, client.download, "oa_pdf", https_server.url("/pdf"), ".")
    assert err.details["reason"] == "private_address"
    assert connections == ["127.0.0.1"]  # only the first hop ever connected
    assert [r.outcome for r in records] == ["ok", "BLOCKED"]


def test_host_resolving_to_loopback_is_blocked_unless_exempt(make_client, https_server, monkeypatch, connections):
    monkeypatch.setenv("DOIGET_CROSSREF_BASE", https_server.url("", host="localhost"))
    https_server.route("/w", Reply(200, b"{}", JSON))
    err = raises(ErrorCode.BLOCKED, make_client().get, "crossref", https_server.url("/w", host="localhost"))
    assert (err.details["reason"], err.details["address"]) == ("private_address", "127.0.0.1")
    assert connections == [] and https_server.seen == []
    exempt = make_client(allow_private_hosts=frozenset({"localhost"}))
    assert exempt.get("crossref", https_server.url("/w", host="localhost")).status == 200


def test_http_urls_and_downgrade_redirects_are_blocked(client, https_server, records):
    https_server.route("/a", redirect(f"http://127.0.0.1:{https_server.port}/b"))
    err = raises(ErrorCode.BLOCKED, client.get, "crossref", https_server.url("/a"))
    assert err.details["reason"] == "not_https" and https_server.hits("/b") == 0
    err = raises(ErrorCode.BLOCKED, client.get, "crossref", f"http://127.0.0.1:{https_server.port}/a")
    assert err.details["reason"] == "not_https" and https_server.hits("/a") == 1
    assert [r.outcome for r in records] == ["ok", "BLOCKED", "BLOCKED"]


def test_redirect_loop_stops_after_ten_hops(client, https_server, records):
    https_server.route("/loop", redirect("/loop", 307))
    err = raises(ErrorCode.BLOCKED, client.get, "crossref", https_server.url("/loop"))
    assert err.details["reason"] == "too_many_redirects"
    assert https_server.hits("/loop") == 11
    assert [r.outcome for r in records] == ["ok"] * 11 + ["BLOCKED"]


# --- downloads ---------------------------------------------------------------------------------

def test_download_streams_a_pdf_to_a_temp_file(client, https_server, dest, records):
    data = pdf_bytes()
    https_server.route("/abs", redirect("/pdf/1707.08567"))
    https_server.route("/pdf/1707.08567", Reply(200, data, {"Content-Type": "application/pdf"}))
    got = client.download("arxiv_pdf", https_server.url("/abs"), dest)
    assert got.path.parent == dest and got.path.read_bytes() == data
    assert (got.sha256, got.size) == (hashlib.sha256(data).hexdigest(), len(data))
    assert got.content_type == "application/pdf" and got.final_url == https_server.url("/pdf/1707.08567")
    assert (records[-1].sha256, records[-1].bytes, records[-1].outcome) == (got.sha256, len(data), "ok")
    assert https_server.seen[-1].headers["accept-encoding"] == "gzip, deflate"


def test_download_decodes_gzip_transfer_and_accepts_any_bytes(client, https_server, dest):
    data = pdf_bytes("compressed in transit")
    https_server.route("/gz.pdf", Reply(200, gzip.compress(data), {"Content-Encoding": "gzip", **PDF}))
    https_server.route("/blob", Reply(200, b"\x00\x01 not a pdf", {"Content-Type": "application/octet-stream"}))
    assert client.download("oa_pdf", https_server.url("/gz.pdf"), dest).path.read_bytes() == data
    assert client.download("oa_pdf", https_server.url("/blob"), dest, expect=None).size == 12


def test_download_keeps_arxiv_source_archives_as_sent(client, https_server, dest):
    tex = gzip.compress(b"\\documentclass{article}")
    tar_buffer = io.BytesIO()
    with tarfile.open(fileobj=tar_buffer, mode="w") as tar:
        info = tarfile.TarInfo("main.tex")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"\\x "))
    https_server.route("/e-print/1", Reply(200, tex, {"Content-Encoding": "x-gzip",
                                                      "Content-Type": "application/x-eprint"}))
    https_server.route("/e-print/2", Reply(200, tar_buffer.getvalue(), {"Content-Type": "application/x-tar"}))
    https_server.route("/e-print/3", Reply(200, pdf_bytes(), PDF))
    first = client.download("arxiv_pdf", https_server.url("/e-print/1"), dest, expect="gzip_or_tar")
    assert first.path.read_bytes() == tex and https_server.seen[-1].headers["accept-encoding"] == "identity"
    second = client.download("arxiv_pdf", https_server.url("/e-print/2"), dest, expect="gzip_or_tar")
    assert tarfile.open(second.path).getnames() == ["main.tex"]
    err = raises(ErrorCode.UPSTREAM_ERROR, client.download, "arxiv_pdf", https_server.url("/e-print/3"), dest,
                 expect="gzip_or_tar")
    assert err.details["reason"] == "not_archive"
    assert sorted(dest.iterdir()) == sorted([first.path, second.path])


HTML = b"<!DOCTYPE html><html><body>" + b"Please log in. " * 200 + b"</body></html>"
FAILING_DOWNLOADS = {
    "404": (Reply(404, b"gone"), {}, ErrorCode.NOT_FOUND, None),
    "oversize_declared": (Reply(200, b"%PDF-" + bytes(5000), PDF), {"max_bytes": 1000}, ErrorCode.TOO_LARGE, None),
    "oversize_chunked": (Reply(200, repeat(b"%PDF-" + bytes(995), 50), PDF), {"max_bytes": 10_000},
                         ErrorCode.TOO_LARGE, None),
    "4GB_declared": (Reply(200, [b"%PDF-1.7\n"], {"Content-Length": str(4 << 30), **PDF}), {},
                     ErrorCode.TOO_LARGE, None),
    # a route that makes the bomb when asked, not in every process that collects this file
    "gzip_bomb": (lambda _seen: Reply(200, gzip_bomb(), {"Content-Encoding": "gzip", **PDF}), {"max_bytes": 1 << 20},
                  ErrorCode.TOO_LARGE, None),
    "html_content_type": (Reply(200, HTML, {"Content-Type": "text/html; charset=utf-8"}), {},
                          ErrorCode.UPSTREAM_ERROR, "not_pdf"),
    "html_labelled_pdf": (Reply(200, HTML, PDF), {}, ErrorCode.UPSTREAM_ERROR, "not_pdf"),
    "empty_pdf": (Reply(200, b"", PDF), {}, ErrorCode.UPSTREAM_ERROR, "not_pdf"),
    "truncated": (Reply(200, [b"%PDF-1.7\n" + bytes(2000)], {"Content-Length": "10000", **PDF}), {},
                  ErrorCode.NETWORK_ERROR, None),
    "dropped": (Reply(drop=True), {}, ErrorCode.NETWORK_ERROR, None),
    "slow_body": (Reply(200, repeat(b"%PDF-" + bytes(2000), 30, pause=0.05), PDF), {"deadline": 0.4},
                  ErrorCode.FETCH_TIMEOUT, "deadline"),
    "bad_encoding": (Reply(200, b"%PDF-1.7 not gzip", {"Content-Encoding": "gzip", **PDF}), {},
                     ErrorCode.UPSTREAM_ERROR, "bad_encoding"),
}


@pytest.mark.parametrize("case", FAILING_DOWNLOADS)
def test_failing_download_leaves_nothing_behind(client, https_server, dest, records, case):
    reply, kwargs, code, reason = FAILING_DOWNLOADS[case]
    https_server.route("/paper.pdf", reply)
    started = time.monotonic()
    err = raises(code, client.download, "oa_pdf", https_server.url("/paper.pdf"), dest, **kwargs)
    assert time.monotonic() - started < 1.0  # the slow body alone would take 1.5 s
    if reason:
        assert err.details["reason"] == reason
    assert list(dest.iterdir()) == []
    assert records[-1].outcome == code.value and records[-1].sha256 is None


def test_four_gigabyte_declaration_refused_without_reading(client, https_server, dest, records):
    https_server.route("/huge.pdf", FAILING_DOWNLOADS["4GB_declared"][0])
    started = time.monotonic()
    err = raises(ErrorCode.TOO_LARGE, client.download, "oa_pdf", https_server.url("/huge.pdf"), dest)
    assert time.monotonic() - started < 2 and err.details["declared"] == 4 << 30
    assert records[-1].bytes == 0


def test_gzip_bomb_refused_with_bounded_memory(client, https_server, dest, records):
    bomb = gzip_bomb()
    assert len(bomb) < (1 << 20) // 8  # ~64 KiB on the wire, 64 MiB decoded
    https_server.route("/bomb.pdf", Reply(200, bomb, {"Content-Encoding": "gzip", **PDF}))
    tracemalloc.start()
    try:
        raises(ErrorCode.TOO_LARGE, client.download, "oa_pdf", https_server.url("/bomb.pdf"), dest,
               max_bytes=4 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak
    assert (4 << 20) < records[-1].bytes <= (4 << 20) + 64 * 1024


def test_get_caps_response_size_too(make_client, https_server):
    https_server.route("/big", Reply(200, gzip_bomb(), {"Content-Encoding": "gzip", **JSON}))
    https_server.route("/small.gz", Reply(200, gzip.compress(b'{"a": 1}'), {"Content-Encoding": "gzip", **JSON}))
    client = make_client(max_response_bytes=1 << 20)
    raises(ErrorCode.TOO_LARGE, client.get, "openalex", https_server.url("/big"))
    assert client.get("openalex", https_server.url("/small.gz")).json("openalex") == {"a": 1}


def test_unwritable_destination_is_a_store_error(client, https_server, tmp_path):
    https_server.route("/p.pdf", Reply(200, pdf_bytes(), PDF))
    raises(ErrorCode.STORE_ERROR, client.download, "oa_pdf", https_server.url("/p.pdf"), tmp_path / "missing")


# --- retries, timeouts, cool-downs --------------------------------------------------------------

def test_429_retry_after_seconds_is_honoured(client, https_server, fake, records):
    https_server.route("/w", [Reply(429, b"", {"Retry-After": "7"}), Reply(200, b"{}", JSON)])
    assert client.get("crossref", https_server.url("/w")).status == 200
    assert fake.sleeps == [7.0]
    assert [(r.status, r.outcome) for r in records] == [(429, "RATE_LIMITED"), (200, "ok")]
    assert "retrying in 7 s" in records[0].detail


def test_retry_after_http_date_is_honoured(client, https_server, fake):
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=20), usegmt=True)
    https_server.route("/w", [Reply(503, b"", {"Retry-After": when}), Reply(200, b"{}", JSON)])
    assert client.get("crossref", https_server.url("/w")).status == 200
    [waited] = fake.sleeps
    assert 17 < waited <= 20


def test_retry_after_beyond_cap_is_rate_limited_at_once(client, https_server, fake, records):
    https_server.route("/w", Reply(429, b"", {"Retry-After": "3600"}))
    err = raises(ErrorCode.RATE_LIMITED, client.get, "crossref", https_server.url("/w"))
    assert err.details["retry_after"] == 3600 and fake.sleeps == [] and https_server.hits("/w") == 1
    assert records[-1].outcome == "RATE_LIMITED"


def test_persistent_429_gives_up_after_three_retries(client, https_server, fake):
    https_server.route("/w", Reply(429))
    raises(ErrorCode.RATE_LIMITED, client.get, "crossref", https_server.url("/w"))
    assert https_server.hits("/w") == 4 and fake.sleeps == [1.0, 2.0, 4.0]


def test_503_then_success(client, https_server, fake, records):
    https_server.route("/w", [Reply(503), Reply(200, b"{}", JSON)])
    assert client.get("crossref", https_server.url("/w")).status == 200
    assert fake.sleeps == [1.0] and [r.outcome for r in records] == ["UPSTREAM_ERROR", "ok"]


def test_listed_statuses_are_returned_not_raised(client, https_server):
    https_server.route("/w", Reply(404, b"Resource not found."))
    assert client.get("crossref", https_server.url("/w"), ok_statuses=(200, 404)).status == 404


def test_slow_headers_time_out(make_client, https_server, records):
    https_server.route("/slow", Reply(200, b"{}", JSON, delay=1.0))
    client = make_client(read_timeout=0.2)
    started = time.monotonic()
    raises(ErrorCode.FETCH_TIMEOUT, client.get, "crossref", https_server.url("/slow"))
    assert time.monotonic() - started < 0.9
    assert records[-1].outcome == "FETCH_TIMEOUT"


def test_failed_source_cools_down_without_touching_the_network(client, https_server, fake, records):
    https_server.route("/w", [Reply(drop=True), Reply(200, b"{}", JSON)])
    raises(ErrorCode.NETWORK_ERROR, client.get, "crossref", https_server.url("/w"))
    fake.now += 20
    err = raises(ErrorCode.NETWORK_ERROR, client.get, "crossref", https_server.url("/w"))
    assert "cooling down for 10 s" in err.message and err.details["cooling_down"] is True
    assert https_server.hits("/w") == 1 and records[-1].outcome == "NETWORK_ERROR"
    assert client.get("openalex", https_server.url("/w")).status == 200  # other sources unaffected
    fake.now += 11
    assert client.get("crossref", https_server.url("/w")).status == 200


def test_5xx_after_retries_cools_down_but_404_does_not(client, https_server):
    https_server.route("/down", Reply(502))
    https_server.route("/missing", Reply(404))
    raises(ErrorCode.UPSTREAM_ERROR, client.get, "europepmc", https_server.url("/down"))
    raises(ErrorCode.UPSTREAM_ERROR, client.get, "europepmc", https_server.url("/missing"))
    assert https_server.hits("/down") == 4 and https_server.hits("/missing") == 0
    raises(ErrorCode.NOT_FOUND, client.get, "bioc", https_server.url("/missing"))
    raises(ErrorCode.NOT_FOUND, client.get, "bioc", https_server.url("/missing"))
    assert https_server.hits("/missing") == 2


def test_truncated_json_is_an_upstream_error(client, https_server):
    https_server.route("/w", Reply(200, b'{"message": {"title": ["Attention', JSON))
    response = client.get("crossref", https_server.url("/w"))
    err = raises(ErrorCode.UPSTREAM_ERROR, response.json, "crossref")
    assert "crossref" in err.message


# --- rate limits ---------------------------------------------------------------------------------

def test_arxiv_requests_are_spaced_three_seconds(make_client, https_server, fake):
    https_server.route("/api/query", Reply(200, b"<feed/>"))
    client = make_client(rate_limits=True)
    for _ in range(3):
        client.get("arxiv", https_server.url("/api/query"))
    assert fake.sleeps == [3.0, 3.0]
    client.get("ar5iv", https_server.url("/api/query"))  # same lane: arXiv's hosts share one budget
    assert fake.sleeps == [3.0, 3.0, 3.0]


def test_global_limit_holds_across_threads_and_clients(make_client, https_server):
    https_server.route("/w", Reply(200, b"{}", JSON))
    frozen, throttle = FakeTime(advance=False), Throttle()
    clients = [make_client(rate_limits=True, throttle=throttle, sleep=frozen.sleep, clock=frozen.clock)
               for _ in range(2)]
    threads = [threading.Thread(target=clients[i % 2].get, args=("crossref", https_server.url("/w")))
               for i in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(frozen.sleeps) == pytest.approx([0.2 * k for k in range(1, 10)])


def test_arxiv_uses_one_connection_at_a_time(make_client, https_server):
    def fetch_in_parallel(source: str) -> int:
        client = make_client(rate_limits=True)
        https_server.reset()
        https_server.route("/pdf/1", Reply(200, pdf_bytes(), PDF, delay=0.1))
        threads = [threading.Thread(target=client.get, args=(source, https_server.url("/pdf/1")))
                   for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert https_server.hits("/pdf/1") == 4
        return https_server.max_in_flight

    assert fetch_in_parallel("arxiv_pdf") == 1
    assert fetch_in_parallel("crossref") > 1


def test_rate_limits_can_be_lifted_by_env(make_client, https_server, fake, monkeypatch):
    monkeypatch.setenv("DOIGET_RATE_LIMITS", "off")
    https_server.route("/api/query", Reply(200, b"<feed/>"))
    client = make_client(rate_limits=None)
    for _ in range(3):
        client.get("arxiv", https_server.url("/api/query"))
    assert fake.sleeps == []


# --- cache and settings ----------------------------------------------------------------------------

def test_cache_serves_repeats_and_records_hits(make_client, https_server, records):
    https_server.route("/works", Reply(200, b'{"n": 1}', JSON))
    https_server.route("/missing", Reply(404))
    cache = MemoryCache()
    client = make_client(cache=cache)
    first = client.get("crossref", https_server.url("/works"), params={"rows": 2, "filter": "a"})
    again = client.get("crossref", https_server.url("/works"), params={"filter": "a", "rows": 2})
    assert (first.from_cache, again.from_cache, again.content) == (False, True, b'{"n": 1}')
    assert https_server.hits("/works") == 1 and records[-1].from_cache and records[-1].outcome == "ok"
    client.get("crossref", https_server.url("/works"), params={"rows": 2, "filter": "a"}, cache=False)
    client.get("crossref", https_server.url("/missing"), ok_statuses=(200, 404))
    client.get("crossref", https_server.url("/missing"), ok_statuses=(200, 404))
    assert https_server.hits("/works") == 2 and https_server.hits("/missing") == 2  # only 200s are kept
    bypass = make_client(cache=cache, no_cache=True)
    bypass.get("crossref", https_server.url("/works"), params={"rows": 2, "filter": "a"})
    assert https_server.hits("/works") == 3
    key = client.cache_key("crossref", https_server.url("/works"), {"rows": 2, "filter": "a"})
    assert key == f"crossref GET {https_server.url('/works')}?filter=a&rows=2"


def test_memory_cache_expires_entries():
    now = [0.0]
    cache = MemoryCache(clock=lambda: now[0])
    cache.put("k", HttpResponse(200, "https://x/", b"{}"), ttl_seconds=10)
    assert cache.get("k") is not None
    now[0] = 10.0
    assert cache.get("k") is None


def test_settings_from_environment(https_server, client_ca, monkeypatch):
    monkeypatch.setenv("DOIGET_CA_BUNDLE", str(client_ca))
    monkeypatch.setenv("DOIGET_ALLOW_PRIVATE_HOSTS", " 127.0.0.1 , ::1")
    monkeypatch.setenv("DOIGET_OPENALEX_BASE", https_server.url(""))
    https_server.route("/works/W1", Reply(200, b"{}", JSON))
    with HttpClient(rate_limits=False, throttle=Throttle()) as client:
        assert client.get("openalex", https_server.url("/works/W1")).status == 200
    monkeypatch.delenv("DOIGET_ALLOW_PRIVATE_HOSTS")
    with HttpClient(rate_limits=False, throttle=Throttle()) as client:
        raises(ErrorCode.BLOCKED, client.get, "openalex", https_server.url("/works/W1"))
    assert https_server.hits("/works/W1") == 1


def test_untrusted_certificate_is_a_network_error(https_server):
    https_server.route("/w", Reply(200, b"{}"))
    with HttpClient(allow_private_hosts=frozenset({"127.0.0.1"}), rate_limits=False, throttle=Throttle()) as client:
        err = raises(ErrorCode.NETWORK_ERROR, client.get, "oa_pdf", https_server.url("/w"))
    assert "CERTIFICATE_VERIFY_FAILED" in err.message


# --- pure helpers --------------------------------------------------------------------------------

@pytest.mark.parametrize(("address", "forbidden"), [
    ("8.8.8.8", False), ("2606:4700:4700::1111", False), ("127.0.0.1", True), ("10.1.2.3", True),
    ("172.16.0.1", True), ("192.168.1.1", True), ("169.254.169.254", True), ("100.64.0.1", True),
    ("0.0.0.0", True), ("224.0.0.1", True), ("240.0.0.1", True), ("::1", True), ("::", True),
    ("fe80::1%eth0", True), ("fc00::1", True), ("ff02::1", True), ("::ffff:10.0.0.1", True),
    ("::ffff:8.8.8.8", True), ("2002:a00:1::", True), ("64:ff9b::a00:1", True),
])
def test_forbidden_addresses(address, forbidden):
    assert is_forbidden_address(address) is forbidden


def test_host_patterns_and_base_overrides(monkeypatch):
    assert host_allowed("api.crossref.org", {"api.crossref.org"})
    assert host_allowed("Export.ArXiv.org.", {"*.arxiv.org"}) and not host_allowed("arxiv.org", {"*.arxiv.org"})
    assert not host_allowed("evilarxiv.org", {"*.arxiv.org"})
    assert allowed_hosts("oa_pdf") is None
    assert allowed_hosts("bioc") == {"www.ncbi.nlm.nih.gov"}
    monkeypatch.setenv("DOIGET_BIOC_BASE", "https://mirror.example.net/bioc")
    assert allowed_hosts("bioc") == {"www.ncbi.nlm.nih.gov", "mirror.example.net"}


def test_redact_url():
    url = f"https://user:pw@api.example.org/works?mailto={EMAIL}&rows=2&api_key=s3&q={EMAIL}#frag"
    assert redact_url(url, [EMAIL]) == (
        "https://api.example.org/works?mailto=REDACTED&rows=2&api_key=REDACTED&q=REDACTED")
    assert redact_url("https://h/p?b=2&a=1", sort=True) == "https://h/p?a=1&b=2"


def test_parse_retry_after():
    now = datetime(2025, 1, 1, tzinfo=UTC)
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after("Wed, 01 Jan 2025 00:00:30 GMT", now) == 30.0
    assert parse_retry_after("Tue, 31 Dec 2024 00:00:00 GMT", now) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
