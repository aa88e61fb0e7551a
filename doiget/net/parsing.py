"""What every source module shares: record fetching, safe XML, tag stripping, dates, and the errors raised."""
from __future__ import annotations

import html
import re
from typing import Any
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from doiget.errors import DoigetError, ErrorCode
from doiget.refs import Ref, try_parse
from doiget.net.base import Http, json_body

_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def upstream_error(source: str, what: str) -> DoigetError:
    """The error a parser raises when ``source`` answered something it cannot use."""
    return DoigetError(ErrorCode.UPSTREAM_ERROR, f"{source} answered {what}", source=source)


def get_record(http: Http, source: str, url: str, missing: str, *, cache: bool = True) -> Any:
    """GET one JSON record; an HTTP 404/410 becomes NOT_FOUND with the message ``missing``.
    ``cache=False`` asks the source itself (a refresh), neither reading nor writing the response cache."""
    try:
        return http.get(source, url, cache=cache, validate=json_body(source)).json(source)
    except DoigetError as exc:
        if exc.code is ErrorCode.NOT_FOUND:
            raise DoigetError(ErrorCode.NOT_FOUND, missing, source=source) from exc
        raise


def parse_xml(source: str, content: bytes) -> Element:
    """Parse an XML body, refusing DTD entity declarations and external references."""
    try:
        return fromstring(content, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise upstream_error(source, f"XML with a forbidden construct ({type(exc).__name__})") from exc
    except ParseError as exc:
        raise upstream_error(source, f"malformed XML: {exc}") from exc


def require_dict(source: str, data: Any, what: str) -> dict:
    if not isinstance(data, dict):
        raise upstream_error(source, f"{what} that is not a JSON object")
    return data


def clean(text: str | None) -> str | None:
    """Whitespace collapsed to single spaces; None for empty."""
    if text is None:
        return None
    text = _SPACE.sub(" ", text).strip()
    return text or None


def strip_tags(text: str | None) -> str | None:
    """Markup (JATS, HTML) removed, entities decoded, whitespace collapsed."""
    if not text:
        return None
    return clean(html.unescape(_TAG.sub(" ", text)))


def date_parts(parts: Any) -> tuple[int | None, str | None]:
    """``[[2012, 3, 21]]`` -> ``(2012, "2012-03-21")``; partial dates keep what is known."""
    if not (isinstance(parts, list) and parts and isinstance(parts[0], list)):
        return None, None
    numbers = [p for p in parts[0] if isinstance(p, int)]
    if not numbers:
        return None, None
    text = f"{numbers[0]:04d}" + "".join(f"-{n:02d}" for n in numbers[1:3])
    return numbers[0], text


def year_of(date: str | None) -> int | None:
    """The year of an ISO-like date string (``2017-07-27T08:18:33Z`` -> 2017)."""
    if date and re.match(r"^\d{4}", date):
        return int(date[:4])
    return None


def ref_from(kind: str, value: Any) -> Ref | None:
    """A Ref of ``kind`` from an upstream value (bare id or URL), or None if it is not one."""
    if value in (None, ""):
        return None
    value = str(value).strip()
    ref = try_parse(value)
    if ref is not None and ref.kind == kind:
        return ref
    try:
        return Ref.of(kind, value)
    except DoigetError:
        return None


def ref_id(kind: str, value: Any) -> str | None:
    ref = ref_from(kind, value)
    return ref.id if ref else None
