"""Entry and note ids are never reused: ``entries`` and ``notes`` get AUTOINCREMENT, so after a delete
``doiget://entry/<id>`` cannot come to name another paper.

The tables are rebuilt generically from what sqlite_master holds at migration time (the CREATE
TABLE text, its indexes and triggers), so columns, indexes and triggers that other migrations added
survive. It runs with foreign-key enforcement off (doiget.store.migrate does that for every
migration) and ``legacy_alter_table`` on, so renaming the old table aside rewrites no reference in
child tables, views or triggers, and dropping it cascades nowhere; ``foreign_key_check`` then
confirms every reference still holds.

Revision ID: 0003
Revises: 0005
Create Date: 2026-12-03
"""
import re

from alembic import op

revision = "0003"
down_revision = "0005"
branch_labels = None
depends_on = None

TABLES = ("entries", "notes")
_ID = re.compile(r"\bid\s+INTEGER\s+PRIMARY\s+KEY\b(?!\s+AUTOINCREMENT)", re.IGNORECASE)


def rebuild(conn, table: str, edit) -> None:
    """Recreate ``table`` with ``edit(create_sql)`` as its definition, keeping rows, ids, indexes and triggers."""
    create = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                                  (table,)).scalar_one()
    attached = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger') "
                                    "AND tbl_name = ? AND sql IS NOT NULL ORDER BY type, name", (table,)).scalars().all()
    columns = ", ".join(f'"{row[1]}"' for row in conn.exec_driver_sql(f'PRAGMA table_info("{table}")').fetchall())
    aside = f"{table}__before_0003"
    conn.exec_driver_sql("PRAGMA legacy_alter_table = ON")
    try:
        conn.exec_driver_sql(f'ALTER TABLE "{table}" RENAME TO "{aside}"')
        conn.exec_driver_sql(edit(create))
        conn.exec_driver_sql(f'INSERT INTO "{table}" ({columns}) SELECT {columns} FROM "{aside}"').close()
        conn.exec_driver_sql(f'DROP TABLE "{aside}"')
    finally:
        conn.exec_driver_sql("PRAGMA legacy_alter_table = OFF")
    for sql in attached:
        conn.exec_driver_sql(sql)


def _autoincrement(create: str) -> str:
    edited, count = _ID.subn("id INTEGER PRIMARY KEY AUTOINCREMENT", create, count=1)
    if count == 0 and "AUTOINCREMENT" not in create.upper():
        raise RuntimeError(f"cannot find the INTEGER PRIMARY KEY id column in: {create[:200]}")
    return edited


def _require_foreign_keys_off(conn) -> None:
    # With enforcement on, SQLite rewrites the children's REFERENCES to the renamed table and the DROP
    # cascades into them; doiget.store.migrate runs migrations with it off, as SQLite's rebuild recipe says.
    if conn.exec_driver_sql("PRAGMA foreign_keys").scalar():
        raise RuntimeError("migration 0003 rebuilds tables: run it with PRAGMA foreign_keys = OFF")


def upgrade() -> None:
    conn = op.get_bind()
    _require_foreign_keys_off(conn)
    for table in TABLES:
        rebuild(conn, table, _autoincrement)
    problems = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if problems:
        raise RuntimeError(f"foreign keys broken by the rebuild: {problems[:5]}")


def downgrade() -> None:
    conn = op.get_bind()
    _require_foreign_keys_off(conn)
    for table in TABLES:
        rebuild(conn, table, lambda create: re.sub(r"\s+AUTOINCREMENT\b", "", create, count=1, flags=re.IGNORECASE))
