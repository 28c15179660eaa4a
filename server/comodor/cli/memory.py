"""``comodor-lsp rules|lessons|teach|forget|pin``: the brain's memory, for a person at a terminal.

Each command is one protocol command run through the command table, exactly as
the editor and MCP run it (``app.execute("comodor.X", {...})``); this module only
turns arguments into that call and the result into text (or, with ``--json``, prints
the protocol result). An id that matches nothing exits 1 with one line naming it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..brain.models import LESSON_KINDS
from .failure import Failure, line, opened, workspace_folder
from .terminal import say, wants_colour


def _execute(args: argparse.Namespace, command: str, argument: dict[str, Any]) -> Any:
    with opened(workspace_folder(args.workspace)) as app:
        return app.execute(command, argument)


def _colour() -> bool:
    return wants_colour(sys.stdout)


def _print_json(result: object) -> None:
    from .progress_text import can_print_unicode

    print(json.dumps(result, indent=2, ensure_ascii=not can_print_unicode(sys.stdout)))


def missing(what: str, wanted: object, listed: str) -> Failure:
    """The one line for an id that matches nothing."""
    return Failure(
        line(
            f"no {what} has id {wanted} (forgotten already, or never taught)",
            f"Nothing was changed; `comodor-lsp {listed}` lists them",
        )
    )


def _rules(args: argparse.Namespace) -> int:
    from .memory_text import render_rules

    result = _execute(args, "comodor.rules", {"includeUnconfident": args.all})
    if args.json:
        _print_json(result)
    else:
        say(render_rules(result, colour=_colour(), every=args.all))
    return 0


def _lessons(args: argparse.Namespace) -> int:
    from .memory_text import render_lessons

    result = _execute(args, "comodor.lessons", {"query": args.query, "limit": args.limit})
    if args.json:
        _print_json(result)
    else:
        say(render_lessons(result, colour=_colour()))
    return 0


def _teach(args: argparse.Namespace) -> int:
    from .memory_text import render_lesson, safe

    if args.rule:
        result = _execute(args, "comodor.teachRule", {"statement": args.text})
        text = f"Taught house rule {result['rule']['id']}: {safe(result['rule']['statement'])}"
    else:
        result = _execute(args, "comodor.teach", {"text": args.text, "kind": args.kind})
        text = f"Taught lesson {result['lesson']['id']}: {render_lesson(result['lesson'])}"
    if args.json:
        _print_json(result)
    else:
        say(text)
    return 0


def _finish(args: argparse.Namespace, result: dict[str, Any], done: bool, said: str) -> int:
    """Print what happened; an id that matched nothing is a failure naming the id."""
    what, listed = ("rule", "rules --all") if args.rule else ("lesson", "lessons")
    if args.json:
        _print_json(result)
    if not done:
        raise missing(what, args.id, listed)
    if not args.json:
        say(said)
    return 0


def _forget(args: argparse.Namespace) -> int:
    command = "comodor.forgetRule" if args.rule else "comodor.forget"
    result = _execute(args, command, {"id": args.id})
    what = "house rule" if args.rule else "lesson"
    return _finish(args, result, bool(result.get("removed")), f"Forgot {what} {args.id}.")


def _pin(args: argparse.Namespace) -> int:
    pinned = not args.off
    if args.rule:
        result = _execute(args, "comodor.setRule", {"id": args.id, "pinned": pinned})
    else:
        result = _execute(args, "comodor.pin", {"id": args.id, "pinned": pinned})
    what = "house rule" if args.rule else "lesson"
    said = f"{'Pinned' if pinned else 'Unpinned'} {what} {args.id}."
    return _finish(args, result, bool(result.get("ok")), said)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", help="the project folder (default: here)")
    parser.add_argument("--json", action="store_true", help="the protocol result as JSON")


def add_commands(commands: Any) -> None:
    """Register the memory commands on the ``comodor-lsp`` subparsers."""
    rules = commands.add_parser("rules", help="the house rules: statement, evidence, status")
    rules.add_argument(
        "--all", action="store_true", help="include rules not confident yet (default: confident)"
    )
    _common(rules)
    rules.set_defaults(handler=_rules)

    lessons = commands.add_parser("lessons", help="the lessons: trust, last used, what they say")
    lessons.add_argument("--query", default="", help="only lessons relevant to this text")
    lessons.add_argument("--limit", type=int, default=20, help="at most this many (default 20)")
    _common(lessons)
    lessons.set_defaults(handler=_lessons)

    teach = commands.add_parser(
        "teach", help='teach a lesson, e.g. teach "When testing: use pytest -q"'
    )
    teach.add_argument("text", help='the lesson ("trigger: guidance"), or a rule with --rule')
    teach.add_argument("--rule", action="store_true", help="teach a house rule statement instead")
    teach.add_argument(
        "--kind", choices=LESSON_KINDS, default="preference", help="the lesson's kind"
    )
    _common(teach)
    teach.set_defaults(handler=_teach)

    forget = commands.add_parser("forget", help="forget a lesson (or a rule with --rule) by id")
    forget.add_argument("id", type=int, help="the id `lessons` (or `rules --all`) shows")
    forget.add_argument("--rule", action="store_true", help="the id is a house rule's")
    _common(forget)
    forget.set_defaults(handler=_forget)

    pin = commands.add_parser("pin", help="pin a lesson (or a rule with --rule); --off unpins")
    pin.add_argument("id", type=int, help="the id `lessons` (or `rules --all`) shows")
    pin.add_argument("--off", action="store_true", help="unpin instead")
    pin.add_argument("--rule", action="store_true", help="the id is a house rule's")
    _common(pin)
    pin.set_defaults(handler=_pin)
