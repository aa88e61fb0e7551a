"""A health report that reads the store without creating or migrating anything."""
from __future__ import annotations

import sqlite3
from typing import Any

from doiget.config import Config
from doiget.store.failures import foreign_database, store_error
from doiget.store.migrate import HEAD
from doiget.store.store import DB_NAME

_COUNTS = ("entries", "authors", "tags", "collections", "notes", "artefacts", "chunks", "citations", "provenance")


def health_report(config: Config) -> dict[str, Any]:
    """Where the store is, whether it exists, its schema revision vs. the code's, and row counts."""
    path = config.home / DB_NAME
    report: dict[str, Any] = {"home": str(config.home), "database": str(path), "exists": path.is_file(),
                              "schema_head": HEAD, "profile": config.profile}
    if path.is_dir():
        report.update(revision=None, status="error", message=f"{path} is a directory, not a database file; move "
                      "it away or choose another --home / DOIGET_HOME")
        return report
    if not report["exists"]:
        report.update(revision=None, status="empty", message="no library yet; it is created on first use")
        return report
    foreign = foreign_database(path)
    if foreign is not None:
        report.update(revision=None, status="error", message=foreign.message)
        return report
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()
            report["revision"] = revision[0] if revision else None
            report["counts"] = {name: conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for name in _COUNTS}
            report["counts"]["stubs"] = conn.execute("SELECT count(*) FROM entries WHERE is_stub = 1").fetchone()[0]
            report["quick_check"] = conn.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        failure = store_error(path, exc, "read")
        report.update(status="error", message=failure.message if failure else f"cannot read the store: {exc}")
        return report
    blobs = config.home / "blobs"
    report["blob_bytes"] = sum(p.stat().st_size for p in blobs.glob("??/*") if p.is_file()) if blobs.is_dir() else 0
    current = report["revision"] == HEAD and report["quick_check"] == "ok"
    report["status"] = "ok" if current else "needs_attention"
    if report["revision"] != HEAD:
        report["message"] = f"schema at {report['revision']}, code expects {HEAD}: run `doiget migrate`"
    return report
