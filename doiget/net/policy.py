"""The network rules in one place: which hosts each source may reach, which addresses are never
contacted, rate limits, size caps, timeouts, retries and cool-downs, and the report of them all."""
from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from doiget.errors import DoigetError, ErrorCode
from doiget.net.base import DEFAULT_BASES, base_url
from doiget.net.redact import redact_url

MIB = 1024 * 1024
#: Hosts each source may reach, exact or ``*.suffix``; None (``oa_pdf``) means any public host.
ALLOWED_HOSTS: dict[str, tuple[str, ...] | None] = {
    "crossref": ("api.crossref.org",),
    "unpaywall": ("api.unpaywall.org",),
    "arxiv": ("export.arxiv.org", "arxiv.org"),
    "arxiv_pdf": ("arxiv.org", "export.arxiv.org"),
    "ar5iv": ("ar5iv.labs.arxiv.org", "ar5iv.org", "arxiv.org"),
    "openalex": ("api.openalex.org",),
    "europepmc": ("www.ebi.ac.uk", "europepmc.org"),
    "europepmc_pdf": ("europepmc.org", "www.ebi.ac.uk"),
    "bioc": ("www.ncbi.nlm.nih.gov",),
    "oa_pdf": None,
}
MAX_REDIRECTS = 10
GLOBAL_INTERVAL = 0.2  # seconds between any two requests: 5 requests/s
ARXIV_INTERVAL = 3.0  # arXiv asks for one request per 3 s, over one connection
ARXIV_SOURCES = ("arxiv", "arxiv_pdf", "ar5iv")
MAX_DOWNLOAD_BYTES = 100 * MIB
MAX_RESPONSE_BYTES = 20 * MIB
CONNECT_TIMEOUT, READ_TIMEOUT, DEADLINE = 10.0, 30.0, 300.0
MAX_RETRIES = 3
COOLDOWN = 30.0
CACHE_TTL = 7 * 24 * 3600


def allowed_hosts(source: str) -> frozenset[str] | None:
    """Host patterns ``source`` may reach; a ``DOIGET_<SOURCE>_BASE`` override's host is added."""
    if source not in ALLOWED_HOSTS:
        raise DoigetError(ErrorCode.INTERNAL_ERROR, f"unknown HTTP source {source!r}")
    hosts = ALLOWED_HOSTS[source]
    if hosts is None:
        return None
    if source in DEFAULT_BASES:
        hosts += (urlsplit(base_url(source)).hostname or "",)
    return frozenset(h.lower() for h in hosts if h)


def host_allowed(host: str, patterns: Iterable[str]) -> bool:
    """True if ``host`` equals a pattern or is a subdomain of a ``*.suffix`` pattern."""
    host = host.lower().rstrip(".")
    return any(host == p or (p.startswith("*.") and host.endswith(p[1:])) for p in patterns)


def is_forbidden_address(address: str) -> bool:
    """True for any address that is not plainly public, including IPv4 embedded in IPv6."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is not None and is_forbidden_address(str(embedded)):
            return True
    return (not ip.is_global or ip.is_private or ip.is_loopback or ip.is_link_local
            or ip.is_reserved or ip.is_multicast or ip.is_unspecified)


def env_flag_off(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("off", "0", "false", "no")


def env_private_hosts() -> frozenset[str]:
    env = os.environ.get("DOIGET_ALLOW_PRIVATE_HOSTS", "")
    return frozenset(h.strip().lower().strip("[]") for h in env.split(",") if h.strip())


def network_policy() -> dict[str, Any]:
    """The network rules a default :class:`HttpClient` in this process applies (no secrets):
    each source's base URL (and whether an env var overrides it), allowed hosts, rate limits,
    size caps, timeouts, retries, cool-down, cache TTL and the test/mirror exemptions."""
    sources = []
    for source, hosts in ALLOWED_HOSTS.items():
        default = DEFAULT_BASES.get(source)
        base = base_url(source) if default else None
        allowed = allowed_hosts(source)
        sources.append({"name": source, "base_url": redact_url(base) if base else None,
                        "overridden": bool(default) and base != default.rstrip("/"),
                        "allowed_hosts": sorted(allowed) if allowed is not None else "any public host"})
    return {
        "sources": sources,
        "rate_limits": {"enabled": not env_flag_off("DOIGET_RATE_LIMITS"),
                        "global_requests_per_second": round(1 / GLOBAL_INTERVAL, 3),
                        "arxiv": {"sources": list(ARXIV_SOURCES), "seconds_between_requests": ARXIV_INTERVAL,
                                  "connections": 1}},
        "size_caps": {"pdf_bytes": MAX_DOWNLOAD_BYTES, "response_bytes": MAX_RESPONSE_BYTES},
        "timeouts_seconds": {"connect": CONNECT_TIMEOUT, "read": READ_TIMEOUT, "deadline": DEADLINE},
        "retries": MAX_RETRIES, "cooldown_seconds": COOLDOWN, "cache_ttl_seconds": CACHE_TTL,
        "max_redirects": MAX_REDIRECTS, "https_only": True,
        "private_hosts_allowed": sorted(env_private_hosts()),
        "custom_ca_bundle": bool(os.environ.get("DOIGET_CA_BUNDLE")),
    }
