"""The compact transcript: content, dedup, caps, and redaction before cuts."""

from __future__ import annotations

import re

from comodor_lsp.reflect import SYSTEM_PROMPT, EpisodeSummary, Message, build_messages
from comodor_lsp.reflect import build_transcript as bt
from hypothesis import given, settings
from hypothesis import strategies as st

TOKEN = re.compile(r"SECRET_[A-Za-z0-9]{12}")


def redact(text: str) -> str:
    """Strict fake: only whole 12-char tokens match, so a cut token would leak."""
    return TOKEN.sub("[REDACTED]", text)


def episode(**kw: object) -> EpisodeSummary:
    base: dict[str, object] = {
        "goal": "make the tests pass",
        "success": False,
        "stopped": "gave up",
        "steps": 9,
        "messages": [
            Message("user", None, "Please fix the failing tests in parser.py"),
            Message("assistant", None, "Sure! I will look at the code first. " * 20),
            Message("tool", "read_file", "def parse(): ...\n" * 200),
            Message("tool", "read_file", "more code"),
            Message("tool", "run_tests", "E   ModuleNotFoundError: No module named 'yaml'", True),
            Message("tool", "run_tests", "E   ModuleNotFoundError: No module named 'yaml'", True),
            Message("assistant", None, None),
            Message("user", None, "use the venv in .venv, not the system python"),
            Message("tool", "run_tests", "E   ModuleNotFoundError: No module named 'yaml'", True),
        ],
        "corrections": ["use the venv in .venv, not the system python"] * 2,
        "rule_keys": ["tests.run-with-pytest"],
    }
    base.update(kw)
    return EpisodeSummary(**base)  # type: ignore[arg-type]


def test_contains_the_essentials() -> None:
    text = bt(episode(), redact)
    assert text.startswith(
        "Goal: make the tests pass\nOutcome: failed after 9 steps (stopped: gave up)"
    )
    assert "tests.run-with-pytest" in text
    assert "[user] Please fix the failing tests in parser.py" in text
    assert "[user] use the venv in .venv, not the system python" in text
    assert "- use the venv in .venv, not the system python" in text
    assert text.count("- use the venv") == 1  # corrections deduplicated
    assert "[tool run_tests] ERROR: E ModuleNotFoundError: No module named 'yaml'" in text


def test_tool_noise_is_collapsed_and_errors_deduplicated() -> None:
    text = bt(episode(), redact)
    assert "[tool read_file] ok (×2)" in text
    assert "def parse()" not in text  # successful tool output is not sent
    assert text.count("No module named 'yaml'") == 1
    assert "[tool run_tests] ERROR (same as before)" in text


def test_assistant_chatter_is_trimmed() -> None:
    line = next(x for x in bt(episode(), redact).splitlines() if x.startswith("[assistant]"))
    assert len(line) <= len("[assistant] ") + 160
    assert line.endswith("…")


def test_success_outcome_and_missing_goal() -> None:
    text = bt(EpisodeSummary(goal="", success=True, steps=2), redact)
    assert text == "Goal: (not stated)\nOutcome: succeeded after 2 steps"


def test_hard_cap_keeps_head_and_tail() -> None:
    messages = [Message("user", None, f"message number {i} " + "x" * 400) for i in range(100)]
    messages.append(Message("tool", "final_check", "the very last error", True))
    text = bt(episode(messages=messages), redact, max_chars=3000)
    assert len(text) <= 3000
    assert text.startswith("Goal: make the tests pass")
    assert text.endswith("[tool final_check] ERROR: the very last error")
    assert "characters omitted" in text


def test_default_cap_is_6000() -> None:
    messages = [Message("user", None, f"m{i} " + "y" * 450) for i in range(200)]
    assert len(bt(episode(messages=messages), redact)) <= 6000


def test_redaction_everywhere() -> None:
    s = "SECRET_abcdefABCDEF"
    ep = episode(
        goal=f"deploy with {s}",
        stopped=f"error {s}",
        messages=[
            Message("user", None, f"the token is {s}"),
            Message("assistant", None, f"I'll use {s}"),
            Message("tool", f"curl-{s}", f"401 for {s}", True),
        ],
        corrections=[f"never paste {s}"],
        rule_keys=[s],
    )
    text = bt(ep, redact)
    assert "SECRET_" not in text
    assert text.count("[REDACTED]") >= 6


def test_redactor_sees_the_final_text() -> None:
    seen: list[str] = []

    def spy(text: str) -> str:
        seen.append(text)
        return text.replace("Goal:", "GOAL:")

    assert bt(episode(), spy).startswith("GOAL:")


@settings(max_examples=60, deadline=None)
@given(
    position=st.integers(min_value=0, max_value=30_000),
    length=st.integers(min_value=100, max_value=30_000),
    role=st.sampled_from(["user", "assistant", "tool"]),
)
def test_secret_never_survives_a_cut(position: int, length: int, role: str) -> None:
    secret = "SECRET_Zq9Zq9Zq9Zq9"
    body = "a" * length
    pos = min(position, length)
    body = body[:pos] + " " + secret + " " + body[pos:]
    msg = Message(role, "t", body, is_error=(role == "tool"))  # type: ignore[arg-type]
    text = bt(episode(messages=[msg], corrections=[body], goal=body), redact, max_chars=1000)
    assert "SECRET" not in text
    assert "Zq9Zq9" not in text
    assert len(text) <= 1000


def test_build_messages_pairs_prompt_and_transcript() -> None:
    msgs = build_messages(episode(), redact, max_chars=2000)
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert msgs[0]["content"] == SYSTEM_PROMPT
    assert len(msgs[1]["content"]) <= 2000


def test_system_prompt_asks_for_the_schema() -> None:
    for needle in ('"lessons"', '"kind"', '"trigger"', '"guidance"', '"confidence"', '"skill"'):
        assert needle in SYSTEM_PROMPT
    for kind in ("preference", "fact", "heuristic", "pitfall", "env"):
        assert kind in SYSTEM_PROMPT
    assert "At most 4 lessons" in SYSTEM_PROMPT
    assert "imperative" in SYSTEM_PROMPT
