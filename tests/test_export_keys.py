from __future__ import annotations

from export_helpers import imported_fixtures

from doiget.formats.keys import citation_key, citation_keys
from doiget.models import Author, Work


def test_key_is_family_year_first_significant_title_word():
    work = Work(title="The Ørsted Effect in Łódź", year=2020, authors=[Author.from_parts("Müller-Strauß", "Jörg")])
    assert citation_key(work) == "mullerstrauss2020orsted"


def test_fallbacks_for_missing_author_year_and_title():
    assert citation_key(Work(title="A Study")) == "anonndstudy"
    assert citation_key(Work()) == "anonnd"
    assert citation_key(Work(year=1999, authors=[Author(name="IAAF")])) == "iaaf1999"


def test_duplicates_get_letter_suffixes_in_input_order_without_colliding():
    a = Work(title="Deep nets", year=2020, authors=[Author.from_parts("Smith", "J")])
    taken = Work(title="Deepa", year=2020, authors=[Author.from_parts("Smith", "K")])  # its natural key is smith2020deepa
    keys = citation_keys([a, a, taken, a])
    assert keys == ["smith2020deep", "smith2020deepb", "smith2020deepa", "smith2020deepc"]


def test_keys_of_real_fixtures_are_unique_and_stable_across_runs():
    works = [record.work for record in imported_fixtures()]
    first, second = citation_keys(works), citation_keys(list(works))
    assert first == second
    assert len(set(first)) == len(first) == len(works)
    assert "makris2014developing" in first
    assert "jackson2013contested" in first and "bunge1978model" in first
