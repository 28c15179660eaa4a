"""Bad input gets an error naming the problem, and the brain is left exactly as it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from comodor.brain.engine import LearningEngine
from comodor.brain.errors import InvalidInput
from comodor.brain.models import Message

HUGE = "x" * 10_000_000


def snapshot(engine: LearningEngine) -> tuple[Any, ...]:
    conn = engine.store._conn
    tables = ("lessons", "rules", "rule_votes", "episodes", "signals", "feedback", "skills")
    return tuple(conn.execute(f"SELECT count(*), total(rowid) FROM {t}").fetchone() for t in tables)


CASES: list[tuple[str, Callable[[LearningEngine], object], str]] = [
    ("teach-empty", lambda e: e.teach(""), "text"),
    ("teach-blank", lambda e: e.teach("   \n"), "text"),
    ("teach-huge", lambda e: e.teach(HUGE), "text"),
    ("teach-not-a-string", lambda e: e.teach(42), "text"),  # type: ignore[arg-type]
    ("teach-bad-kind", lambda e: e.teach("x: y", kind="gossip"), "kind"),
    ("teach-pinned-not-bool", lambda e: e.teach("x: y", pinned="yes"), "pinned"),  # type: ignore[arg-type]
    ("teach-rule-empty", lambda e: e.teach_rule(""), "statement"),
    ("teach-rule-huge", lambda e: e.teach_rule(HUGE), "statement"),
    ("forget-not-int", lambda e: e.forget("1"), "id"),  # type: ignore[arg-type]
    ("forget-bool", lambda e: e.forget(True), "id"),
    ("pin-not-bool", lambda e: e.pin(1, pinned=None), "pinned"),  # type: ignore[arg-type]
    ("set-rule-not-bool", lambda e: e.set_rule(1, active="no"), "active"),  # type: ignore[arg-type]
    ("playbook-huge", lambda e: e.playbook(HUGE), "query"),
    ("playbook-not-a-string", lambda e: e.playbook(None), "query"),  # type: ignore[arg-type]
    ("playbook-zero-tokens", lambda e: e.playbook("q", max_tokens=0), "maxTokens"),
    ("begin-empty", lambda e: e.begin_task(""), "goal"),
    ("begin-huge", lambda e: e.begin_task(HUGE), "goal"),
    ("end-unknown", lambda e: e.end_task(12345, True), "taskId"),
    ("end-success-not-bool", lambda e: e.end_task(1, "yes"), "success"),  # type: ignore[arg-type]
    ("end-negative-steps", lambda e: e.end_task(1, True, steps=-1), "steps"),
    (
        "end-bad-role",
        lambda e: e.end_task(1, True, messages=[Message("robot")]),
        "messages[0].role",
    ),
    ("feedback-not-bool", lambda e: e.feedback("good"), "good"),  # type: ignore[arg-type]
    ("feedback-unknown-task", lambda e: e.feedback(True, task_id=999), "taskId"),
    ("denied-empty-tool", lambda e: e.on_denied("", "git push"), "tool"),
    ("denied-huge-subject", lambda e: e.on_denied("run_shell", HUGE), "subject"),
    ("search-negative-limit", lambda e: e.search("", limit=-1), "limit"),
]


@pytest.mark.parametrize(("call", "field"), [pytest.param(c, f, id=i) for i, c, f in CASES])
def test_bad_input_names_the_field_and_changes_nothing(
    engine: LearningEngine, call: Callable[[LearningEngine], object], field: str
) -> None:
    engine.teach("existing: a lesson that must survive")
    if field in ("success", "steps", "messages[0].role"):
        engine.begin_task("an open task")
    before = snapshot(engine)
    with pytest.raises(InvalidInput) as raised:
        call(engine)
    assert raised.value.field == field
    assert field in str(raised.value)
    assert snapshot(engine) == before
