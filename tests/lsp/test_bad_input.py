"""Bad input: InvalidParams naming the field, the server stays up, nothing is written.

Every test here talks to one server for the whole module (``shared_session``): each
compares what is stored before and after its own bad input, and the server answering every
later test is part of what is checked.
"""

from __future__ import annotations

from typing import Any

import pytest
from comodor_lsp.commands import COMMANDS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.lsp.session import Session

pytestmark = pytest.mark.asyncio(loop_scope="module")

HUGE = "x" * 10_000_000

CASES: list[Any] = [
    pytest.param("comodor.teach", [{}], "text", id="missing-field"),
    pytest.param("comodor.teach", [{"text": 42}], "text", id="wrong-type"),
    pytest.param("comodor.teach", [{"text": HUGE}], "text", id="10mb-string"),
    pytest.param("comodor.teach", [{"text": "a: b", "kind": "gossip"}], "kind", id="bad-enum"),
    pytest.param("comodor.teach", [], "argument", id="no-argument"),
    pytest.param("comodor.teach", ["just a string"], "argument", id="not-an-object"),
    pytest.param("comodor.teach", [{"text": "a"}, {"text": "b"}], "argument", id="two-arguments"),
    pytest.param("comodor.forget", [{"id": "3"}], "id", id="id-as-string"),
    pytest.param("comodor.forget", [{"id": True}], "id", id="id-as-bool"),
    pytest.param("comodor.playbook", [{"query": HUGE}], "query", id="huge-query"),
    pytest.param("comodor.beginTask", [{"goal": ""}], "goal", id="empty-goal"),
    pytest.param("comodor.endTask", [{"taskId": 1}], "success", id="end-missing-success"),
    pytest.param("comodor.endTask", [{"taskId": 99, "success": True}], "taskId", id="unknown-task"),
    pytest.param(
        "comodor.endTask",
        [{"taskId": 1, "success": True, "messages": [{"role": "robot"}]}],
        "messages[0].role",
        id="bad-message-role",
    ),
    pytest.param(
        "comodor.endTask",
        [{"taskId": 1, "success": True, "messages": [{"role": "tool", "isError": "yes"}]}],
        "messages[0].isError",
        id="bad-nested-type",
    ),
    pytest.param(
        "comodor.agentEdit", [{"uri": "http://example.com/a.py"}], "uri", id="not-a-file-uri"
    ),
    pytest.param(
        "comodor.agentEdit", [{"uri": "file:///etc/passwd"}], "uri", id="outside-workspace"
    ),
    pytest.param("comodor.undo", [{"uris": "file:///a"}], "uris", id="uris-not-a-list"),
    pytest.param("comodor.setRule", [{"id": 1, "active": "no"}], "active", id="flag-not-bool"),
    pytest.param("comodor.lessons", [{"limit": 0}], "limit", id="zero-limit"),
    # values JSON carries and nothing downstream can store: never an internal error
    pytest.param("comodor.teach", [{"text": "x: \ud800"}], "text", id="lone-surrogate"),
    pytest.param(
        "comodor.teachRule", [{"statement": "Use \udfff"}], "statement", id="low-surrogate"
    ),
    pytest.param("comodor.beginTask", [{"goal": "fix \ud83d"}], "goal", id="half-an-emoji"),
    pytest.param(
        "comodor.denied",
        [{"tool": "run_shell", "subject": "rm \ud800"}],
        "subject",
        id="surrogate-2",
    ),
    pytest.param(
        "comodor.endTask",
        [{"taskId": 1, "success": True, "messages": [{"role": "tool", "content": "\udc00"}]}],
        "messages[0].content",
        id="surrogate-nested",
    ),
    pytest.param("comodor.forget", [{"id": 10**40}], "id", id="40-digit-id"),
    pytest.param("comodor.forget", [{"id": 2**63}], "id", id="id-just-over-64-bits"),
    pytest.param("comodor.forget", [{"id": float("inf")}], "id", id="infinite-id"),
    pytest.param("comodor.lessons", [{"limit": 10**40}], "limit", id="40-digit-limit"),
    pytest.param(
        "comodor.playbook", [{"query": "q", "maxTokens": 10**40}], "maxTokens", id="huge-max"
    ),
    pytest.param(
        "comodor.endTask",
        [{"taskId": 1, "success": True, "elapsed": float("nan")}],
        "elapsed",
        id="nan-elapsed",
    ),
    pytest.param(
        "comodor.endTask",
        [{"taskId": 1, "success": True, "elapsed": float("-inf")}],
        "elapsed",
        id="minus-infinity-elapsed",
    ),
]


