"""Full text of the real open-access papers in tests/fixtures/papers (see SOURCES.md): headings,
page furniture, reading order, hyphenation, and phrases found by full-text search."""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from doiget.fulltext.document import Document
from doiget.fulltext.hyphens import Vocabulary
from doiget.fulltext.pdf import extract_pdf
from invariants import assert_well_formed

PAPERS = Path(__file__).resolve().parent.parent / "fixtures" / "papers" / "pdf"
NAMES = sorted(p.name for p in PAPERS.glob("*.pdf"))

# Section headings each paper prints (read off the PDFs), in reading order.
SECTIONS = {
    "acl-N18-3011.pdf": ["1 Introduction", "2 Structure of The Literature Graph", "2.1 Node Types", "2.2 Edge Types",
                         "3 Extracting Metadata", "4 Entity Extraction and Linking", "4.1 Approaches",
                         "4.2 Entity Extraction Models", "4.3 Knowledge Bases", "4.4 Entity Linking Models",
                         "5 Other Research Problems", "6 Conclusion and Future Work", "References"],
    "acl-2020.acl-main.207.pdf": ["1 Introduction", "2 Model", "2.1 Overview", "2.2 Background: Pretrained Transformers",
                                  "2.3 Citation-Based Pretraining Objective", "2.4 Selecting Negative Distractors",
                                  "2.5 Inference", "3 SCIDOCS Evaluation Framework", "3.1 Document Classification",
                                  "3.2 Citation Prediction", "3.3 User Activity", "3.4 Recommendation",
                                  "4 Experiments", "5 Results", "6 Analysis", "7 Related Work",
                                  "8 Conclusions and Future Work"],
    "ncomms-s41467-024-44806-1.pdf": ["Results", "Discussion", "Methods", "Data availability", "References"],
    "bmcbiol-s12915-024-01918-w.pdf": ["Abstract", "Background", "Results"],
    "elife-91357.pdf": ["Introduction", "Results"],
    "arxiv-2302.13971-p1.pdf": ["Abstract", "1 Introduction"],
    "arxiv-2201.11903-p1.pdf": ["Abstract"],
}
# Every heading the paper prints (title included), read off the PDFs: precision and recall of what
# extraction marks as headings. Run-in paragraph leads ending in a full stop ("Papers. We obtain ...")
# are not section headings.
ALL_HEADINGS = {
    "acl-N18-3011.pdf": ["Construction of the Literature Graph in Semantic Scholar", "Abstract",
                         *SECTIONS["acl-N18-3011.pdf"]],
    "acl-2020.acl-main.207.pdf": [
        "SPECTER: Document-level Representation Learning using Citation-informed Transformers", "Abstract",
        "1 Introduction", "2 Model", "2.1 Overview", "2.2 Background: Pretrained Transformers",
        "Document Representation", "2.3 Citation-Based Pretraining Objective", "2.4 Selecting Negative Distractors",
        "2.5 Inference", "3 SCIDOCS Evaluation Framework", "3.1 Document Classification", "MeSH Classification",
        "Paper Topic Classification", "3.2 Citation Prediction", "Direct Citations", "Co-Citations",
        "3.3 User Activity", "Co-Views", "Co-Reads", "3.4 Recommendation", "4 Experiments", "Training Data",
        "Training and Implementation", "Task-Specific Model Details", "Baseline Methods", "5 Results",
        "6 Analysis", "Ablation Study", "Visualization", "Comparison with Task Specific Fine-Tuning",
        "7 Related Work", "8 Conclusions and Future Work", "Acknowledgements", "References",
        "A Appendix A - Baseline Details"],
    "ncomms-s41467-024-44806-1.pdf": [
        "Evolution of optimal growth temperature in Asgard archaea inferred from the temperature dependence of "
        "GDP binding to EF-1A", "Results", "Phylogenetic analysis of Asgard EF-1A",
        "Reconstruction of ancestral EF-1A of the last Asgard ancestor of eukaryotes",
        "Analysis of the OGT evolution in Asgardarchaeota", "Discussion", "Methods", "Phylogenetic analysis",
        "Reconstruction of ancestral sequences", "In silico protein modeling", "Protein expression and purification",
        "Thermal stability assay", "GDP binding assay", "Statistical analysis of the optimal GDP-binding temperature",
        "Statistical analysis of the Pearson correlation coefficient", "Prediction of optimal growth temperature",
        "Reporting summary", "Data availability", "Code availability", "References", "Acknowledgements",
        "Author contributions", "Competing interests", "Additional information"],
    # the structured abstract's run-in labels (Background, Results, Conclusions) lead paragraphs
    "bmcbiol-s12915-024-01918-w.pdf": [
        "Exonuclease editor promotes precision of gene editing in mammalian cells", "Abstract", "Background",
        "Results", "Design and effectiveness validation of the exonuclease‑mediated genome editors in promotion "
        "of HDR efficiency and inhibition of NHEJ", "Assessment of error‑prone NHEJ of EXO editor",
        "CXE enhances precise exon insertion efficiency for correcting pathogenic mutation in DMD "
        "patient‑derived hiPSCs with exon 51 deletion"],
}
TITLES = {
    "acl-2020.acl-main.207.pdf": "SPECTER: Document-level Representation Learning using Citation-informed Transformers",
    "ncomms-s41467-024-44806-1.pdf": "Evolution of optimal growth temperature in Asgard archaea inferred from the "
                                     "temperature dependence of GDP binding to EF-1A",
    "arxiv-2201.11903-p1.pdf": "Chain-of-Thought Prompting Elicits Reasoning in Large Language Models",
    "elife-91357.pdf": "Post-transcriptional splicing can occur in a slow-moving zone around the gene",
}
# Running heads / footers / stamps as printed (digits vary page to page): never a heading, never text.
FURNITURE = {
    "elife-91357.pdf": r"DOI: https://doi.org/10.7554/eLife.91357\s+\d+ of 26",
    "bmcbiol-s12915-024-01918-w.pdf": r"Page \d+ of 16",
    "ncomms-s41467-024-44806-1.pdf": r"Nature Communications \| \(2024\) 15:1007",
    "arxiv-2201.11903-p1.pdf": r"arXiv:2201\.11903v6",
    "arxiv-2302.13971-p1.pdf": r"arXiv:2302\.13971v1",
    "acl-2020.acl-main.207.pdf": r"(?m)^22[78]\d$",
}
# Hyphenated compounds broken at a line end in the PDF, and words split at a syllable.
COMPOUNDS = {
    "acl-2020.acl-main.207.pdf": ["document-level", "fine-tuning", "co-citation", "graph-based", "state-of-the-art"],
    "acl-N18-3011.pdf": ["citation-based", "meta-analysis"],
    "bmcbiol-s12915-024-01918-w.pdf": ["microhomology-mediated", "exonuclease-enhanced", "genome-editing"],
    "ncomms-s41467-024-44806-1.pdf": ["GDP-binding", "cold-shock"],
    "elife-91357.pdf": ["post-transcriptionally"],
}
SPLIT_WORDS = {
    "acl-2020.acl-main.207.pdf": ["representations", "embeddings", "classification"],
    "acl-N18-3011.pdf": ["literature", "notable", "facilitate"],
    "ncomms-s41467-024-44806-1.pdf": ["temperature", "Supplementary"],
}


