"""Stored citation keys: one per entry, unique case-insensitively, given once and then kept."""
from __future__ import annotations

import re

from sqlalchemy import Connection, text

from doiget.errors import DoigetError, ErrorCode
from doiget.formats.keys import citation_key, unique_key
from doiget.models import Work
from doiget.store.store import like_literal

# What BibTeX and biber accept in a key: no spaces, braces, commas, quotes, '#', '%', '=' or '\'.
VALID_KEY = re.compile(r"^[^\s{}(),\"'#%=\\~]{1,200}$")


def taken(conn: Connection) -> set[str]:
    """Every stored key, lower-cased."""
    return {key.lower() for (key,) in conn.execute(text("SELECT citekey FROM entries WHERE citekey IS NOT NULL"))}


def new_key(conn: Connection, work: Work) -> str:
    """A free key for a new entry: the work's own key when it has a usable one, else a generated one;
    a suffix (a, b, ...) when that is taken."""
    base = work.citekey if work.citekey and VALID_KEY.match(work.citekey) else citation_key(work)
    like = conn.execute(text("SELECT citekey FROM entries WHERE citekey LIKE :p ESCAPE '\\'"),
                        {"p": like_literal(base) + "%"})
    return unique_key(base, {key.lower() for (key,) in like})


def check(key: str) -> str:
    """``key`` stripped, or INVALID_INPUT saying what BibTeX would not accept."""
    key = key.strip()
    if not VALID_KEY.match(key):
        raise DoigetError(ErrorCode.INVALID_INPUT, f"citation key {key!r} is not usable in BibTeX: use 1-200 "
                          "characters without spaces, braces, commas, quotes, #, %, = or backslash")
    return key


def set_key(conn: Connection, entry_id: int, key: str) -> str:
    """Give entry ``entry_id`` the key ``key`` by hand; INVALID_INPUT when another entry has it."""
    key = check(key)
    holder = conn.execute(text("SELECT id FROM entries WHERE citekey = :k AND id != :id"),
                          {"k": key, "id": entry_id}).scalar()
    if holder is not None:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"citation key {key!r} is already used by entry #{holder}",
                          entry=holder)
    conn.execute(text("UPDATE entries SET citekey = :k WHERE id = :id"), {"k": key, "id": entry_id})
    return key
