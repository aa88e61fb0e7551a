"""The seed spec's normative shapes over real stdio: every success and error result of the fetching,
capability and health tools is checked against JSON Schemas written from SEED_MCP_TOOLS.md
(tests/schemas/seed_mcp_tools.json), against the loopback upstream serving recorded answers."""
from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import anyio
import jsonschema
import pytest
from fetchenv import ARXIV_ID, PNAS_DOI, XGEN_DOI, serve_arxiv, serve_pnas, serve_xgen, source_env
from loopback import Reply, _loopback_ca, _loopback_server, client_ca, https_server, redirect  # noqa: F401
from test_mcp import session_calls

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "seed_mcp_tools.json").read_text())
BLOCKED_DOI = "10.1073/pnas.0000000001"  # the PNAS recording under another DOI, its PDF link going to http


def check(shape: str, result: dict) -> None:
    jsonschema.validate(result, {**SCHEMA, "$ref": f"#/$defs/{shape}"})


@pytest.fixture
def upstream_env(https_server, client_ca):
    serve_pnas(https_server)
    serve_pnas(https_server, redirect("http://127.0.0.1:9/plain.pdf"), doi=BLOCKED_DOI, pdf_path="/publisher/b.pdf",
               openalex=False)
    serve_xgen(https_server)
    serve_arxiv(https_server)
    return source_env(https_server, client_ca)


def test_fetching_tools_meet_the_seed_shapes(tmp_path, upstream_env):
    calls = [
        ("doiget_fetch_paper", {"ref": PNAS_DOI, "dry_run": True}),
        ("doiget_metadata_only", {"ref": PNAS_DOI, "dry_run": True}),
        ("doiget_batch_fetch", {"refs": [PNAS_DOI, ARXIV_ID], "dry_run": True}),
        ("doiget_metadata_only", {"ref": PNAS_DOI}),
        ("doiget_metadata_only", {"ref": XGEN_DOI, "include_oa_location": True}),
        ("doiget_fetch_paper", {"ref": PNAS_DOI}),
        ("doiget_fetch_paper", {"ref": BLOCKED_DOI}),
        ("doiget_fetch_paper", {"ref": XGEN_DOI}),
        ("doiget_batch_fetch", {"refs": [PNAS_DOI, "bogus", f"arXiv:{ARXIV_ID}"]}),
        ("doiget_resolve_paper", {"ref": "10.9999/unknown"}),
        ("doiget_fetch_paper", {"ref": "not a ref"}),
        ("doiget_info", {"ref": PNAS_DOI, "dry_run": True}),
        ("doiget_capability_profile", {}),
        ("doiget_health", {}),
        ("doiget_fetch_paper", {"ref": "#1", "dry_run": True}),  # the local id of the first paper stored
        ("doiget_metadata_only", {"ref": "#1", "dry_run": True}),
    ]
    _, results = anyio.run(partial(session_calls, tmp_path / "lib", calls, **upstream_env))
    (plan, meta_plan, batch_plan, meta, meta_oa, fetched, blocked, no_oa, batch, unknown, bad_ref, info_dry,
     profile, health, local_plan, local_meta_plan) = results
    check("DryRun", plan)
    assert plan["ref"] == {"doi": PNAS_DOI} and plan["plan"]["candidate_hosts_are_upper_bound"] is True
    assert plan["plan"]["metadata_sources"][0] == "crossref" and plan["rate_limit_budget"]["global_per_sec"] == 5.0
    check("DryRun", meta_plan)
    assert meta_plan["plan"]["pdf_sources"] == []
    check("BatchResult", batch_plan)
    check("MetadataOnlyResult", meta)
    assert meta["oa_url"] is None and meta["oa_status"] is None and meta["source"] == "crossref"
    check("MetadataOnlyResult", meta_oa)
    assert meta_oa["oa_status"] == "gold"
    for result in (fetched, blocked, no_oa):
        check("FetchResult", result)
    assert fetched["source"] == "unpaywall" and fetched["path"] == fetched["pdf"]["path"]
    assert fetched["size_bytes"] == fetched["pdf"]["size"] > 0
    assert blocked["pdf"]["code"] == "BLOCKED"
    assert blocked["pdf"]["denial_context"]["reason"] == "insecure_scheme"
    assert no_oa["pdf"]["status"] == "no_oa_url" and no_oa["pdf"]["code"] == "NO_OA_AVAILABLE"
    assert no_oa["path"] is None and no_oa["size_bytes"] is None
    check("BatchResult", batch)
    bogus = batch["results"][1]
    check("BatchError", bogus)
    assert bogus["error"]["denial_context"] is None and bogus["ref"] == "bogus"
    for failure, ref in ((unknown, "10.9999/unknown"), (bad_ref, "not a ref"), (info_dry, PNAS_DOI)):
        check("Failure", failure)
        assert failure["ref"] == ref and "denial_context" not in failure["error"]
    assert bad_ref["error"]["code"] == info_dry["error"]["code"] == "INVALID_REF"
    check("CapabilityProfile", profile)
    assert profile["rate_limit_per_sec"] == 5.0 and "crossref" in profile["metadata_sources"]
    check("Health", health)
    assert health["store_writable"] is True and health["schema_version"] == health["health"]["schema_head"]
    for result in (local_plan, local_meta_plan):
        check("DryRun", result)
        assert result["ref"] == {"doi": PNAS_DOI}
    assert local_plan["pdf"]["status"] == "already_present"


def test_denial_context_on_a_single_paper_failure(tmp_path, upstream_env):
    calls = [("doiget_fetch_paper", {"ref": PNAS_DOI}), ("doiget_capability_profile", {})]
    tools, (denied, profile) = anyio.run(partial(session_calls, tmp_path / "lib", calls, DOIGET_PROFILE="offline",
                                                 **upstream_env))
    check("Failure", denied)
    assert denied["error"]["code"] == "CAPABILITY_DENIED" and denied["ref"] == PNAS_DOI
    assert denied["error"]["denial_context"] == {"reason": "capability_not_granted"}
    check("CapabilityProfile", profile)
    assert profile["oa_enabled"] is False and profile["metadata_sources"] == []
    assert "doiget_fetch_paper" not in {t.name for t in tools}  # disabled by the profile: not listed
