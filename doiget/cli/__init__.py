"""The ``doiget`` command: a thin adapter over :class:`doiget.Library`.

Human-readable output by default, ``--json`` for scripts. Errors go to stderr with a non-zero
exit code: 1 for a doiget error (the code is printed), 2 for bad usage.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from doiget import __version__
from doiget.errors import DoigetError

Handler = Callable[[argparse.Namespace], Any]
Command = Callable[[str, Handler, Callable[[Any], str], str], argparse.ArgumentParser]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        result = args.handler(args)
    except DoigetError as exc:
        if args.json:
            print(json.dumps({"ok": False, "error": exc.to_dict()}))
        print(f"doiget: {exc.code.value}: {exc.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("doiget: interrupted", file=sys.stderr)
        return 130
    if result is not None:
        emit(args, result)
    return getattr(args, "exit_code", 0)  # a command that finished with some items failed sets 1


def emit(args: argparse.Namespace, result: Any) -> None:
    """Print ``result``: JSON with --json, else the command's own text rendering."""
    if args.json:
        print(json.dumps({"ok": True, **result}, ensure_ascii=False, indent=2, default=str))
    else:
        print(args.render(result))


def build_parser() -> argparse.ArgumentParser:
    from doiget.cli import bibliography, fetch, fulltext, graph, local

    # SUPPRESS: an option given before the command must survive the subcommand's defaults.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", default=argparse.SUPPRESS,
                        help="library directory (default: $DOIGET_HOME or the platform data dir)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON instead of text")
    parser = argparse.ArgumentParser(prog="doiget", description="A personal scholarly-paper knowledge base.")
    parser.add_argument("--home", help="library directory (default: $DOIGET_HOME or the platform data dir)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--version", action="version", version=f"doiget {__version__}")
    sub = parser.add_subparsers(metavar="COMMAND")

    def command(name: str, handler: Handler, render: Callable[[Any], str], help_: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_, description=help_)
        p.set_defaults(handler=handler, render=render)
        return p

    for module in (local, fetch, fulltext, bibliography, graph):
        module.register(command)
    return parser




def run() -> None:
    sys.exit(main())
