"""Ids are never reused (protocol v1.2, "Command line").

A forgotten lesson's or rule's id is never given to another, so a stale
``forget 3`` (a second window, an agent's cached list, a script) can only miss,
never delete what was taught after it. SQLite without ``AUTOINCREMENT`` hands out
``max(id) + 1``, so the id at risk is the newest one: every test forgets that.
The engine tests run on both backends (``tests/brain/conftest.py``); the
migration test builds a brain as the release before wrote it.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.recall.text import terms, trigger_prefix
from comodor_lsp.brain.store import BrainStore
from comodor_lsp.brain.store.database import split_sql
from comodor_lsp.brain.store.sqlite_schema import MIGRATIONS, SCHEMA_VERSION


def test_a_forgotten_lessons_id_is_never_given_to_the_next_lesson(engine: LearningEngine) -> None:
    taught = [
        engine.teach("When running the tests: use pytest -q"),
        engine.teach("When formatting: run ruff format"),
        engine.teach("When committing: write the why in the message"),
    ]
    newest = taught[-1].id
    assert engine.forget(newest)
    again = engine.teach("When releasing: tag the commit first")
    assert again.id != newest and again.id > max(lesson.id for lesson in taught)
    assert not engine.forget(newest), "a stale forget of the old id must miss"
    assert {lesson.id for lesson in engine.search()} == {taught[0].id, taught[1].id, again.id}


def test_a_forgotten_rules_id_is_never_given_to_the_next_rule(engine: LearningEngine) -> None:
    first = engine.teach_rule("Use single quotes for strings.")
    newest = engine.teach_rule("Never commit directly to main.")
    assert engine.forget_rule(newest.id)
    again = engine.teach_rule("Keep lines under 100 characters.")
    assert again.id != newest.id and again.id > max(first.id, newest.id)
    assert not engine.forget_rule(newest.id)
    assert {rule.id for rule in engine.all_rules()} == {first.id, again.id}


def test_ids_are_not_reused_after_the_brain_is_closed_and_reopened(brain_path: Path) -> None:
    engine = LearningEngine.open(brain_path, "project:p")
    try:
        kept = engine.teach("When deploying: run the migrations first")
        gone = engine.teach("When testing: use pytest -q")
        assert engine.forget(gone.id)
    finally:
        engine.close()
    engine = LearningEngine.open(brain_path, "project:p")
    try:
        assert engine.teach("When reviewing: read the tests first").id > gone.id > kept.id
    finally:
        engine.close()


def _brain_as_the_release_before_wrote_it(path: Path) -> sqlite3.Connection:
    """Schema 8 with rows: two lessons (one forgotten after), rules with votes, feedback."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.create_function("comodor_terms", 1, lambda text: " ".join(terms(str(text or ""))))
    conn.create_function(
        "comodor_trigger_prefix", 2, lambda t, s: trigger_prefix(str(t), str(s).split())
    )
    for index in range(8):
        for statement in split_sql(MIGRATIONS[index]):
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 8")
    conn.execute("PRAGMA foreign_keys = ON")  # as the release before always ran
    now = time.time()
    for trigger, guidance, wins in (
        ("running the tests", "use pytest -q", 4),
        ("deploying", "run the migrations first", 2),
        ("formatting", "run ruff format", 0),
    ):
        text = f"{trigger}: {guidance}"
        conn.execute(
            "INSERT INTO lessons (kind, scope, trigger, guidance, terms, trigger_terms,"
            " confidence, pinned, uses, wins, losses, created_at, updated_at)"
            " VALUES ('preference', 'project:p', ?, ?, ?, ?, 0.8, 1, ?, ?, 1, ?, ?)",
            (
                trigger,
                guidance,
                " ".join(terms(text)),
                trigger_prefix(trigger, terms(text)),
                wins + 1,
                wins,
                now,
                now,
            ),
        )
    conn.execute("DELETE FROM lessons WHERE id = 3")  # forgotten by the release before
    conn.execute("INSERT INTO feedback (target, target_id, value, created_at) VALUES"
                 " ('lesson', 1, 1.0, ?)", (now,))  # fmt: skip
    for key, values in (("quotes.style", ("single", "single", "double")), ("indent", ("4",))):
        conn.execute(
            "INSERT INTO rules (key, scope, category, created_at, updated_at)"
            " VALUES (?, 'project:p', 'style', ?, ?)",
            (key, now, now),
        )
        rule_id = conn.execute("SELECT max(id) FROM rules").fetchone()[0]
        for number, value in enumerate(values):
            conn.execute(
                "INSERT INTO rule_votes (rule_id, value, statement, kind, weight, origin,"
                " created_at, voter) VALUES (?, ?, ?, 'correction', 1.0, ?, ?, 'ana')",
                (rule_id, value, f"{key} = {value}", f"save:{number}", now),
            )
    return conn


