"""A PDF opened with MuPDF itself: its pages, the info dictionary's fields and the XMP packet.

PyMuPDF's ``Document`` reads the whole outline and ten info fields as it opens a file; extraction and the
sniff need neither (~0.15 ms a PDF: the outline is most of PyMuPDF's own cost of opening the real papers).
The fields and the packet read here are the ones PyMuPDF's ``metadata`` and ``get_xml_metadata`` give.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pymupdf import mupdf


class PdfFile:
    """An open PDF: ``this`` is MuPDF's document, which reads the bytes in place (they are kept with it)."""

    def __init__(self, data: bytes) -> None:
        import pymupdf
        from pymupdf import mupdf

        if not data:
            raise ValueError("Cannot open empty stream.")  # PyMuPDF's words
        self._data = data
        shown = pymupdf.JM_mupdf_show_errors
        pymupdf.JM_mupdf_show_errors = 0  # as PyMuPDF opens a file: a damaged one is repaired, or refused, silently
        try:
            stream = mupdf.fz_open_memory(mupdf.python_buffer_data(data), len(data))
            self.this: mupdf.FzDocument = mupdf.fz_open_document_with_stream("pdf", stream)
            self.needs_pass = bool(mupdf.fz_needs_password(self.this))
        finally:
            pymupdf.JM_mupdf_show_errors = shown
        self.page_count = 0 if self.needs_pass else mupdf.fz_count_pages(self.this)

    def info(self, field: str) -> str:
        """The info dictionary's ``field`` (``Title``, ``Author``, ``Subject``, ``Keywords``), "" where it has none."""
        from pymupdf import mupdf

        try:
            return mupdf.fz_lookup_metadata2(self.this, f"info:{field}")
        except Exception:  # MuPDF raises for a field the file does not set
            return ""

    def xml_metadata(self) -> str:
        """The catalog's XMP packet as text (up to a NUL character), "" where there is none."""
        from pymupdf import mupdf

        pdf = mupdf.PdfDocument(self.this)
        if not pdf.m_internal:
            return ""
        xml = mupdf.pdf_dict_getl(mupdf.pdf_trailer(pdf), mupdf.PDF_ENUM_NAME_Root, mupdf.PDF_ENUM_NAME_Metadata)
        if xml is None or not xml.m_internal:
            return ""
        return mupdf.fz_buffer_extract_copy(mupdf.pdf_load_stream(xml)).decode(errors="replace").partition("\0")[0]
