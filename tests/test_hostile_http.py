"""Every refused URL or redirect is BLOCKED with a reason an agent can act on — never
NETWORK_ERROR, NOT_FOUND or a raw httpx exception — and nothing is connected to after the hop
that sent the redirect."""
from __future__ import annotations

import pytest

from doiget.errors import ErrorCode
from loopback import _loopback_ca, _loopback_server, client_ca, https_server, redirect  # noqa: F401
from test_http import client, connections, fake, make_client, raises, records  # noqa: F401

REASONS = {"private_address", "not_https", "host_not_allowed", "invalid_url"}

REFUSED_REDIRECTS = {
    "octal-ipv4": ("https://0177.0.0.1/", "invalid_url"),
    "short-ipv4": ("https://127.1/", "private_address"),
    "integer-ipv4": ("https://2130706433/", "private_address"),
    "hex-ipv4": ("https://0x7f.1/", "private_address"),
    "localhost-dot": ("https://localhost./x", "private_address"),
    "sub-localhost": ("https://a.localhost/x", "private_address"),
    "link-local-scope": ("https://[fe80::1%lo]/", "private_address"),
    "link-local-scope-escaped": ("https://[fe80::1%25lo]/", "private_address"),
    "unspecified-v6": ("https://[::]/", "private_address"),
    "metadata": ("https://169.254.169.254/latest/meta-data/", "private_address"),
    "scheme-relative-metadata": ("//169.254.169.254/", "private_address"),
    "nul-in-host": ("https://exa\x00mple.com/", "invalid_url"),
    "escaped-nul-in-host": ("https://exa%00mple.com/", "invalid_url"),
    "empty-host": ("https:///path", "invalid_url"),
    "no-host": ("https://", "invalid_url"),
    "double-dot-host": ("https://a..b/", "invalid_url"),
    "port-out-of-range": ("https://example.org:99999/", "invalid_url"),
    "javascript": ("javascript:alert(1)", "invalid_url"),  # httpx cannot build a request for it
    "data": ("data:text/html,hi", "invalid_url"),
    "file": ("file:///etc/passwd", "not_https"),
    "http": ("http://example.org/", "not_https"),
}


@pytest.mark.parametrize("how", ["get", "download"])
@pytest.mark.parametrize("case", REFUSED_REDIRECTS)
def test_refused_redirect_is_blocked_with_a_reason(client, https_server, records, connections, tmp_path, case, how):
    location, reason = REFUSED_REDIRECTS[case]
    https_server.route("/r", redirect(location))
    call = (lambda: client.get("oa_pdf", https_server.url("/r"))) if how == "get" else (
        lambda: client.download("oa_pdf", https_server.url("/r"), tmp_path))
    err = raises(ErrorCode.BLOCKED, call)
    assert err.details["reason"] == reason, err.to_dict()
    assert connections == ["127.0.0.1"]  # only the hop that answered with the redirect
    assert list(tmp_path.iterdir()) == []
    assert "\x00" not in err.message


@pytest.mark.parametrize("url, reason", [
    ("https://127.1/x", "private_address"), ("https://localhost./x", "private_address"),
    ("https://[fe80::1%25eth0]/", "private_address"), ("https://exa%00mple.com/", "invalid_url"),
    ("javascript:alert(1)", "not_https"),
])
def test_refused_first_hop_is_blocked_before_connecting(client, connections, url, reason):
    err = raises(ErrorCode.BLOCKED, client.get, "oa_pdf", url)
    assert err.details["reason"] == reason and connections == []


def test_exempt_private_host_still_connects(client, https_server):
    """``allow_private_hosts`` (127.0.0.1 in these tests) keeps working for literal addresses."""
    https_server.route("/ok", redirect("/final"))
    https_server.route("/final", redirect("https://127.0.0.1:1/"))  # exempt, then connection refused
    err = raises(ErrorCode.NETWORK_ERROR, client.get, "oa_pdf", https_server.url("/ok"))
    assert "reason" not in err.details or err.details["reason"] not in REASONS
