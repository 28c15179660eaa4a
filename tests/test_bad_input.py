"""Bad input gets an error naming the problem, and the brain is left exactly as it was.

Input is validated once, at the edge (``comodor.protocol``), for every door: this
drives the app the way the language server, the MCP server and ``comodor-lsp call``
do, with the client's JSON.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from comodor_lsp.app import ComodorApp
from comodor_lsp.brain.errors import InvalidInput

HUGE = "x" * 10_000_000


@pytest.fixture
def app(workspace: Path) -> Iterator[ComodorApp]:
    app = ComodorApp(workspace)
    yield app
    app.close()


def snapshot(app: ComodorApp) -> tuple[Any, ...]:
    conn = app.engine.store._conn
    tables = ("lessons", "rules", "rule_votes", "episodes", "signals", "feedback", "skills")
    return tuple(conn.execute(f"SELECT count(*), total(rowid) FROM {t}").fetchone() for t in tables)


CASES: list[tuple[str, str, object, str]] = [
    ("teach-empty", "comodor.teach", {"text": ""}, "text"),
    ("teach-blank", "comodor.teach", {"text": "   \n"}, "text"),
    ("teach-huge", "comodor.teach", {"text": HUGE}, "text"),
    ("teach-not-a-string", "comodor.teach", {"text": 42}, "text"),
    ("teach-bad-kind", "comodor.teach", {"text": "x: y", "kind": "gossip"}, "kind"),
    ("teach-pinned-not-bool", "comodor.teach", {"text": "x: y", "pinned": "yes"}, "pinned"),
    ("teach-rule-empty", "comodor.teachRule", {"statement": ""}, "statement"),
    ("teach-rule-huge", "comodor.teachRule", {"statement": HUGE}, "statement"),
    ("forget-not-int", "comodor.forget", {"id": "1"}, "id"),
    ("forget-bool", "comodor.forget", {"id": True}, "id"),
    ("forget-negative", "comodor.forget", {"id": -1}, "id"),
    ("pin-not-bool", "comodor.pin", {"id": 1, "pinned": None}, "pinned"),
    ("set-rule-not-bool", "comodor.setRule", {"id": 1, "active": "no"}, "active"),
    ("playbook-huge", "comodor.playbook", {"query": HUGE}, "query"),
    ("playbook-not-a-string", "comodor.playbook", {"query": None}, "query"),
    ("playbook-zero-tokens", "comodor.playbook", {"query": "q", "maxTokens": 0}, "maxTokens"),
    ("begin-empty", "comodor.beginTask", {"goal": ""}, "goal"),
    ("begin-huge", "comodor.beginTask", {"goal": HUGE}, "goal"),
    ("end-unknown", "comodor.endTask", {"taskId": 12345, "success": True}, "taskId"),
    ("end-success-not-bool", "comodor.endTask", {"taskId": 1, "success": "yes"}, "success"),
    ("end-negative-steps", "comodor.endTask", {"taskId": 1, "success": True, "steps": -1}, "steps"),
    (
        "end-bad-role",
        "comodor.endTask",
        {"taskId": 1, "success": True, "messages": [{"role": "robot"}]},
        "messages[0].role",
    ),
    (
        "end-error-flag-not-bool",
        "comodor.endTask",
        {"taskId": 1, "success": True, "messages": [{"role": "tool", "isError": 1}]},
        "messages[0].isError",
    ),
    ("feedback-not-bool", "comodor.feedback", {"good": "good"}, "good"),
    ("feedback-unknown-task", "comodor.feedback", {"good": True, "taskId": 999}, "taskId"),
    ("denied-empty-tool", "comodor.denied", {"tool": "", "subject": "git push"}, "tool"),
    ("denied-huge-subject", "comodor.denied", {"tool": "run_shell", "subject": HUGE}, "subject"),
    ("lessons-negative-limit", "comodor.lessons", {"query": "", "limit": -1}, "limit"),
    ("not-an-object", "comodor.teach", ["x"], "argument"),
    ("unknown-command", "comodor.nope", {}, "command"),
]


@pytest.mark.parametrize(
    ("command", "argument", "field"), [pytest.param(c, a, f, id=i) for i, c, a, f in CASES]
)
def test_bad_input_names_the_field_and_changes_nothing(
    app: ComodorApp, command: str, argument: object, field: str
) -> None:
    app.execute("comodor.teach", {"text": "existing: a lesson that must survive"})
    app.execute("comodor.beginTask", {"goal": "an open task"})
    before = snapshot(app)
    with pytest.raises(InvalidInput) as raised:
        app.execute(command, argument)
    assert raised.value.field == field
    assert field in str(raised.value)
    assert snapshot(app) == before
