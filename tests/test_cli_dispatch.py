"""``doiget COMMAND`` builds only COMMAND's module's parser (cli.COMMANDS): the table must name what
each module registers, and an argv that is not plain falls back to the whole parser."""
from __future__ import annotations

import argparse
import importlib

import pytest

from doiget.cli import COMMANDS, build_parser, command_modules, main

EVERY = tuple(COMMANDS)


def commands_of(parser: argparse.ArgumentParser) -> list[str]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


@pytest.mark.parametrize("module", EVERY)
def test_the_table_names_what_each_module_registers(module):
    assert commands_of(build_parser((module,))) == list(COMMANDS[module])
    assert hasattr(importlib.import_module(f"doiget.cli.{module}"), "register")


def test_the_whole_parser_is_every_module_in_order():
    assert commands_of(build_parser()) == [c for module in EVERY for c in COMMANDS[module]]


@pytest.mark.parametrize(("argv", "modules"), [
    (["serve"], ("local",)),
    (["--json", "search", "x"], ("local",)),
    (["--home", "graph", "fetch", "10.1/x"], ("fetch",)),  # graph is --home's value here
    (["--ho", "serve", "graph", "related", "x"], ("graph",)),  # an abbreviated --home takes its value too
    (["--home=lib", "--js", "check-retractions"], ("retractions",)),
    ([], EVERY), (["--help"], EVERY), (["-h"], EVERY), (["--version"], EVERY), (["--h", "x"], EVERY),
    (["--", "serve"], EVERY), (["servee"], EVERY), (["--home"], EVERY),
])
def test_command_modules(argv, modules):
    assert command_modules(argv) == modules


def test_an_unknown_command_is_refused_with_the_whole_list(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["servee"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'servee'" in err and "check-retractions" in err
