"""The ``comodor`` command: one entry point, subcommands for each door into the brain.

Each subcommand is a thin wrapper: the logic lives in :mod:`comodor.brain` (and
in the server packages), so the CLI, the language server and the MCP server
can never disagree about what a command does.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from comodor import __version__


def _demo(args: argparse.Namespace) -> int:
    from comodor.demo import run_demo

    return run_demo(keep=args.keep)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="comodor", description="A learning memory for AI coding assistants."
    )
    parser.add_argument("--version", action="version", version=f"comodor {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser("demo", help="watch the brain learn on a temporary workspace")
    demo.add_argument("--keep", action="store_true", help="keep the temporary workspace")
    demo.set_defaults(handler=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    result: int = handler(args)
    return result
