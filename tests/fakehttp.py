"""A stand-in for the Http protocol that answers from recorded fixture files and records every call."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doiget.errors import DoigetError, ErrorCode
from doiget.net.base import HttpResponse


@dataclass
class Call:
    source: str
    url: str
    params: dict[str, Any]


@dataclass
class FakeHttp:
    """``routes`` maps a full URL (without query string) to ``(status, fixture path or bytes)``.

    Statuses outside ``ok_statuses`` raise as the real client does: NOT_FOUND for 404/410,
    UPSTREAM_ERROR otherwise. A request with no route fails the test.
    """

    routes: dict[str, tuple[int, Path | bytes]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)

    def get(self, source: str, url: str, *, params: dict[str, Any] | None = None,
            headers: dict[str, str] | None = None, ok_statuses: tuple[int, ...] = (200,),
            cache: bool = True, validate: Any = None) -> HttpResponse:
        self.calls.append(Call(source, url, dict(params or {})))
        if url not in self.routes:
            raise AssertionError(f"unexpected request: {source} {url} {params}")
        status, body = self.routes[url]
        content = body.read_bytes() if isinstance(body, Path) else body
        if status not in ok_statuses:
            code = ErrorCode.NOT_FOUND if status in (404, 410) else ErrorCode.UPSTREAM_ERROR
            raise DoigetError(code, f"{source} answered HTTP {status}")
        return HttpResponse(status=status, url=url, content=content)

    def urls(self) -> list[str]:
        return [call.url for call in self.calls]
