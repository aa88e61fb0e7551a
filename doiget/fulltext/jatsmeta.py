"""JATS front matter and reference list -> metadata: the article as a :class:`Work` (ids, title,
authors with affiliations, abstract, journal, volume/issue/pages, year, licence), its keywords, and
each ``<ref>`` as a Work carrying the DOI / PMID / PMCID / arXiv id it gives, else its title, year,
authors and venue (a stub known only as a citation)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

from doiget.fulltext.builder import clean_inline
from doiget.fulltext.xmlsafe import local, parse_xml
from doiget.models import Author, Work
from doiget.refs import try_parse

MAX_REFERENCE_TITLE = 500
_CITATIONS = {"element-citation", "mixed-citation", "citation", "nlm-citation"}
_ID_TYPES = {"doi": "doi", "pmid": "pmid", "pmcid": "pmcid", "pmc": "pmcid", "arxiv": "arxiv"}
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")


@dataclass(slots=True)
class JatsArticle:
    """What a JATS file says about its article and what it cites."""

    work: Work
    keywords: list[str] = field(default_factory=list)
    references: list[Work] = field(default_factory=list)


def read_jats_article(data: bytes) -> JatsArticle:
    """Front matter and ``<ref-list>`` of a JATS article; INVALID_INPUT on unsafe or broken XML."""
    root = parse_xml(data, "JATS XML")
    article = root if local(root.tag) == "article" else next(
        (el for el in root.iter() if local(el.tag) == "article"), root)
    front = _child(article, "front")
    meta = _child(front, "article-meta") if front is not None else None
    journal = _child(front, "journal-meta") if front is not None else None
    work = Work(sources=["jats"]) if meta is None else _work(meta, journal)
    keywords = [] if meta is None else list(dict.fromkeys(
        t for kwd in _all(meta, "kwd") if (t := _text(kwd))))
    references = [w for ref in _all(_child(article, "back") or article, "ref") if (w := _reference(ref))]
    return JatsArticle(work=work, keywords=keywords, references=references)


def _id(kind: str | None, value: str) -> str | None:
    """A canonical id of ``kind`` from a JATS id value (``5828200`` as a pmc id, ``arXiv:2408.15986v3``)."""
    if kind is None:
        return None
    value = re.sub(r"(?i)^arxiv:\s*", "", value.strip())
    if kind == "pmcid" and value.isdigit():
        value = "PMC" + value
    ref = try_parse(f"{kind}:{value}")
    return ref.id if ref is not None and ref.kind == kind else None


def _work(meta: Element, journal: Element | None) -> Work:
    ids = {}
    for el in _children(meta, "article-id"):
        kind = _ID_TYPES.get((el.get("pub-id-type") or "").lower())
        value = _id(kind, _text(el))
        if value and kind not in ids:
            ids[kind] = value
    title_group = _child(meta, "title-group")
    title = _text(_child(title_group, "article-title")) if title_group is not None else ""
    abstract = next((a for a in _children(meta, "abstract") if a.get("abstract-type") in (None, "abstract")), None)
    year = next((y for date in _children(meta, "pub-date") if (y := _year(_text(_child(date, "year"))))), None)
    first, last = _text(_child(meta, "fpage")), _text(_child(meta, "lpage"))
    license_el = next((el for el in meta.iter() if local(el.tag) == "license"), None)
    licence = None
    if license_el is not None:
        licence = next((v for k, v in license_el.attrib.items() if k.endswith("href")), None) or \
            (license_el.get("license-type") or None)
    venue = ""
    if journal is not None:
        venue = next((_text(t) for t in journal.iter() if local(t.tag) == "journal-title"), "")
    return Work(**ids, title=title or None, abstract=_abstract_text(abstract), authors=_authors(meta),
                venue=venue or None, year=year, volume=_text(_child(meta, "volume")) or None,
                issue=_text(_child(meta, "issue")) or None,
                pages=(f"{first}-{last}" if first and last else first) or _text(_child(meta, "elocation-id")) or None,
                publisher=_publisher(journal), license=licence, type="article-journal", sources=["jats"])


def _authors(meta: Element) -> list[Author]:
    affiliations = {aff.get("id"): _aff_text(aff) for aff in meta.iter() if local(aff.tag) == "aff"}
    authors = []
    for group in _children(meta, "contrib-group"):
        for contrib in _children(group, "contrib"):
            if contrib.get("contrib-type", "author") != "author":
                continue
            name = _child(contrib, "name")
            collab = _child(contrib, "collab")
            affs = [affiliations[x.get("rid")] for x in _children(contrib, "xref")
                    if x.get("ref-type") == "aff" and affiliations.get(x.get("rid"))]
            affs += [_aff_text(a) for a in _children(contrib, "aff")]
            orcid = next((_text(c) for c in _children(contrib, "contrib-id")
                          if c.get("contrib-id-type") == "orcid"), None)
            extra = {"affiliation": "; ".join(dict.fromkeys(affs)) or None,
                     "orcid": orcid.rsplit("/", 1)[-1] if orcid else None}
            if name is not None:
                authors.append(Author.from_parts(family=_text(_child(name, "surname")),
                                                 given=_text(_child(name, "given-names")), **extra))
            elif collab is not None and _text(collab):
                authors.append(Author(name=_text(collab), **extra))
    return authors


def _reference(ref: Element) -> Work | None:
    citation = next((c for c in ref.iter() if local(c.tag) in _CITATIONS), None)
    if citation is None:
        return None
    ids = {}
    for el in citation.iter():
        name = local(el.tag)
        if name == "pub-id":
            kind, value = _ID_TYPES.get((el.get("pub-id-type") or "").lower()), _text(el)
        elif name == "ext-link":
            target = next((v for k, v in el.attrib.items() if k.endswith("href")), "") or _text(el)
            kind, value = ("doi", target.split("doi.org/", 1)[1]) if "doi.org/" in target else (None, "")
        else:
            continue
        value = _id(kind, value)
        if value and kind not in ids:
            ids[kind] = value
    title = _text(_child(citation, "article-title")) or _text(_child(citation, "chapter-title"))
    source = _text(_child(citation, "source"))
    year = _year(_text(_child(citation, "year")))
    authors = [Author.from_parts(family=_text(_child(n, "surname")), given=_text(_child(n, "given-names")))
               for n in citation.iter() if local(n.tag) in ("name", "string-name") and _text(_child(n, "surname"))]
    if not ids and not title:  # an unstructured citation: its text stands for the work
        title = source or clean_inline(" ".join(citation.itertext()))
        source = "" if title == source else source
    if not ids and not title:
        return None
    return Work(**ids, title=title[:MAX_REFERENCE_TITLE] if title else None, venue=source or None, year=year,
                authors=authors, sources=["jats"])


def _abstract_text(abstract: Element | None) -> str | None:
    if abstract is None:
        return None
    parts = [_text(el) for el in abstract.iter() if local(el.tag) == "p"]
    return "\n\n".join(p for p in parts if p) or _text(abstract) or None


def _aff_text(aff: Element) -> str:
    return clean_inline(" ".join(_iter_skipping(aff, {"label", "sup", "institution-id"})))


def _iter_skipping(node: Element, skip: set[str]):
    if node.text:
        yield node.text
    for child in node:
        if local(child.tag) not in skip:
            yield from _iter_skipping(child, skip)
        if child.tail:
            yield child.tail


def _publisher(journal: Element | None) -> str | None:
    if journal is None:
        return None
    name = next((el for el in journal.iter() if local(el.tag) == "publisher-name"), None)
    return _text(name) or None


def _year(text: str) -> int | None:
    match = _YEAR.search(text or "")
    return int(match.group(1)) if match else None


def _text(node: Element | None) -> str:
    return clean_inline("".join(node.itertext())) if node is not None else ""


def _child(node: Element | None, name: str) -> Element | None:
    return next((c for c in node if local(c.tag) == name), None) if node is not None else None


def _children(node: Element, name: str) -> list[Element]:
    return [c for c in node if local(c.tag) == name]


def _all(node: Element, name: str) -> list[Element]:
    return [el for el in node.iter() if local(el.tag) == name]
