"""A store file at an older schema revision, for the migration tests to fill with old-shaped rows."""
from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import text

from doiget.store import migrate
from doiget.store.db import open_engines


def engines_at(home: Path, revision: str):
    """Create ``home`` with a store migrated only to ``revision`` (as store.migrate does, foreign keys
    off for the table rebuilds); returns its (reader, writer) engines, for the caller to dispose."""
    home.mkdir(parents=True, exist_ok=True)
    reader, writer = open_engines(home / "library.sqlite3")
    config = migrate.alembic_config()
    with writer.connect() as conn:
        conn.connection.dbapi_connection.execute("PRAGMA foreign_keys = OFF")
        with conn.begin():
            config.attributes["connection"] = conn
            command.upgrade(config, revision)
        conn.connection.dbapi_connection.execute("PRAGMA foreign_keys = ON")
    return reader, writer


def close_returning_entries(reader, writer) -> list[tuple]:
    """The ``v_entries`` rows of the old store, then both engines disposed."""
    with reader.connect() as conn:
        rows = conn.execute(text("SELECT * FROM v_entries ORDER BY id")).all()
    reader.dispose()
    writer.dispose()
    return rows
