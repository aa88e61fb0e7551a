"""Hardened XML parsing shared by the XML-based extractors."""
from __future__ import annotations

from xml.etree.ElementTree import Element

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring

from doiget.errors import DoigetError, ErrorCode


def parse_xml(data: bytes, what: str) -> Element:
    """Parse untrusted XML; entity declarations and external references are refused."""
    try:
        return fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{what} refused: {exc}") from exc
    except ParseError as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{what} is not well-formed XML: {exc}") from exc


def local(tag: object) -> str:
    """Element name without its namespace (``{ns}math`` -> ``math``); '' for comments/PIs."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""
