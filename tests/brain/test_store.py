"""The brain file: durability, migrations, concurrency, damage and failure handling."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.errors import BrainError, BrainUnavailable
from comodor_lsp.brain.models import Lesson
from comodor_lsp.brain.store import BrainStore
from comodor_lsp.brain.store.sqlite_schema import COMPATIBLE_FROM, SCHEMA_VERSION


def test_new_brain_uses_wal_foreign_keys_and_current_schema(brain_path: Path) -> None:
    store = BrainStore(brain_path)
    conn = sqlite3.connect(brain_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert store._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert store._conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    store.close()


def _as_if_written_by_a_newer_comodor(brain_path: Path, compatible_from: str | None) -> None:
    """What a later release leaves: a higher schema, and what it says of older ones."""
    conn = sqlite3.connect(brain_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    if compatible_from is None:
        conn.execute("DELETE FROM meta WHERE key = 'compatible_from'")
    else:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'compatible_from'", (compatible_from,))
    conn.commit()
    conn.close()


def test_migrating_records_the_oldest_schema_that_can_still_use_the_brain(
    brain_path: Path,
) -> None:
    BrainStore(brain_path).close()
    conn = sqlite3.connect(brain_path)
    recorded = conn.execute("SELECT value FROM meta WHERE key = 'compatible_from'").fetchone()
    conn.close()
    assert recorded == (str(COMPATIBLE_FROM),)
    assert COMPATIBLE_FROM <= SCHEMA_VERSION


@pytest.mark.parametrize("compatible_from", [str(SCHEMA_VERSION + 5), None, "not a number"])
def test_brain_written_by_a_newer_incompatible_comodor_is_refused_and_left_untouched(
    brain_path: Path, compatible_from: str | None
) -> None:
    BrainStore(brain_path).close()
    _as_if_written_by_a_newer_comodor(brain_path, compatible_from)
    before = brain_path.read_bytes()
    with pytest.raises(BrainError, match="newer Comodor"):
        BrainStore(brain_path)
    assert brain_path.read_bytes() == before


def test_a_brain_written_by_a_newer_compatible_comodor_keeps_working(brain_path: Path) -> None:
    engine = LearningEngine.open(brain_path, "project:a")
    engine.teach("deploying: run make release", pinned=False)
    engine.close()
    _as_if_written_by_a_newer_comodor(brain_path, str(SCHEMA_VERSION))
    again = LearningEngine.open(brain_path, "project:a")
    try:
        again.teach("linting: run make lint", pinned=False)
        assert [lesson.guidance for lesson in again.recall("deploying the app")] == [
            "run make release"
        ]
    finally:
        again.close()
    conn = sqlite3.connect(brain_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 5
    conn.close()


def test_reopening_a_brain_keeps_everything(brain_path: Path) -> None:
    engine = LearningEngine.open(brain_path, "project:a")
    lesson = engine.teach("deploying: run make release")
    engine.close()
    again = LearningEngine.open(brain_path, "project:a")
    assert [found.id for found in again.search("")] == [lesson.id]
    again.close()


def test_credit_updates_do_not_rewrite_the_full_text_index(brain_path: Path) -> None:
    store = BrainStore(brain_path)
    lesson = store.add_lesson(Lesson("fact", "g", "tests", "use pytest"), "test pytest")
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    store.credit([lesson.id], won=True)
    store.mark_used([lesson.id])
    assert statements and not any("lessons_fts" in sql for sql in statements)
    statements.clear()
    store.update_lesson_text(lesson.id, "tests", "use pytest -x", "test pytest")
    assert any("lessons_fts" in sql for sql in statements)
    store._conn.set_trace_callback(None)
    store.close()


def test_corrupt_brain_is_moved_aside_never_deleted_and_a_fresh_one_starts(
    brain_path: Path,
) -> None:
    brain_path.parent.mkdir(parents=True)
    garbage = b"this is not a database, it is a user's precious file\n" * 100
    brain_path.write_bytes(garbage)
    engine = LearningEngine.open(brain_path, "project:a")
    assert engine.notices and "moved to" in engine.notices[0]
    moved = [p for p in brain_path.parent.iterdir() if ".corrupt-" in p.name]
    assert len(moved) == 1 and moved[0].read_bytes() == garbage
    engine.teach("it still works")
    assert len(engine.search("")) == 1
    engine.close()


def test_brain_with_damaged_pages_is_moved_aside(brain_path: Path) -> None:
    engine = LearningEngine.open(brain_path, "project:a")
    for number in range(200):
        engine.teach(f"topic {number}: guidance number {number} " + "x" * 200)
    engine.close()
    data = bytearray(brain_path.read_bytes())
    # Keep the header valid but scramble the schema page and beyond.
    for offset in range(100, min(len(data), 8192)):
        data[offset] = (data[offset] * 7 + 13) % 256
    brain_path.write_bytes(bytes(data))
    for companion in brain_path.parent.glob("brain.db-*"):
        companion.unlink()
    reopened = LearningEngine.open(brain_path, "project:a")
    assert reopened.notices, "the user must be told"
    assert any(".corrupt-" in p.name for p in brain_path.parent.iterdir())
    reopened.teach("fresh start")
    reopened.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_brain_folder_gives_a_clear_error_and_changes_nothing(brain_path: Path) -> None:
    engine = LearningEngine.open(brain_path, "project:a")
    engine.teach("before: the folder became read-only")
    engine.close()
    brain_path.parent.chmod(stat.S_IRUSR | stat.S_IXUSR)
    brain_path.chmod(stat.S_IRUSR)
    try:
        engine = LearningEngine.open(brain_path, "project:a")
        with pytest.raises(BrainUnavailable, match="read-only"):
            engine.teach("this cannot be stored")
        assert len(engine.search("")) == 1
        engine.close()
    finally:
        brain_path.parent.chmod(stat.S_IRWXU)
        brain_path.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_read_only_brain_file_gives_a_clear_error_even_as_root(brain_path: Path) -> None:
    """Root ignores permission bits, so use SQLite's own read-only mode to simulate it."""
    engine = LearningEngine.open(brain_path, "project:a")
    engine.teach("kept: nothing is lost")
    engine.close()
    store = BrainStore(brain_path)
    store._conn.execute("PRAGMA query_only = ON")
    with pytest.raises(BrainUnavailable, match="cannot write the brain"):
        store.add_lesson(Lesson("fact", "project:a", "x", "y"), "x y")
    assert store.count_lessons(["project:a"]) == 1
    store.close()


