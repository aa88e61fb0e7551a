"""Initial schema: entries and their people, tags, collections, notes, artefacts, chunks,
citations, provenance, http cache; FTS5 indexes kept in sync by triggers; read-only views.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""
import sqlite3

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TABLES = """
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    doi TEXT UNIQUE COLLATE NOCASE,
    arxiv TEXT UNIQUE,
    pmid TEXT UNIQUE,
    pmcid TEXT UNIQUE,
    openalex TEXT UNIQUE,
    title TEXT,
    abstract TEXT,
    venue TEXT,
    year INTEGER,
    published TEXT,
    type TEXT,
    publisher TEXT,
    volume TEXT,
    issue TEXT,
    pages TEXT,
    url TEXT,
    license TEXT,
    language TEXT,
    oa_status TEXT,
    oa_url TEXT,
    cited_by_count INTEGER,
    is_stub INTEGER NOT NULL DEFAULT 0 CHECK (is_stub IN (0, 1)),
    sources TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CHECK (coalesce(doi, arxiv, pmid, pmcid, openalex) IS NOT NULL OR title IS NOT NULL)
);
CREATE INDEX ix_entries_year ON entries(year);
CREATE INDEX ix_entries_created ON entries(created_at);

CREATE TABLE authors (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    family TEXT,
    given TEXT,
    orcid TEXT
);
CREATE TABLE entry_authors (
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    affiliation TEXT,
    PRIMARY KEY (entry_id, position)
);
CREATE INDEX ix_entry_authors_author ON entry_authors(author_id);

CREATE TABLE tags (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE
);
CREATE TABLE entry_tags (
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    PRIMARY KEY (entry_id, tag_id)
);
CREATE INDEX ix_entry_tags_tag ON entry_tags(tag_id);

CREATE TABLE collections (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    description TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE collection_entries (
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    added_at TEXT NOT NULL,
    PRIMARY KEY (collection_id, entry_id)
);
CREATE INDEX ix_collection_entries_entry ON collection_entries(entry_id);

CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    entry_id INTEGER REFERENCES entries(id) ON DELETE CASCADE,
    kind TEXT NOT NULL DEFAULT 'note' CHECK (kind IN ('annotation', 'note')),
    body TEXT NOT NULL,
    author TEXT,
    anchors TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX ux_notes_one_annotation ON notes(entry_id) WHERE kind = 'annotation';
CREATE INDEX ix_notes_entry ON notes(entry_id);
CREATE TABLE note_tags (
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    PRIMARY KEY (note_id, tag_id)
);

CREATE TABLE artefacts (
    id INTEGER PRIMARY KEY,
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('pdf', 'jats', 'html', 'tex', 'bioc', 'text')),
    sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
    size INTEGER NOT NULL,
    mime TEXT,
    source TEXT,
    url TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (entry_id, kind, sha256)
);
CREATE INDEX ix_artefacts_sha ON artefacts(sha256);

CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    artefact_id INTEGER NOT NULL REFERENCES artefacts(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    heading TEXT,
    page INTEGER,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    text TEXT NOT NULL,
    UNIQUE (artefact_id, seq)
);
CREATE INDEX ix_chunks_entry ON chunks(entry_id);

CREATE TABLE citations (
    citing_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    cited_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (citing_id, cited_id),
    CHECK (citing_id != cited_id)
);
CREATE INDEX ix_citations_cited ON citations(cited_id);

CREATE TABLE provenance (
    id INTEGER PRIMARY KEY,
    time TEXT NOT NULL,
    source TEXT NOT NULL,
    method TEXT NOT NULL DEFAULT 'GET',
    url TEXT NOT NULL,
    status INTEGER,
    bytes INTEGER,
    sha256 TEXT,
    duration_ms INTEGER,
    outcome TEXT NOT NULL,
    from_cache INTEGER NOT NULL DEFAULT 0,
    detail TEXT
);
CREATE INDEX ix_provenance_time ON provenance(time);
CREATE TRIGGER provenance_append_only_update BEFORE UPDATE ON provenance
BEGIN SELECT RAISE(ABORT, 'provenance is append-only'); END;
CREATE TRIGGER provenance_append_only_delete BEFORE DELETE ON provenance
BEGIN SELECT RAISE(ABORT, 'provenance is append-only'); END;

CREATE TABLE http_cache (
    key TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    url TEXT NOT NULL,
    status INTEGER NOT NULL,
    headers TEXT NOT NULL DEFAULT '{}',
    body BLOB NOT NULL,
    fetched_at TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE INDEX ix_http_cache_expires ON http_cache(expires_at);
"""

FTS = """
CREATE VIRTUAL TABLE entries_fts USING fts5(
    title, abstract, authors, venue, year, tags, notes,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text, heading, content = 'chunks', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, heading) VALUES (new.id, new.text, new.heading);
END;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, heading) VALUES ('delete', old.id, old.text, old.heading);
END;
CREATE TRIGGER chunks_fts_update AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, heading) VALUES ('delete', old.id, old.text, old.heading);
    INSERT INTO chunks_fts(rowid, text, heading) VALUES (new.id, new.text, new.heading);
