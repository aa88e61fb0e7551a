"""doiget: a personal scholarly-paper knowledge base."""
from doiget.errors import DoigetError, ErrorCode
from doiget.models import Author, Entry, Work
from doiget.refs import Ref

__version__ = "0.1.0"

__all__ = ["Author", "DoigetError", "Entry", "ErrorCode", "Ref", "Work", "__version__"]
