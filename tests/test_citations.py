from __future__ import annotations

import json

import pytest
from export_helpers import UPSTREAM

from doiget.matching import rank_candidates, score_candidate, tokens
from doiget.models import Author, Work


def _crossref_work(item: dict) -> Work:
    """Just the fields scoring looks at, from one Crossref /works item."""
    parts = ((item.get("issued") or {}).get("date-parts") or [[None]])[0]
    return Work(
        doi=item["DOI"].lower(), title=(item.get("title") or [None])[0],
        venue=(item.get("container-title") or [None])[0], year=parts[0] if parts else None,
        authors=[Author.from_parts(a.get("family"), a.get("given"), a.get("name")) for a in item.get("author", [])],
        volume=item.get("volume"), issue=item.get("issue"), pages=item.get("page"),
    )


def _query_results(name: str) -> list[Work]:
    message = json.loads((UPSTREAM / "crossref" / f"works_query_{name}.json").read_text())["message"]
    return [_crossref_work(item) for item in message["items"]]


ALL_WORKS = [w for name in ("ecology_rows2", "widget_cursor_start", "title_paperqa_rows1") for w in _query_results(name)]

# Reference strings as they appear in reference lists (Vancouver, APA, Springer LNCS styles).
REFERENCES = [
    ("Mendes M, Caceres M, Dwolatzky B. A review of the widget landscape and incompatibilities between widget "
     "engines. In: AFRICON 2009. IEEE; 2009. p. 1-6.", "10.1109/afrcon.2009.5308146"),
    ("Liu, H., Soroush, A., Nestor, J. G., Park, E., Idnay, B., Fang, Y., Pan, J., Liao, S., Bernard, M., Peng, Y., "
     "& Weng, C. (2024). Retrieval augmented scientific claim verification. JAMIA Open, 7(1), ooae021.",
     "10.1093/jamiaopen/ooae021"),
    ("Qi, L., Wang, Y.: Widget Detection Network: widget detection in mobile screenshot with region-based "
     "attention. J. Electron. Imaging 28(6), 063006 (2019)", "10.1117/1.jei.28.6.063006"),
    ("Lynch, E. (2020). Adding a widget intent. In Introducing WidgetKit for iOS (pp. 71-88). Apress.",
     "10.1007/978-1-4842-6700-4_7"),
    ("Kessler A. Chemical ecology. In: Oxford Bibliographies in Ecology. Oxford University Press; 2012.",
     "10.1093/obo/9780199830060-0023"),
]


def test_tokens_fold_case_accents_and_drop_stop_words():
    assert tokens("The Ørsted effect in Łódź, et al. (2019) pp. 1-6") == ["orsted", "effect", "lodz", "2019", "1", "6"]


@pytest.mark.parametrize(("citation", "doi"), REFERENCES, ids=[doi for _, doi in REFERENCES])
def test_real_reference_strings_rank_their_work_first(citation, doi):
    ranked = rank_candidates(citation, ALL_WORKS)
    assert ranked and ranked[0].work.doi == doi
    assert ranked[0].confidence in ("exact", "probable")
    assert "title" in ranked[0].matched
    assert all(c.score <= ranked[0].score for c in ranked)


def test_full_references_with_author_year_and_venue_are_exact():
    # The third reference abbreviates its journal ("J. Electron. Imaging"), which keeps it at probable.
    for citation, doi in REFERENCES[:2]:
        best = rank_candidates(citation, ALL_WORKS)[0]
        assert (best.work.doi, best.confidence) == (doi, "exact")
        assert {"title", "author", "year"} <= set(best.matched)


def test_sibling_chapters_of_the_same_book_do_not_pass_the_floor():
    citation = REFERENCES[3][0]
    ranked = rank_candidates(citation, ALL_WORKS)
    assert [c.work.doi for c in ranked] == ["10.1007/978-1-4842-6700-4_7"]
    sibling = next(w for w in ALL_WORKS if w.title == "Adding Additional Widget Sizes")
    assert score_candidate(citation, sibling).score < 0.5


def test_doi_in_the_citation_is_an_exact_match():
    work = next(w for w in ALL_WORKS if w.doi == "10.1093/obo/9780199830060-0238")
    candidate = score_candidate("Communicating ecology, https://doi.org/10.1093/OBO/9780199830060-0238.", work)
    assert (candidate.score, candidate.confidence, candidate.matched[0]) == (1.0, "exact", "doi")


def test_nonsense_and_unrelated_citations_yield_no_candidates():
    assert _query_results("title_nonsense_rows1_empty") == []
    assert rank_candidates("askldjrq3rjaw938h", ALL_WORKS) == []
    assert rank_candidates("Smith J. Deep learning for protein folding. Nature 2021;596:583-589.", ALL_WORKS) == []


def test_year_boosts_and_floor_filters():
    work = next(w for w in ALL_WORKS if w.doi == "10.1109/afrcon.2009.5308146")
    with_year = score_candidate("A review of the widget landscape and incompatibilities between widget engines 2009", work)
    without = score_candidate("A review of the widget landscape and incompatibilities between widget engines", work)
    assert with_year.score > without.score
    assert rank_candidates("widget", ALL_WORKS, floor=0.99) == []
