"""Reflector end to end over HTTP: what leaves the process, and what comes back."""

from __future__ import annotations

import json
import logging
import re

import attrs
import pytest
from comodor_lsp.reflect import (
    SYSTEM_PROMPT,
    ChatGateway,
    EpisodeSummary,
    Message,
    ProposedLesson,
    ReflectError,
    Reflection,
    Reflector,
)

from tests.support.fake_llm import FakeLLM, Reply

KEY_ENV = "COMODOR_TEST_REFLECTOR_KEY"


def redact(text: str) -> str:
    return re.sub(r"SECRET_\w+", "[REDACTED]", text)


def summary() -> EpisodeSummary:
    return EpisodeSummary(
        goal="deploy using SECRET_goaltoken",
        success=False,
        stopped="error",
        steps=6,
        messages=[
            Message("user", None, "my password is SECRET_hunter2"),
            Message("tool", "shell", "auth failed for SECRET_tooltoken", True),
        ],
        corrections=["don't echo SECRET_correction"],
    )


REPLY = json.dumps(
    {
        "lessons": [
            {
                "kind": "pitfall",
                "trigger": "when deploying",
                "guidance": "Read the token from the env, never SECRET_fromreply.",
                "confidence": 0.7,
            }
        ],
        "skill": None,
    }
)


def test_reflect_round_trip_and_no_secret_leaves(
    fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    fake_llm.script(Reply.chat(f"```json\n{REPLY}\n```"))
    gateway = ChatGateway(fake_llm.url, "fake-model", api_key_env=KEY_ENV)
    got = Reflector(gateway, redact).reflect(summary())
    assert got == Reflection(
        lessons=(
            ProposedLesson(
                "pitfall", "when deploying", "Read the token from the env, never [REDACTED].", 0.7
            ),
        )
    )
    (req,) = fake_llm.requests
    assert "SECRET_" not in req.body
    assert "authorization" not in req.headers
    messages = req.json["messages"]
    assert messages[0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert "[REDACTED]" in messages[1]["content"]
    assert "response_format" not in req.json


def test_key_sent_only_as_header(fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-live-SECRET_apikey")
    gateway = ChatGateway(fake_llm.url, "fake-model", api_key_env=KEY_ENV)
    Reflector(gateway, redact, json_mode=True).reflect(summary())
    (req,) = fake_llm.requests
    assert req.headers["authorization"] == "Bearer sk-live-SECRET_apikey"
    assert "apikey" not in req.body
    assert req.json["response_format"] == {"type": "json_object"}


def test_transcript_cap_is_applied(fake_llm: FakeLLM) -> None:
    big = attrs.evolve(
        summary(), messages=tuple(Message("user", None, "z" * 3000) for _ in range(10))
    )
    Reflector(ChatGateway(fake_llm.url, "fake-model"), redact, max_chars=1500).reflect(big)
    assert len(fake_llm.requests[0].json["messages"][1]["content"]) <= 1500


@pytest.mark.parametrize(
    "content",
    [
        "I have no lessons to share.",
        '{"lessons": [{"kind": "vibes", "guidance": "x"}]}',
    ],
)
def test_unusable_reply_is_empty_not_an_error(
    fake_llm: FakeLLM, caplog: pytest.LogCaptureFixture, content: str
) -> None:
    fake_llm.script(Reply.chat(content))
    reflector = Reflector(ChatGateway(fake_llm.url, "fake-model"), redact)
    with caplog.at_level(logging.INFO):
        got = reflector.reflect(summary())
    assert got.empty
    assert reflector.last_reason
    assert any("reflection reply:" in r.getMessage() for r in caplog.records)


def test_gateway_errors_propagate(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.error(401, "no"))
    reflector = Reflector(ChatGateway(fake_llm.url, "fake-model"), redact)
    with pytest.raises(ReflectError, match=r"rejected the API key"):
        reflector.reflect(summary())