@cache
def doc(name: str) -> Document:
    return extract_pdf((PAPERS / name).read_bytes())


def headings(d: Document) -> list[str]:
    return [line.lstrip("#").strip() for line in d.text.splitlines() if line.startswith("#")]


@pytest.mark.parametrize("name", NAMES)
def test_sections_found_in_order_and_no_junk_headings(name):
    d = doc(name)
    assert_well_formed(d)
    found = headings(d)
    positions = [found.index(h) for h in SECTIONS[name]]  # ValueError names a missing heading
    assert positions == sorted(positions)
    for h in found:
        assert re.search(r"[^\W\d_]{3}", h), h  # no `## 123`, no `## JCAP10(2008)003`
        assert not re.fullmatch(r"[\w()./-]*\d[\w()./-]*", h), h
        assert not re.search(r"arXiv:\d|doi\.org|Page \d+ of|\d+ of \d+$", h), h


@pytest.mark.parametrize("name", sorted(ALL_HEADINGS))
def test_heading_precision_and_recall_against_every_printed_heading(name):
    found, printed = headings(doc(name)), ALL_HEADINGS[name]
    assert [h for h in found if h not in printed] == []  # precision 1: no figure label, masthead or stray line
    assert [h for h in printed if h not in found] == []  # recall 1


