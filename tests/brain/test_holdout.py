"""The memory-off holdout: chosen fairly, withholds everything, and is compared honestly."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import attrs
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Episode
from comodor_lsp.brain.progress.evidence import analyse
from comodor_lsp.brain.progress.holdout import compare_memory, withhold_memory
from comodor_lsp.brain.store import BrainStore
from comodor_lsp.brain.store.sqlite_schema import MIGRATIONS, SCHEMA_VERSION


def test_the_holdout_choice_is_deterministic_and_close_to_the_rate() -> None:
    ids = range(1, 20_001)
    held = [i for i in ids if withhold_memory(i, 0.2)]
    assert 0.19 < len(held) / len(ids) < 0.21
    assert held == [i for i in ids if withhold_memory(i, 0.2)]  # the same ids every time
    assert not any(withhold_memory(i, 0.0) for i in ids)
    assert sum(withhold_memory(i, 0.9) for i in ids) / len(ids) < 0.51  # capped at one half
    # A lower rate holds out a subset of what a higher rate does: raising it keeps history.
    assert set(held) <= {i for i in ids if withhold_memory(i, 0.3)}


def test_a_held_out_task_gets_no_lessons_and_no_rules_and_credits_nothing(
    engine: LearningEngine,
) -> None:
    lesson = engine.teach("migrations: run alembic upgrade head", pinned=False)
    engine.teach_rule("Use single quotes for strings.")
    engine.configure(attrs.evolve(engine.settings, holdout_rate=0.5))
    tasks = [engine.begin_task("write a migration") for _ in range(12)]
    held = [task for task in tasks if task.holdout]
    kept = [task for task in tasks if not task.holdout]
    assert held and kept
    assert [task.holdout for task in tasks] == [withhold_memory(task.id, 0.5) for task in tasks]
    for task in held:
        assert task.playbook.text == "" and not task.playbook.lessons and not task.playbook.rules
    for task in kept:
        assert [found.id for found in task.playbook.lessons] == [lesson.id]
        assert "single quotes" in task.playbook.text
    for task in tasks:
        engine.end_task(task.id, True, steps=3)
    credited = next(found for found in engine.search("") if found.id == lesson.id)
    assert credited.wins == len(kept)
    stored = [engine.store.get_episode(task.id) for task in held]
    assert all(e is not None and e.holdout and e.recalled == [] for e in stored)


def test_progress_compares_tasks_with_and_without_memory() -> None:
    with_memory = [
        Episode(
            "g",
            "s",
            id=i,
            success=True,
            stopped="done",
            steps=4,
            corrections=i % 2,
            started_at=i,
            ended_at=i + 1,
        )
        for i in range(1, 21)
    ]
    without = [
        Episode(
            "g",
            "s",
            id=100 + i,
            success=i % 3 != 0,
            stopped="done",
            steps=4,
            corrections=2 + i % 3,
            started_at=i,
            ended_at=i + 1,
            holdout=True,
        )
        for i in range(10)
    ]
    progress = analyse(sorted(with_memory + without, key=lambda e: e.started_at))
    holdout = progress.holdout
    assert holdout is not None and holdout.enough_data
    assert (holdout.with_memory, holdout.without_memory) == (20, 10)
    corrections = next(c for c in holdout.comparisons if c.key == "corrections")
    assert corrections.contrast.direction == "better" and corrections.contrast.significant
    assert holdout.helps is True
    assert holdout.verdict().startswith("Memory helps: corrections per task 0.5 with memory vs")
    # The trend is drawn from the tasks that had memory only.
    assert progress.trend_tasks == 20 and len(progress.series[0].values) == 20
    # Steps never differ: not tested, so they do not dilute the correction.
    assert "steps" in {c.key for c in holdout.comparisons}
    # Four tests run (trend: corrections, first-try; holdout: corrections, success);
    # one of them could not reach α even at its most extreme outcome, so Holm counts 3.
    assert (progress.run, progress.tests) == (4, 3)


def test_too_few_held_out_tasks_say_so() -> None:
    with_memory = [Episode("g", "s", id=i, success=True, steps=3, stopped="done") for i in range(9)]
    without = [Episode("g", "s", id=9, success=False, steps=3, stopped="done", holdout=True)]
    holdout = compare_memory(with_memory, without)
    assert not holdout.enough_data and holdout.helps is None
    assert holdout.verdict().startswith("Not enough tasks to compare yet: 1 without memory")


def test_a_brain_from_before_the_holdout_is_migrated_keeping_its_tasks(brain_path: Path) -> None:
    brain_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(brain_path)
    conn.executescript(MIGRATIONS[0])
    conn.execute(
        "INSERT INTO episodes (scope, goal, success, stopped, steps, started_at, ended_at)"
        " VALUES ('project:old', 'an old task', 1, 'done', 7, 1.0, 2.0)"
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    store = BrainStore(brain_path)
    try:
        (episode,) = store.episodes("project:old")
        assert (episode.goal, episode.steps, episode.holdout) == ("an old task", 7, False)
    finally:
        store.close()
    conn = sqlite3.connect(brain_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
