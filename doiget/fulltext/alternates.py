"""Where a paper's structured full text can be downloaded: ar5iv HTML for arXiv papers, Europe
PMC JATS for open-access PMC papers, and PMC BioC JSON when JATS is not to be had."""
from __future__ import annotations

from dataclasses import dataclass

from doiget.models import Entry
from doiget.refs import Ref
from doiget.net import europepmc
from doiget.net.base import base_url


@dataclass(frozen=True)
class Alternate:
    """One download to try: artefact ``kind`` from Http ``source`` at ``url`` (None: ``reason`` says why not).
    ``fallback_for`` names a kind whose presence makes this one redundant (same text, other format)."""

    kind: str
    source: str
    url: str | None
    reason: str | None = None
    fallback_for: str | None = None


def for_entry(entry: Entry) -> list[Alternate]:
    """The alternates of ``entry``, in the order to fetch them."""
    no_pmcid = "no PMCID: only PubMed Central papers have JATS/BioC full text"
    pmcid = Ref("pmcid", entry.pmcid) if entry.pmcid else None
    return [
        Alternate("html", "ar5iv", ar5iv_url(entry.arxiv) if entry.arxiv else None,
                  None if entry.arxiv else "no arXiv id: ar5iv renders arXiv papers only"),
        Alternate("jats", "europepmc", europepmc.fulltext_xml_url(pmcid) if pmcid else None,
                  None if pmcid else no_pmcid),
        Alternate("bioc", "bioc", bioc_url(pmcid) if pmcid else None, None if pmcid else no_pmcid,
                  fallback_for="jats"),
    ]


def ar5iv_url(arxiv_id: str) -> str:
    """ar5iv's LaTeXML rendering of an arXiv paper (latest version)."""
    return f"{base_url('ar5iv')}/html/{arxiv_id}"


def bioc_url(pmcid: Ref) -> str:
    """PMC's open-access BioC JSON of a PMC article (Unicode text)."""
    return f"{base_url('bioc')}/pmcoa.cgi/BioC_json/{pmcid.id}/unicode"
