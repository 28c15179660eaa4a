"""Hover: the house rules that apply to this document, with their evidence.

Answered on the event loop straight from the app's in-memory rule cache: no
SQLite, no file I/O, so it stays well under a millisecond whatever the brain
holds, and answers even while a write waits for another process's lock.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from urllib.parse import quote

from lsprotocol import types

from ..markup import escape_markdown
from ..protocol import RuleObject
from .server import ComodorServer


def _command_link(title: str, command: str, argument: dict[str, object]) -> str:
    return f"[{title}](command:{command}?{quote(json.dumps([argument]))})"


def render(rules: Sequence[RuleObject], *, command_links: bool) -> str:
    """The hover text: each rule's statement as plain text, its evidence, maybe actions.

    A contested rule says so, with both sides' evidence, so the user sees why it is
    not enforced (the caller shows contested rules only beside a confident one).

    Statements are escaped (a team rule from a cloned repository must never render
    as a link); the only links are the ones added here, and only for clients that
    asked for them.
    """
    lines = ["**House rules**", ""]
    for rule in rules:
        origin = " (team rule, from the repository)" if rule.team else ""
        evidence = rule.evidence
        if rule.contested:
            against = f"; against: {rule.opposition}" if rule.opposition else ""
            evidence = f"contested, not enforced: {evidence}{against}"
        line = f"- {escape_markdown(rule.statement)} — *{escape_markdown(evidence)}*{origin}"
        if command_links:
            pin = "Unpin" if rule.pinned else "Pin"
            # A separator, or the links run on from the evidence ("taught by you Forget").
            line += " · " + " · ".join(
                [
                    _command_link("Forget", "comodor.forgetRule", {"id": rule.id}),
                    _command_link(
                        pin, "comodor.setRule", {"id": rule.id, "pinned": not rule.pinned}
                    ),
                ]
            )
        lines.append(line)
    return "\n".join(lines)


def document_language_id(ls: ComodorServer, uri: str) -> str | None:
    """The editor's language id for an open document, if it said one."""
    document = ls.workspace.text_documents.get(uri)
    return document.language_id if document is not None else None


def hover(ls: ComodorServer, params: types.HoverParams) -> types.Hover | None:
    app = ls.app
    if app is None:
        return None
    uri = params.text_document.uri
    rules = app.document_rules(uri, document_language_id(ls, uri))
    if not any(rule.confident for rule in rules):
        # The protocol: null unless a confident rule applies. Contested rules are
        # listed beside confident ones (and always in the rules view), never alone:
        # a hover that only says "not enforced" is noise on every line.
        return None
    return types.Hover(
        contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value=render(rules, command_links=ls.command_links)
        )
    )


def register(server: ComodorServer) -> None:
    server.feature(types.TEXT_DOCUMENT_HOVER)(hover)
