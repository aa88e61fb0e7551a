"""doiget's benchmark: one command, one table (figures go to docs/PERFORMANCE.md).

    python scripts/bench.py            # 1k, 10k and 100k entries (a few minutes)
    python scripts/bench.py --quick    # 1k and 10k only

- search_local p50/p99 over synthetic libraries (scripts/synthetic_corpus.py: Zipf vocabulary of
  real abstracts), next to the raw sqlite3 FTS5 query on the same file: the ratio is the cost of
  doiget's layers (query compilation, filters, pooled connection, hit summaries, models).
- import throughput (CSL-JSON through Library.import_bibliography).
- full-text indexing pages/s (store + extract + chunks + FTS) vs raw PyMuPDF page.get_text().
- MCP start -> initialize -> tools/list wall time of ``doiget serve`` vs a bare mcp SDK server.
- fetch pipeline overhead per ref against the loopback HTTPS server, rate limits lifted.
- peak RSS of ``doiget serve`` after 1,000 searches on the largest library.
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts"), str(ROOT / "tests"), str(ROOT / "tests" / "fulltext")]

from doiget import open_library  # noqa: E402
from doiget.store.fts import compile_query  # noqa: E402
from synthetic_corpus import Corpus, csl_items  # noqa: E402

ROWS: list[tuple[str, str, str, str]] = []
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def row(metric: str, value: str, reference: str = "", note: str = "") -> None:
    ROWS.append((metric, value, reference, note))
    print(f"  {metric}: {value}  {reference}  {note}", file=sys.stderr)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def build_library(home: Path, n: int) -> float:
    """Import ``n`` synthetic entries; returns entries/s."""
    corpus = Corpus(seed=n)
    document = csl_items(list(corpus.works(n)))
    with open_library(home) as lib:
        start = time.perf_counter()
        report = lib.import_bibliography(document, format="csl-json")
        seconds = time.perf_counter() - start
    assert report.added == n, report
    return n / seconds


def bench_search(home: Path, n: int) -> None:
    queries = Corpus(seed=7).queries(300)
    with open_library(home) as lib:
        for q in queries[:30]:
            lib.search(q, limit=20)
        doiget_ms = []
        for q in queries:
            start = time.perf_counter()
            lib.search(q, limit=20)
            doiget_ms.append((time.perf_counter() - start) * 1000)
    conn = sqlite3.connect(home / "library.sqlite3")
    raw_sql = ("SELECT rowid, bm25(entries_fts), snippet(entries_fts, -1, '**', '**', '…', 16) FROM entries_fts "
               "WHERE entries_fts MATCH ? ORDER BY 2 LIMIT 20")
    compiled = [compile_query(q) for q in queries]
    raw_ms = []
    for q in compiled:
        start = time.perf_counter()
        conn.execute(raw_sql, (q,)).fetchall()
        raw_ms.append((time.perf_counter() - start) * 1000)
    conn.close()
    (p50, p99), (r50, r99) = percentiles(doiget_ms), percentiles(raw_ms)
    row(f"search_local, {n:,} entries", f"p50 {p50:.2f} ms, p99 {p99:.1f} ms",
        f"raw FTS5 p50 {r50:.2f} ms, p99 {r99:.1f} ms", f"ratio p50 {p50 / r50:.1f}x")


def bench_fulltext(pdfs: int = 10, pages: int = 12) -> None:
    import pymupdf
    from pdfgen import long_paper

    from doiget.models import Work

    blobs = [long_paper(pages, seed=i) for i in range(pdfs)]
    start = time.perf_counter()
    for blob in blobs:
        with pymupdf.open(stream=blob, filetype="pdf") as doc:
            for page in doc:
                page.get_text()
    raw = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as home, open_library(home) as lib:
        ids = [lib.add(Work(title=f"Benchmark paper {i}")).id for i in range(pdfs)]
        start = time.perf_counter()
        for entry_id, blob in zip(ids, blobs):
            lib.add_artefact(entry_id, "pdf", blob)
        indexed = time.perf_counter() - start
    total = pdfs * pages
    row("full-text indexing", f"{total / indexed:.0f} pages/s", f"raw PyMuPDF {total / raw:.0f} pages/s",
        f"{indexed / raw:.1f}x the raw extraction time (store + extract + chunks + FTS)")


def serve_and_list(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env)
    for frame in (INIT, INITIALIZED, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}):
        proc.stdin.write((json.dumps(frame) + "\n").encode())
    proc.stdin.flush()
    while json.loads(proc.stdout.readline()).get("id") != 1:
        pass
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(30)
    proc.stdout.close()
    return elapsed


BARE_SERVER = textwrap.dedent('''
    import anyio, mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=[types.Tool(name="echo", description="echo",
                                                       input_schema={"type": "object"})])

    async def call_tool(ctx, params):
        return types.CallToolResult(content=[types.TextContent(type="text", text="{}")])

    server = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main():
        async with stdio_server() as (r, w):
            await server.run(r, w, server.create_initialization_options())

    anyio.run(main)
''')


def bench_mcp_startup(home: Path) -> None:
    env = {**os.environ, "DOIGET_HOME": str(home)}
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(BARE_SERVER)
    doiget_s = statistics.median(serve_and_list([sys.executable, "-m", "doiget.cli", "serve"], env)
                                 for _ in range(5))
    bare_s = statistics.median(serve_and_list([sys.executable, script.name], env) for _ in range(5))
    os.unlink(script.name)
    row("MCP start -> initialize -> tools/list", f"{doiget_s * 1000:.0f} ms",
        f"bare mcp SDK server {bare_s * 1000:.0f} ms", f"ratio {doiget_s / bare_s:.2f}x (median of 5)")


def bench_fetch(n: int = 50) -> None:
    import trustme
    from bench_fetch import serve_dois, timed_batch
    from fetchenv import source_env
    from loopback import LoopbackServer

    ca = trustme.CA()
    server = LoopbackServer(ca)
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory() as work:
        ca.cert_pem.write_to_path(str(Path(work) / "ca.pem"))
        os.environ.update(source_env(server, Path(work) / "ca.pem"))
        try:
            dois = serve_dois(server, "bench", n)
            seconds, summary = timed_batch(Path(work) / "home", dois)
            seq_dois = serve_dois(server, "seq", n // 5)
            seq_seconds, _ = timed_batch(Path(work) / "home-seq", seq_dois, sequential=True)
        finally:
            os.environ.clear()
            os.environ.update(saved)
            server.close()
    row("fetch pipeline, loopback, limits off", f"{seconds / n * 1000:.0f} ms/ref in a batch of {n}",
        f"sequential {seq_seconds / len(seq_dois) * 1000:.0f} ms/ref",
        f"each ref: 4 HTTPS requests + full text lookups + SQLite writes; {summary}")


def bench_serve_memory(home: Path, n: int, searches: int = 1000) -> None:
    queries = Corpus(seed=11).queries(searches)
    proc = subprocess.Popen([sys.executable, "-m", "doiget.cli", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "DOIGET_HOME": str(home)})
    proc.stdin.write((json.dumps(INIT) + "\n" + json.dumps(INITIALIZED) + "\n").encode())
    for i, query in enumerate(queries, 1):
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
            "name": "doiget_search_local", "arguments": {"query": query, "limit": 20}}}) + "\n").encode())
        proc.stdin.flush()
        while json.loads(proc.stdout.readline()).get("id") != i:
            pass
    # VmHWM of the server itself: a child's ru_maxrss would count the benchmark's own pages it forked from
    status = Path(f"/proc/{proc.pid}/status").read_text()
    peak_kib = int(status.split("VmHWM:")[1].split()[0])
    proc.stdin.close()
    code = proc.wait(30)
    proc.stdout.close()
    row(f"doiget serve peak RSS after {searches:,} searches", f"{peak_kib / 1024:.0f} MiB",
        f"{n:,}-entry library", f"exit status {code}")


def main() -> None:
    parser = argparse.ArgumentParser(description="doiget benchmark table")
    parser.add_argument("--quick", action="store_true", help="skip the 100k-entry library")
    args = parser.parse_args()
    sizes = (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000)
    work = Path(tempfile.mkdtemp(prefix="doiget-bench-"))
    os.environ["DOIGET_PROFILE"] = "full"
    for n in sizes:
        home = work / f"lib{n}"
        rate = build_library(home, n)
        if n >= 10_000:
            row(f"import CSL-JSON, {n:,} entries", f"{rate:,.0f} entries/s", "target >= 2,000/s")
        bench_search(home, n)
    bench_fulltext()
    bench_mcp_startup(work / f"lib{sizes[-1]}")
    bench_fetch()
    bench_serve_memory(work / f"lib{sizes[-1]}", sizes[-1])
    print("| metric | doiget | reference | note |")
    print("|---|---|---|---|")
    for metric, value, reference, note in ROWS:
        print(f"| {metric} | {value} | {reference} | {note} |")


if __name__ == "__main__":
    main()
