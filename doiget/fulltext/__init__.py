"""Stored artefacts (PDF, JATS, BioC, ar5iv HTML, LaTeX source) -> sectioned text and chunks.

The extractors are pure functions over bytes: nothing in them touches the network, the disk or the
database. ``index`` (chunk rows), ``search`` (chunks_fts queries), ``paging`` and ``alternates``
(where structured full text is downloaded from) are the Library's full-text helpers.
"""
from doiget.fulltext.bioc import extract_bioc
from doiget.fulltext.document import Chunk, Document
from doiget.fulltext.html import extract_ar5iv
from doiget.fulltext.jats import extract_jats
from doiget.fulltext.pdf import PdfSniff, extract_pdf, sniff_pdf
from doiget.fulltext.tex import TexSource, extract_tex, read_tex_source

__all__ = [
    "Chunk", "Document", "PdfSniff", "TexSource",
    "extract_ar5iv", "extract_bioc", "extract_jats", "extract_pdf", "extract_tex",
    "read_tex_source", "sniff_pdf",
]
