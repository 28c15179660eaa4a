"""A brain file says it is Comodor's; another program's SQLite file is never touched.

PyPI's other ``comodor`` (a coding agent) keeps a ``brain.db`` of its own at
``$COMODOR_HOME/brain.db`` or ``$XDG_DATA_HOME/comodor/brain.db``. These tests
build such files the way that program lays them out (its tables, no
application id) and check that opening one changes not a byte of it.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.store import BrainStore
from comodor_lsp.brain.store.database import split_sql
from comodor_lsp.brain.store.file_identity import ForeignBrain
from comodor_lsp.brain.store.sqlite_schema import APPLICATION_ID, MIGRATIONS
from comodor_lsp.paths import project_key

AGENT_SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE lessons (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT, scope TEXT,
                      trigger_text TEXT, guidance TEXT, confidence REAL);
CREATE TABLE skills (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, steps TEXT);
CREATE TABLE facts (id INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT, body TEXT);
INSERT INTO meta (key, value) VALUES ('schema', '3');
INSERT INTO lessons (kind, scope, trigger_text, guidance, confidence)
    VALUES ('preference', 'global', 'commits', 'write short subjects', 0.8);
"""


def _agent_brain(path: Path) -> None:
    """A brain.db laid out like the other comodor's (its own tables, no application id)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(AGENT_SCHEMA)
    conn.close()


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_a_new_brain_is_stamped_as_comodors(brain_path: Path) -> None:
    BrainStore(brain_path).close()
    conn = sqlite3.connect(brain_path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()
    assert brain_path.read_bytes()[68:72] == b"CmdL"


def test_a_brain_from_before_the_stamp_keeps_what_it_knew_and_is_stamped(
    brain_path: Path,
) -> None:
    stamp = next(n for n, step in enumerate(MIGRATIONS) if "application_id" in step)
    brain_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(brain_path, isolation_level=None)  # as the previous release left it
    for index in range(stamp):
        for statement in split_sql(MIGRATIONS[index]):
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {stamp}")
    conn.execute(
        "INSERT INTO lessons (kind, scope, trigger, guidance, terms, confidence, created_at,"
        " updated_at) VALUES ('fact', 'project:a', 'deploying', 'run make release',"
        " 'deploy run make release', 0.8, ?, ?)",
        (time.time(), time.time()),
    )
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0
    conn.close()

    again = LearningEngine.open(brain_path, "project:a")
    [lesson] = again.search("")
    assert (lesson.trigger, lesson.guidance) == ("deploying", "run make release")
    assert [found.id for found in again.recall("deploying")] == [lesson.id]
    assert again.store._conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    again.close()


@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("the comodor agent's brain", "brain of PyPI's `comodor` coding agent"),
        ("another app's stamped file", "application_id is 0x0f055112"),
        ("an unrelated database", "other tables (notes)"),
    ],
)
def test_another_programs_database_is_refused_and_not_a_byte_changes(
    brain_path: Path, kind: str, why: str
) -> None:
    if kind == "the comodor agent's brain":
        _agent_brain(brain_path)
    else:
        brain_path.parent.mkdir(parents=True)
        conn = sqlite3.connect(brain_path)
        if kind == "another app's stamped file":
            conn.execute(f"PRAGMA application_id = {0x0F055112}")  # Fossil's
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.execute("INSERT INTO notes VALUES ('mine')")
        conn.commit()
        conn.close()
    before = _snapshot(brain_path.parent)

    with pytest.raises(ForeignBrain) as refused:
        BrainStore(brain_path)

    message = str(refused.value)
    assert str(brain_path) in message and why in message
    assert "brainPath" in message and "nothing migrated, moved or written" in message
    assert _snapshot(brain_path.parent) == before  # no journal, no -wal, no .corrupt- copy


def test_an_editor_on_another_programs_brain_runs_on_a_temporary_one_and_says_why(
    tmp_path: Path, workspace: Path
) -> None:
    from comodor_lsp.app import ComodorApp
    from comodor_lsp.settings import Settings

    theirs = tmp_path / "agent-home" / "brain.db"
    _agent_brain(theirs)
    before = _snapshot(theirs.parent)
    app = ComodorApp(workspace, Settings(brain_path=str(theirs)))
    try:
        assert any(
            str(theirs) in notice and "temporary brain" in notice and "brainPath" in notice
            for notice in app.notices
        ), app.notices
        app.execute("comodor.teach", {"text": "kept only for this session"})
    finally:
        app.close()
    assert _snapshot(theirs.parent) == before


def test_the_default_brain_moves_to_its_own_folder_and_the_old_one_is_kept(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comodor_lsp.app import ComodorApp

    monkeypatch.delenv("COMODOR_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    old = tmp_path / "data" / "comodor" / "brain.db"  # where the previous release kept it
    earlier = LearningEngine.open(old, f"project:{project_key(workspace)}")
    earlier.teach("releases: tag them vX.Y.Z")
    earlier.close()
    blob = old.parent / "blobs" / "ab" / "abcdef"
    blob.parent.mkdir(parents=True)
    blob.write_text("a checkpoint's text")
    kept = old.read_bytes()

    app = ComodorApp(workspace, temporary_fallback=False)
    try:
        new = tmp_path / "data" / "comodor-lsp" / "brain.db"
        assert app.brain_path == new
        assert any(str(old) in n and str(new) in n for n in app.notices), app.notices
        lessons = app.execute("comodor.lessons", {})["lessons"]
        assert [lesson["guidance"] for lesson in lessons] == ["tag them vX.Y.Z"]
        assert (new.parent / "blobs" / "ab" / "abcdef").read_text() == "a checkpoint's text"
    finally:
        app.close()
    assert old.read_bytes() == kept

    again = ComodorApp(workspace, temporary_fallback=False)  # once: no second copy, no notice
    try:
        assert again.notices == []
    finally:
        again.close()


def test_the_agents_brain_at_the_old_default_is_neither_copied_nor_touched(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comodor_lsp.app import ComodorApp

    monkeypatch.delenv("COMODOR_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    theirs = tmp_path / "data" / "comodor" / "brain.db"
    _agent_brain(theirs)
    before = _snapshot(theirs.parent)

    app = ComodorApp(workspace, temporary_fallback=False)
    try:
        assert app.brain_path == tmp_path / "data" / "comodor-lsp" / "brain.db"
        assert app.notices == []
        assert app.execute("comodor.lessons", {})["lessons"] == []
    finally:
        app.close()
    assert _snapshot(theirs.parent) == before
