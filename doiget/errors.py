"""The closed set of error codes and the one exception type that carries them."""
from __future__ import annotations

from enum import Enum


class ErrorCode(str, Enum):
    """Every failure doiget reports carries exactly one of these codes (see docs/ERRORS.md)."""

    INVALID_REF = "INVALID_REF"
    INVALID_INPUT = "INVALID_INPUT"
    INVALID_QUERY = "INVALID_QUERY"
    QUERY_TIMEOUT = "QUERY_TIMEOUT"
    NOT_FOUND = "NOT_FOUND"
    NO_OA_AVAILABLE = "NO_OA_AVAILABLE"
    RATE_LIMITED = "RATE_LIMITED"
    NETWORK_ERROR = "NETWORK_ERROR"
    FETCH_TIMEOUT = "FETCH_TIMEOUT"
    UPSTREAM_ERROR = "UPSTREAM_ERROR"
    BLOCKED = "BLOCKED"
    TOO_LARGE = "TOO_LARGE"
    STORE_ERROR = "STORE_ERROR"
    READ_ONLY = "READ_ONLY"
    CAPABILITY_DENIED = "CAPABILITY_DENIED"
    NOT_IMPLEMENTED = "NOT_IMPLEMENTED"
    INTERNAL_ERROR = "INTERNAL_ERROR"


class DoigetError(Exception):
    """An expected failure: a code from :class:`ErrorCode` and a message for a person or agent."""

    def __init__(self, code: ErrorCode, message: str, **details: object) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.details = details

    def to_dict(self) -> dict:
        error: dict = {"code": self.code.value, "message": self.message}
        if self.details:
            error["details"] = self.details
        return error

    def __repr__(self) -> str:
        return f"DoigetError({self.code.value}, {self.message!r})"
