"""Near-duplicates merge; contradictions never do."""

from __future__ import annotations

import pytest
from comodor_lsp.brain.engine import LearningEngine, ProposedLesson
from comodor_lsp.brain.recall.text import same_meaning


def test_a_restatement_merges_and_raises_confidence(engine: LearningEngine) -> None:
    stored, merged = engine.absorb(
        [ProposedLesson("heuristic", "running the tests", "use pytest with -x", 0.6)], "episode:1"
    )
    assert len(stored) == 1 and merged == 0
    stored_again, merged_again = engine.absorb(
        [ProposedLesson("heuristic", "running tests", "use pytest with -x", 0.6)], "episode:2"
    )
    assert stored_again == [] and merged_again == 1
    lesson = engine.store.get_lesson(stored[0].id)
    assert lesson is not None and lesson.confidence == pytest.approx(0.68)
    assert engine.store.count_lessons(engine.scopes) == 1


def test_a_merge_that_says_more_refines_the_wording(engine: LearningEngine) -> None:
    stored, _ = engine.absorb(
        [ProposedLesson("heuristic", "running the tests", "use pytest -x")], "episode:1"
    )
    engine.absorb(
        [ProposedLesson("heuristic", "running the tests", "use pytest -x and the sqlite fixture")],
        "episode:2",
    )
    lesson = engine.store.get_lesson(stored[0].id)
    assert lesson is not None and lesson.guidance == "use pytest -x and the sqlite fixture"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param("Use unittest for new tests", "Do not use unittest for new tests", id="not"),
        pytest.param("Use unittest for new tests", "Never use unittest for new tests", id="never"),
        pytest.param("Prefer pytest over unittest", "Prefer unittest over pytest", id="over"),
        # Found by bench.recall_quality: shared context on one side outvoted the swap.
        pytest.param(
            "Prefer pytest over unittest in the billing module.",
            "Prefer unittest over pytest in the billing module.",
            id="over-with-context",
        ),
        pytest.param(
            "Use httpx instead of requests for billing scripts.",
            "Use requests instead of httpx for billing scripts.",
            id="instead-of-with-context",
        ),
        pytest.param(
            "Use httpx rather than requests when calling the billing API",
            "Use requests rather than httpx when calling the billing API",
            id="rather-than",
        ),
        pytest.param(
            "Run with -p no:cacheprovider",
            "Don't run with -p no:cacheprovider",
            id="flag-is-not-a-negation",
        ),
    ],
)
def test_a_statement_and_its_opposite_never_merge(first: str, second: str) -> None:
    assert not same_meaning(first, second)
    assert not same_meaning(second, first)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "Prefer pytest over unittest in the billing module.",
            "In the billing module prefer pytest over unittest.",
        ),
        (
            "Use httpx instead of requests for billing scripts.",
            "For billing scripts use httpx instead of requests.",
        ),
    ],
)
def test_a_reordered_comparison_still_merges(first: str, second: str) -> None:
    assert same_meaning(first, second)


def test_opposite_lessons_are_both_kept(engine: LearningEngine) -> None:
    engine.absorb([ProposedLesson("preference", "writing tests", "use unittest")], "episode:1")
    stored, merged = engine.absorb(
        [ProposedLesson("preference", "writing tests", "do not use unittest")], "episode:2"
    )
    assert len(stored) == 1 and merged == 0
    assert engine.store.count_lessons(engine.scopes) == 2


def test_proposals_are_validated_and_clamped(engine: LearningEngine) -> None:
    stored, _ = engine.absorb(
        [
            ProposedLesson("nonsense", "x", "y"),
            ProposedLesson("fact", "", "the API lives in src/api", 5.0),
            ProposedLesson("fact", "empty", "   "),
        ],
        "episode:1",
    )
    assert [(lesson.trigger, lesson.confidence) for lesson in stored] == [("generally", 0.95)]
