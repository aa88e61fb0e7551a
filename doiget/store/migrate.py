"""Schema upgrades: the store is migrated to the head revision by Alembic whenever it is opened."""
from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine


def _migrations_dir() -> Path:
    """The Alembic script directory: the package ``doiget.migrations`` of an installed wheel (or of an
    editable install, which maps it to the top-level ``migrations/``), else the source tree's ``migrations/``."""
    spec = importlib.util.find_spec("doiget.migrations")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parents[2] / "migrations"


MIGRATIONS = _migrations_dir()
# The newest revision; tests check it equals Alembic's head so this cannot drift.
HEAD = "0009"


def alembic_config():
    from alembic.config import Config as AlembicConfig  # imported on demand: Alembic costs ~0.3 s at start-up

    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def script_head() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(path: Path) -> str | None:
    """The revision of the store file at ``path`` (plain sqlite3: no SQLAlchemy or Alembic import), or
    None for a store that has never been migrated (or does not exist yet)."""
    if not path.is_file():
        return None
    conn = sqlite3.connect(path, timeout=30)
    try:
        return conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return None
        raise
    except TypeError:  # the table is there but empty
        return None
    finally:
        conn.close()


def upgrade(engine: Engine) -> str:
    """Bring the store to HEAD with Alembic (imported here: a current store never needs it); returns the
    revision after."""
    from alembic import command
    from sqlalchemy import text

    config = alembic_config()
    with engine.connect() as conn:
        # Table rebuilds (SQLite's ALTER TABLE recipe, and Alembic's batch mode) need foreign-key
        # enforcement off, which SQLite only lets a connection change outside a transaction.
        raw = conn.connection.dbapi_connection
        raw.execute("PRAGMA foreign_keys = OFF")
        try:
            with conn.begin():
                config.attributes["connection"] = conn
                command.upgrade(config, "head")
        finally:
            raw.execute("PRAGMA foreign_keys = ON")
        return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
