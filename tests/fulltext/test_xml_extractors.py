"""JATS, BioC and ar5iv (LaTeXML HTML) extractors on real recorded artefacts."""
from __future__ import annotations

import pytest

from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext.bioc import extract_bioc
from doiget.fulltext.html import extract_ar5iv
from doiget.fulltext.jats import extract_jats
from invariants import assert_well_formed
from test_jats_import import JATS


def headings(doc) -> list[str]:
    return [line for line in doc.text.splitlines() if line.startswith("#")]


def test_jats_oncotarget_article_with_tables():
    doc = extract_jats((JATS / "PMC5828200.nxml").read_bytes())
    assert doc.source == "jats"
    assert doc.title == ("Curcuminoid submicron particle ameliorates cognitive deficits and decreases amyloid "
                         "pathology in Alzheimer’s disease mouse model")
    found = headings(doc)
    assert found[:4] == ["# " + doc.title, "## Abstract", "## INTRODUCTION", "## RESULTS"]
    methods = found[found.index("## MATERIALS AND METHODS"):]
    assert methods[:3] == ["## MATERIALS AND METHODS", "### Animals", "### Preparation of aqueous dispersion with CSP"]
    assert "## DISCUSSION" in found
    assert "affecting more than 46 million patients worldwide" in doc.text
    assert "Table 1 Pharmacokinetic analysis of un-nanosized curcuminoid (C)" in doc.text  # a table caption
    assert "Mass spectrometry of purified amyloid beta protein" not in doc.text  # reference list skipped
    assert_well_formed(doc)


def test_jats_bmc_article_with_nested_sections_and_figures():
    data = (JATS / "PMC4113009.xml").read_bytes()  # Europe PMC's fullTextXML of a Malaria Journal article
    doc = extract_jats(data)
    assert doc.title == "Dihydroisoxazole inhibitors of Anopheles gambiae seminal transglutaminase AgTG3"
    found = headings(doc)
    methods = found.index("## Methods")
    assert found[methods + 1:methods + 3] == ["### Library design and synthesis", "### AgTG3 FITC-CAD plate assay"]
    assert "## Acknowledgements" in found
    assert "Figure 1 Chemical mechanism of transglutaminase and DHI inhibitors." in doc.text
    assert "Eradication of screw-worms through release of sterilized males" not in doc.text  # reference list skipped
    chunk = next(c for c in doc.chunks if "Three-day-old virgin males were injected" in c.text)
    assert chunk.heading and chunk.page is None
    assert_well_formed(doc)
    assert extract_jats(data) == doc


def test_jats_inline_and_display_formulas_as_tex():
    xml = (b'<article xmlns:mml="http://www.w3.org/1998/Math/MathML"><front><article-meta><title-group>'
           b'<article-title>On <italic>x</italic></article-title></title-group></article-meta></front><body>'
           b'<sec><title>Model</title><p>Let <inline-formula><tex-math>\\alpha_1</tex-math></inline-formula> and '
           b'<inline-formula><mml:math><mml:mi>k</mml:mi><mml:mo>+</mml:mo><mml:mn>1</mml:mn></mml:math>'
           b'</inline-formula> hold<xref ref-type="bibr">[3]</xref>:<disp-formula><tex-math>E=mc^2</tex-math>'
           b'</disp-formula>as shown.</p></sec></body></article>')
    doc = extract_jats(xml)
    assert doc.text == "# On x\n\n## Model\n\nLet $\\alpha_1$ and $k+1$ hold[3]:\n\n$$E=mc^2$$\n\nas shown."


def test_jats_refuses_entity_declarations_and_broken_xml():
    bomb = (b'<?xml version="1.0"?><!DOCTYPE article [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
            b'<article><body><p>&b;</p></body></article>')
    with pytest.raises(DoigetError) as err:
        extract_jats(bomb)
    assert err.value.code is ErrorCode.INVALID_INPUT and "refused" in err.value.message
    with pytest.raises(DoigetError) as err:
        extract_jats(b"<article><body><p>unclosed</body>")
    assert err.value.code is ErrorCode.INVALID_INPUT


def test_bioc_pmc_article(upstream):
    doc = extract_bioc((upstream / "pmc_bioc/BioC_json_PMC4136787_unicode.json").read_bytes())
    assert doc.source == "bioc"
    assert doc.title == "Mice in Bion-M 1 Space Mission: Training and Selection"
    found = headings(doc)
    assert found[:5] == ["# Mice in Bion-M 1 Space Mission: Training and Selection", "## Abstract",
                         "## Introduction", "### Overview of the Bion-m 1 mission", "## Materials and Methods"]
    assert found[-1] == "## Conclusions" and "References" not in " ".join(found)
    assert "30-day flight of the Bion-M 1 biosatellite (April 19–May 19, 2013)" in doc.text
    assert "Body weight (A), food (B) and water (C) consumption" in doc.text  # figure caption
    assert "Historical overview of the Bion project" not in doc.text  # REF passage
    methods = [c for c in doc.chunks if c.heading == "Ethical statement"]
    assert methods and all(c.page is None for c in methods)
    assert_well_formed(doc)


def test_bioc_rejects_non_bioc_json():
    for data in (b"not json", b'{"documents": []}', b"[]"):
        with pytest.raises(DoigetError) as err:
            extract_bioc(data)
        assert err.value.code is ErrorCode.INVALID_INPUT


@pytest.fixture
def ar5iv_doc(upstream):
    return extract_ar5iv((upstream / "ar5iv/latexml_0.8.8_shamkanov_companion_trimmed.html").read_bytes())


def test_ar5iv_sections_and_title(ar5iv_doc):
    doc = ar5iv_doc
    assert doc.source == "ar5iv"
    assert doc.title.startswith("A Companion to Shamkanov’s Circular Proofs for the Gödel–Löb Provability Logic")
    assert headings(doc) == [
        "# " + doc.title, "## Abstract", "## 1. Background: Provability Logic and Why It Matters",
        "## 2. The $\\Box_{\\mathbf{GL}}$ Rule and the Obstacle to Lyndon Interpolation",
        "### 2.1. The rule and its meaning", "### 2.2. Why this breaks Lyndon interpolation"]
    assert "the first syntactic proof of the Lyndon interpolation property" in doc.text
    assert_well_formed(doc)


def test_ar5iv_math_kept_as_tex(ar5iv_doc):
    text = ar5iv_doc.text
    assert "provability logic $\\mathbf{GL}$." in text
    assert "\n\n$$\\Box(\\Box A\\to A)\\to\\Box A.$$\n\n" in text
    # LaTeXML wraps long alttext with "%\n"; the TeX comes back joined.
    assert "$\\mathrm{Prov}(\\lceil\\varphi\\rceil)\\to\\mathrm{Prov}(\\lceil\\mathrm{Prov}(\\lceil\\varphi" in text


def test_ar5iv_chrome_and_bibliography_skipped(ar5iv_doc):
    text = ar5iv_doc.text
    for absent in ("layout: post", "Uppsala University", "Generated", "Mascot", "\\newmdenv", "(1)\n", "•",
                   "Siva Sanjai"):
        assert absent not in text, absent
    assert "rule (1) breaks this" in text  # in-text equation references stay
