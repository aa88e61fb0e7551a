"""Formatted references: CSL-JSON items rendered in a citation style with citeproc-py.

A style is a bundled name (``STYLES``) or the path of any ``.csl`` file. Output is plain text or
HTML, one string per reference, in the style's bibliography order (numeric styles number them in
the order given).
"""
from __future__ import annotations

import warnings
from importlib import resources
from pathlib import Path
from typing import Any

from doiget.errors import DoigetError, ErrorCode

STYLES = ("apa", "vancouver", "nature", "ieee", "mla", "ama", "harvard")
FORMATS = ("text", "html")
# CSL-JSON keys doiget writes that are not CSL variables (citeproc-py warns about them).
NOT_CSL = ("custom", "citation-key")


def style_path(style: str) -> Path:
    """The CSL file for a bundled style name or a path to a ``.csl`` file."""
    if style in STYLES:
        return Path(str(resources.files(__package__).joinpath("styles", f"{style}.csl")))
    path = Path(style).expanduser()
    if path.suffix == ".csl" and path.is_file():
        return path
    raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown style {style!r}: give one of {', '.join(STYLES)} "
                                               "or the path of a .csl file")


def format_references(items: list[dict[str, Any]], style: str = "apa", fmt: str = "text") -> list[str]:
    """Each CSL-JSON item rendered as a bibliography entry of ``style``."""
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    if fmt not in FORMATS:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"format must be one of {', '.join(FORMATS)}")
    path = style_path(style)
    clean = [{k: v for k, v in item.items() if k not in NOT_CSL} for item in items]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # citeproc-py warns about CSL variables it does not render
        try:
            csl = CitationStylesStyle(str(path), validate=False)
        except Exception as exc:  # lxml/citeproc raise many kinds for a file that is not CSL
            raise DoigetError(ErrorCode.INVALID_INPUT, f"{path} is not a CSL style: {exc}") from exc
        bibliography = CitationStylesBibliography(csl, CiteProcJSON(clean),
                                                  formatter.html if fmt == "html" else formatter.plain)
        for item in clean:
            bibliography.register(Citation([CitationItem(item["id"])]))
        return [" ".join(str(entry).split()) for entry in bibliography.bibliography()]
