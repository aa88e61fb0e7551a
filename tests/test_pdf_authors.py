"""A PDF's info-dictionary authors are read as their writer meant them, checked against the names its
first page prints: real papers write ``Caldas Ramos, Mayk and White, Andrew D`` (BibTeX's form,
arXiv 2407.01603) or ``Shahu Sneha, Vtyurina Natalia`` (family first, NAR gkae223), where the old
reader made ``Caldas Ramos,`` a given name and ``Sneha`` a family name."""
from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from doiget import open_library
from doiget.fulltext.pdf import sniff_pdf

# SPECTER (ACL 2020, CC BY 4.0); its first page prints "Arman Cohan, Sergey Feldman, Iz Beltagy,
# Doug Downey, Daniel S. Weld"; its own info dictionary says "Arman Cohan ; Sergey Feldman ; ...".
SPECTER = Path(__file__).parent / "fixtures" / "papers" / "pdf" / "acl-2020.acl-main.207.pdf"


def with_author(info_author: str) -> bytes:
    doc = pymupdf.open(SPECTER)
    doc.set_metadata({**doc.metadata, "author": info_author})
    return doc.tobytes()


def parts(data: bytes) -> list[tuple[str | None, str | None]]:
    return [(a.given, a.family) for a in sniff_pdf(data).authors]


SPECTER_AUTHORS = [("Arman", "Cohan"), ("Sergey", "Feldman"), ("Iz", "Beltagy"), ("Doug", "Downey")]


@pytest.mark.parametrize("info_author", [
    "Arman Cohan ; Sergey Feldman ; Iz Beltagy ; Doug Downey",  # as the PDF has it
    "Cohan, Arman and Feldman, Sergey and Beltagy, Iz and Downey, Doug",  # BibTeX's form
    "Cohan Arman, Feldman Sergey, Beltagy Iz, Downey Doug",  # family first, as the first page does not print
    "Arman Cohan, Sergey Feldman, Beltagy Iz, Doug Downey",  # mixed: each name as the page prints it
    "Arman Cohan, Sergey Feldman, Iz Beltagy and Doug Downey",  # a list in words, not BibTeX's
    "Arman Cohan (arman@example.org); Sergey Feldman <sergey@example.org>; Iz Beltagy; Doug Downey",
])
def test_info_authors_read_as_the_first_page_prints_them(info_author):
    assert parts(with_author(info_author)) == SPECTER_AUTHORS


def test_one_name_in_family_comma_given_form_is_one_person():
    assert parts(with_author("Caldas Ramos, Mayk")) == [("Mayk", "Caldas Ramos")]


def test_a_name_the_page_does_not_print_is_kept_as_written():
    assert parts(with_author("Weld Daniel; Grace Hopper")) == [("Weld", "Daniel"), ("Grace", "Hopper")]


def test_an_imported_pdf_without_network_gets_the_persons_right(tmp_path, monkeypatch):
    monkeypatch.setenv("DOIGET_PROFILE", "offline")
    with open_library(tmp_path) as lib:
        entry = lib.add_pdf(with_author("Cohan, Arman and Feldman, Sergey and Beltagy, Iz")).entry
    assert [(a.given, a.family, a.name) for a in entry.authors] == [
        ("Arman", "Cohan", "Arman Cohan"), ("Sergey", "Feldman", "Sergey Feldman"), ("Iz", "Beltagy", "Iz Beltagy")]


def test_a_name_written_whole_keeps_its_particle_and_suffix():
    assert parts(with_author("Kai von Fintel; Martin Luther King, Jr.")) == [("Kai", "Fintel"), ("Martin Luther", "King")]
    kai, king = sniff_pdf(with_author("Kai von Fintel; Martin Luther King, Jr.")).authors
    assert kai.particle == "von" and king.suffix == "Jr." and king.name == "Martin Luther King, Jr."


PAPERS = SPECTER.parent


@pytest.mark.parametrize(("paper", "more"), [
    ("ncomms-s41467-024-44806-1.pdf", True),  # info: "Zhongyi Lu"; page 1: "Zhongyi Lu1,2,4, Runyue Xia1,2,4, ..."
    ("bmcbiol-s12915-024-01918-w.pdf", True),  # info: "Hui Shi"; page 1: "Hui Shi1†, Lei Li1†, ..."
    ("acl-2020.acl-main.207.pdf", False),  # the info dictionary names all five
])
def test_an_info_list_the_first_page_continues_is_known_to_be_cut_short(paper, more):
    assert sniff_pdf((PAPERS / paper).read_bytes()).more_authors is more


def test_an_imported_pdf_naming_only_its_first_author_says_et_al(tmp_path, monkeypatch):
    monkeypatch.setenv("DOIGET_PROFILE", "offline")
    with open_library(tmp_path) as lib:
        entry = lib.add_pdf(PAPERS / "ncomms-s41467-024-44806-1.pdf").entry
        assert [a.name for a in entry.authors] == ["Zhongyi Lu"]
        assert "author = {Lu, Zhongyi and others}" in lib.export("bibtex")  # not its only author
