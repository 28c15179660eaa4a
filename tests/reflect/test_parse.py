"""Reply parsing: shapes models really produce, validation, and never raising."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from comodor_lsp.reflect import ProposedLesson, ProposedSkill, Reflection, parse_reflection
from hypothesis import given, settings
from hypothesis import strategies as st


def redact(text: str) -> str:
    return re.sub(r"SECRET_\w+", "[REDACTED]", text)


def parse(text: object) -> Reflection:
    return parse_reflection(text, redact).reflection


LESSON = {
    "kind": "pitfall",
    "trigger": "when running tests",
    "guidance": "Activate .venv before running pytest.",
    "confidence": 0.8,
}
GOOD = json.dumps({"lessons": [LESSON], "skill": None})
EXPECTED = ProposedLesson(
    "pitfall", "when running tests", "Activate .venv before running pytest.", 0.8
)


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        f"  \n{GOOD}\n",
        f"```json\n{GOOD}\n```",
        f"```\n{GOOD}\n```",
        f"Here is my reflection:\n```json\n{GOOD}\n```\nHope this helps!",
        f"Sure! Based on the [task] above, {GOOD} Let me know {{if}} you need more.",
        f"<think>The user wants {{json}}. [Maybe] two lessons?</think>\n{GOOD}",
        GOOD.replace("0.8}", "0.8,}").replace("null}", "null,}"),
        json.dumps([LESSON]),
        json.dumps(LESSON),
    ],
    ids=[
        "bare",
        "whitespace",
        "fence-json",
        "fence-plain",
        "fence-prose",
        "prose",
        "think",
        "trailing-commas",
        "top-level-list",
        "single-lesson",
    ],
)
def test_accepted_shapes(text: str) -> None:
    result = parse_reflection(text, redact)
    assert result.reflection.lessons == (EXPECTED,), result.reason
    assert result.reflection.skill is None
    assert result.reason == ""


def test_trailing_comma_inside_string_is_kept() -> None:
    text = '{"lessons": [{"kind": "fact", "guidance": "Lists look like [a, b,]",},]}'
    (lesson,) = parse(text).lessons
    assert lesson.guidance == "Lists look like [a, b,]"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "the reply is empty"),
        ("I could not find any lessons.", "no JSON object found in the reply"),
        ('{"choices": [', "no JSON object found in the reply"),
        ("<html><body>502 Bad Gateway</body></html>", "no JSON object found in the reply"),
        ('"just a string"', "no JSON object found in the reply"),
        ('{"answer": 42}', "the reply JSON has no 'lessons' or 'skill'"),
        ('{"lessons": []}', "the reply proposes nothing"),
        ('{"lessons": "none"}', "'lessons' is not a list"),
    ],
)
def test_garbage_gives_empty_reflection_and_reason(text: str, reason: str) -> None:
    result = parse_reflection(text, redact)
    assert result.reflection.empty
    assert result.reflection == Reflection()
    assert result.reason == reason


def test_non_text_input() -> None:
    result = parse_reflection(None, redact)
    assert result.reflection.empty and result.reason == "the reply is not text (NoneType)"


def test_redactor_failure_is_contained() -> None:
    def broken(text: str) -> str:
        raise RuntimeError("boom")

    result = parse_reflection(GOOD, broken)
    assert result.reflection.empty
    assert result.reason == "could not parse the reply (RuntimeError)"


def lessons_of(*items: dict[str, Any]) -> tuple[ProposedLesson, ...]:
    return parse(json.dumps({"lessons": list(items)})).lessons


def test_kinds_validated_and_mapped() -> None:
    got = lessons_of(
        {"kind": "tip", "guidance": "use ruff"},
        {"kind": "Pitfalls", "guidance": "pin numpy"},
        {"kind": "environment", "guidance": "set PYTHONPATH"},
        {"kind": "astrology", "guidance": "read stars"},
        {"guidance": "use mypy"},
    )
    assert [(x.kind, x.guidance) for x in got] == [
        ("heuristic", "use ruff"),
        ("pitfall", "pin numpy"),
        ("env", "set PYTHONPATH"),
    ]
    reason = parse_reflection(
        json.dumps([{"kind": "astrology", "guidance": "read stars"}]), redact
    ).reason
    assert "unknown kind 'astrology'" in reason


def test_empty_trigger_becomes_generally_and_missing_guidance_drops() -> None:
    got = lessons_of(
        {"kind": "fact", "trigger": "  ", "guidance": "use tox"},
        {"kind": "fact", "guidance": "run nox"},
        {"kind": "fact", "trigger": "t", "guidance": ""},
        {"kind": "fact", "trigger": "t", "guidance": 5},
        "not an object",  # type: ignore[arg-type]
    )
    assert [(x.trigger, x.guidance) for x in got] == [
        ("generally", "use tox"),
        ("generally", "run nox"),
    ]


def test_length_caps() -> None:
    (lesson,) = lessons_of({"kind": "fact", "trigger": "t" * 1000, "guidance": "gitignore " * 100})
    assert len(lesson.trigger) == 300 and lesson.trigger.endswith("…")
    assert len(lesson.guidance) <= 600 and lesson.guidance.endswith("…")


def test_at_most_four_lessons() -> None:
    result = parse_reflection(
        json.dumps([{"kind": "fact", "guidance": f"fact number {i}"} for i in range(7)]), redact
    )
    assert [x.guidance for x in result.reflection.lessons] == [f"fact number {i}" for i in range(4)]
    assert "3 lessons over the limit of 4 dropped" in result.reason


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, 0.6),
        ("missing", 0.6),
        (0.5, 0.5),
        (0, 0.05),
        (-3, 0.05),
        (1, 0.95),
        (1.0, 0.95),
        (80, 0.8),
        (1e9, 0.95),
        ("0.7", 0.7),
        ("90%", 0.9),
        ("high", 0.6),
        (True, 0.6),
        (float("nan"), 0.6),
        ([0.5], 0.6),
    ],
)
def test_confidence_clamped(raw: Any, expected: float) -> None:
    item: dict[str, Any] = {"kind": "fact", "guidance": "use tox"}
    if raw != "missing":
        item["confidence"] = raw
    (lesson,) = parse(json.dumps({"lessons": [item]}, allow_nan=True)).lessons
    assert lesson.confidence == pytest.approx(expected)


def test_duplicates_collapse_keeping_highest_confidence() -> None:
    got = lessons_of(
        {"kind": "pitfall", "guidance": "Activate .venv first.", "confidence": 0.5},
        {"kind": "heuristic", "guidance": "activate  .venv first", "confidence": 0.9},
        {"kind": "fact", "guidance": "Something else."},
    )
    assert [(x.kind, x.guidance, x.confidence) for x in got] == [
        ("pitfall", "Activate .venv first.", 0.9),
        ("fact", "Something else.", 0.6),
    ]


def test_duplicates_do_not_count_against_the_limit() -> None:
    items = [{"kind": "fact", "guidance": "same pytest"}] * 5 + [
        {"kind": "fact", "guidance": f"other pytest{i}"} for i in range(3)
    ]
    assert len(lessons_of(*items)) == 4


@pytest.mark.parametrize(
    "vague", ["Be good.", "Write clean code", "Always be careful and thorough.", "Do it right"]
)
def test_a_vague_lesson_is_dropped_and_the_reason_says_so(vague: str) -> None:
    result = parse_reflection(
        json.dumps(
            [
                {"kind": "heuristic", "trigger": "writing code", "guidance": vague},
                {"kind": "heuristic", "trigger": "writing code", "guidance": "Run ruff --fix"},
            ]
        ),
        redact,
    )
    assert [x.guidance for x in result.reflection.lessons] == ["Run ruff --fix"]
    assert "lesson 1 is too vague" in result.reason


def test_skill_accepted_and_cleaned() -> None:
    skill = {
        "name": "release",
        "description": "Cut a release",
        "steps": ["1. Bump the version", "2) Tag it", "", "   ", "- Push the tag", 7],
    }
    got = parse(json.dumps({"lessons": [], "skill": skill}))
    assert got.skill == ProposedSkill(
        "release", "Cut a release", ("Bump the version", "Tag it", "Push the tag")
    )
    assert not got.empty


@pytest.mark.parametrize(
    "skill",
    [
        {"name": "x", "steps": ["only one"]},
        {"name": "", "steps": ["a", "b"]},
        {"steps": ["a", "b"]},
        {"name": "x", "steps": "a, b"},
        {"name": "x", "steps": ["", " "]},
        "do it",
    ],
)
def test_invalid_skills_dropped(skill: Any) -> None:
    result = parse_reflection(json.dumps({"lessons": [LESSON], "skill": skill}), redact)
    assert result.reflection.skill is None
    assert result.reflection.lessons == (EXPECTED,)
    assert "skill" in result.reason


def test_skill_caps() -> None:
    skill = {
        "name": "n" * 200,
        "description": "d",
        "steps": [f"step {i} " + "s" * 300 for i in range(20)],
    }
    got = parse(json.dumps({"skill": skill})).skill
    assert got is not None
    assert len(got.steps) == 12
    assert all(len(s) <= 200 for s in got.steps)
    assert len(got.name) <= 80


def test_everything_is_redacted() -> None:
    reply = {
        "lessons": [
            {
                "kind": "env",
                "trigger": "when using SECRET_trig",
                "guidance": "Export SECRET_guid first",
            }
        ],
        "skill": {
            "name": "SECRET_name",
            "description": "uses SECRET_desc",
            "steps": ["run SECRET_step1", "then SECRET_step2"],
        },
    }
    got = parse(json.dumps(reply))
    assert "SECRET" not in repr(got)
    assert got.lessons[0].guidance == "Export [REDACTED] first"


def test_redaction_happens_before_the_cap() -> None:
    # A secret straddling the 600-char cap must not survive as a fragment.
    guidance = "g" * 590 + " SECRET_abcdefghijklmnop"
    (lesson,) = lessons_of({"kind": "fact", "guidance": guidance})
    assert "SECRET" not in lesson.guidance and "abcdef" not in lesson.guidance


def test_prefers_reflection_shaped_json_over_earlier_brackets() -> None:
    text = f'I found [2] issues and {{"x": 1}} noise. {GOOD}'
    assert parse(text).lessons == (EXPECTED,)


def test_results_are_frozen() -> None:
    got = parse(GOOD)
    with pytest.raises(AttributeError):
        got.lessons[0].kind = "fact"  # type: ignore[misc]


# -- fuzz ----------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=6)
        | st.dictionaries(
            st.sampled_from(
                [
                    "lessons",
                    "skill",
                    "kind",
                    "trigger",
                    "guidance",
                    "confidence",
                    "name",
                    "steps",
                    "x",
                ]
            )
            | st.text(max_size=8),
            children,
            max_size=6,
        )
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_fuzz_text_never_raises(text: str) -> None:
    result = parse_reflection(text, redact)
    assert isinstance(result.reflection, Reflection)
    assert isinstance(result.reason, str)


@settings(max_examples=120, deadline=None)
@given(json_values, st.sampled_from(["{}", "```json\n{}\n```", "Sure: {} thanks", "{},"]))
def test_fuzz_json_never_raises_and_respects_limits(value: Any, wrapper: str) -> None:
    text = wrapper.replace("{}", json.dumps(value))
    result = parse_reflection(text, redact)
    lessons = result.reflection.lessons
    assert len(lessons) <= 4
    for lesson in lessons:
        assert lesson.kind in {"preference", "fact", "heuristic", "pitfall", "env"}
        assert 0.05 <= lesson.confidence <= 0.95
        assert lesson.trigger and len(lesson.trigger) <= 300
        assert lesson.guidance and len(lesson.guidance) <= 600
    skill = result.reflection.skill
    if skill is not None:
        assert skill.name and 2 <= len(skill.steps) <= 12


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "kind": st.sampled_from(["fact", "tip", "env", "bogus", "PITFALL"]),
                "trigger": st.text(max_size=20),
                "guidance": st.text(max_size=50),
                "confidence": st.one_of(st.floats(), st.integers(), st.text(max_size=5)),
            }
        ),
        max_size=8,
    )
)
def test_fuzz_lesson_lists(items: list[dict[str, Any]]) -> None:
    text = json.dumps({"lessons": items}, allow_nan=True)
    result = parse_reflection(text, redact)
    assert len(result.reflection.lessons) <= 4


@pytest.mark.parametrize(
    "text",
    [
        "{" * 50_000 + "[" * 50_000,
        '{"a": "' + "x" * 100_000,
        "[" * 100_000 + "]" * 100_000,
        "prose " * 20_000 + "{",
        '{"a": [1,], ' * 5_000 + "}" * 5_000,
        "{" + '"k": {"v": nope}, ' * 3_000 + "}",
    ],
    ids=["open-brackets", "open-string", "deep-nesting", "long-prose", "commas", "invalid-nested"],
)
def test_pathological_input_is_fast(text: str) -> None:
    start = time.perf_counter()
    result = parse_reflection(text, redact)
    assert time.perf_counter() - start < 0.5
    assert result.reflection.empty