def test_figure_labels_are_text_not_headings():
    d = doc("ncomms-s41467-024-44806-1.pdf")  # labels of Fig. 2, set larger or bolder than body text
    page3 = d.text[d.page_offsets[2]:d.page_offsets[3]]
    for label in ("Posterior probability (PP)", "G-domain", "Domain 3", "Domain 2"):
        assert label not in headings(d), label
        assert label in page3, label  # kept as the figure's text


@pytest.mark.parametrize("name", sorted(TITLES))
def test_title_is_the_level_one_heading(name):
    assert doc(name).title == TITLES[name]


@pytest.mark.parametrize("name", sorted(FURNITURE))
def test_running_heads_page_numbers_and_stamps_are_dropped(name):
    assert not re.search(FURNITURE[name], doc(name).text)


def test_two_column_pages_read_column_by_column():
    text = doc("acl-2020.acl-main.207.pdf").text
    order = [text.index(h) for h in ("3.1 Document Classification", "MeSH Classification", "3.2 Citation Prediction",
                                     "Direct Citations", "Co-Citations", "3.3 User Activity", "Co-Views")]
    assert order == sorted(order)
    llama = doc("arxiv-2302.13971-p1.pdf").text  # one page, two columns
    assert llama.index("## Abstract") < llama.index("## 1 Introduction")
    abstract = llama[llama.index("## Abstract"):llama.index("## 1 Introduction")]
    assert "LLaMA-13B outperforms GPT-3" in abstract and "Hoffmann" not in abstract


@pytest.mark.parametrize("name", sorted(COMPOUNDS))
def test_hyphenated_compounds_kept_and_split_words_joined(name):
    text = doc(name).text
    for compound in COMPOUNDS[name]:
        assert compound in text, compound
        assert compound.replace("-", "") not in text, compound
    for word in SPLIT_WORDS.get(name, []):
        assert word in text, word


def test_vocabulary_decides_between_compound_and_split_word():
    vocab = Vocabulary.of(["a population-based study of the", "population was based on"])
    assert vocab.keeps_hyphen("population-", "based cohort")
    assert not vocab.keeps_hyphen("popula-", "tion growth")
    assert vocab.keeps_hyphen("COVID-", "19 cases")
    assert (vocab.kept, vocab.joined) == (1, 1)


def test_hyphenated_phrases_found_by_full_text_search(tmp_path, monkeypatch):
    from doiget.config import load_config
    from doiget.library import Library

    monkeypatch.setenv("DOIGET_PROFILE", "offline")
    with Library(load_config(tmp_path / "lib")) as lib:
        for name in ("acl-2020.acl-main.207.pdf", "bmcbiol-s12915-024-01918-w.pdf"):
            lib.add_pdf(PAPERS / name)
        hits = lib.search_text('"document-level representation learning"')
        assert hits and hits[0].title.startswith("SPECTER") and hits[0].page == 1
        hits = lib.search_text('"microhomology-mediated end joining"')
        assert hits and hits[0].ref == "doi:10.1186/s12915-024-01918-w"
        assert not lib.search_text("documentlevel") and not lib.search_text("microhomologymediated")
        assert lib.search_text('"2.3 Citation-Based Pretraining Objective"')[0].heading == \
            "2.3 Citation-Based Pretraining Objective"
