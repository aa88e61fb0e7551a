"""Person-index keys that keep letters of every script.

The old key folded a name to ASCII and dropped what was left, so every name written only in
Cyrillic, Greek, Hangul, ... got the same key ``name:`` (and a CJK name its own spelling): all
those people shared one ``authors`` row, whose first spelling then stood in every such entry's
search text. The key is now :func:`doiget.store.names.name_key`, made with :func:`doiget.text.fold`.

Each name-keyed ``authors`` row takes its new key; where several rows now share one, the row that
already had it (else the oldest) keeps it and the others' names point there. Each ``entry_authors``
row then points at the row of its OWN spelling's key (a new row when none has it), which splits the
shared ``name:`` row into one per person; the search text of the entries whose row changed is
re-joined by the entry_authors triggers. Rows no name points at any more are removed. ORCID-keyed
rows are left as they are. Names whose key does not change (every name in Latin letters but a few
rare ones) are not touched.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from doiget.store.names import name_key as key

    conn = op.get_bind()
    people = conn.exec_driver_sql("SELECT id, key, name FROM authors WHERE key LIKE 'name:%' ORDER BY id").all()
    owner = {old: author_id for author_id, old, name in people if key(name) == old}  # rows whose key holds
    moved = [(author_id, key(name)) for author_id, old, name in people if key(name) != old]
    # Park the moving rows on keys no name can have, so the new keys never meet an old one.
    if moved:
        conn.exec_driver_sql("UPDATE authors SET key = '~' || id WHERE id = ?", [(author_id,) for author_id, _ in moved])
    for author_id, new in moved:
        if new not in owner:
            owner[new] = author_id
            conn.exec_driver_sql("UPDATE authors SET key = ? WHERE id = ?", (new, author_id))

    links = conn.exec_driver_sql(
        "SELECT ea.entry_id, ea.position, ea.author_id, coalesce(ea.name, a.name), ea.family, ea.given "
        "FROM entry_authors ea JOIN authors a ON a.id = ea.author_id "
        "WHERE a.key LIKE 'name:%' OR a.key LIKE '~%'").all()
    for entry_id, position, author_id, name, family, given in links:
        new = key(name)
        if new not in owner:
            owner[new] = conn.exec_driver_sql(
                "INSERT INTO authors (key, name, family, given) VALUES (?, ?, ?, ?)", (new, name, family, given)
            ).lastrowid
        if owner[new] != author_id:
            conn.exec_driver_sql("UPDATE entry_authors SET author_id = ? WHERE entry_id = ? AND position = ?",
                                 (owner[new], entry_id, position))
    conn.exec_driver_sql("DELETE FROM authors WHERE key LIKE '~%' "
                         "AND id NOT IN (SELECT author_id FROM entry_authors)")


def downgrade() -> None:
    raise NotImplementedError("doiget's migrations only go forward")
