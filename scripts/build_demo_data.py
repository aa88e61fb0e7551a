"""Rebuild doiget/demo/papers.json from recorded upstream responses, with doiget's own parsers.

Six Europe PMC records (with abstracts), six arXiv records and the Crossref record of the PNAS
paper the README cites: real metadata, reproducible.
The arXiv recording decoded UTF-8 as Latin-1 (see tests/fixtures/upstream/SOURCES.md); names are
repaired here so the demo shows them as the authors spell them.
"""
import json
from pathlib import Path

from doiget.net import arxiv, crossref, europepmc

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT / "tests" / "fixtures" / "upstream"


def repair_mojibake(text: str | None) -> str | None:
    if not text:
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def main() -> None:
    results, _cursor, _count = europepmc.parse_search(json.loads(
        (UPSTREAM / "europepmc" / "search_query_cancer_resultType_core_page1.json").read_text()))
    medical = [w for w in results if w.abstract and len(w.abstract) > 1000][:6]
    feed = arxiv.parse_feed((UPSTREAM / "arxiv" / "search_query_testing_start0_max10.xml").read_bytes())
    preprints = [entry.work for entry in feed[:6]]
    for work in preprints:
        for author in work.authors:
            author.name, author.family, author.given = (repair_mojibake(author.name), repair_mojibake(author.family),
                                                        repair_mojibake(author.given))
    pnas = crossref.parse_work_response(json.loads(
        (UPSTREAM / "crossref" / "works_10.1073_pnas.1414271111.json").read_text()))
    # Its 65 references would add as many stub entries; the demo's citations are in citations.json.
    pnas.references = []
    works = [w.model_dump(mode="json", exclude_defaults=True) for w in medical + preprints + [pnas]]
    target = ROOT / "doiget" / "demo" / "papers.json"
    target.write_text(json.dumps(works, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(works)} works to {target}")


if __name__ == "__main__":
    main()
