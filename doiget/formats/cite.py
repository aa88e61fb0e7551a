"""Formatted references: CSL-JSON items rendered in a citation style with citeproc-py.

A style is a bundled name (``STYLES``) or the path of any ``.csl`` file. Output is plain text or
HTML, one string per reference, in the style's bibliography order (its ``cs:sort``: author-date
styles by author; numeric styles number them in the order given).

citeproc-py 0.11 leaves two CSL rules out, which :func:`_conform` puts back into the loaded style:
a localized date (``<date form="text">``) joins its parts with the locale's delimiter (it joined
them with nothing: "2014Oct27"), and ``second-field-align`` sets the first field (the number) apart
from the rest ("1.Makris" became "1. Makris").

A name list that ends in "others" (BibTeX's "and others", which the CSL-JSON export writes as pandoc
does) is rendered without it: citeproc-py has no rule that turns it into "et al.", and "& others" would
name a person.
"""
from __future__ import annotations

import warnings
from importlib import resources
from pathlib import Path
from typing import Any

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.csl_read import closing_others
from doiget.formats.fields import CSL_NAME_VARIABLES

STYLES = ("apa", "vancouver", "nature", "ieee", "mla", "ama", "harvard")
FORMATS = ("text", "html")
# CSL-JSON keys doiget writes that are not CSL variables (citeproc-py warns about them).
NOT_CSL = ("custom", "citation-key")
CSL_NS = "{http://purl.org/net/xbiblio/csl}"


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
    clean = [{k: v[:-1] if k in CSL_NAME_VARIABLES and closing_others(v) else v
              for k, v in item.items() if k not in NOT_CSL} for item in items]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # citeproc-py warns about CSL variables it does not render
        try:
            csl = CitationStylesStyle(str(path), validate=False)
        except Exception as exc:  # lxml/citeproc raise many kinds for a file that is not CSL
            raise DoigetError(ErrorCode.INVALID_INPUT, f"{path} is not a CSL style: {exc}") from exc
        _conform(csl)
        bibliography = CitationStylesBibliography(csl, CiteProcJSON(clean),
                                                  formatter.html if fmt == "html" else formatter.plain)
        for item in clean:
            bibliography.register(Citation([CitationItem(item["id"])]))
        bibliography.sort()  # the style's bibliography cs:sort (citeproc-py applies it only on request)
        return [" ".join(str(entry).split()) for entry in bibliography.bibliography()]


def _conform(csl: Any) -> None:
    """Make a loaded style render as CSL says where citeproc-py does not (see the module docstring)."""
    locale_dates: dict[str, str | None] = {}
    for locale in csl.root.locales:  # in citeproc-py's search order: the style's own locales, then the file's
        for date in locale.iter(f"{CSL_NS}date"):
            locale_dates.setdefault(date.get("form"), date.get("delimiter"))
    for date in csl.root.iter(f"{CSL_NS}date"):
        form = date.get("form")
        inside_locale = next(date.iterancestors(f"{CSL_NS}locale"), None) is not None
        if form and not inside_locale and date.get("delimiter") is None and locale_dates.get(form):
            date.set("delimiter", locale_dates[form])
    bibliography = csl.root.find(f"{CSL_NS}bibliography")
    layout = bibliography.find(f"{CSL_NS}layout") if bibliography is not None else None
    if layout is not None and bibliography.get("second-field-align") and len(layout):
        first = layout[0]
        first.set("suffix", (first.get("suffix") or "") + " ")
