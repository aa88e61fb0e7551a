"""The seed spec's dry-run preview (SEED_MCP_TOOLS.md §10): what a fetch would ask, from which hosts
a PDF could come, where it would be written, and the rate-limit budget. Built offline from the
per-source policy table; nothing here touches the network or the disk."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from doiget.refs import Ref
from doiget.net.policy import ALLOWED_HOSTS, ARXIV_INTERVAL, GLOBAL_INTERVAL, allowed_hosts
from doiget.store.store import DB_NAME

PDF_SOURCES = ("arxiv_pdf", "oa_pdf", "europepmc_pdf")
ANY_PUBLIC_HOST = "*"


def extend(result: dict[str, Any], home: Path) -> dict[str, Any]:
    """A dry-run result of ``doiget.services.fetching.plan`` with the seed spec's ``plan``, ``rate_limit_budget``
    and ``ref_shape`` ({kind: id}) added."""
    ref = Ref.parse(result["ref"])
    planned = [c["source"] for c in result.get("candidates", [])]
    if result["pdf"]["status"] == "planned" and ref.kind != "arxiv":
        planned += [s for s in PDF_SOURCES if s not in planned and s != "arxiv_pdf"]  # Unpaywall may add these
    pdf_sources = [{"key": s, "candidate_hosts": _hosts(s)} for s in dict.fromkeys(planned)]
    present = result["pdf"]["status"] == "already_present"
    return {**result, "ref_shape": {ref.kind: ref.id},
            "plan": {"metadata_sources": list(dict.fromkeys(r["source"] for r in result.get("requests", []))),
                     "pdf_sources": pdf_sources,
                     "redirect_allowlists_loaded": [s for s, hosts in ALLOWED_HOSTS.items() if hosts is not None],
                     "candidate_hosts_are_upper_bound": True,
                     # blobs are content-addressed: the file name is known only once the bytes are
                     "target_pdf_path": None, "target_blob_dir": str(home / "blobs"),
                     "target_metadata_path": str(home / DB_NAME),
                     "would_append_provenance": not present},
            "rate_limit_budget": {"global_per_sec": round(1 / GLOBAL_INTERVAL, 3),
                                  "per_source_min_gap_ms": round(GLOBAL_INTERVAL * 1000),
                                  "arxiv_min_gap_ms": round(ARXIV_INTERVAL * 1000)}}


def _hosts(source: str) -> list[str]:
    hosts = allowed_hosts(source)
    return sorted(hosts) if hosts is not None else [ANY_PUBLIC_HOST]
