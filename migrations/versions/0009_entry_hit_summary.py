"""What a search hit shows of an entry beyond its own columns, stored: ``entry_hit_summary``.

A hit shows its entry's authors (role 'author', the entry's own spelling, in position order) and its
tags, PDF and update notices. Computed per hit by correlated subqueries over four tables, that cost
more than a row lookup (~45 of a rare word's ~400 µs at 10k entries); one row per entry holds it:
``summary`` is the names joined by the ASCII unit separator, the ASCII record separator, then the list
of tags (``t`` + name, by name, NOCASE), PDFs (``p``) and the kinds of the notices updating it (``u`` +
kind), joined by the unit separator (read by ``doiget.store.search``). Triggers on every table feeding it
recompute an entry's row from the base tables after each change: INSERT OR IGNORE / OR REPLACE into a link
table (whose replaced row is of the same entry) and cascading deletes keep it exact; link rows written
before their entry are read when the entry is inserted. Bulk import drops the insert triggers and writes
the batch's rows at once (store/bulk.py).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_SEP = "\x1f"
AUTHORS = (f"(SELECT group_concat(name, '{_SEP}') FROM entry_authors INDEXED BY ix_entry_authors_shown "
           "WHERE entry_id = {0} AND role = 'author')")
MARKS = (f"(SELECT group_concat(item, '{_SEP}') FROM (SELECT 't' || name AS item FROM (SELECT t.name FROM "
         "entry_tags et JOIN tags t ON t.id = et.tag_id WHERE et.entry_id = {0} ORDER BY t.name) "
         "UNION ALL SELECT 'p' FROM artefacts WHERE entry_id = {0} AND kind = 'pdf' "
         "UNION ALL SELECT 'u' || kind FROM entry_updates WHERE entry_id = {0} AND direction = 'updated-by'))")
# The summary of entry {0}: its authors, the record separator, its marks.
SUMMARY = f"coalesce({AUTHORS}, '') || '\x1e' || coalesce({MARKS}, '')"
_TABLE = "entry_hit_summary"

# (trigger name, event, the entries whose summary it recomputes)
LINK_TRIGGERS = [
    *((f"{table}_hit_{short}", f"AFTER {event} ON {table}", ids)
      for table in ("entry_authors", "entry_tags", "artefacts", "entry_updates")
      for short, event, ids in (("ai", "INSERT", "new.entry_id"), ("ad", "DELETE", "old.entry_id"),
                                ("au", "UPDATE", "old.entry_id, new.entry_id"))),
    ("tags_hit_au", "AFTER UPDATE OF name ON tags", "SELECT entry_id FROM entry_tags WHERE tag_id = new.id"),
]
ENTRY_TRIGGERS = [
    ("entries_hit_ai", "AFTER INSERT ON entries",
     f"INSERT OR REPLACE INTO {_TABLE} (id, summary) SELECT new.id, {SUMMARY.format('new.id')};"),
    ("entries_hit_ad", "AFTER DELETE ON entries", f"DELETE FROM {_TABLE} WHERE id = old.id;"),
]


def upgrade() -> None:
    op.execute(f"CREATE TABLE {_TABLE} (id INTEGER PRIMARY KEY, summary TEXT NOT NULL)")
    op.execute(f"INSERT INTO {_TABLE} (id, summary) SELECT e.id, {SUMMARY.format('e.id')} FROM entries e")
    for name, when, body in ENTRY_TRIGGERS:
        op.execute(f"CREATE TRIGGER {name} {when} BEGIN\n    {body}\nEND")
    for name, when, ids in LINK_TRIGGERS:
        op.execute(f"CREATE TRIGGER {name} {when} BEGIN\n    UPDATE {_TABLE} SET summary = "
                   f"{SUMMARY.format(f'{_TABLE}.id')} WHERE id IN ({ids});\nEND")


def downgrade() -> None:
    for name, *_ in ENTRY_TRIGGERS + LINK_TRIGGERS:
        op.execute(f"DROP TRIGGER {name}")
    op.execute(f"DROP TABLE {_TABLE}")
