"""Ref.parse: every accepted shape normalises to one canonical Ref; anything else is INVALID_REF."""
from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from hypothesis import given, strategies as st

from doiget import DoigetError, ErrorCode, Ref, refs

CASES = [
    ("10.1073/PNAS.1414271111", "doi", "10.1073/pnas.1414271111", None),
    ("doi:10.1073/pnas.1414271111", "doi", "10.1073/pnas.1414271111", None),
    ("DOI: 10.1073/pnas.1414271111", "doi", "10.1073/pnas.1414271111", None),
    ("https://doi.org/10.1126%2Fscience.169.3946.635", "doi", "10.1126/science.169.3946.635", None),
    ("http://dx.doi.org/10.1023/A:1007154515475", "doi", "10.1023/a:1007154515475", None),
    ("10.1002/(SICI)1097-4636(199905)45:2<81::AID-JBM1>3.0.CO;2-9", "doi",
     "10.1002/(sici)1097-4636(199905)45:2<81::aid-jbm1>3.0.co;2-9", None),
    ("1707.08567", "arxiv", "1707.08567", None),
    ("arXiv:1707.08567v2", "arxiv", "1707.08567", "v2"),
    ("2312.07559", "arxiv", "2312.07559", None),
    ("https://arxiv.org/abs/2312.07559v1", "arxiv", "2312.07559", "v1"),
    ("https://arxiv.org/pdf/1707.08567.pdf", "arxiv", "1707.08567", None),
    ("astro-ph/0601001", "arxiv", "astro-ph/0601001", None),
    ("arxiv:math.gt/0309136v1", "arxiv", "math.GT/0309136", "v1"),
    ("PMID:29768149", "pmid", "29768149", None),
    ("29768149", "pmid", "29768149", None),
    ("https://pubmed.ncbi.nlm.nih.gov/29768149/", "pmid", "29768149", None),
    ("PMC4136787", "pmcid", "PMC4136787", None),
    ("pmcid:pmc4136787", "pmcid", "PMC4136787", None),
    ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC4136787/", "pmcid", "PMC4136787", None),
    ("W2741809807", "openalex", "W2741809807", None),
    ("https://openalex.org/W2741809807", "openalex", "W2741809807", None),
    ("https://api.openalex.org/works/w2741809807", "openalex", "W2741809807", None),
]


@pytest.mark.parametrize("text,kind,value,version", CASES)
def test_accepted_shapes_normalise(text, kind, value, version):
    ref = Ref.parse(text)
    assert (ref.kind, ref.id, ref.version) == (kind, value, version)


@pytest.mark.parametrize("text", ["", "   ", "hello", "10.1/x", "PMC0", "0", "https://example.com/10.1000/x",
                                  "W", "arXiv:abc", "x" * 5000, None, 12345])
def test_rejects_with_message_listing_accepted_shapes(text):
    with pytest.raises(DoigetError) as info:
        Ref.parse(text)
    assert info.value.code is ErrorCode.INVALID_REF
    assert "accepted" in info.value.message or "longer than" in info.value.message


def test_str_round_trips_through_parse():
    for text, *_ in CASES:
        ref = Ref.parse(text)
        assert Ref.parse(str(ref)) == ref


_doi_suffix = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="%#"),
                      min_size=1, max_size=40)


@given(prefix=st.integers(1000, 999999999), suffix=_doi_suffix)
def test_doi_forms_are_equivalent_and_case_insensitive(prefix, suffix):
    doi = f"10.{prefix}/{suffix}"
    forms = [doi, doi.upper(), f"doi:{doi}", f"https://doi.org/{doi}", f"https://doi.org/{quote(doi, safe='')}"]
    refs = {Ref.parse(form) for form in forms}
    assert refs == {Ref("doi", doi.lower())}


@given(yymm=st.integers(0, 9999), number=st.integers(0, 99999), version=st.none() | st.integers(1, 99))
def test_new_style_arxiv_ids(yymm, number, version):
    base = f"{yymm:04d}.{number:05d}"
    suffix = f"v{version}" if version else ""
    for form in (base + suffix, f"arXiv:{base}{suffix}", f"https://arxiv.org/abs/{base}{suffix}"):
        ref = Ref.parse(form)
        assert (ref.kind, ref.id, ref.version) == ("arxiv", base, suffix or None)


@given(st.integers(1, 999_999_999))
def test_pmid_and_pmcid_numbers(n):
    assert Ref.parse(str(n)) == Ref("pmid", str(n))
    assert Ref.parse(f"PMID:{n}") == Ref("pmid", str(n))
    assert Ref.parse(f"pmc{n}") == Ref("pmcid", f"PMC{n}")


@given(st.text(max_size=200))
def test_parse_never_raises_anything_but_invalid_ref(text):
    try:
        ref = Ref.parse(text)
    except DoigetError as exc:
        assert exc.code is ErrorCode.INVALID_REF
    else:
        assert Ref.parse(str(ref)) == ref


_HOSTS = ["doi.org/", "dx.doi.org/", "DX.DOI.ORG/", "arxiv.org/abs/", "www.arxiv.org/pdf/", "export.arxiv.org/html/",
          "ar5iv.labs.arxiv.org/html/", "ar5iv.arxiv.org/abs/", "www.ar5iv.arxiv.org/abs/", "pubmed.ncbi.nlm.nih.gov/",
          "www.ncbi.nlm.nih.gov/pubmed/", "ncbi.nlm.nih.gov/pmc/articles/", "pmc.ncbi.nlm.nih.gov/articles/",
          "europepmc.org/abstract/med/", "europepmc.org/article/med/", "europepmc.org/med/", "europepmc.org/pmc/",
          "europepmc.org/article/pmc/", "api.openalex.org/works/", "openalex.org/", "example.org/", ""]


@given(st.sampled_from(["http://", "https://", "HTTPS://", "ftp://"]), st.sampled_from(_HOSTS),
       st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789./-?#%", max_size=20))
def test_one_url_pattern_picks_the_prefix_the_list_names_first(scheme, host, rest):
    """The URL prefixes are matched with one pattern; it names the kind and ends where the first prefix of
    the list that matches would, one pattern per prefix in list order."""
    url = scheme + host + rest
    first = next(((kind, match.end()) for prefix, kind in refs._URL_PREFIXES
                  if (match := re.match(f"^https?://{prefix}", url, re.I))), None)
    match = refs._URL_PREFIX.match(url)
    assert (None if match is None else (refs._URL_KINDS[match.lastindex - 1], match.end())) == first
