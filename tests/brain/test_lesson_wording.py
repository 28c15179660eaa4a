"""The playbook reads as plain instructions, whatever phrasing the user taught."""

from __future__ import annotations

import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.lessons.markdown import instruction

PHRASINGS = [
    ("When running the tests: use pytest -q", "When running the tests: use pytest -q"),
    ("when running the tests: use pytest -q", "When running the tests: use pytest -q"),
    ("WHEN, running the tests: use pytest -q", "When running the tests: use pytest -q"),
    ("running the tests: use pytest -q", "When running the tests: use pytest -q"),
    ("always use tabs", "always use tabs"),
    ("When editing, prefer small diffs", "When editing, prefer small diffs"),
    ("committing: run ruff; then mypy", "When committing: run ruff; then mypy"),
    ("deploying: steps: build, push", "When deploying: steps: build, push"),
    ("releasing: - bump version - tag", "When releasing: - bump version - tag"),
    (": leading colon only", ": leading colon only"),
    ("trailing colon:", "trailing colon:"),
    ("テストを実行するとき: pytest を使う", "When テストを実行するとき: pytest を使う"),
    ("всегда пиши тесты", "всегда пиши тесты"),
    ("When: use black", "When: use black"),
]


@pytest.mark.parametrize(("taught", "expected"), PHRASINGS)
def test_a_taught_phrasing_reads_as_one_plain_instruction(
    engine: LearningEngine, taught: str, expected: str
) -> None:
    engine.teach(taught)
    lines = [line for line in engine.playbook(taught).text.splitlines() if line.startswith("- (")]
    assert lines == [f"- (preference, 100%) {expected}"]
    assert "When When" not in lines[0] and "generally" not in lines[0]


def test_old_lessons_stored_with_when_or_generally_render_plainly() -> None:
    assert instruction("When running tests", "use -q") == "When running tests: use -q"
    assert instruction("generally", "use tabs") == "use tabs"
    assert instruction("", "  use   tabs ") == "use tabs"


def test_teaching_the_same_lesson_twice_keeps_one_lesson_with_more_evidence(
    engine: LearningEngine,
) -> None:
    first = engine.teach("running the tests: use pytest -q", pinned=False)
    second = engine.teach("When running the tests: use pytest -q", pinned=False)
    assert second.id == first.id
    assert second.confidence > first.confidence
    assert [lesson.id for lesson in engine.search()] == [first.id]


def test_teaching_a_different_lesson_adds_a_new_one(engine: LearningEngine) -> None:
    first = engine.teach("running the tests: use pytest -q")
    second = engine.teach("formatting code: run ruff format")
    assert second.id != first.id