def _dump(conn: sqlite3.Connection, table: str) -> list[tuple[object, ...]]:
    return conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()


def test_upgrading_to_ids_never_reused_keeps_every_rule_vote_lesson_and_its_evidence(
    brain_path: Path,
) -> None:
    """Migration 9 rebuilds ``lessons`` and ``rules``; dropping ``rules`` with foreign
    keys on would cascade into ``rule_votes`` and lose every correction counted."""
    conn = _brain_as_the_release_before_wrote_it(brain_path)
    before = {
        table: _dump(conn, table)
        for table in ("lessons", "rules", "rule_votes", "feedback", "lesson_log")
    }
    conn.close()
    assert len(before["rule_votes"]) == 4 and len(before["lessons"]) == 2

    engine = LearningEngine.open(brain_path, "project:p")
    try:
        assert sorted(lesson.id for lesson in engine.search()) == [1, 2]
        assert [lesson.id for lesson in engine.recall("running the tests")][:1] == [1]
        quotes = {rule.key: rule for rule in engine.all_rules()}["quotes.style"]
        assert (quotes.value, quotes.support, quotes.against) == ("single", 2.0, 1.0)
        after_teach = engine.teach("When reviewing: read the tests first")
        assert after_teach.id == 4, "3 was forgotten before the upgrade: not given again"
        rule = engine.teach_rule("Never commit directly to main.")
        assert rule.id == 3
    finally:
        engine.close()

    conn = sqlite3.connect(brain_path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert _dump(conn, "rule_votes")[:4] == before["rule_votes"]
        assert _dump(conn, "feedback") == before["feedback"]
        assert _dump(conn, "lessons")[:2] == before["lessons"]
        assert _dump(conn, "rules")[:2] == before["rules"]
        assert _dump(conn, "lesson_log")[: len(before["lesson_log"])] == before["lesson_log"]
        tables = {row[0]: row[1] for row in conn.execute("SELECT name, sql FROM sqlite_master")}
        assert "AUTOINCREMENT" in tables["lessons"] and "AUTOINCREMENT" in tables["rules"]
        assert {"lessons_fts_insert", "lesson_log_delete", "lessons_by_scope"} <= set(tables)
        assert not {"lessons_v10", "rules_v10"} & set(tables)
    finally:
        conn.close()


def test_the_upgraded_brain_still_cascades_a_forgotten_rules_votes(brain_path: Path) -> None:
    """Foreign keys are back on after the migrations: forgetting a rule drops its votes."""
    _brain_as_the_release_before_wrote_it(brain_path).close()
    store = BrainStore(brain_path)
    try:
        assert store.delete_rule(1)
    finally:
        store.close()
    conn = sqlite3.connect(brain_path)
    try:
        assert conn.execute("SELECT DISTINCT rule_id FROM rule_votes").fetchall() == [(2,)]
    finally:
        conn.close()


def test_a_brain_with_votes_already_pointing_at_nothing_still_upgrades(brain_path: Path) -> None:
    """An orphan vote from before (a salvaged file) is kept, and does not block the upgrade."""
    conn = _brain_as_the_release_before_wrote_it(brain_path)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("DELETE FROM rules WHERE id = 2")  # its vote stays behind
    conn.close()
    engine = LearningEngine.open(brain_path, "project:p")
    try:
        assert [rule.key for rule in engine.all_rules()] == ["quotes.style"]
    finally:
        engine.close()
    conn = sqlite3.connect(brain_path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("SELECT count(*) FROM rule_votes").fetchone()[0] == 4
    finally:
        conn.close()
