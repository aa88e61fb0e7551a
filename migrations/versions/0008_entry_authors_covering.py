"""A search hit's author names read from one index.

A hit shows its entry's authors in order (``WHERE entry_id = ? AND role = 'author' ORDER BY
position``, :mod:`doiget.store.search`). ``ix_entry_authors_role (entry_id, role)`` found the rows but
left the order and the name in the table: a sort or a table visit per name. The index
``(entry_id, role, position, name)`` holds all of it, and serves every query the old one did (its
first two columns are the old index), which it replaces.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE INDEX ix_entry_authors_shown ON entry_authors(entry_id, role, position, name)")
    op.execute("DROP INDEX ix_entry_authors_role")


def downgrade() -> None:
    op.execute("CREATE INDEX ix_entry_authors_role ON entry_authors(entry_id, role)")
    op.execute("DROP INDEX ix_entry_authors_shown")
