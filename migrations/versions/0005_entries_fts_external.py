"""entries_fts without its own copy of the text: an external-content FTS5 index over the view
``entries_fts_content`` (title, abstract, venue, year from ``entries``; the joined author, tag and
note text from ``entry_search_text``, the one place that text is kept); a partial index of stub ids
for the search's stub filter.

All triggers run AFTER the change and remove a row's old tokens with FTS5's 'delete' command from
values known exactly: the ``old`` row of ``entries``, and the joined text stored in
``entry_search_text``. So ``INSERT OR IGNORE`` (no trigger) and ``INSERT OR REPLACE`` into the
link tables keep the index exact, and triggers name their columns, so columns added to ``entries``
later are ignored.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""
from alembic import context, op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

TOKENIZE = "porter unicode61 remove_diacritics 2"
COLUMNS = "title, abstract, authors, venue, year, tags, notes"


def _joined(entry_id: str) -> str:
    """authors, tags, notes of entry ``entry_id`` as the index sees them (deterministic order)."""
    return ", ".join(_JOINED[column].format(entry_id) for column in ("authors", "tags", "notes"))


_JOINED = {
    "authors": "(SELECT group_concat(name, '; ') FROM (SELECT a.name FROM entry_authors ea JOIN authors a "
               "ON a.id = ea.author_id WHERE ea.entry_id = {0} ORDER BY ea.position))",
    "tags": "(SELECT group_concat(name, ' ') FROM (SELECT t.name FROM entry_tags et JOIN tags t "
            "ON t.id = et.tag_id WHERE et.entry_id = {0} ORDER BY t.name))",
    "notes": "(SELECT group_concat(body, ' ') FROM (SELECT body FROM notes WHERE entry_id = {0} ORDER BY id))",
}
_ROW = "e.id, e.title, e.abstract, x.authors, e.venue, e.year, x.tags, x.notes"


def _refresh(ids: str) -> str:
    """Trigger body: re-index the joined text of the stored entries in ``ids`` (an IN list or subquery)."""
    live = f"SELECT id FROM entries WHERE id IN ({ids})"  # entries being deleted keep their text for entries_fts_ad
    return f"""
    INSERT INTO entries_fts(entries_fts, rowid, {COLUMNS})
        SELECT 'delete', {_ROW} FROM entries e JOIN entry_search_text x ON x.id = e.id WHERE e.id IN ({live});
    UPDATE entry_search_text SET (authors, tags, notes) = (SELECT {_joined('entry_search_text.id')})
        WHERE id IN ({live});
    INSERT INTO entries_fts(rowid, {COLUMNS})
        SELECT {_ROW} FROM entries e JOIN entry_search_text x ON x.id = e.id WHERE e.id IN ({live});"""


# (trigger name, event, entries whose joined text the event changes)
JOINED_TRIGGERS = [
    ("entry_authors_fts_ai", "AFTER INSERT ON entry_authors", "new.entry_id"),
    ("entry_authors_fts_ad", "AFTER DELETE ON entry_authors", "old.entry_id"),
    ("entry_authors_fts_au", "AFTER UPDATE ON entry_authors", "old.entry_id, new.entry_id"),
    ("entry_tags_fts_ai", "AFTER INSERT ON entry_tags", "new.entry_id"),
    ("entry_tags_fts_ad", "AFTER DELETE ON entry_tags", "old.entry_id"),
    ("entry_tags_fts_au", "AFTER UPDATE ON entry_tags", "old.entry_id, new.entry_id"),
    ("notes_entry_fts_ai", "AFTER INSERT ON notes WHEN new.entry_id IS NOT NULL", "new.entry_id"),
    ("notes_entry_fts_ad", "AFTER DELETE ON notes WHEN old.entry_id IS NOT NULL", "old.entry_id"),
    ("notes_entry_fts_au", "AFTER UPDATE OF body, entry_id ON notes", "old.entry_id, new.entry_id"),
    ("tags_fts_au", "AFTER UPDATE OF name ON tags", "SELECT entry_id FROM entry_tags WHERE tag_id = new.id"),
    ("authors_fts_au", "AFTER UPDATE OF name ON authors",
     "SELECT entry_id FROM entry_authors WHERE author_id = new.id"),
]
_OLD = "'delete', old.id, old.title, old.abstract, x.authors, old.venue, old.year, x.tags, x.notes"
_NEW = "new.id, new.title, new.abstract, x.authors, new.venue, new.year, x.tags, x.notes"
ENTRY_TRIGGERS = [
    # Link rows may be written before their entry (bulk import): the entry's text is joined here.
    f"""CREATE TRIGGER entries_fts_ai AFTER INSERT ON entries BEGIN
    INSERT OR REPLACE INTO entry_search_text (id, authors, tags, notes) SELECT new.id, {_joined('new.id')};
    INSERT INTO entries_fts(rowid, {COLUMNS}) SELECT {_NEW} FROM entry_search_text x WHERE x.id = new.id;
