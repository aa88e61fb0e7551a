"""doiget: a personal scholarly-paper knowledge base.

    import doiget
    lib = doiget.open_library()          # $DOIGET_HOME or the platform data dir
    lib.search("protein folding")
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from doiget.errors import DoigetError, ErrorCode

if TYPE_CHECKING:
    from doiget.library import Library, open_library
    from doiget.models import Author, Entry, SearchHit, Work
    from doiget.refs import Ref

__version__ = "0.1.0"

# Imported on first use, so that ``doiget --help`` does not pay for SQLAlchemy and pydantic.
_LAZY = {"Library": "doiget.library", "open_library": "doiget.library", "Author": "doiget.models",
         "Entry": "doiget.models", "SearchHit": "doiget.models", "Work": "doiget.models", "Ref": "doiget.refs"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'doiget' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value

__all__ = ["Author", "DoigetError", "Entry", "ErrorCode", "Library", "Ref", "SearchHit", "Work", "__version__",
           "open_library"]
