"""Hardened XML parsing shared by the XML-based extractors.

Refused with INVALID_INPUT: entity declarations and external entity references (billion laughs,
XXE), an internal DTD subset, a DOCTYPE whose system identifier is not a bare ``*.dtd`` file name
or an NLM/NCBI DTD URL (publishers' JATS and PubMed name those; doiget never loads any DTD), and
element nesting deeper than :data:`doiget.fulltext.guard.MAX_DEPTH` (extractors walk the tree
recursively). Parsing checks the extraction deadline as it goes.
"""
from __future__ import annotations

import re
from xml.etree.ElementTree import Element, TreeBuilder

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser, ParseError

from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext import guard

_DTD_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.dtd")
_DTD_URL = re.compile(r"https?://(?:[a-z0-9-]+\.)*(?:nlm\.nih\.gov|ncbi\.nlm\.nih\.gov)/[!-~]{1,300}\.dtd")


class _GuardedParser(DefusedXMLParser):
    """Callbacks raise DoigetError, which expat passes through ``feed``."""

    def __init__(self, what: str) -> None:
        super().__init__(target=TreeBuilder(), forbid_dtd=False, forbid_entities=True, forbid_external=True)
        self.parser.StartDoctypeDeclHandler = self._check_doctype
        self._what = what
        self._depth = 0

    def _check_doctype(self, name: str, sysid: str | None, pubid: str | None, has_internal_subset: int) -> None:
        if has_internal_subset:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"{self._what} refused: it declares an internal "
                                       "DTD subset", limit="dtd")
        if sysid is not None and not (_DTD_FILE.fullmatch(sysid) or _DTD_URL.fullmatch(sysid)):
            raise DoigetError(ErrorCode.INVALID_INPUT, f"{self._what} refused: its DOCTYPE refers to the "
                                       f"external DTD {sysid[:200]!r}, which is neither a bare .dtd file name nor "
                                       "an NLM DTD (doiget never loads DTDs)", limit="dtd")

    def _start(self, tag, attr_list):
        self._depth += 1
        if self._depth > guard.MAX_DEPTH:
            raise guard.too_deep(self._what)
        guard.check()
        return super()._start(tag, attr_list)

    def _end(self, tag):
        self._depth -= 1
        return super()._end(tag)


def parse_xml(data: bytes, what: str) -> Element:
    """Parse untrusted XML under the rules above."""
    parser = _GuardedParser(what)
    try:
        parser.feed(data)
        return parser.close()
    except DefusedXmlException as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{what} refused: {exc}") from exc
    except ParseError as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"{what} is not well-formed XML: {exc}") from exc


def local(tag: object) -> str:
    """Element name without its namespace (``{ns}math`` -> ``math``); '' for comments/PIs."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""
