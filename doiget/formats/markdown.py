"""A note as a Markdown file with YAML front matter (for Obsidian, static-site tools, plain reading).

Every front-matter value is written as JSON, which is valid YAML flow syntax: strings are always
double-quoted with escapes, so newlines, colons, ``---`` or ``#`` in a value cannot break out of it.
"""
from __future__ import annotations

import json
import unicodedata
from typing import Any

FRONT_MATTER_KEYS = ("id", "entry", "entry_title", "tags", "author", "anchors", "created_at", "updated_at")
# Line and paragraph separators, NEL, BOM and other invisibles that YAML treats specially or strips.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def _yaml_value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return "".join(_escape(ch) if unicodedata.category(ch) in _UNSAFE_CATEGORIES else ch for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def note_to_markdown(note: dict[str, Any]) -> str:
    """Front matter from ``id``, ``entry`` (ref), ``entry_title``, ``tags``, ``author``, ``anchors``,
    ``created_at``, ``updated_at`` (absent or None keys are left out), then ``body``."""
    lines = ["---"]
    lines += [f"{key}: {_yaml_value(note[key])}" for key in FRONT_MATTER_KEYS if note.get(key) is not None]
    lines.append("---")
    body = (note.get("body") or "").rstrip("\n")
    return "\n".join(lines) + "\n\n" + (body + "\n" if body else "")