def _writer(path: str, lesson_id: int, worker: int, count: int) -> None:
    engine = LearningEngine.open(path, "project:shared")
    for number in range(count):
        engine.store.add_lesson(
            Lesson("fact", "project:shared", f"worker {worker}", f"write {number}"),
            f"worker {number}",
        )
        engine.store.credit([lesson_id], won=True)
    engine.close()


@pytest.mark.slow
def test_four_processes_writing_at_once_lose_nothing(brain_path: Path) -> None:
    engine = LearningEngine.open(brain_path, "project:shared")
    shared = engine.teach("shared: every process credits me")
    engine.close()
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_writer, args=(str(brain_path), shared.id, worker, 250))
        for worker in range(4)
    ]
    for process in workers:
        process.start()
    for process in workers:
        process.join(120)
        assert process.exitcode == 0
    store = BrainStore(brain_path)
    assert store.count_lessons(["project:shared"]) == 1 + 1000
    lesson = store.get_lesson(shared.id)
    assert lesson is not None and lesson.wins == 1000
    assert store.integrity_check() == "ok"
    store.close()


def test_another_process_writes_are_seen_by_recall(brain_path: Path) -> None:
    first = LearningEngine.open(brain_path, "project:a")
    second = LearningEngine.open(brain_path, "project:a")
    first.warm()
    assert first.recall("database migrations") == []
    taught = second.teach("database migrations: run alembic upgrade head first", pinned=False)
    assert [lesson.id for lesson in first.recall("database migrations")] == [taught.id]
    second.forget(taught.id)
    assert first.recall("database migrations") == []
    first.close()
    second.close()
