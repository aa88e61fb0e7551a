"""Every row of every table of a SQLite file, and what changed between two such dumps.

Used to check MCP tool annotations: a read-only call must leave every table (FTS shadow tables,
alembic_version and sqlite_sequence included) exactly as it was; a call that only adds may insert
rows but must not remove or change one."""
from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

FTS_SHADOWS = ("_data", "_idx", "_docsize", "_config", "_content")
# AUTOINCREMENT counters (an insert rewrites its table's row) and the trigger-kept search text that
# the entries FTS index reads (migration 0005): both are derived, never what a user gave.
BOOKKEEPING = ("sqlite_sequence", "entry_search_text")


def dump(path: Path) -> dict[str, Counter]:
    """table name → multiset of its rows (a changed row is one removed and one added)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
        return {name: Counter(conn.execute(f'SELECT * FROM "{name}"').fetchall())
                for name, sql in tables if not (sql or "").upper().startswith("CREATE VIRTUAL")}
    finally:
        conn.close()


@dataclass
class Diff:
    added: dict[str, int]
    removed: dict[str, int]

    @property
    def empty(self) -> bool:
        return not self.added and not self.removed

    def removed_outside(self, ignore: tuple[str, ...] = ()) -> dict[str, int]:
        """Removed (or changed) rows, leaving out FTS shadow tables, AUTOINCREMENT counters and ``ignore``."""
        return {t: n for t, n in self.removed.items()
                if not t.endswith(FTS_SHADOWS) and t not in BOOKKEEPING and t not in ignore}


def diff(before: dict[str, Counter], after: dict[str, Counter]) -> Diff:
    added, removed = {}, {}
    for table in before.keys() | after.keys():
        old, new = before.get(table, Counter()), after.get(table, Counter())
        if n := sum((new - old).values()):
            added[table] = n
        if n := sum((old - new).values()):
            removed[table] = n
    return Diff(added, removed)
