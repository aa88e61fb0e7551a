"""A fake OpenAlex serving a known citation graph in the recorded response shapes.

Works are the recorded work object of 10.1073/pnas.1414271111 with id, ids, title, year and
``referenced_works`` replaced; lists use the recorded list envelope (meta, results, group_by)
with cursor paging (``meta.next_cursor``, null on the last page) as OpenAlex pages with ``cursor=``.
Node ``n`` of the graph is work ``W{n + OFFSET}`` and has DOI ``10.5555/fake.{n}``.
"""
from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import networkx as nx

from doiget.errors import DoigetError, ErrorCode
from doiget.net.base import HttpResponse

UPSTREAM = Path(__file__).parent / "fixtures" / "upstream" / "openalex"
WORK = json.loads((UPSTREAM / "works_doi_10.1073_pnas.1414271111.json").read_text())
LIST = json.loads((UPSTREAM / "works_filter_title_search_paperqa.json").read_text())
OFFSET = 1000


def wid(n: int) -> str:
    return f"W{n + OFFSET}"


def node_of(w: str) -> int:
    return int(w.rsplit("/", 1)[-1].lstrip("W")) - OFFSET


class FakeOpenAlex:
    """Answers ``/works/W…`` and ``/works?filter=cites:W…|cited_by:W…&cursor=…&per-page=…`` from ``G``."""

    def __init__(self, G: nx.DiGraph) -> None:
        self.G = G
        self.requests: list[tuple[str, dict[str, str]]] = []

    def work(self, n: int) -> dict[str, Any]:
        data = copy.deepcopy(WORK)
        attrs = self.G.nodes[n]
        doi = f"10.5555/fake.{n}"
        data.update(id=f"https://openalex.org/{wid(n)}", doi=f"https://doi.org/{doi}",
                    title=attrs.get("title") or f"Work {n}", display_name=attrs.get("title") or f"Work {n}",
                    publication_year=attrs.get("year"),
                    ids={"openalex": f"https://openalex.org/{wid(n)}", "doi": f"https://doi.org/{doi}"},
                    referenced_works=[f"https://openalex.org/{wid(m)}" for m in sorted(self.G.succ[n])],
                    locations=[], primary_location=None, best_oa_location=None)
        return data

    def answer(self, path: str, params: dict[str, str]) -> tuple[int, bytes]:
        """(status, body) for one request."""
        self.requests.append((path, dict(params)))
        if path.startswith("/works/"):
            n = node_of(path.removeprefix("/works/"))
            if n not in self.G:
                return 404, b"<html>Not found</html>"
            return 200, json.dumps(self.work(n)).encode()
        kind, _, target = params["filter"].partition(":")
        n = node_of(target)
        neighbours = sorted(self.G.pred[n] if kind == "cites" else self.G.succ[n]) if n in self.G else []
        start = 0 if params.get("cursor", "*") == "*" else int(params["cursor"])
        per_page = int(params.get("per-page", 25))
        page = neighbours[start:start + per_page]
        more = start + per_page < len(neighbours)
        body = {**LIST, "meta": {**LIST["meta"], "count": len(neighbours), "per_page": per_page, "page": None,
                                 "next_cursor": str(start + per_page) if more else None},
                "results": [self.work(m) for m in page]}
        return 200, json.dumps(body).encode()


class FakeOpenAlexHttp:
    """The ``Http`` protocol over :class:`FakeOpenAlex`; ``during`` runs inside every request (probes)."""

    def __init__(self, G: nx.DiGraph, during: Callable[[], None] | None = None, fail_after: int | None = None):
        self.api = FakeOpenAlex(G)
        self.during = during
        self.fail_after = fail_after

    @property
    def requests(self) -> list[tuple[str, dict[str, str]]]:
        return self.api.requests

    def get(self, source: str, url: str, *, params: dict[str, Any] | None = None,
            headers: dict[str, str] | None = None, ok_statuses: tuple[int, ...] = (200,),
            cache: bool = True, validate: Any = None) -> HttpResponse:
        assert source == "openalex", source
        if self.during:
            self.during()
        if self.fail_after is not None and len(self.requests) >= self.fail_after:
            raise DoigetError(ErrorCode.RATE_LIMITED, "openalex answered HTTP 429")
        status, body = self.api.answer(urlsplit(url).path, {k: str(v) for k, v in (params or {}).items()})
        if status not in ok_statuses:
            raise DoigetError(ErrorCode.NOT_FOUND, f"openalex answered HTTP {status}")
        return HttpResponse(status=status, url=url, content=body)


def loopback_route(api: FakeOpenAlex):
    """A loopback-server route callable answering like :meth:`FakeOpenAlex.answer`."""
    from loopback import Reply

    def route(seen) -> Reply:
        params = {k: v[0] for k, v in parse_qs(seen.query).items()}
        status, body = api.answer(seen.path, params)
        return Reply(status, body, {"Content-Type": "application/json"})
    return route
