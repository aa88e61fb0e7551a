"""Every parser of untrusted content over the named hostile cases and hypothesis-generated
documents (tests/hostile_cases.py): it returns or raises a structured DoigetError, never a raw
exception or INTERNAL_ERROR; the CPU deadline armed by extraction turns a hang into a failure.
``DOIGET_HOSTILE_EXAMPLES`` sets the examples per parser (default 20; CI derandomises)."""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from hostile_cases import NAMED, PARSERS, documents, run_parser

EXAMPLES = settings(max_examples=int(os.environ.get("DOIGET_HOSTILE_EXAMPLES", "20")), deadline=None,
                    derandomize=os.environ.get("CI") == "true",
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("parser, case", [(p, c) for p, cases in NAMED.items() for c in cases])
def test_named_hostile_case(parser, case):
    run_parser(parser, NAMED[parser][case]())


@pytest.mark.parametrize("parser", sorted(PARSERS))
def test_generated_hostile_documents(parser):
    @EXAMPLES
    @given(documents(parser))
    def check(data: bytes) -> None:
        run_parser(parser, data)

    check()