END;
CREATE VIRTUAL TABLE notes_fts USING fts5(
    body, content = 'notes', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts(rowid, body) VALUES (new.id, new.body);
END;
CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts(notes_fts, rowid, body) VALUES ('delete', old.id, old.body);
END;
CREATE TRIGGER notes_fts_update AFTER UPDATE OF body ON notes BEGIN
    INSERT INTO notes_fts(notes_fts, rowid, body) VALUES ('delete', old.id, old.body);
    INSERT INTO notes_fts(rowid, body) VALUES (new.id, new.body);
END;
"""


def _refresh_entries(ids: str) -> str:
    """SQL that rebuilds the entries_fts rows of the entries in ``ids`` (a list or subquery for ``IN``)."""
    return f"""
    DELETE FROM entries_fts WHERE rowid IN ({ids});
    INSERT INTO entries_fts(rowid, title, abstract, authors, venue, year, tags, notes)
    SELECT e.id, e.title, e.abstract,
        (SELECT group_concat(a.name, '; ') FROM entry_authors ea JOIN authors a ON a.id = ea.author_id
         WHERE ea.entry_id = e.id),
        e.venue, e.year,
        (SELECT group_concat(t.name, ' ') FROM entry_tags et JOIN tags t ON t.id = et.tag_id
         WHERE et.entry_id = e.id),
        (SELECT group_concat(n.body, ' ') FROM notes n WHERE n.entry_id = e.id)
    FROM entries e WHERE e.id IN ({ids});"""


# (trigger name, timing and event, entries whose searchable text the event changes)
ENTRY_FTS_TRIGGERS = [
    ("entries_fts_ai", "AFTER INSERT ON entries", "new.id"),
    ("entries_fts_au", "AFTER UPDATE OF title, abstract, venue, year ON entries", "new.id"),
    ("entry_authors_fts_ai", "AFTER INSERT ON entry_authors", "new.entry_id"),
    ("entry_authors_fts_ad", "AFTER DELETE ON entry_authors", "old.entry_id"),
    ("entry_tags_fts_ai", "AFTER INSERT ON entry_tags", "new.entry_id"),
    ("entry_tags_fts_ad", "AFTER DELETE ON entry_tags", "old.entry_id"),
    ("notes_entry_fts_ai", "AFTER INSERT ON notes WHEN new.entry_id IS NOT NULL", "new.entry_id"),
    ("notes_entry_fts_ad", "AFTER DELETE ON notes WHEN old.entry_id IS NOT NULL", "old.entry_id"),
    ("notes_entry_fts_au", "AFTER UPDATE OF body, entry_id ON notes", "old.entry_id, new.entry_id"),
    ("tags_fts_au", "AFTER UPDATE OF name ON tags", "SELECT entry_id FROM entry_tags WHERE tag_id = new.id"),
    ("authors_fts_au", "AFTER UPDATE OF name ON authors",
     "SELECT entry_id FROM entry_authors WHERE author_id = new.id"),
]
ENTRY_FTS_DELETE = ("CREATE TRIGGER entries_fts_ad AFTER DELETE ON entries BEGIN\n"
                    "    DELETE FROM entries_fts WHERE rowid = old.id;\nEND;")


VIEWS = """
CREATE VIEW v_entries AS
SELECT e.id,
    CASE WHEN e.doi IS NOT NULL THEN 'doi:' || e.doi
         WHEN e.arxiv IS NOT NULL THEN 'arxiv:' || e.arxiv
         WHEN e.pmid IS NOT NULL THEN 'pmid:' || e.pmid
         WHEN e.pmcid IS NOT NULL THEN 'pmcid:' || e.pmcid
         WHEN e.openalex IS NOT NULL THEN 'openalex:' || e.openalex END AS ref,
    e.doi, e.arxiv, e.pmid, e.pmcid, e.openalex, e.title, e.year, e.venue, e.type, e.publisher,
    (SELECT group_concat(name, '; ') FROM (
        SELECT a.name FROM entry_authors ea JOIN authors a ON a.id = ea.author_id
        WHERE ea.entry_id = e.id ORDER BY ea.position)) AS authors,
    (SELECT group_concat(name, ', ') FROM (
        SELECT t.name FROM entry_tags et JOIN tags t ON t.id = et.tag_id
        WHERE et.entry_id = e.id ORDER BY t.name)) AS tags,
    (SELECT group_concat(name, ', ') FROM (
        SELECT c.name FROM collection_entries ce JOIN collections c ON c.id = ce.collection_id
        WHERE ce.entry_id = e.id ORDER BY c.name)) AS collections,
    EXISTS (SELECT 1 FROM artefacts x WHERE x.entry_id = e.id AND x.kind = 'pdf') AS has_pdf,
    (SELECT n.body FROM notes n WHERE n.entry_id = e.id AND n.kind = 'annotation') AS annotation,
    e.oa_status, e.oa_url, e.cited_by_count, e.is_stub, e.created_at, e.updated_at
FROM entries e;

CREATE VIEW v_fetch_log AS
SELECT id, time, source, method, url, status, bytes, sha256, duration_ms, outcome, from_cache, detail
FROM provenance ORDER BY id DESC;
"""


def _statements(script: str) -> list[str]:
    """Split a script into complete statements (trigger bodies contain semicolons)."""
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    assert not buffer.strip(), f"incomplete SQL statement: {buffer[:80]}"
    return statements


def upgrade() -> None:
    triggers = "\n".join(f"CREATE TRIGGER {name} {when} BEGIN{_refresh_entries(ids)}\nEND;"
                         for name, when, ids in ENTRY_FTS_TRIGGERS)
    for statement in _statements("\n".join([TABLES, FTS, triggers, ENTRY_FTS_DELETE, VIEWS])):
        op.execute(statement)


def downgrade() -> None:
    for view in ("v_fetch_log", "v_entries"):
        op.execute(f"DROP VIEW {view}")
    for table in ("notes_fts", "chunks_fts", "entries_fts", "http_cache", "provenance", "citations", "chunks",
                  "artefacts", "note_tags", "notes", "collection_entries", "collections", "entry_tags", "tags",
                  "entry_authors", "authors", "entries"):
        op.execute(f"DROP TABLE {table}")
