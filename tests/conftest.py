"""Shared test fixtures: recorded upstream responses, an isolated environment, and a guard that
keeps every test off the network."""
from __future__ import annotations

import os
import socket
import sqlite3
from pathlib import Path

import pytest
from cli_process import start_shared_server
from demo_pdfs import remember_demo_pdfs
from hypothesis import settings
from offline import offline_getaddrinfo

# Hypothesis fails an example that runs over 200 ms by default: a timing assertion, which a loaded machine
# failed (test_import_fastpaths at load 4.5). Examples are bounded by their count, never by time.
settings.register_profile("doiget", deadline=None)
settings.load_profile("doiget")

UPSTREAM = Path(__file__).parent / "fixtures" / "upstream"
# Markers by file (registered in pyproject.toml); a test may add its own with a decorator.
MARKS: dict[str, tuple[str, ...]] = {
    "test_bibliography_frontends.py": ("e2e",),
    "test_cli.py": ("e2e",),
    "test_concurrency.py": ("e2e", "slow"),
    "test_crash.py": ("e2e", "slow"),
    "test_fetch_e2e.py": ("e2e",),
    "test_fulltext_e2e.py": ("e2e",),
    "test_fuzz_mcp.py": ("fuzz", "e2e"),
    "test_graph_frontends.py": ("e2e",),
    "test_hostile_fuzz.py": ("fuzz",),
    "test_hostile_mcp.py": ("e2e", "fuzz"),
    "test_hostile_query.py": ("e2e",),
    "test_hostile_sql.py": ("e2e",),
    "test_hostile_store.py": ("e2e",),
    "test_mcp.py": ("e2e",),
    "test_secrets.py": ("e2e",),
    "test_browse.py": ("e2e",),
    "test_cite.py": ("e2e",),
    "test_cli_scripting.py": ("e2e",),
    "test_dist.py": ("slow",),
    "test_doc_examples.py": ("e2e", "slow"),
    "test_mcp_hosts.py": ("e2e",),
    "test_notebook.py": ("e2e",),
}

# Files whose tests all read the per-process caches of tests/corpus.py (the bibliography corpus, cdl.bib.gz's
# 6,315 entries among it, parsed once per process: ~4.5 s): under -n they run on one worker, which parses it once.
ONE_WORKER_FILES = {"test_import_fidelity.py"}


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than cores. Much of the suite waits on subprocesses, loopback servers and
    stalled upstreams; a third worker on 2 cores overlaps those waits (suite 151 s -> 138 s, paired runs)."""
    return (os.cpu_count() or 1) + 1


@pytest.hookimpl(tryfirst=True)  # before xdist starts its workers
def pytest_sessionstart(session: pytest.Session) -> None:
    """Under ``-n``, the workers share one CLI fork server (tests/cli_process.py), started here."""
    if session.config.pluginmanager.hasplugin("dsession"):
        start_shared_server()


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks by file; then, for ``-n`` (pyproject's ``--dist loadgroup``), the tests of a module that share a
    module-scoped fixture go to one worker, which builds it once (spread over three workers, the pybtex
    comparison of test_import_fidelity was built three times); and slow tests are handed out first, so
    that none starts last and leaves the other workers idle at the end."""
    for item in items:
        for mark in MARKS.get(item.path.name, ()):
            item.add_marker(mark)
        if item.path.name in ONE_WORKER_FILES or _uses_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def _uses_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(defs[-1].scope in ("module", "class", "package")
                                    for defs in info.name2fixturedefs.values())


@pytest.fixture(scope="module")
def demo_library(tmp_path_factory):
    """A demo library shared by the tests of one module."""
    from doiget import open_library
    from doiget.demo import load_demo

    library = open_library(tmp_path_factory.mktemp("demo"))
    load_demo(library)
    yield library
    library.close()


@pytest.fixture
def upstream() -> Path:
    """Directory of real recorded upstream API responses (see fixtures/upstream/SOURCES.md)."""
    return UPSTREAM


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test may see the developer's real store, profile or contact email, or reach a real API:
    in-process name lookups of anything but localhost fail as they would offline (tests that run
    doiget as a subprocess point every source it may call at the loopback server)."""
    monkeypatch.setenv("DOIGET_HOME", str(tmp_path / "home"))
    for name in ("DOIGET_PROFILE", "DOIGET_CONTACT_EMAIL", "DOIGET_LOG", "DOIGET_ALLOW_PRIVATE_HOSTS",
                 "DOIGET_CA_BUNDLE", "DOIGET_RATE_LIMITS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(socket, "getaddrinfo", offline_getaddrinfo(socket.getaddrinfo))


@pytest.fixture(autouse=True, scope="session")
def _demo_pdfs_drawn_once() -> None:
    remember_demo_pdfs()


@pytest.fixture(autouse=True, scope="session")
def _new_libraries_start_from_a_migrated_copy(tmp_path_factory):
    """A library a test creates in this process starts as a copy (SQLite's backup API) of one that
    the real migrations made once per worker, instead of running every migration again (~0.2 s each
    time, hundreds of times). Only empty files are copied into: a library at an older revision,
    as the migration tests build them, is upgraded by Alembic as always. CLI and MCP subprocesses
    migrate for real."""
    from doiget import open_library
    from doiget.store import migrate

    template = tmp_path_factory.mktemp("migrated")
    open_library(template).close()
    real_upgrade = migrate.upgrade

    def upgrade(engine):
        with engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            if raw.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                with sqlite3.connect(template / "library.sqlite3") as source:
                    source.backup(raw)
                return migrate.HEAD
        return real_upgrade(engine)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(migrate, "upgrade", upgrade)
        yield
