"""What every source module needs: upstream base URLs and the HTTP interface they call."""
from __future__ import annotations

from collections.abc import Callable
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from doiget import safejson
from doiget.errors import ErrorCode

DEFAULT_BASES: dict[str, str] = {
    "crossref": "https://api.crossref.org",
    "unpaywall": "https://api.unpaywall.org",
    "arxiv": "https://export.arxiv.org",
    "arxiv_pdf": "https://arxiv.org",
    "ar5iv": "https://ar5iv.labs.arxiv.org",
    "openalex": "https://api.openalex.org",
    "europepmc": "https://www.ebi.ac.uk/europepmc/webservices/rest",
    "europepmc_pdf": "https://europepmc.org",
    "bioc": "https://www.ncbi.nlm.nih.gov/research/bionlp/RESTful",
}


def base_url(source: str) -> str:
    """The base URL of ``source``: ``$DOIGET_<SOURCE>_BASE`` if set (tests, mirrors), else the default."""
    return os.environ.get(f"DOIGET_{source.upper()}_BASE", DEFAULT_BASES[source]).rstrip("/")


@dataclass
class HttpResponse:
    """A completed, fully read upstream response."""

    status: int
    url: str
    content: bytes
    headers: dict[str, str] = field(default_factory=dict)
    from_cache: bool = False

    def json(self, source: str) -> Any:
        """The body as JSON; a body that does not parse is UPSTREAM_ERROR naming the source."""
        return safejson.loads(self.content, f"{source}'s answer", ErrorCode.UPSTREAM_ERROR, source=source)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


PDF_MAGIC_WINDOW = 1024  # PDF readers accept the %PDF- header anywhere in the first KiB


def looks_like_pdf(head: bytes) -> bool:
    """Whether bytes (at least the first KiB of a file) start a PDF."""
    return b"%PDF-" in head[:PDF_MAGIC_WINDOW]


def json_body(source: str) -> Callable[[HttpResponse], object]:
    """A ``validate`` for :meth:`Http.get`: the body must be JSON (UPSTREAM_ERROR otherwise)."""
    return lambda response: response.json(source)


@dataclass(frozen=True)
class ProvenanceRecord:
    """One request attempt (or refusal, or cache hit); the store appends these to ``provenance``."""

    time: str
    source: str
    method: str
    url: str
    status: int | None
    bytes: int
    sha256: str | None
    duration_ms: int
    outcome: str
    detail: str = ""
    from_cache: bool = False


@dataclass(frozen=True)
class Download:
    """A fully fetched, fsynced temp file in the caller's directory; the caller renames it into place."""

    path: Path
    sha256: str
    size: int
    content_type: str | None
    final_url: str


class Http(Protocol):
    """The one network interface sources use (implemented by ``doiget.net.http.HttpClient``).

    ``get`` returns the response for any status the caller lists in ``ok_statuses`` (default
    200 only) and raises ``DoigetError`` for everything else: NOT_FOUND for 404/410,
    RATE_LIMITED, NETWORK_ERROR, FETCH_TIMEOUT, UPSTREAM_ERROR, BLOCKED. ``download`` streams
    a file into ``dest_dir`` (see docs/HTTP.md); only the fetch pipeline needs it.
    """

    def get(self, source: str, url: str, *, params: dict[str, Any] | None = None,
            headers: dict[str, str] | None = None, ok_statuses: tuple[int, ...] = (200,),
            cache: bool = True, validate: Callable[[HttpResponse], object] | None = None) -> HttpResponse: ...

    def download(self, source: str, url: str, dest_dir: str | os.PathLike[str], *,
                 expect: str | None = "pdf") -> Download: ...
