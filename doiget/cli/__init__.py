"""The ``doiget`` command: a thin adapter over :class:`doiget.Library`.

Human-readable output by default, ``--json`` for scripts. Errors go to stderr. Exit codes:
0 success; 1 a doiget error (the code is printed); 2 bad usage; 3 the command ran over several
items and at least one failed (the result says which; ``"failed"`` counts them); 130 interrupted;
141 stdout was closed early (``doiget search x | head -1``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from doiget import __version__
from doiget.errors import DoigetError, ErrorCode

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PARTIAL, EXIT_INTERRUPTED, EXIT_PIPE = 0, 1, 2, 3, 130, 141

Handler = Callable[[argparse.Namespace], Any]
Command = Callable[[str, Handler, Callable[[Any], str], str], argparse.ArgumentParser]


# The commands each module's register() adds, in `doiget --help` order. `doiget COMMAND ...` builds the
# parser of COMMAND's module only: `doiget serve` and `doiget search` skip importing the other modules
# and building their forty-odd sub-parsers (tests/test_cli_dispatch.py checks this table).
COMMANDS = {
    "local": ("serve", "browse", "info", "search", "recent", "tag", "untag", "collection", "annotate", "delete", "gc",
              "health", "migrate", "sql", "demo"),
    "fetch": ("fetch", "batch", "resolve", "search-remote"),
    "fulltext": ("text", "grep", "reindex", "add"),
    "bibliography": ("export", "import", "dedupe", "merge", "citekey", "cite", "cite-resolve", "note", "tags"),
    "graph": ("graph",),
    "retractions": ("check-retractions",),
}
MODULE_OF = {command: module for module, commands in COMMANDS.items() for command in commands}


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(command_modules(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        configure_logging()
        result = args.handler(args)
        if result is not None:
            from doiget.present import to_json

            result = to_json(result)
            emit(args, result)
        sys.stdout.flush()
    except DoigetError as exc:
        if args.json:
            print(json.dumps({"ok": False, "error": exc.to_dict()}))
        print(f"doiget: {exc.code.value}: {exc.message}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("doiget: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep the interpreter's final flush quiet too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE
    failed = result.get("failed") if isinstance(result, dict) else 0
    if failed:
        print(f"doiget: {failed} item(s) failed; the others were done", file=sys.stderr)
        return EXIT_PARTIAL
    return EXIT_OK


def configure_logging() -> None:
    """Log to stderr at ``$DOIGET_LOG`` (default WARNING); an unknown level is a usage error."""
    import logging

    name = os.environ.get("DOIGET_LOG", "").strip().upper() or "WARNING"
    level = logging.getLevelNamesMapping().get(name)
    if level is None:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"DOIGET_LOG={name!r} is not a log level "
                                                   "(DEBUG, INFO, WARNING, ERROR, CRITICAL)")
    logging.basicConfig(stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def emit(args: argparse.Namespace, result: Any) -> None:
    """Print ``result``: JSON with --json, else the command's own text rendering."""
    if args.json:
        print(json.dumps({"ok": True, **result}, ensure_ascii=False, indent=2, default=str))
    else:
        print(args.render(result))


def common_options() -> argparse.ArgumentParser:
    """``--home`` and ``--json`` as a parent parser, for commands and their sub-actions alike.

    SUPPRESS: an option given before the command must survive the subcommand's defaults."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", default=argparse.SUPPRESS,
                        help="library directory (default: $DOIGET_HOME or the platform data dir)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON instead of text")
    return common


def command_modules(argv: Sequence[str]) -> tuple[str, ...]:
    """The module of the command ``argv`` names after the top-level options; every module (the whole
    parser) unless that is plain: help, version, ``--``, an unknown word."""
    tokens = iter(argv)
    for token in tokens:
        if token.startswith("--ho") and "--home".startswith(token):  # --home (abbreviated or not) VALUE
            next(tokens, None)
        elif not (token.startswith("--home=") or (len(token) > 2 and "--json".startswith(token))):
            module = MODULE_OF.get(token)
            return (module,) if module else tuple(COMMANDS)
    return tuple(COMMANDS)


def build_parser(modules: Sequence[str] = tuple(COMMANDS)) -> argparse.ArgumentParser:
    """The parser of the commands of ``modules`` (:data:`COMMANDS`), every one by default."""
    import importlib

    common = common_options()
    parser = argparse.ArgumentParser(prog="doiget", description="A personal scholarly-paper knowledge base.")
    parser.add_argument("--home", help="library directory (default: $DOIGET_HOME or the platform data dir)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--version", action="version", version=f"doiget {__version__}")
    sub = parser.add_subparsers(metavar="COMMAND")

    def command(name: str, handler: Handler, render: Callable[[Any], str], help_: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_, description=help_)
        p.set_defaults(handler=handler, render=render)
        return p

    for module in modules:
        importlib.import_module(f"doiget.cli.{module}").register(command)
    return parser


def run() -> None:
    sys.exit(main())
