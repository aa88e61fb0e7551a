"""Lenient argument handling where JSON Schema allows it, as MCP clients send arguments: ``null``
for an optional parameter means "use the default"; a value of the wrong JSON type (the MCP
Inspector CLI sends every argument as a string) is refused with a message that says what to send."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from doiget.errors import DoigetError, ErrorCode

_EXPECTED = {"int_type": "an integer", "int_parsing": "an integer", "bool_type": "a boolean (true/false)",
             "bool_parsing": "a boolean (true/false)", "float_type": "a number", "list_type": "an array",
             "dict_type": "an object"}


def without_nulls(model: type[BaseModel], arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` less the nulls given for optional parameters that do not take null themselves."""
    fields = model.model_fields
    return {key: value for key, value in arguments.items()
            if not (value is None and key in fields and not fields[key].is_required())}


def validation_error(exc: ValidationError) -> DoigetError:
    """INVALID_INPUT naming each bad argument; a string sent for a number or boolean says so."""
    problems = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        value, expected = error.get("input"), _EXPECTED.get(error["type"])
        if expected and isinstance(value, str):
            problems.append(f"{where}: expected {expected}, got the string {value[:40]!r}; send the JSON value "
                            "without quotes")
        else:
            problems.append(f"{where}: {error['msg']}")
    more = f" (+{exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
    return DoigetError(ErrorCode.INVALID_INPUT, "invalid arguments: " + "; ".join(problems) + more)
