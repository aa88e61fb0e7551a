"""The contact email and other secrets never leave doiget's own requests: redaction of URLs and text."""
from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

SECRET_PARAMS = frozenset({"mailto", "email", "api_key", "apikey", "key", "token", "access_token"})
REDACTED = "REDACTED"


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (plain or percent-encoded) replaced by REDACTED."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED).replace(quote(secret, safe=""), REDACTED)
    return text


def redact_url(url: str, secrets: Iterable[str] = (), *, sort: bool = False) -> str:
    """``url`` without userinfo or fragment, secret query values (mailto, email, key, token...) redacted."""
    parts = urlsplit(url)
    query = [(k, REDACTED if k.lower() in SECRET_PARAMS else v)
             for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    if sort:
        query.sort()
    netloc = parts.netloc.rpartition("@")[2]
    return scrub(urlunsplit((parts.scheme, netloc, parts.path, urlencode(query), "")), secrets)
