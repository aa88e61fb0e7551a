"""The only way doiget reaches the network: one HTTPS client that enforces every fetch rule.

Rules (see docs/HTTP.md): https only; redirects followed by hand, every hop checked against the
source's host allowlist and resolved first so private, loopback, link-local, reserved, multicast
and unspecified addresses are refused before any connection; process-wide rate limits;
timeouts plus a total deadline per attempt; retry with backoff on 429/5xx honouring Retry-After;
a cool-down for failing sources; streamed, size-capped, magic-checked downloads; and one
provenance record per request attempt. The contact email is sent upstream as each API asks but
is redacted from every URL, message, log line and cache key doiget produces.
"""
from __future__ import annotations

import email.utils
import hashlib
import logging
import os
import socket
import ssl
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from doiget import __version__
from doiget.errors import DoigetError, ErrorCode
from doiget.net.base import PDF_MAGIC_WINDOW, Download, HttpResponse, ProvenanceRecord, looks_like_pdf
from doiget.net.cache import ResponseCache
from doiget.net.policy import (
    CACHE_TTL,
    CONNECT_TIMEOUT,
    COOLDOWN,
    DEADLINE,
    MAX_DOWNLOAD_BYTES,
    MAX_REDIRECTS,
    MAX_RESPONSE_BYTES,
    MAX_RETRIES,
    READ_TIMEOUT,
    allowed_hosts,
    env_flag_off,
    env_private_hosts,
    host_allowed,
    is_forbidden_address,
)
from doiget.net.redact import redact_url, scrub
from doiget.net.urlguard import redirect_target, refusal_of, vet_host
from doiget.net.throttle import SHARED_THROTTLE, Throttle, nothing

log = logging.getLogger("doiget.http")
# httpx logs every request URL at INFO, query and all: the contact email would reach the log.
# HttpClient._finish logs its own line per request with the URL redacted.
logging.getLogger("httpx").setLevel(logging.WARNING)

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
CHUNK = 64 * 1024
NOT_BINARY_TYPES = frozenset({"text/html", "application/xhtml+xml", "application/json"})
EXPECT_REASON: dict[str | None, str | None] = {"pdf": "not_pdf", "gzip_or_tar": "not_archive", None: None}


# --- pure helpers -----------------------------------------------------------------------------

