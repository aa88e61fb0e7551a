"""doiget: a personal scholarly-paper knowledge base.

    import doiget
    lib = doiget.open_library()          # $DOIGET_HOME or the platform data dir
    lib.search("protein folding")
"""
from doiget.errors import DoigetError, ErrorCode
from doiget.library import Library, open_library
from doiget.models import Author, Entry, SearchHit, Work
from doiget.refs import Ref

__version__ = "0.1.0"

__all__ = ["Author", "DoigetError", "Entry", "ErrorCode", "Library", "Ref", "SearchHit", "Work", "__version__",
           "open_library"]
