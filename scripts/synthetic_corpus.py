"""Realistic synthetic library entries for benchmarks.

Words follow a Zipf distribution over the vocabulary of the recorded upstream abstracts (plus
rarer made-up technical terms, so the vocabulary has a long tail as real corpora do); author
names and venues come from the same recordings. Deterministic for a given seed.
"""
from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path

from doiget.models import Author, Work

UPSTREAM = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "upstream"


def _recorded_text() -> tuple[list[str], list[str], list[str]]:
    """Words of real papers (two JATS full texts, a BioC full text, Europe PMC and arXiv abstracts),
    real author family names and real venues, read with doiget's own parsers."""
    from doiget.fulltext.bioc import extract_bioc
    from doiget.fulltext.jats import extract_jats
    from doiget.net import arxiv, europepmc

    results, _, _ = europepmc.parse_search(json.loads(
        (UPSTREAM / "europepmc" / "search_query_cancer_resultType_core_page1.json").read_text()))
    feeds = [entry.work for name in ("search_query_testing_start0_max10.xml", "legacy2016_search_au_del_maestro.xml")
             for entry in arxiv.parse_feed((UPSTREAM / "arxiv" / name).read_bytes())]
    texts = [extract_jats(p.read_bytes()).text for p in sorted((UPSTREAM / "europepmc").glob("jats_*.xml"))]
    texts.append(extract_bioc((UPSTREAM / "pmc_bioc" / "BioC_json_PMC4136787_unicode.json").read_bytes()).text)
    texts += [f"{w.title} {w.abstract or ''}" for w in results + feeds]
    words = re.findall(r"\b[a-z]{3,}\b", " ".join(texts).lower())
    names = sorted({a.family for w in results + feeds for a in w.authors if a.family and a.family.isalpha()})
    venues = sorted({w.venue for w in results if w.venue})
    return words, names, venues


class Corpus:
    def __init__(self, seed: int = 1, extra_terms: int = 20_000) -> None:
        self.rng = random.Random(seed)
        words, self.names, self.venues = _recorded_text()
        counts: dict[str, int] = {}
        for word in words:
            counts[word] = counts.get(word, 0) + 1
        ranked = sorted(counts, key=lambda w: (-counts[w], w))
        ranked += [f"{self.rng.choice(ranked[:500])}{self.rng.randint(1, 999)}" for _ in range(extra_terms)]
        self.vocabulary = ranked
        self.cumulative = list(accumulate(1.0 / (rank + 1) for rank in range(len(ranked))))

    def words(self, n: int) -> list[str]:
        return self.rng.choices(self.vocabulary, cum_weights=self.cumulative, k=n)

    def work(self, i: int) -> Work:
        rng = self.rng
        title = " ".join(self.words(rng.randint(6, 14))).capitalize()
        abstract = " ".join(self.words(rng.randint(120, 250))).capitalize() + "."
        authors = [Author.from_parts(rng.choice(self.names), rng.choice("ABCDEFGHJKLMNPRSTW") + ".")
                   for _ in range(rng.randint(1, 8))]
        return Work(doi=f"10.5555/synthetic.{i}", title=title, abstract=abstract, authors=authors,
                    venue=rng.choice(self.venues), year=rng.randint(1990, 2026), type="article-journal")

    def works(self, n: int) -> Iterator[Work]:
        for i in range(n):
            yield self.work(i)

    def queries(self, n: int) -> list[str]:
        """Search queries a person would type: one to three mid-frequency words, some phrases and prefixes."""
        mid = self.vocabulary[50:3000]
        out = []
        for i in range(n):
            words = [self.rng.choice(mid) for _ in range(self.rng.randint(1, 3))]
            if i % 5 == 3:
                out.append(f'"{words[0]} {self.rng.choice(mid)}"')
            elif i % 5 == 4:
                out.append(words[0][:4] + "*")
            else:
                out.append(" ".join(words))
        return out


def csl_items(works: list[Work]) -> str:
    """The works as a CSL-JSON document (what a reference manager exports)."""
    from doiget.formats.csl import to_csl_json

    return json.dumps(to_csl_json(works))
