"""Update notices (retractions, corrections, expressions of concern) per entry, and ``v_retracted``.

``entry_updates`` keeps every notice a source stated, one row each: direction ``updated-by`` (the
entry is updated by notice ``doi``) or ``update-to`` (the entry is itself a notice for ``doi``),
Crossref's update ``kind`` and date, who asserted it (publisher, retraction-watch), the source it
was read from (crossref, openalex) and when. ``update_checks`` records when each source was last
asked about an entry, so "no notice" (asked, none) differs from "never asked".

``v_retracted`` lists, one row per notice, the entries a retraction, withdrawal, removal, partial
retraction or expression of concern updates: as their own record states it, or as a notice held in
the library states it (``update-to`` naming the entry's DOI).

Revision ID: 0006
Revises: 0003
Create Date: 2026-12-03
"""
from alembic import op

revision = "0006"
down_revision = "0003"
branch_labels = None
depends_on = None

# The update kinds v_retracted lists: doiget.notices.GRAVE's kinds (a test keeps them equal).
GRAVE_KINDS = ("retraction", "withdrawal", "removal", "partial_retraction", "expression_of_concern")
_KINDS = ", ".join(f"'{k}'" for k in GRAVE_KINDS)
_REF = ("CASE WHEN e.doi IS NOT NULL THEN 'doi:' || e.doi WHEN e.arxiv IS NOT NULL THEN 'arxiv:' || e.arxiv "
        "WHEN e.pmid IS NOT NULL THEN 'pmid:' || e.pmid WHEN e.pmcid IS NOT NULL THEN 'pmcid:' || e.pmcid "
        "WHEN e.openalex IS NOT NULL THEN 'openalex:' || e.openalex ELSE '#' || e.id END")

STATEMENTS = [
    """CREATE TABLE entry_updates (
    id INTEGER PRIMARY KEY,
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    direction TEXT NOT NULL CHECK (direction IN ('updated-by', 'update-to')),
    kind TEXT NOT NULL,
    doi TEXT,
    date TEXT,
    label TEXT,
    asserted_by TEXT,
    source TEXT NOT NULL,
    fetched_at TEXT NOT NULL
)""",
    "CREATE INDEX ix_entry_updates_entry ON entry_updates (entry_id)",
    "CREATE INDEX ix_entry_updates_doi ON entry_updates (doi)",
    """CREATE TABLE update_checks (
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    checked_at TEXT NOT NULL,
    PRIMARY KEY (entry_id, source)
)""",
    f"""CREATE VIEW v_retracted AS
SELECT e.id, {_REF} AS ref, e.title, e.year, u.kind, u.doi AS notice_doi, u.date AS notice_date,
    u.asserted_by, u.source, u.fetched_at
FROM entry_updates u JOIN entries e ON e.id = u.entry_id
WHERE u.direction = 'updated-by' AND u.kind IN ({_KINDS})
UNION ALL
SELECT e.id, {_REF} AS ref, e.title, e.year, u.kind, n.doi AS notice_doi, u.date AS notice_date,
    u.asserted_by, u.source, u.fetched_at
FROM entry_updates u JOIN entries n ON n.id = u.entry_id JOIN entries e ON e.doi = u.doi
WHERE u.direction = 'update-to' AND u.kind IN ({_KINDS})""",
]


def upgrade() -> None:
    for statement in STATEMENTS:
        op.execute(statement)


def downgrade() -> None:
    op.execute("DROP VIEW v_retracted")
    op.execute("DROP TABLE update_checks")
    op.execute("DROP TABLE entry_updates")
