"""JATS XML (Europe PMC / PMC Open Access) -> sectioned text.

Kept: article title, every abstract (eLife digests, PLOS author and editor summaries, teasers),
nested ``sec``/``title`` hierarchy, paragraphs, lists, boxed text, figure and table captions (tables
also as ``a | b`` rows, with their footnotes), floats PMC hoists into ``<floats-group>``, formulas as
TeX when the article has ``tex-math``, else as the MathML's text, and sub-articles (decision letters,
author responses) under their own titles. Dropped: the reference list (citations are stored as graph
edges by :mod:`.jatsmeta`, not as searchable body text), footnote markers and metadata.
"""
from __future__ import annotations

from xml.etree.ElementTree import Element

from doiget.fulltext.builder import TextBuilder, clean_inline
from doiget.fulltext.document import Document
from doiget.fulltext.xmlsafe import local, parse_xml

_SECTIONS = {"sec", "app", "ack", "glossary", "bio", "notes"}
_DEFAULT_TITLES = {"ack": "Acknowledgments", "glossary": "Glossary", "notes": "Notes"}
_SKIPPED = {"ref-list", "title", "label", "fn-group", "object-id", "sec-meta", "alt-text", "permissions"}
_BLOCKS = {"fig", "table-wrap", "disp-formula", "list", "disp-quote", "boxed-text", "statement", "def-list"}
_INLINE_SKIPPED = {"fn", "alt-text", "object-id"}


def extract_jats(data: bytes) -> Document:
    """Extract a JATS article; raises ``DoigetError(INVALID_INPUT)`` on unsafe or broken XML."""
    root = parse_xml(data, "JATS XML")
    article = root if local(root.tag) == "article" else next(
        (el for el in root.iter() if local(el.tag) == "article"), root)
    builder = TextBuilder()
    title = _find_text(article, "front", "article-meta", "title-group", "article-title")
    if title:
        builder.heading(title, 1)
    meta = _path(article, "front", "article-meta")
    _abstracts(builder, meta)
    _parts(builder, article)
    return builder.build("jats", title=title or None)


def _abstracts(builder: TextBuilder, meta: Element | None) -> None:
    for abstract in _children(meta, "abstract") + _children(meta, "trans-abstract") if meta is not None else []:
        default = "Summary" if abstract.get("abstract-type") not in (None, "abstract") else "Abstract"
        builder.heading(_title_of(abstract) or default, 2)
        _container(builder, abstract, 3)


def _parts(builder: TextBuilder, article: Element) -> None:
    """Body, back matter, hoisted floats, then each sub-article (its title, abstracts and parts)."""
    for part in ("body", "back", "floats-group"):
        node = _path(article, part)
        if node is not None:
            _container(builder, node, 2)
    for sub in _children(article, "sub-article") + _children(article, "response"):
        stub = _path(sub, "front-stub")
        meta = stub if stub is not None else _path(sub, "front", "article-meta")
        title = _find_text(meta, "title-group", "article-title") if meta is not None else ""
        builder.heading(title or sub.get("article-type", "").replace("-", " ").capitalize() or "Sub-article", 2)
        _abstracts(builder, meta)
        _parts(builder, sub)


def _container(builder: TextBuilder, node: Element, level: int) -> None:
    for child in node:
        name = local(child.tag)
        if name in _SKIPPED:
            continue
        if name in _SECTIONS:
            heading = _title_of(child) or _DEFAULT_TITLES.get(name)
            if heading:
                builder.heading(heading, level)
            _container(builder, child, min(level + 1, 3))
        elif name == "p":
            _paragraph(builder, child)
        elif name in _BLOCKS:
            _block(builder, child, level)
        else:
            _container(builder, child, level)


def _paragraph(builder: TextBuilder, p: Element) -> None:
    """Emit a paragraph, breaking it where a block (figure, display formula, list) sits inside."""
    parts = [p.text or ""]
    for child in p:
        if local(child.tag) in _BLOCKS:
            builder.paragraph(clean_inline("".join(parts)))
            _block(builder, child, 3)
            parts = []
        else:
            parts.append(_inline(child))
        parts.append(child.tail or "")
    builder.paragraph(clean_inline("".join(parts)))


def _block(builder: TextBuilder, node: Element, level: int) -> None:
    name = local(node.tag)
    if name in ("fig", "table-wrap"):
        label = _find_text(node, "label")
        caption = _path(node, "caption")
        text = " ".join(_inline(c) for c in caption) if caption is not None else ""
        builder.paragraph(clean_inline(f"{label} {text}"))
        for row in (el for el in node.iter() if local(el.tag) == "tr"):
            builder.paragraph(" | ".join(clean_inline(_inline(cell)) for cell in row))
        for foot in (el for el in node.iter() if local(el.tag) in ("table-wrap-foot", "attrib")):
            for item in (el for el in foot.iter() if local(el.tag) == "p") if _has(foot, "p") else [foot]:
                builder.paragraph(clean_inline(_inline(item)))
    elif name == "disp-formula":
        formula = _formula(node)
        if formula:
            builder.paragraph(f"$${formula}$$")
    elif name == "list":
        for item in _children(node, "list-item"):
            builder.paragraph("- " + clean_inline(" ".join(_inline(c) for c in item if local(c.tag) != "label")))
    else:  # a box, statement, quote...: its label and title are the document's text too (_container skips them)
        head = " ".join(filter(None, (_find_text(node, "label"), _title_of(node) or _find_text(node, "caption", "title"))))
        if head:
            builder.paragraph(head)
        _container(builder, node, level)


def _inline(node: Element) -> str:
    name = local(node.tag)
    if name in _INLINE_SKIPPED:
        return ""
    if name == "inline-formula":
        formula = _formula(node)
        return f"${formula}$" if formula else ""
    if name == "math":
        return clean_inline("".join(node.itertext()))
    return (node.text or "") + "".join(_inline(c) + (c.tail or "") for c in node)


def _formula(node: Element) -> str:
    tex = next((el for el in node.iter() if local(el.tag) == "tex-math"), None)
    if tex is not None:
        return clean_inline("".join(tex.itertext()))
    math = next((el for el in node.iter() if local(el.tag) == "math"), None)
    return clean_inline("".join(math.itertext())) if math is not None else ""


def _has(node: Element, name: str) -> bool:
    return any(local(el.tag) == name for el in node.iter())


def _children(node: Element, name: str) -> list[Element]:
    return [c for c in node if local(c.tag) == name]


def _path(node: Element, *names: str) -> Element | None:
    for name in names:
        node = next((c for c in node if local(c.tag) == name), None)
        if node is None:
            return None
    return node


def _find_text(node: Element, *names: str) -> str:
    found = _path(node, *names)
    return clean_inline(_inline(found)) if found is not None else ""


def _title_of(node: Element) -> str:
    return _find_text(node, "title")
