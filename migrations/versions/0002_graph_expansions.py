"""Citation-graph expansion state: which entries' OpenAlex neighbour lists were fetched, and how far.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03
"""
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
CREATE TABLE graph_expansions (
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    direction TEXT NOT NULL CHECK (direction IN ('references', 'cited_by')),
    openalex TEXT NOT NULL,
    cursor TEXT,
    complete INTEGER NOT NULL DEFAULT 0 CHECK (complete IN (0, 1)),
    listed INTEGER NOT NULL DEFAULT 0,
    total INTEGER,
    expanded_at TEXT NOT NULL,
    PRIMARY KEY (entry_id, direction)
)""")


def downgrade() -> None:
    op.execute("DROP TABLE graph_expansions")
