"""Looking after the library: health, read-only SQL and garbage collection of blobs and cache rows."""
from __future__ import annotations

import time
from typing import Any

from doiget import limits
from doiget.config import Config
from doiget.errors import DoigetError, ErrorCode
from doiget.sanitize import query_text
from doiget.services.checks import bounded_int
from doiget.services.session import Session
from doiget.store import adhoc
from doiget.store import artefacts as artefact_store
from doiget.net import policy
from doiget.store import health as store_health
from doiget.store.netlog import expire_cache


def health(lib: Session) -> dict[str, Any]:
    """Store location, schema revision, counts and integrity of this library."""
    return store_health.health_report(lib.config)


def health_report(config: Config) -> dict[str, Any]:
    """Health of the library ``config`` names, without opening (or creating) it."""
    return store_health.health_report(config)


def network_policy() -> dict[str, Any]:
    """The network rules a default HTTP client applies in this process (no secrets)."""
    return policy.network_policy()


def sql(lib: Session, query: str, max_rows: int = 1000) -> dict[str, Any]:
    """Run ONE read-only SQL statement; returns columns, rows and whether rows were cut at ``max_rows``."""
    if not isinstance(query, str) or not query.strip():
        raise DoigetError(ErrorCode.INVALID_QUERY, "empty SQL statement")
    query = query_text(query, "SQL statement")
    max_rows = bounded_int(max_rows, "max_rows", 1, limits.MAX_SQL_ROWS)
    return adhoc.run_readonly(lib.store, query, max_rows)


def gc(lib: Session, grace_seconds: float = 900, dry_run: bool = False) -> dict[str, Any]:
    """Remove unreferenced blobs older than ``grace_seconds``, stale temp files and expired cache rows."""
    lib.config.require("write")
    cutoff = time.time() - grace_seconds
    with lib.store.read() as conn:
        referenced = artefact_store.referenced(conn)
    orphans = [(sha, path) for sha, path in lib.store.blobs.all()
               if sha not in referenced and path.stat().st_mtime <= cutoff]
    temps = lib.store.blobs.stale_temp_files(grace_seconds)
    freed = sum(p.stat().st_size for _, p in orphans) + sum(p.stat().st_size for p in temps)
    expired = 0
    if not dry_run:
        for sha, _ in orphans:
            lib.store.blobs.delete(sha)
        for path in temps:
            path.unlink(missing_ok=True)
        with lib.store.write() as conn:
            expired = expire_cache(conn)
    return {"orphan_blobs": [sha for sha, _ in orphans], "temp_files": len(temps), "bytes_freed": freed,
            "cache_rows_expired": expired, "dry_run": dry_run}
