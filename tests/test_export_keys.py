from __future__ import annotations

from export_helpers import imported_fixtures

from doiget.formats.keys import citation_key, citation_keys, unique_key
from doiget.models import Author, Work


def test_key_is_better_bibtex_default_auth_shorttitle3_year():
    work = Work(title="The Ørsted Effect in Łódź", year=2020, authors=[Author.from_parts("Müller-Strauß", "Jörg")])
    assert citation_key(work) == "mullerstraussOrstedEffectLodz2020"
    deep = Work(title="Deep Learning", year=2016, authors=[Author.from_parts("Goodfellow", "Ian")])
    assert citation_key(deep) == "goodfellowDeepLearning2016"


def test_fallbacks_for_missing_author_year_and_title():
    assert citation_key(Work(title="A Study")) == "anonStudy"
    assert citation_key(Work()) == "anon"
    assert citation_key(Work(year=1999, authors=[Author(name="IAAF", literal=True)])) == "iaaf1999"
    editor_only = Work(year=2001, contributors={"editor": [Author.from_parts("Knuth", "Donald")]})
    assert citation_key(editor_only) == "knuth2001"


def test_duplicates_get_letter_suffixes_in_input_order_and_avoid_taken_keys_case_insensitively():
    a = Work(title="Deep nets", year=2020, authors=[Author.from_parts("Smith", "J")])
    b = Work(title="Shallow nets", year=2020, authors=[Author.from_parts("Smith", "K")])
    assert citation_keys([a, a, b, a]) == ["smithDeepNets2020", "smithDeepNets2020a", "smithShallowNets2020",
                                           "smithDeepNets2020b"]
    assert citation_keys([a], taken=["SMITHDEEPNETS2020", "smithdeepnets2020a"]) == ["smithDeepNets2020b"]
    assert unique_key("x", {"y"}) == "x" and unique_key("x", {"x", "xa"}) == "xb"


def test_keys_of_real_fixtures_are_unique_and_stable_across_runs():
    works = [record.work for record in imported_fixtures()]
    first, second = citation_keys(works), citation_keys(list(works))
    assert first == second
    assert len({k.lower() for k in first}) == len(first) == len(works)
    assert "makrisDevelopingFunctionalMusculoskeletal2014" in first