END""",
    f"""CREATE TRIGGER entries_fts_au AFTER UPDATE OF title, abstract, venue, year ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, {COLUMNS}) SELECT {_OLD} FROM entry_search_text x WHERE x.id = old.id;
    INSERT INTO entries_fts(rowid, {COLUMNS}) SELECT {_NEW} FROM entry_search_text x WHERE x.id = new.id;
END""",
    f"""CREATE TRIGGER entries_fts_ad AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, {COLUMNS}) SELECT {_OLD} FROM entry_search_text x WHERE x.id = old.id;
    DELETE FROM entry_search_text WHERE id = old.id;
END""",
]
OLD_TRIGGERS = [name for name, _, _ in JOINED_TRIGGERS] + ["entries_fts_ai", "entries_fts_au", "entries_fts_ad"]


def upgrade() -> None:
    for name in OLD_TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.execute("DROP TABLE entries_fts")
    op.execute("CREATE TABLE entry_search_text (id INTEGER PRIMARY KEY, authors TEXT, tags TEXT, notes TEXT)")
    op.execute(f"INSERT INTO entry_search_text (id, authors, tags, notes) SELECT e.id, {_joined('e.id')} FROM entries e")
    op.execute(f"CREATE VIEW entries_fts_content AS SELECT {_ROW} "
               "FROM entries e LEFT JOIN entry_search_text x ON x.id = e.id")
    op.execute(f"CREATE VIRTUAL TABLE entries_fts USING fts5({COLUMNS}, content = 'entries_fts_content', "
               f"content_rowid = 'id', tokenize = '{TOKENIZE}')")
    op.execute("INSERT INTO entries_fts(entries_fts) VALUES ('rebuild')")
    for statement in ENTRY_TRIGGERS:
        op.execute(statement)
    for name, when, ids in JOINED_TRIGGERS:
        op.execute(f"CREATE TRIGGER {name} {when} BEGIN{_refresh(ids)}\nEND")
    op.execute("CREATE INDEX ix_entries_stub ON entries(id) WHERE is_stub = 1")


def downgrade() -> None:
    """Back to 0001's entries_fts: its own copy of the text, rebuilt by 0001's triggers."""
    initial = context.script.get_revision("0001").module
    op.execute("DROP INDEX ix_entries_stub")
    for name in OLD_TRIGGERS:
        op.execute(f"DROP TRIGGER {name}")
    op.execute("DROP TABLE entries_fts")
    op.execute("DROP VIEW entries_fts_content")
    op.execute("DROP TABLE entry_search_text")
    op.execute(f"CREATE VIRTUAL TABLE entries_fts USING fts5({COLUMNS}, tokenize = '{TOKENIZE}')")
    triggers = "\n".join(f"CREATE TRIGGER {name} {when} BEGIN{initial._refresh_entries(ids)}\nEND;"
                         for name, when, ids in initial.ENTRY_FTS_TRIGGERS)
    for statement in initial._statements("\n".join([triggers, initial.ENTRY_FTS_DELETE])):
        op.execute(statement)
    op.execute(f"INSERT INTO entries_fts(rowid, {COLUMNS}) SELECT e.id, e.title, e.abstract, "
               f"{_JOINED['authors'].format('e.id')}, e.venue, e.year, {_JOINED['tags'].format('e.id')}, "
               f"{_JOINED['notes'].format('e.id')} FROM entries e")
