"""Recall: the right lessons, weighted by trust, for the right project."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path

import attrs
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Lesson
from comodor_lsp.brain.recall.text import terms
from comodor_lsp.brain.store.database import split_sql
from comodor_lsp.brain.store.sqlite_schema import MIGRATIONS
from comodor_lsp.settings import LearningSettings

DAY = 86_400.0


def _add(engine: LearningEngine, trigger: str, guidance: str, **fields: object) -> Lesson:
    lesson = Lesson(
        kind="heuristic", scope=engine.project_scope, trigger=trigger, guidance=guidance, **fields
    )  # type: ignore[arg-type]
    return engine.store.add_lesson(lesson, " ".join(terms(lesson.text)))


def test_relevant_lesson_is_recalled_and_unrelated_one_is_not(engine: LearningEngine) -> None:
    wanted = _add(engine, "running the test suite", "use pytest -p no:cacheprovider")
    _add(engine, "writing release notes", "keep them under ten lines")
    assert [lesson.id for lesson in engine.recall("how do I run the tests?")] == [wanted.id]


def test_trusted_lesson_is_recalled_among_20000_weaker_ones_sharing_its_words(
    engine: LearningEngine,
) -> None:
    rng = random.Random(7)
    vocabulary = ["database", "migration", "schema", "tests", "deploy", "staging", "config"]
    now = time.time()
    distractors = []
    for number in range(20_000):
        chosen = rng.sample(vocabulary, 4)
        lesson = Lesson(
            kind="fact",
            scope=engine.project_scope,
            trigger=f"{chosen[0]} {chosen[1]} case {number}",
            guidance=f"consider {chosen[2]} and {chosen[3]}",
            confidence=rng.uniform(0.2, 0.7),
            created_at=now,
            updated_at=now,
        )
        distractors.append((lesson, " ".join(terms(lesson.text))))
    engine.store.add_lessons(distractors)
    planted = _add(
        engine,
        "database migration on staging",
        "run the schema check before deploy",
        confidence=0.95,
    )
    recalled = [lesson.id for lesson in engine.recall("database migration staging schema deploy")]
    assert planted.id in recalled
    assert recalled[0] == planted.id


def test_pinned_lessons_come_first_but_cannot_crowd_out_ranked_ones(engine: LearningEngine) -> None:
    for number in range(10):
        engine.teach(f"always rule {number}: do the pinned thing {number}")
    ranked = _add(engine, "configuring logging", "use structlog with json output", confidence=0.9)
    recalled = engine.recall("configuring logging")
    assert ranked.id in [lesson.id for lesson in recalled]
    pinned = [lesson for lesson in recalled if lesson.pinned]
    assert 0 < len(pinned) <= engine.settings.top_k // 2
    assert recalled[: len(pinned)] == pinned


def test_lesson_with_50_losses_is_neither_recalled_nor_kept(engine: LearningEngine) -> None:
    bad = _add(engine, "formatting code", "run black with line length 60", confidence=0.9)
    good = _add(engine, "formatting code", "run ruff format", confidence=0.6)
    for _ in range(50):
        engine.store.credit([bad.id], won=False)
    stored = engine.store.get_lesson(bad.id)
    assert stored is not None and stored.trust() < 0.05
    assert [lesson.id for lesson in engine.recall("formatting code")] == [good.id]
    assert engine.consolidate().removed >= 1
    assert engine.store.get_lesson(bad.id) is None
    assert engine.store.get_lesson(good.id) is not None


def test_decay_runs_from_the_last_success_not_the_last_use(engine: LearningEngine) -> None:
    now = time.time()
    old = now - 200 * DAY
    used_recently = _add(
        engine,
        "building docs",
        "run sphinx with -W",
        confidence=0.8,
        created_at=old,
        last_success=old,
        last_used=now,
    )
    won_recently = _add(
        engine,
        "building docs",
        "run mkdocs build --strict",
        confidence=0.8,
        created_at=old,
        last_success=now - DAY,
    )
    assert used_recently.effective_confidence(45) < 0.1
    assert won_recently.effective_confidence(45) > 0.7
    assert [lesson.id for lesson in engine.recall("building docs")] == [won_recently.id]


def test_other_projects_lessons_stay_out_and_global_ones_come_in(brain_path: Path) -> None:
    mine = LearningEngine.open(brain_path, "project:mine")
    other = LearningEngine.open(brain_path, "project:other")
    shared = LearningEngine.open(brain_path, "project:mine", LearningSettings(share_scope="global"))
    other.teach("running tests: use tox", pinned=False)
    global_lesson = shared.teach("running tests: set PYTHONHASHSEED=0", pinned=False)
    assert [lesson.id for lesson in mine.recall("running tests")] == [global_lesson.id]
    for engine in (mine, other, shared):
        engine.close()


def test_prefetched_recall_is_used_once_for_the_same_draft(engine: LearningEngine) -> None:
    _add(engine, "editing the parser", "regenerate the grammar tables after")
    engine.prefetch("  editing the parser  ")
    first = engine.playbook("editing the parser")
    second = engine.playbook("editing the parser")
    assert first.prefetched is True and first.lessons
    assert second.prefetched is False and second.lessons == first.lessons


def test_a_write_after_prefetch_discards_the_stale_result(engine: LearningEngine) -> None:
    engine.prefetch("editing the parser")
    engine.teach("editing the parser: keep the AST nodes frozen", pinned=False)
    playbook = engine.playbook("editing the parser")
    assert playbook.prefetched is False
    assert "AST nodes frozen" in playbook.text


def test_recall_off_returns_nothing(engine: LearningEngine) -> None:
    engine.teach("anything: always recalled when on")
    engine.configure(attrs.evolve(engine.settings, enabled=False))
    assert engine.recall("anything") == []
    assert engine.playbook("anything").text == ""


def test_a_new_half_life_reorders_nothing_but_changes_confidence(engine: LearningEngine) -> None:
    now = time.time()
    lesson = _add(
        engine, "caching", "clear the cache dir", confidence=0.8, created_at=now - 45 * DAY
    )
    engine.warm()
    assert [found.id for found in engine.recall("caching")] == [lesson.id]
    engine.configure(attrs.evolve(engine.settings, half_life_days=1.0))
    assert engine.recall("caching") == []  # decayed below min confidence


def test_a_lesson_for_the_task_asked_outranks_one_that_only_mentions_its_words(
    engine: LearningEngine,
) -> None:
    wanted = _add(engine, "running the billing tests", "use make check-billing")
    # Newer, and holding every word of the request, but "run" in its guidance only.
    other = _add(engine, "linting the billing tests", "run yarn lint first")
    _add(engine, "writing release notes", "keep them under ten lines")
    found = [lesson.id for lesson in engine.recall("running the billing tests")]
    assert found == [wanted.id, other.id]
    assert [lesson.id for lesson in engine.recall("yarn lint")] == [other.id]


def test_pinned_lessons_for_the_task_asked_come_before_those_that_only_mention_it(
    engine: LearningEngine,
) -> None:
    wanted = engine.teach("running the billing tests: use make check-billing")
    other = engine.teach("linting the billing tests: run yarn lint first")
    found = [lesson.id for lesson in engine.recall("running the billing tests")]
    assert found == [wanted.id, other.id]


def test_a_lesson_without_a_real_trigger_is_recalled_by_its_own_words_at_full_weight(
    engine: LearningEngine,
) -> None:
    # "generally" is what teach() puts before a lesson given without "trigger:".
    plain = _add(engine, "generally", "use httpx for http calls")
    # Newer, and "http calls" is its trigger: it would win if the plain lesson's
    # words counted as guidance only.
    _add(engine, "making http calls", "use the retrying client")
    first, *_ = engine.recall("httpx http calls")
    assert first.id == plain.id


def test_a_brain_from_before_trigger_weighting_weighs_its_lessons_triggers(
    tmp_path: Path,
) -> None:
    path = tmp_path / "brain.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.create_function("comodor_terms", 1, lambda text: " ".join(terms(text)))
    version = next(n for n, step in enumerate(MIGRATIONS) if "trigger_terms" in step)
    for index in range(version):
        for statement in split_sql(MIGRATIONS[index]):
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {version}")
    now = time.time()
    for trigger, guidance in (
        ("running the billing tests", "use make check-billing"),
        ("linting the billing tests", "run yarn lint first"),
    ):
        conn.execute(
            "INSERT INTO lessons (kind, scope, trigger, guidance, terms, confidence,"
            " created_at, updated_at) VALUES ('heuristic', 'project:p', ?, ?, ?, 0.8, ?, ?)",
            (trigger, guidance, " ".join(terms(f"{trigger}: {guidance}")), now, now),
        )
    conn.close()
    engine = LearningEngine.open(path, "project:p")
    try:
        found = engine.recall("running the billing tests")
        assert [lesson.trigger for lesson in found] == [
            "running the billing tests",
            "linting the billing tests",
        ]
    finally:
        engine.close()
