"""Datasette metadata for browsing a library: full-text search wired to its FTS5 tables, the views
described, and canned queries for everyday questions (``doiget browse``)."""
from __future__ import annotations

from typing import Any

# table or view -> (FTS5 table, the column whose value is the FTS rowid)
FTS = {"entries": ("entries_fts", "id"), "v_entries": ("entries_fts", "id"),
       "chunks": ("chunks_fts", "id"), "notes": ("notes_fts", "id")}

QUERIES: dict[str, dict[str, str]] = {
    "papers_per_year": {
        "title": "Papers per year",
        "sql": "SELECT year, count(*) AS papers FROM entries WHERE is_stub = 0 GROUP BY year ORDER BY year DESC"},
    "papers_per_tag": {
        "title": "Papers per tag",
        "sql": "SELECT t.name AS tag, count(*) AS papers FROM tags t JOIN entry_tags et ON et.tag_id = t.id "
               "JOIN entries e ON e.id = et.entry_id WHERE e.is_stub = 0 GROUP BY t.id ORDER BY papers DESC, tag"},
    "unread": {
        "title": "Unread: papers with a PDF and no note or annotation yet",
        "sql": "SELECT v.ref, v.year, v.title, v.tags FROM v_entries v WHERE v.has_pdf = 1 AND v.is_stub = 0 "
               "AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.entry_id = v.id) ORDER BY v.created_at DESC"},
    "fetch_failures": {
        "title": "Fetch failures: network requests that did not succeed, newest first",
        "sql": "SELECT time, source, url, status, outcome, detail FROM v_fetch_log WHERE outcome != 'ok' "
               "ORDER BY time DESC LIMIT 500"},
    "notes_by_paper": {
        "title": "Notes by paper",
        "sql": "SELECT v.ref, v.title, count(n.id) AS notes, max(n.updated_at) AS last_note FROM notes n "
               "JOIN v_entries v ON v.id = n.entry_id GROUP BY v.id ORDER BY notes DESC, last_note DESC"},
    "recent_additions": {
        "title": "Recent additions",
        "sql": "SELECT ref, created_at, year, title, tags FROM v_entries WHERE is_stub = 0 "
               "ORDER BY created_at DESC, id DESC LIMIT 100"},
}

VIEWS = {
    "v_entries": "One row per paper with authors, tags, collections and flags joined (docs/SCHEMA.md).",
    "v_fetch_log": "Every network request doiget made, newest first.",
}


def datasette_metadata(database: str) -> dict[str, Any]:
    """Datasette ``metadata.json`` content for the library file named ``database`` (its stem)."""
    tables: dict[str, dict[str, Any]] = {name: {"fts_table": fts, "fts_pk": pk} for name, (fts, pk) in FTS.items()}
    for view, description in VIEWS.items():
        tables.setdefault(view, {})["description"] = description
    tables["http_cache"] = {"hidden": True}
    return {
        "title": "doiget library",
        "description": "A doiget library, read-only. Search: the ?_search= box on entries, v_entries, chunks "
                       "and notes uses SQLite FTS5. Schema: docs/SCHEMA.md.",
        "databases": {database: {"tables": tables, "queries": QUERIES}},
    }
