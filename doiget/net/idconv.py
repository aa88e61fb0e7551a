"""PMID <-> PMCID <-> DOI conversion.

Done with one Europe PMC search (resultType=lite) rather than NCBI's ID converter: the NCBI
endpoint now needs one request per identifier type, while a Europe PMC OR-query takes a mixed
list, and its answers are covered by recorded responses.
"""
from __future__ import annotations

from doiget.models import Work
from doiget.refs import Ref
from doiget.net import europepmc
from doiget.net.base import Http

CONVERTIBLE = ("pmid", "pmcid", "doi")


def convert(http: Http, refs: list[Ref]) -> dict[Ref, list[Ref]]:
    """Each given ref -> every PMID/PMCID/DOI of the same article (itself included); unknown refs map to []."""
    wanted = [ref for ref in dict.fromkeys(refs) if ref.kind in CONVERTIBLE]
    works = europepmc.works_by_ids(http, wanted, result_type="lite") if wanted else []
    return {ref: _identifiers(ref, works) for ref in refs}


def _identifiers(ref: Ref, works: list[Work]) -> list[Ref]:
    for work in works:
        if europepmc.matches(work, ref):
            return [r for r in work.refs() if r.kind in CONVERTIBLE]
    return []
