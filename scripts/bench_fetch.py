"""Time the fetch pipeline against the loopback HTTPS server (tests/fetchenv.py), no network.

1. Per-ref overhead, rate limits lifted: N distinct DOIs (the recorded PNAS answers under new
   DOIs, each with its own ~1 KB PDF) through ``batch_fetch`` and through sequential ``fetch``;
   every ref costs Crossref + OpenAlex(404) + Unpaywall + PDF requests and the SQLite writes.
2. Batch wall time with the rate limits ON (5 requests/s overall; arXiv 1 per 3 s): a small
   DOI-only batch and a mixed batch with arXiv ids.

Run from the repository root: ``python scripts/bench_fetch.py [N]``.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import trustme  # noqa: E402
from fetchenv import PDF, pdf_bytes, serve_arxiv, serve_pnas, source_env  # noqa: E402
from loopback import LoopbackServer, Reply  # noqa: E402

from doiget import open_library  # noqa: E402
from doiget.net import http as http_module  # noqa: E402


def serve_dois(server: LoopbackServer, prefix: str, n: int) -> list[str]:
    dois = [f"10.5555/{prefix}.{i}" for i in range(n)]
    for i, doi in enumerate(dois):
        serve_pnas(server, Reply(200, pdf_bytes(f"{prefix} {i}"), PDF), doi=doi, pdf_path=f"/pdf/{prefix}/{i}.pdf",
                   openalex=False)
    return dois


def timed_batch(home: Path, refs: list[str], sequential: bool = False) -> tuple[float, dict]:
    http_module.SHARED_THROTTLE = http_module.Throttle()  # fresh pacing state per run
    with open_library(home) as lib:
        start = time.perf_counter()
        if sequential:
            results = [lib.fetch(ref) for ref in refs]
            summary = {"fetched": sum(r.pdf.status == "fetched" for r in results)}
        else:
            summary = lib.batch_fetch(refs).summary.by_status
        return time.perf_counter() - start, summary


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    ca = trustme.CA()
    server = LoopbackServer(ca)
    work = Path(tempfile.mkdtemp(prefix="bench-fetch-"))
    ca.cert_pem.write_to_path(str(work / "ca.pem"))
    os.environ.update(source_env(server, work / "ca.pem"))

    print(f"per-ref overhead, rate limits off, {n} DOIs (4 HTTPS requests + SQLite writes each):")
    for label, sequential in (("batch_fetch (8 threads)", False), ("sequential fetch", True)):
        dois = serve_dois(server, "seq" if sequential else "par", n)
        seconds, summary = timed_batch(work / f"home-{label[:5]}", dois, sequential)
        print(f"  {label:24s} {seconds:6.2f} s  {seconds / n * 1000:6.1f} ms/ref  {summary}")

    os.environ.pop("DOIGET_RATE_LIMITS")
    print("batch wall time, rate limits ON (5 req/s; arXiv 1 per 3 s):")
    dois = serve_dois(server, "on", 10)
    seconds, summary = timed_batch(work / "home-on-doi", dois)
    print(f"  10 DOIs (40 requests)             {seconds:6.2f} s  {summary}")
    arxiv_ids = [f"1707.0{i:04d}" for i in range(3)]
    serve_arxiv(server, arxiv_ids=tuple(arxiv_ids))
    seconds, summary = timed_batch(work / "home-on-mixed", serve_dois(server, "mix", 7) + arxiv_ids)
    print(f"  7 DOIs + 3 arXiv (34 requests)    {seconds:6.2f} s  {summary}")
    server.close()


if __name__ == "__main__":
    main()
