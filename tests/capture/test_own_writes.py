"""Comodor's record of its own writes: exact content, any process on the same brain."""

from __future__ import annotations

import time
from pathlib import Path

from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.capture.own_writes import OwnWrites


def test_only_the_exact_text_comodor_wrote_at_that_path_is_its_own(
    engine: LearningEngine, workspace: Path
) -> None:
    own = OwnWrites(engine.store)
    target = workspace / "AGENTS.md"
    own.note(target, b"# Rules\n- one\n")
    assert own.wrote(target, "# Rules\n- one\n")
    assert not own.wrote(target, "# Rules\n- one\n- mine\n")  # the user's edit is theirs
    assert not own.wrote(workspace / "CLAUDE.md", "# Rules\n- one\n")


def test_another_process_on_the_same_brain_knows_comodors_writes(
    brain_path: Path, workspace: Path
) -> None:
    """``comodor-lsp sync`` in a terminal writes; the language server's tracker must know."""
    writer = LearningEngine.open(brain_path, "project:test")
    watcher = LearningEngine.open(brain_path, "project:test")
    try:
        OwnWrites(writer.store).note(workspace / "AGENTS.md", b"synced\n")
        assert OwnWrites(watcher.store).wrote(workspace / "AGENTS.md", "synced\n")
    finally:
        writer.close()
        watcher.close()


def test_a_link_to_the_written_file_is_the_same_file(
    engine: LearningEngine, workspace: Path
) -> None:
    own = OwnWrites(engine.store)
    (workspace / "docs").mkdir()
    (workspace / "link").symlink_to(workspace / "docs")
    own.note(workspace / "docs" / "rules.md", b"x\n")
    assert own.wrote(workspace / "link" / "rules.md", "x\n")


def test_memory_stays_bounded_without_a_brain(workspace: Path) -> None:
    own = OwnWrites(limit=3)
    for number in range(10):
        own.note(workspace / f"f{number}.md", f"{number}\n".encode())
    assert own.wrote(workspace / "f9.md", "9\n")
    assert not own.wrote(workspace / "f0.md", "0\n")


def test_a_note_through_the_brain_worker_is_committed_before_the_writer_goes_on(
    brain_path: Path, workspace: Path
) -> None:
    """The terminal's sync notes on its worker; the server must see it the moment the file lands."""
    from comodor_lsp.brain.worker import BrainWorker

    writer = LearningEngine.open(brain_path, "project:test")
    watcher = LearningEngine.open(brain_path, "project:test")
    worker = BrainWorker("test-notes")
    try:
        worker.submit(lambda: time.sleep(0.3))  # a busy lane ahead of the note
        OwnWrites(writer.store, call=worker.call).note(workspace / "AGENTS.md", b"synced\n")
        assert OwnWrites(watcher.store).wrote(workspace / "AGENTS.md", "synced\n")
    finally:
        worker.stop()
        writer.close()
        watcher.close()
