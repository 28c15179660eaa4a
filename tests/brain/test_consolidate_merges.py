"""Consolidation merges restatements (never negations or swaps), keeping all the evidence."""

from __future__ import annotations

from pathlib import Path

import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.lessons.merging import find_merges
from comodor_lsp.brain.models import Lesson, ProposedLesson
from comodor_lsp.brain.recall.text import terms


def _reflected(
    engine: LearningEngine, trigger: str, guidance: str, *, wins: int = 0, losses: int = 0
) -> Lesson:
    lesson = Lesson(
        kind="heuristic",
        scope=engine.write_scope,
        trigger=trigger,
        guidance=guidance,
        confidence=0.6,
        wins=wins,
        losses=losses,
        uses=wins + losses,
        source="episode:1",
    )
    return engine.store.add_lesson(lesson, " ".join(terms(lesson.text)))


def test_a_taught_lesson_and_its_reflected_restatement_become_one_with_all_evidence(
    engine: LearningEngine,
) -> None:
    taught = engine.teach("running the tests: use pytest -x in the billing service")
    reflected = _reflected(
        engine, "running tests", "in the billing service use pytest -x", wins=3, losses=1
    )
    engine.store.credit([taught.id], won=True)
    done = engine.consolidate()
    assert done.removed == 0
    assert [(merge.kept, merge.merged) for merge in done.merges] == [(taught.id, reflected.id)]
    [kept] = engine.search("")
    assert kept.id == taught.id
    assert kept.guidance == "use pytest -x in the billing service"  # the user's wording
    assert (kept.wins, kept.losses, kept.uses) == (4, 1, 4)
    assert kept.pinned and kept.source == "user"
    assert [lesson.id for lesson in engine.recall("pytest billing tests")] == [taught.id]
    assert engine.consolidate().merged == 0  # nothing left to merge


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Use unittest for the billing tests.", "Do not use unittest for the billing tests."),
        ("Always run the auth checks with tox.", "Never run the auth checks with tox."),
        (
            "Prefer poetry over pip in the ingest module.",
            "Prefer pip over poetry in the ingest module.",
        ),
        (
            "Use yarn instead of npm for checkout scripts.",
            "Use npm instead of yarn for checkout scripts.",
        ),
    ],
)
def test_a_lesson_and_its_negation_or_swap_are_never_merged(
    engine: LearningEngine, first: str, second: str
) -> None:
    _reflected(engine, "working on the service", first)
    _reflected(engine, "working on the service", second)
    assert engine.consolidate().merged == 0
    assert len(engine.search("")) == 2


def test_three_restatements_end_in_one_lesson_holding_every_win(engine: LearningEngine) -> None:
    for wins, guidance in enumerate(
        (
            "run ruff check --fix before pushing",
            "before pushing run ruff check --fix",
            "run ruff check --fix, before pushing",
        )
    ):
        _reflected(engine, "pushing code", guidance, wins=wins + 1)
    done = engine.consolidate()
    assert done.merged == 2
    [kept] = engine.search("")
    assert kept.wins == 1 + 2 + 3


def test_lessons_of_different_scopes_are_not_merged(tmp_path: Path) -> None:
    engine = LearningEngine.open(tmp_path / "brain.db", "project:a")
    try:
        mine = _reflected(engine, "deploying", "run helm upgrade --atomic")
        other = Lesson(
            kind="heuristic",
            scope="project:b",
            trigger="deploying",
            guidance="run helm upgrade --atomic",
            confidence=0.6,
        )
        engine.store.add_lesson(other, " ".join(terms(other.text)))
        assert engine.consolidate().merged == 0
        assert engine.store.get_lesson(mine.id) is not None
    finally:
        engine.close()


def test_merge_candidates_are_found_among_thousands_of_unrelated_lessons() -> None:
    lessons = [
        Lesson(kind="fact", scope="s", trigger=f"topic{n} shared", guidance=f"word{n} common", id=n)
        for n in range(1, 3000)
    ]
    lessons.append(
        Lesson(kind="fact", scope="s", trigger="common topic5", guidance="shared word5", id=5000)
    )
    merges = find_merges(lessons, {lesson.id: tuple(terms(lesson.text)) for lesson in lessons})
    assert [(merge.kept, merge.merged) for merge in merges] == [(5, 5000)]


def test_a_vague_reflected_lesson_is_not_stored(engine: LearningEngine) -> None:
    stored, merged = engine.absorb(
        [
            ProposedLesson("heuristic", "writing code", "Write clean code."),
            ProposedLesson("heuristic", "generally", "be good"),
            ProposedLesson("heuristic", "writing code", "run mypy --strict on server/"),
        ],
        source="episode:2",
    )
    assert [lesson.guidance for lesson in stored] == ["run mypy --strict on server/"]
    assert merged == 0