def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds a Retry-After header asks for (delta-seconds or HTTP-date); None if absent or garbled."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _decoded(raw: Iterator[bytes], encoding: str) -> Iterator[bytes]:
    """Undo gzip/deflate in steps of at most CHUNK output bytes, so a compression bomb never inflates at once."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        yield from raw
        return
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise DoigetError(ErrorCode.UPSTREAM_ERROR, f"unsupported content-encoding {encoding!r}",
                          reason="bad_encoding")
    inflater = zlib.decompressobj(wbits=zlib.MAX_WBITS | 32)  # | 32: accept gzip or zlib headers
    try:
        for data in raw:
            while data:
                out = inflater.decompress(data, CHUNK)
                data = inflater.unconsumed_tail
                if out:
                    yield out
        tail = inflater.flush()
    except zlib.error as exc:
        raise DoigetError(ErrorCode.UPSTREAM_ERROR, f"corrupt {encoding} body: {exc}", reason="bad_encoding") from exc
    if tail:
        yield tail


# --- the client --------------------------------------------------------------------------------

@dataclass
class _Attempt:
    source: str
    url: str
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="milliseconds"))
    t0: float = field(default_factory=time.perf_counter)
    status: int | None = None
    bytes: int = 0
    sha256: str | None = None


@dataclass
class _Exchange:
    attempt: _Attempt
    response: httpx.Response
    release: Callable[[], None]
    deadline_at: float


class HttpClient:
    """The :class:`~doiget.net.base.Http` implementation; safe to share between threads.

    Private-address refusal is check-then-connect: each hop's host is resolved and vetted,
    then httpx resolves it again to connect, so a DNS answer that changes in between (DNS
    rebinding) is not caught. Allowlisted API hosts make that matter only for ``oa_pdf``.
    ``allow_private_hosts`` (or ``$DOIGET_ALLOW_PRIVATE_HOSTS``, comma-separated) names URL
    hosts exempt from the check, for tests and local mirrors. ``rate_limits=False`` (or
    ``$DOIGET_RATE_LIMITS=off``) lifts pacing for benchmarks. ``ca_bundle`` (or
    ``$DOIGET_CA_BUNDLE``) replaces the system trust store. ``sleep`` and ``clock``
    (monotonic seconds, used for pacing and cool-downs) are injectable for tests. ``record``
    receives a :class:`ProvenanceRecord` per attempt, from whichever thread made it.
    Environment proxies and netrc are ignored: the checks above assume a direct connection.
    """

    def __init__(self, *, contact_email: str | None = None,
                 record: Callable[[ProvenanceRecord], None] | None = None,
                 cache: ResponseCache | None = None, no_cache: bool = False,
                 cache_ttl: float = CACHE_TTL,
                 allow_private_hosts: frozenset[str] | None = None,
                 rate_limits: bool | None = None, ca_bundle: str | os.PathLike[str] | None = None,
                 connect_timeout: float = CONNECT_TIMEOUT, read_timeout: float = READ_TIMEOUT,
                 deadline: float = DEADLINE, max_response_bytes: int = MAX_RESPONSE_BYTES,
                 max_retries: int = MAX_RETRIES, backoff: float = 1.0,
                 max_retry_after: float = 60.0, cooldown: float = COOLDOWN,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 throttle: Throttle | None = None) -> None:
        self._email = contact_email or None
        self._record = record
        self._cache = cache
        self._no_cache = no_cache
        self._cache_ttl = cache_ttl
        if allow_private_hosts is None:
            allow_private_hosts = env_private_hosts()
        self._allow_private = frozenset(h.lower().strip("[]") for h in allow_private_hosts)
        self._rate_limits = (not env_flag_off("DOIGET_RATE_LIMITS")) if rate_limits is None else rate_limits
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._deadline = deadline
        self._max_response_bytes = max_response_bytes
        self._max_retries = max_retries
        self._backoff = backoff
        self._max_retry_after = max_retry_after
        self._cooldown = cooldown
        self._sleep = sleep
        self._clock = clock
        self._throttle = throttle or SHARED_THROTTLE
        ca_bundle = ca_bundle or os.environ.get("DOIGET_CA_BUNDLE") or None
        verify: ssl.SSLContext | bool = ssl.create_default_context(cafile=os.fspath(ca_bundle)) if ca_bundle else True
        self._http = httpx.Client(verify=verify, trust_env=False, follow_redirects=False)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # public API

    def get(self, source: str, url: str, *, params: dict[str, Any] | None = None,
            headers: dict[str, str] | None = None, ok_statuses: tuple[int, ...] = (200,),
            cache: bool = True, validate: Callable[[HttpResponse], object] | None = None) -> HttpResponse:
        """Fetch ``url`` for ``source``; statuses in ``ok_statuses`` return (with the redacted final URL),
        others raise DoigetError. ``validate`` (e.g. a parser) runs on a fresh response before it is
        cached, so an answer that does not parse is never served again from the cache."""
        use_cache = cache and self._cache is not None
        key = self.cache_key(source, url, params) if use_cache else ""
        if use_cache and not self._no_cache:
            hit = self._cache.get(key)
            if hit is not None:
                self._note_cache_hit(source, hit)
                return replace(hit, from_cache=True)
        with self._exchange(source, url, params, headers, ok_statuses, self._deadline, decode=True) as ex:
            body = b"".join(self._body(ex, self._max_response_bytes, decode=True))
            response = HttpResponse(status=ex.response.status_code, url=ex.attempt.url, content=body,
                                    headers={k.lower(): v for k, v in ex.response.headers.items()})
        if validate is not None:
            validate(response)
        if use_cache and response.status == 200:
            self._cache.put(key, response, self._cache_ttl)
        return response

    def download(self, source: str, url: str, dest_dir: str | os.PathLike[str], *,
                 params: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
                 max_bytes: int = MAX_DOWNLOAD_BYTES, expect: str | None = "pdf",
                 deadline: float | None = None) -> Download:
        """Stream ``url`` into a temp file in ``dest_dir``, hashing it; nothing is left behind on failure.

        ``expect``: "pdf" (``%PDF-`` in the first KiB), "gzip_or_tar" (kept exactly as sent, so
        the cap applies to the stored bytes) or None (any bytes). Other bodies are decoded
        (gzip/deflate) and the cap applies to the decoded size.
        """
        if expect not in EXPECT_REASON:
            raise DoigetError(ErrorCode.INTERNAL_ERROR, f"unknown download expectation {expect!r}")
        decode = expect != "gzip_or_tar"
        with self._exchange(source, url, params, headers, (200,), deadline or self._deadline, decode) as ex:
            content_type = ex.response.headers.get("content-type")
            mime = (content_type or "").split(";")[0].strip().lower()
            if expect and mime in NOT_BINARY_TYPES:
                raise self._not_expected(source, ex.attempt.url, expect, content_type)
            path = self._stream_to_temp(ex, Path(dest_dir), max_bytes, expect, decode, content_type)
        return Download(path=path, sha256=ex.attempt.sha256 or "", size=ex.attempt.bytes,
                        content_type=content_type, final_url=ex.attempt.url)

    def cache_key(self, source: str, url: str, params: dict[str, Any] | None = None) -> str:
        """The redacted cache key of a GET: source, method and URL with sorted params."""
        full = str(httpx.URL(url).copy_merge_params(params)) if params else url
        return f"{source} GET {redact_url(full, self._secrets, sort=True)}"

    # request machinery

    @property
    def _secrets(self) -> tuple[str, ...]:
        return (self._email,) if self._email else ()

    def _redact(self, url: str) -> str:
        return redact_url(url, self._secrets)

    def _params(self, source: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        name = {"crossref": "mailto", "openalex": "mailto", "unpaywall": "email"}.get(source)
        if not (self._email and name):
            return params
        return {name: self._email, **(params or {})}

    def _headers(self, source: str, extra: dict[str, str] | None, decode: bool) -> dict[str, str]:
        # Publisher hosts reached via Unpaywall are arbitrary: they do not get the email.
        agent = f"doiget/{__version__}"
        if self._email and source != "oa_pdf":
            agent += f" (mailto:{self._email})"
        return {"User-Agent": agent, "Accept-Encoding": "gzip, deflate" if decode else "identity",
                **(extra or {})}

    @contextmanager
    def _exchange(self, source: str, url: str, params: dict[str, Any] | None,
                  headers: dict[str, str] | None, ok_statuses: tuple[int, ...], deadline: float,
                  decode: bool) -> Iterator[_Exchange]:
        """The final response of ``url`` after redirects and retries, its attempt recorded on exit."""
        allow = allowed_hosts(source)
        key = f"{source}:{(urlsplit(url).hostname or '').lower()}"
        self._refuse_if_cooling(source, key, url)
        try:
            ex = self._request(source, url, self._params(source, params),
                               self._headers(source, headers, decode), allow, ok_statuses, deadline)
        except DoigetError as err:
            self._maybe_cool(key, err)
            raise
        try:
            yield ex
        except DoigetError as err:
            self._finish(ex.attempt, err)
            self._maybe_cool(key, err)
            raise
        except BaseException as exc:
            self._finish(ex.attempt, exc)
            raise
        else:
            self._finish(ex.attempt, None)
        finally:
            ex.response.close()
            ex.release()

    def _request(self, source: str, url: str, params: dict[str, Any] | None, headers: dict[str, str],
                 allow: frozenset[str] | None, ok_statuses: tuple[int, ...], deadline: float) -> _Exchange:
        """Follow redirects, retrying 429/5xx with backoff; returns an ok response or raises."""
        attempt = 0
        while True:
            ex = self._follow(source, url, params, headers, allow, deadline)
            status = ex.response.status_code
            if status in ok_statuses:
                return ex
            ex.response.close()
            ex.release()
            err = self._status_error(source, ex.attempt.url, status)
            wait: float | None = None
            if status == 429 or status >= 500:
                asked = parse_retry_after(ex.response.headers.get("retry-after"))
                if asked is not None and asked > self._max_retry_after:
                    err = DoigetError(ErrorCode.RATE_LIMITED,
                                      f"{source} asks to wait {asked:.0f} s (more than {self._max_retry_after:.0f} s)",
                                      source=source, status=status, retry_after=asked)
                elif attempt < self._max_retries:
                    wait = asked if asked is not None else self._backoff * 2 ** attempt
            if wait is None:
                self._finish(ex.attempt, err)
                raise err
            self._finish(ex.attempt, err, f"HTTP {status}; retrying in {wait:g} s")
            log.info("%s answered %s; retry %d in %g s", source, status, attempt + 1, wait)
            self._sleep(wait)
            attempt += 1

    def _follow(self, source: str, url: str, params: dict[str, Any] | None, headers: dict[str, str],
                allow: frozenset[str] | None, deadline: float) -> _Exchange:
        """Send one attempt, following up to MAX_REDIRECTS redirects, each hop vetted first."""
        deadline_at: float | None = None
        for _ in range(MAX_REDIRECTS + 1):
            attempt = _Attempt(source, self._redact(url))
            try:
                target = httpx.URL(url).copy_merge_params(params) if params else httpx.URL(url)
                attempt.url = self._redact(str(target))
                self._vet(source, target, allow)
            except httpx.InvalidURL as exc:
                err = DoigetError(ErrorCode.BLOCKED, f"{source}: invalid URL {attempt.url}", reason="invalid_url")
                self._finish(attempt, err)
                raise err from exc
            except DoigetError as err:
                self._finish(attempt, err)
                raise
            release = self._throttle.acquire(source, self._clock, self._sleep) if self._rate_limits else nothing
            deadline_at = deadline_at or time.monotonic() + deadline
            try:
                request = self._http.build_request("GET", target, headers=headers,
                                                   timeout=self._timeouts(deadline_at))
                response = self._http.send(request, stream=True)
            except BaseException as exc:
                release()
                err = refusal_of(source, exc) or (
                    self._transport_error(source, attempt.url, exc) if isinstance(exc, httpx.HTTPError) else None)
                self._finish(attempt, err or exc)
                if err:
                    raise err from exc
                raise
            attempt.status = response.status_code
            location = response.headers.get("location")
            if response.status_code not in REDIRECT_STATUSES or not location:
                return _Exchange(attempt, response, release, deadline_at)
            response.close()
            release()
            try:
                url, params = redirect_target(source, str(target), location, self._redact(location)), None
            except DoigetError as err:  # the hop itself answered fine; its target is refused
                self._finish(attempt, None, f"redirect to {self._redact(location)}")
                self._finish(_Attempt(source, self._redact(location)), err)
                raise
            self._finish(attempt, None, f"redirect to {self._redact(url)}")
        refused = _Attempt(source, self._redact(url))
        err = DoigetError(ErrorCode.BLOCKED, f"{source}: more than {MAX_REDIRECTS} redirects",
                          source=source, reason="too_many_redirects")
        self._finish(refused, err)
        raise err

    def _vet(self, source: str, target: httpx.URL, allow: frozenset[str] | None) -> None:
        """Refuse a hop that is not https, leaves the allowlist or resolves to a non-public address."""
        shown = self._redact(str(target))
        if target.scheme != "https":
            raise DoigetError(ErrorCode.BLOCKED, f"{source}: refusing non-https URL {shown}",
                              source=source, reason="not_https")
        host = target.raw_host.decode("ascii").lower()
        if not host:
            raise DoigetError(ErrorCode.BLOCKED, f"{source}: URL without a host: {shown}",
                              source=source, reason="invalid_url")
        if allow is not None and not host_allowed(host, allow):
            raise DoigetError(ErrorCode.BLOCKED, f"{source}: host {host} is not allowed for this source",
                              source=source, reason="host_not_allowed", host=host)
        vet_host(source, target, host, self._allow_private)
        if host in self._allow_private:
            return
        try:
            infos = socket.getaddrinfo(host, target.port or 443, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise DoigetError(ErrorCode.NETWORK_ERROR, f"{source}: cannot resolve {host}: {exc}",
                              source=source, host=host) from exc
        for info in infos:
            address = str(info[4][0])
            if is_forbidden_address(address):
                raise DoigetError(ErrorCode.BLOCKED, f"{source}: {host} resolves to non-public address {address}",
                                  source=source, reason="private_address", host=host, address=address)

    def _timeouts(self, deadline_at: float) -> httpx.Timeout:
        left = max(0.001, deadline_at - time.monotonic())
        connect, read = min(self._connect_timeout, left), min(self._read_timeout, left)
        return httpx.Timeout(connect=connect, read=read, write=read, pool=connect)

    def _body(self, ex: _Exchange, max_bytes: int, decode: bool) -> Iterator[bytes]:
        """The response body in chunks, capped at ``max_bytes`` and bounded by the deadline."""
        source, url = ex.attempt.source, ex.attempt.url
        length = ex.response.headers.get("content-length", "")
        if length.isdigit() and int(length) > max_bytes:
            raise self._too_large(source, url, max_bytes, int(length))
        raw = ex.response.iter_raw()  # no chunk_size: httpx would buffer up to it, defeating the deadline
        chunks = _decoded(raw, ex.response.headers.get("content-encoding", "")) if decode else raw
        try:
            for chunk in chunks:
                ex.attempt.bytes += len(chunk)
                if ex.attempt.bytes > max_bytes:
                    raise self._too_large(source, url, max_bytes)
                if time.monotonic() > ex.deadline_at:
                    raise DoigetError(ErrorCode.FETCH_TIMEOUT, f"{source}: {url} exceeded its deadline",
                                      source=source, reason="deadline")
                yield chunk
        except httpx.HTTPError as exc:
            raise self._transport_error(source, url, exc) from exc

    def _stream_to_temp(self, ex: _Exchange, dest: Path, max_bytes: int, expect: str | None,
                        decode: bool, content_type: str | None) -> Path:
        source, url = ex.attempt.source, ex.attempt.url
        try:
            fd, name = tempfile.mkstemp(prefix=".doiget-", suffix=".part", dir=dest)
        except OSError as exc:
            raise DoigetError(ErrorCode.STORE_ERROR, f"cannot create a download file in {dest}: {exc}") from exc
        path = Path(name)
        try:
            digest, head, checked = hashlib.sha256(), b"", expect is None
            with os.fdopen(fd, "wb") as out:
                for chunk in self._body(ex, max_bytes, decode):
                    digest.update(chunk)
                    out.write(chunk)
                    if not checked and len(head) < PDF_MAGIC_WINDOW:
                        head += chunk[:PDF_MAGIC_WINDOW - len(head)]
                    if not checked and len(head) >= PDF_MAGIC_WINDOW:
                        self._check_magic(source, url, expect, head, content_type)
                        checked = True
                if not checked:
                    self._check_magic(source, url, expect, head, content_type)
                out.flush()
                os.fsync(out.fileno())
            ex.attempt.sha256 = digest.hexdigest()
            return path
        except OSError as exc:
            path.unlink(missing_ok=True)
            raise DoigetError(ErrorCode.STORE_ERROR, f"cannot write download into {dest}: {exc}") from exc
        except BaseException:
            path.unlink(missing_ok=True)
            raise

    def _check_magic(self, source: str, url: str, expect: str | None, head: bytes,
                     content_type: str | None) -> None:
        ok = looks_like_pdf(head) if expect == "pdf" else (
            head[:2] == b"\x1f\x8b" or head[257:262] == b"ustar")
        if not ok:
            raise self._not_expected(source, url, expect, content_type)

    # errors, cool-downs and records

    @staticmethod
    def _not_expected(source: str, url: str, expect: str | None, content_type: str | None) -> DoigetError:
        return DoigetError(ErrorCode.UPSTREAM_ERROR, f"{source}: {url} is not a {expect} (content-type {content_type})",
                           source=source, reason=EXPECT_REASON[expect], content_type=content_type)

    @staticmethod
    def _too_large(source: str, url: str, limit: int, declared: int | None = None) -> DoigetError:
        size = f"declares {declared} bytes" if declared is not None else "sent more"
        return DoigetError(ErrorCode.TOO_LARGE, f"{source}: {url} {size} than the {limit}-byte limit",
                           source=source, limit=limit, declared=declared)

    @staticmethod
    def _status_error(source: str, url: str, status: int) -> DoigetError:
        if status in (404, 410):
            return DoigetError(ErrorCode.NOT_FOUND, f"{source}: nothing at {url} (HTTP {status})",
                               source=source, status=status)
        if status == 429:
            return DoigetError(ErrorCode.RATE_LIMITED, f"{source} kept answering 429 Too Many Requests",
                               source=source, status=status)
        return DoigetError(ErrorCode.UPSTREAM_ERROR, f"{source} answered HTTP {status} for {url}",
                           source=source, status=status)

    def _transport_error(self, source: str, url: str, exc: BaseException) -> DoigetError:
        if isinstance(exc, httpx.TimeoutException):
            return DoigetError(ErrorCode.FETCH_TIMEOUT, f"{source}: timed out fetching {url}", source=source)
        reason = scrub(str(exc), self._secrets) or type(exc).__name__
        return DoigetError(ErrorCode.NETWORK_ERROR, f"{source}: network error fetching {url}: {reason}",
                           source=source)

    def _maybe_cool(self, key: str, err: DoigetError) -> None:
        status = err.details.get("status")
        if err.code in (ErrorCode.NETWORK_ERROR, ErrorCode.FETCH_TIMEOUT) or (
                err.code is ErrorCode.UPSTREAM_ERROR and isinstance(status, int) and status >= 500):
            self._throttle.cool(key, self._clock() + self._cooldown, err)
            log.warning("%s cooling down for %g s: %s", key, self._cooldown, err.message)

    def _refuse_if_cooling(self, source: str, key: str, url: str) -> None:
        cooling = self._throttle.cooling(key, self._clock())
        if cooling is None:
            return
        left, cause = cooling
        err = DoigetError(cause.code, f"{source} is cooling down for {left:.0f} s after a failure: {cause.message}",
                          source=source, cooling_down=True, retry_after=left)
        self._finish(_Attempt(source, self._redact(url)), err)
        raise err

    def _note_cache_hit(self, source: str, hit: HttpResponse) -> None:
        attempt = _Attempt(source, hit.url, status=hit.status, bytes=len(hit.content))
        self._finish(attempt, None, "cache hit", from_cache=True)

    def _finish(self, attempt: _Attempt, outcome: BaseException | None, detail: str = "",
                from_cache: bool = False) -> None:
        if isinstance(outcome, DoigetError):
            code, detail = outcome.code.value, detail or outcome.message
        elif outcome is not None:
            code, detail = ErrorCode.INTERNAL_ERROR.value, detail or type(outcome).__name__
        else:
            code = "ok"
        record = ProvenanceRecord(
            time=attempt.started, source=attempt.source, method="GET", url=attempt.url,
            status=attempt.status, bytes=attempt.bytes, sha256=attempt.sha256,
            duration_ms=round((time.perf_counter() - attempt.t0) * 1000), outcome=code,
            detail=scrub(detail, self._secrets), from_cache=from_cache)
        log.log(logging.DEBUG if code == "ok" else logging.INFO, "GET %s [%s] -> %s %s %s",
                record.url, record.source, record.status, record.outcome, record.detail)
        if self._record is not None:
            self._record(record)
