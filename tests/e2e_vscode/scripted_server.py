"""A scripted stand-in for the Comodor language server, for testing the *extension* only.

It speaks the protocol's names and shapes (shared/spec/protocol.md) with canned, in-memory
behaviour: taught rules are stored; every save of a file counts as a `quotes.style`
correction and the second one makes a confident rule (and a third re-sends it, as a
reinforcement). It learns nothing. The real server's behaviour is tested by the scenario
test and by the server's own tests; this one lets the extension's UI (toasts, views, status
bar, hover rendering, progress webview) and the e2e helper layer be checked before and
independently of the server.

Run as `python scripted_server.py serve --stdio` (the extension appends --stdio).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("comodor-scripted", "0")
rules: list[dict[str, Any]] = []
saves: list[str] = []


def _rule(
    statement: str, *, key: str, value: str, source: str, support: int, language: str | None
) -> dict[str, Any]:
    now = int(time.time())
    return {
        "id": len(rules) + 1,
        "key": key,
        "value": value,
        "category": "style",
        "statement": statement,
        "detail": f"{support} agreeing votes",
        "scope": "project:scripted",
        "language": language,
        "support": support,
        "against": 0,
        "strength": 1.0,
        "confident": True,
        "pinned": False,
        "active": True,
        "source": source,
        "createdAt": now,
        "updatedAt": now,
    }


def _memory(payload: dict[str, Any]) -> None:
    server.protocol.notify("comodor/memory", payload)


async def _pull_configuration(ls: LanguageServer, why: str) -> None:
    """Pull section `comodor` like the real server does, and log what came back (stderr goes
    to the extension's output channel, where the test reads it)."""
    answer = await ls.workspace_configuration_async(
        types.ConfigurationParams(items=[types.ConfigurationItem(section="comodor")])
    )
    print(
        f"pulled comodor configuration ({why}): {json.dumps(answer[0], sort_keys=True)}",
        file=sys.stderr,
        flush=True,
    )


@server.feature(types.INITIALIZE)
def initialize(ls: LanguageServer, params: types.InitializeParams) -> None:
    print(
        f"initializationOptions: {json.dumps(params.initialization_options, sort_keys=True)}",
        file=sys.stderr,
        flush=True,
    )


@server.feature(types.INITIALIZED)
async def initialized(ls: LanguageServer, params: types.InitializedParams) -> None:
    await _pull_configuration(ls, "initialized")


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(
    ls: LanguageServer, params: types.DidChangeConfigurationParams
) -> None:
    await _pull_configuration(ls, "didChangeConfiguration")


@server.command("comodor.teachRule")
def teach_rule(ls: LanguageServer, args: dict[str, Any]) -> dict[str, Any]:
    rule = _rule(
        args["statement"],
        key=f"user.{len(rules) + 1}",
        value="yes",
        source="user",
        support=0,
        language=None,
    )
    rules.append(rule)
    _memory({"action": "rule", "items": [rule]})  # the extension must not announce this one
    return {"rule": rule}


@server.command("comodor.rules")
def list_rules(ls: LanguageServer, args: dict[str, Any]) -> dict[str, Any]:
    return {"rules": rules}


@server.command("comodor.lessons")
def list_lessons(ls: LanguageServer, args: dict[str, Any]) -> dict[str, Any]:
    return {"lessons": []}


@server.command("comodor.progress")
def progress(ls: LanguageServer, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "episodes": 3,
        "headline": "3 tasks recorded — 3 more before a trend means anything",
        "enoughData": False,
        "successRate": None,
        "earlySuccessRate": None,
        "lessons": 0,
        "rulesActive": len(rules),
        "series": [
            {
                "key": "steps",
                "label": "Steps per task",
                "values": [9, 7, 6],
                "change": -33.3,
                "improving": None,
                "sparkline": "█▅▃",
            }
        ],
    }


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    saves.append(params.text_document.uri)
    _memory({"action": "correction", "uri": params.text_document.uri, "ruleKeys": ["quotes.style"]})
    learned = next((r for r in rules if r["key"] == "quotes.style"), None)
    if learned is None and len(set(saves)) >= 2:
        learned = _rule(
            "Use single quotes for strings.",
            key="quotes.style",
            value="single",
            source="correction",
            support=2,
            language="python",
        )
        rules.append(learned)
        _memory({"action": "rule", "items": [learned]})
    elif learned is not None:
        learned["support"] += 1
        _memory({"action": "rule", "items": [learned]})  # a reinforcement: must stay silent


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: LanguageServer, params: types.HoverParams) -> types.Hover | None:
    active = [r for r in rules if r["confident"] and r["active"]]
    if not active:
        return None
    lines = [f"- {r['statement']} ({r['support']} corrections · 100% agree)" for r in active]
    return types.Hover(
        contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value="**House rules**\n\n" + "\n".join(lines)
        )
    )


if __name__ == "__main__":
    server.start_io()
