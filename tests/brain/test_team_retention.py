"""Team retention (learning.archiveAfterDays): old unrecalled lessons archived, never lost.

Real PostgreSQL: archiving moves rows whole into ``archived_lessons``; every claim
a user would notice is checked — recall, the notice, the status count, the rows in
the database, and restoring with the same id.
"""

from __future__ import annotations

import time
from pathlib import Path

import attrs
import psycopg
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.events import Notice
from comodor_lsp.teamdb.connect import open_team_store
from comodor_lsp.teamdb.status import read_status, render_status

SCOPE = "project:team"
DAY = 86_400.0


def engine_of(home: Path, url: str, user: str, days: int = 0) -> LearningEngine:
    engine = LearningEngine(open_team_store(home / "brain.db", url, voter=user, strict=True), SCOPE)
    engine.configure(attrs.evolve(engine.settings, archive_after_days=days))
    return engine


def recalled(engine: LearningEngine, query: str) -> list[str]:
    return [lesson.guidance for lesson in engine.recall(query)]


def age(url: str, lesson_id: int, days: float) -> None:
    """Make a lesson as old as ``days`` days, never recalled since (in the database)."""
    then = time.time() - days * DAY
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "UPDATE lessons SET created_at = %s, updated_at = %s, last_used = 0 WHERE id = %s",
            (then, then, lesson_id),
        )


def test_retention_is_off_by_default_and_archives_nothing(tmp_path: Path, team_url: str) -> None:
    alice = engine_of(tmp_path / "alice", team_url, "alice")
    old = alice.teach("vendoring: keep the third_party folder pruned", pinned=False)
    age(team_url, old.id, 400)
    alice.warm()
    assert alice.settings.archive_after_days == 0
    assert "keep the third_party folder pruned" in recalled(alice, "vendoring third_party")
    assert read_status(team_url).archived == 0
    alice.close()


def test_lessons_nobody_recalled_are_archived_told_counted_and_restored_with_their_ids(
    tmp_path: Path, team_url: str
) -> None:
    alice = engine_of(tmp_path / "alice", team_url, "alice", days=90)
    told: list[str] = []
    alice.bus.subscribe(
        lambda event: told.append(event.message) if isinstance(event, Notice) else None
    )
    stale = alice.teach("vendoring: keep the third_party folder pruned", pinned=False)
    pinned = alice.teach("licensing: every file carries the SPDX header")
    recent = alice.teach("vendoring libraries: pin each third_party commit", pinned=False)
    bob = engine_of(tmp_path / "bob", team_url, "bob")  # retention off: bob never archives
    bob.warm()
    assert "keep the third_party folder pruned" in recalled(bob, "vendoring third_party")
    for lesson in (stale, pinned):
        age(team_url, lesson.id, 120)

    alice.warm()  # a server start: index ready, then retention
    assert len(told) == 1 and "Archived 1 team lesson" in told[0]
    assert "team restore" in told[0]
    assert "keep the third_party folder pruned" not in recalled(alice, "vendoring third_party")
    assert "pin each third_party commit" in recalled(alice, "vendoring third_party")
    assert pinned.id in {lesson.id for lesson in alice.recall("licensing SPDX header")}
    bob.catch_up()  # another server follows the log: it no longer recalls it either
    assert "keep the third_party folder pruned" not in recalled(bob, "vendoring third_party")

    status = read_status(team_url)
    assert status.archived == 1 and [s.archived for s in status.scopes] == [1]
    assert "archived     1 lesson" in render_status(status)
    with psycopg.connect(team_url) as conn:  # kept whole, never deleted
        assert conn.execute(
            "SELECT guidance FROM archived_lessons WHERE id = %s", (stale.id,)
        ).fetchall() == [("keep the third_party folder pruned",)]
    assert recent.id not in {i for i, _ in alice.store.archived_lessons([SCOPE])}  # type: ignore[attr-defined]

    assert alice.store.restore_archived([stale.id], [SCOPE]) == [stale.id]  # type: ignore[attr-defined]
    alice.lessons.changed()
    bob.catch_up()
    for engine in (alice, bob):  # back in every server's index, whole, with its id
        with engine.lessons.shared.lock:
            assert stale.id in engine.lessons.index.current()
        (back,) = engine.store.get_lessons([stale.id])
        assert back.guidance == "keep the third_party folder pruned"
    assert read_status(team_url).archived == 0
    alice.close()
    bob.close()


def test_a_lesson_recalled_lately_is_kept_however_old(tmp_path: Path, team_url: str) -> None:
    alice = engine_of(tmp_path / "alice", team_url, "alice", days=30)
    lesson = alice.teach("vendoring: keep the third_party folder pruned", pinned=False)
    age(team_url, lesson.id, 365)
    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE lessons SET last_used = %s WHERE id = %s", (time.time() - DAY, lesson.id)
        )
    alice.warm()
    assert "keep the third_party folder pruned" in recalled(alice, "vendoring third_party")
    assert read_status(team_url).archived == 0
    alice.close()
