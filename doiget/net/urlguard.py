"""What the HTTP client checks about a URL before any DNS lookup or connection: the redirect
``Location`` itself, the host's spelling, and hosts that are addresses in disguise.

Every refusal is BLOCKED with ``reason`` one of ``not_https`` (any scheme but https),
``invalid_url`` (no host, a host that is no hostname, a port out of range, a Location httpx cannot
parse: ``javascript:``, ``data:``, ``0177.0.0.1``) or ``private_address`` (``localhost`` in any
spelling, an IP literal in any notation — ``127.1``, ``2130706433``, ``0x7f.1``, ``[fe80::1%lo]`` —
that is not public); the client adds ``host_not_allowed`` for allowlists. MCP shows three of them
as the seed spec's ``denial_context.reason`` (``insecure_scheme``, ``ssrf_private_address``,
``redirect_not_in_allowlist``); ``invalid_url`` has no value in that closed enum, so its MCP error
has no ``denial_context`` and says ``invalid_url`` in ``details.reason``.
"""
from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urljoin, urlsplit

import httpx

from doiget.errors import DoigetError, ErrorCode
from doiget.net.policy import is_forbidden_address

_HOSTNAME = re.compile(r"(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.?")
_LEGACY_IPV4 = re.compile(r"[0-9a-fx.]+")  # inet_aton forms: 127.1, 2130706433, 0x7f.1, 0177.0.0.1


def blocked(source: str, message: str, reason: str, **details: object) -> DoigetError:
    return DoigetError(ErrorCode.BLOCKED, f"{source}: {message}", source=source, reason=reason, **details)


def redirect_target(source: str, current: str, location: str, shown: str) -> str:
    """The absolute URL a ``Location`` header points to, or BLOCKED before anything is resolved.
    ``shown`` is the redacted Location for messages."""
    parts = urlsplit(location.strip())
    if parts.scheme and parts.scheme.lower() != "https":
        raise blocked(source, f"refusing a redirect to non-https {shown[:200]}", "not_https")
    if (parts.scheme or location.strip().startswith("//")) and not parts.hostname:
        raise blocked(source, f"refusing a redirect to a URL without a host: {shown[:200]}", "invalid_url")
    return urljoin(current, location)


def literal_address(host: str) -> str | None:
    """The IP address ``host`` spells in any notation a resolver accepts, or None for a name."""
    bare = host.rstrip(".")
    try:
        return str(ipaddress.ip_address(bare.split("%", 1)[0]))
    except ValueError:
        pass
    if _LEGACY_IPV4.fullmatch(bare):
        try:
            return socket.inet_ntoa(socket.inet_aton(bare))
        except OSError:
            return None
    return None


def vet_host(source: str, url: httpx.URL, host: str, allow_private: frozenset[str]) -> None:
    """Refuse a host that is not a hostname or IP literal, a bad port, and (unless exempt)
    localhost names and non-public IP literals — all without a DNS lookup."""
    if url.port is not None and not 0 < url.port < 65536:
        raise blocked(source, f"port {url.port} out of range", "invalid_url", host=host)
    address = literal_address(host)
    if address is None and not _HOSTNAME.fullmatch(host):
        raise blocked(source, f"{host[:100]!r} is not a valid host name", "invalid_url")
    if host in allow_private:
        return
    name = host.rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        raise blocked(source, f"{host} is a loopback name", "private_address", host=host,
                      address="127.0.0.1")  # RFC 6761: localhost names are loopback
    if address is not None and is_forbidden_address(address):
        raise blocked(source, f"{host} is the non-public address {address}", "private_address", host=host,
                      address=address)


def refusal_of(source: str, exc: BaseException) -> DoigetError | None:
    """BLOCKED(invalid_url) for what httpx raises on an unusable ``Location`` while reading a
    redirect; None for any other failure."""
    if isinstance(exc, httpx.InvalidURL):
        return blocked(source, f"refusing a redirect to an invalid URL ({exc})", "invalid_url")
    if isinstance(exc, httpx.RemoteProtocolError) and "location" in str(exc).lower():
        return blocked(source, "refusing a redirect whose Location header is not a valid URL", "invalid_url")
    return None
