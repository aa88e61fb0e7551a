"""Schema upgrades: the store is migrated to the head revision by Alembic whenever it is opened."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError



def _migrations_dir() -> Path:
    """The Alembic script directory: the package ``doiget.migrations`` of an installed wheel (or of an
    editable install, which maps it to the top-level ``migrations/``), else the source tree's ``migrations/``."""
    spec = importlib.util.find_spec("doiget.migrations")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parents[2] / "migrations"


MIGRATIONS = _migrations_dir()
# The newest revision; tests check it equals Alembic's head so this cannot drift.
HEAD = "0006"


def alembic_config():
    from alembic.config import Config as AlembicConfig  # imported on demand: Alembic costs ~0.3 s at start-up

    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def script_head() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    """The store's revision, or None for a store that has never been migrated."""
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except OperationalError:
        return None


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Bring the store to HEAD; returns (revision before, revision after). Cheap when already current."""
    before = current_revision(engine)
    if before != HEAD:
        from alembic import command

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
    return before, current_revision(engine)