VOLATILE = ("watching", "prefetchReady")  # background state, not written by commands


async def stored_counts(session: Session) -> dict[str, Any]:
    stats = await session.command("comodor.stats")
    return {key: value for key, value in stats.items() if key not in VOLATILE}


async def snapshot(session: Session) -> dict[str, Any]:
    stats = await stored_counts(session)
    lessons = await session.command("comodor.lessons")
    rules = await session.command("comodor.rules")
    return {"stats": stats, "lessons": lessons, "rules": rules}


@pytest.mark.parametrize(("command", "arguments", "field"), CASES)
async def test_bad_input_is_invalid_params_naming_the_field_and_writes_nothing(
    shared_session: Session, command: str, arguments: list[Any], field: str
) -> None:
    session = shared_session
    await session.command("comodor.teach", {"text": "existing: must survive"})
    await session.command("comodor.beginTask", {"goal": "an open task"})
    before = await snapshot(session)
    error = await session.command_error(command, arguments)
    assert error.code == -32602
    assert field in str(error)
    assert await snapshot(session) == before


async def test_unknown_fields_are_ignored(shared_session: Session) -> None:
    result = await shared_session.command("comodor.teach", {"text": "a: b", "colour": "blue"})
    assert result["lesson"]["guidance"] == "b"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = sorted(
    {
        "text",
        "kind",
        "pinned",
        "id",
        "query",
        "goal",
        "taskId",
        "success",
        "messages",
        "uri",
        "uris",
        "good",
        "tool",
        "subject",
        "path",
        "limit",
        "maxTokens",
        "statement",
        "active",
        "stopped",
        "steps",
        "note",
    }
)
PAYLOAD = st.one_of(
    JSON,
    st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=5),
)


@pytest.mark.slow
async def test_1000_fuzzed_payloads_each_get_an_answer_and_the_server_stays_up(
    shared_session: Session,
) -> None:
    session = shared_session
    answers = {"ok": 0, "invalid": 0}
    writing = {
        "comodor.teach",
        "comodor.teachRule",
        "comodor.beginTask",
        "comodor.endTask",
        "comodor.denied",
        "comodor.feedback",
        "comodor.agentEdit",
        "comodor.undo",
        "comodor.exportRules",
        "comodor.forget",
        "comodor.forgetRule",
        "comodor.pin",
        "comodor.setRule",
        "comodor.consolidate",
    }
    payloads: list[tuple[str, Any]] = []

    @settings(
        max_examples=1000, database=None, suppress_health_check=list(HealthCheck), deadline=None
    )
    @given(st.sampled_from(sorted(COMMANDS)), PAYLOAD)
    def collect(command: str, payload: Any) -> None:
        payloads.append((command, payload))

    collect()
    for command, payload in payloads:
        before = await stored_counts(session) if command in writing else None
        try:
            await session.client.workspace_execute_command_async(
                __import__("lsprotocol.types", fromlist=["x"]).ExecuteCommandParams(
                    command=command, arguments=[payload]
                )
            )
            answers["ok"] += 1
        except Exception as error:
            assert getattr(error, "code", None) == -32602, (command, payload, error)
            answers["invalid"] += 1
            if before is not None:
                assert await stored_counts(session) == before, (command, payload)
    assert answers["ok"] + answers["invalid"] == len(payloads) >= 1000
    assert (await session.command("comodor.stats"))["scope"].startswith("project:")


async def test_a_misspelt_command_is_refused_with_the_nearest_name(
    shared_session: Session,
) -> None:
    before = await stored_counts(shared_session)
    error = await shared_session.command_error("comodor.rule", [{}])
    assert "'comodor.rule' is not a Comodor command; did you mean comodor.rules?" in str(error)
    assert error.code == -32602
    assert await stored_counts(shared_session) == before  # the server still answers
