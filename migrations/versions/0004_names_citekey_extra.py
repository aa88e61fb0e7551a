"""Each entry's own names (parts and roles), stored citation keys, and an ``extra`` JSON column.

``entry_authors`` gains the entry's own spelling of each name (name, family, given, particle,
dropping_particle, suffix, literal) and a ``role`` (author, editor, translator, ... as CSL names
them); existing rows copy their spelling from the shared ``authors`` row, which stays as the
folded person index. ``entries`` gains ``citekey`` (unique, case-insensitively, as BibTeX
compares keys) and ``extra`` (JSON: fields without a column). Every existing entry gets its
citation key now, once. ``v_entries`` shows the key and lists only authors.

Revision ID: 0004
Revises: 0002
Create Date: 2026-12-03
"""
from alembic import op
from sqlalchemy import text

revision = "0004"
down_revision = "0002"
branch_labels = None
depends_on = None

# v_entries: the citation key after the id; authors in the entry's own spelling, editors left out.
_VIEW_CHANGES = (
    ("SELECT e.id,", "SELECT e.id, e.citekey,"),
    ("SELECT a.name FROM entry_authors ea JOIN authors a ON a.id = ea.author_id\n        WHERE ea.entry_id = e.id "
     "ORDER BY ea.position", "SELECT ea.name FROM entry_authors ea\n        WHERE ea.entry_id = e.id "
     "AND ea.role = 'author' ORDER BY ea.position"),
)
NAME_COLUMNS = ("name", "family", "given", "particle", "dropping_particle", "suffix")


def _view_sql(connection, name: str) -> str:
    return connection.execute(text("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = :n"),
                              {"n": name}).scalar_one()


def upgrade() -> None:
    from doiget.formats.keys import citation_keys
    from doiget.models import Author, Work

    op.execute("ALTER TABLE entries ADD COLUMN citekey TEXT COLLATE NOCASE")
    op.execute("ALTER TABLE entries ADD COLUMN extra TEXT")
    op.execute("ALTER TABLE entry_authors ADD COLUMN role TEXT NOT NULL DEFAULT 'author'")
    for column in NAME_COLUMNS:
        op.execute(f"ALTER TABLE entry_authors ADD COLUMN {column} TEXT")
    op.execute("ALTER TABLE entry_authors ADD COLUMN literal INTEGER NOT NULL DEFAULT 0")
    op.execute("UPDATE entry_authors SET name = a.name, family = a.family, given = a.given "
               "FROM authors a WHERE a.id = entry_authors.author_id")
    op.execute("CREATE INDEX ix_entry_authors_role ON entry_authors(entry_id, role)")
    connection = op.get_bind()
    rows = connection.execute(text(
        "SELECT e.id, e.title, e.year, ea.family, ea.name FROM entries e LEFT JOIN entry_authors ea "
        "ON ea.entry_id = e.id AND ea.position = (SELECT min(position) FROM entry_authors WHERE entry_id = e.id) "
        "ORDER BY e.id")).all()
    works = [Work(title=title, year=year, authors=[Author(name=name, family=family)] if name else [])
             for _, title, year, family, name in rows]
    for (entry_id, *_), key in zip(rows, citation_keys(works)):
        connection.execute(text("UPDATE entries SET citekey = :k WHERE id = :id"), {"k": key, "id": entry_id})
    op.execute("CREATE UNIQUE INDEX ux_entries_citekey ON entries(citekey)")
    view = _view_sql(connection, "v_entries")
    for old, new in _VIEW_CHANGES:
        assert old in view, f"v_entries no longer has {old!r}; update migration 0004"
        view = view.replace(old, new, 1)
    op.execute("DROP VIEW v_entries")
    op.execute(view)


def downgrade() -> None:
    connection = op.get_bind()
    view = _view_sql(connection, "v_entries")
    for old, new in _VIEW_CHANGES:
        view = view.replace(new, old, 1)
    op.execute("DROP VIEW v_entries")
    op.execute(view)
    op.execute("DROP INDEX ux_entries_citekey")
    op.execute("DROP INDEX ix_entry_authors_role")
    op.execute("DELETE FROM entry_authors WHERE role != 'author'")
    for column in (*NAME_COLUMNS, "literal", "role"):
        op.execute(f"ALTER TABLE entry_authors DROP COLUMN {column}")
    for column in ("extra", "citekey"):
        op.execute(f"ALTER TABLE entries DROP COLUMN {column}")
