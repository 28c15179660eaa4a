"""The managed block in instruction files: byte-exact around it, atomic, confined, idempotent."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from comodor_lsp import cli
from comodor_lsp.app import ComodorApp
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.paths import writable_folder
from comodor_lsp.sync import (
    BEGIN,
    END,
    KNOWN_TARGETS,
    MDC_FRONT_MATTER,
    LiveSync,
    plan_targets,
    sync_file,
    sync_rules,
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder.resolve()


def sync(engine: LearningEngine, workspace: Path, *targets: str, create: bool = True) -> list[str]:
    rules = engine.confident_rules()
    return [r.action for r in sync_rules(workspace, rules, [(t, create) for t in targets])]


def block_of(data: bytes) -> bytes:
    start = data.index(BEGIN.encode())
    return data[start : data.index(END.encode(), start) + len(END)]


@pytest.mark.parametrize("target", KNOWN_TARGETS)
def test_each_format_keeps_the_users_text_byte_for_byte(
    engine: LearningEngine, workspace: Path, target: str
) -> None:
    engine.teach_rule("Use tabs for indentation")
    path = workspace / target
    path.parent.mkdir(parents=True, exist_ok=True)
    before = "# Project notes\n\nRun `make test` before pushing. Ünïcödé ✓\n".encode()
    path.write_bytes(before)
    assert sync(engine, workspace, target) == ["updated"]
    first = path.read_bytes()
    assert first.startswith(before + b"\n" + BEGIN.encode())
    assert b"Use tabs for indentation (taught by you)" in first
    assert b"edits inside this block will be overwritten" in first

    # the user adds text after the block; a new rule changes only the block
    after = b"\n## More of mine\n\xe2\x9c\x93 trailing, no newline"
    path.write_bytes(first + after)
    engine.teach_rule("Never commit to main")
    assert sync(engine, workspace, target) == ["updated"]
    second = path.read_bytes()
    prefix = first[: first.index(BEGIN.encode())]
    assert second.startswith(prefix) and second.endswith(
        first[first.index(END.encode()) + len(END) :] + after
    )
    assert b"Never commit to main" in block_of(second)


def test_a_crlf_file_without_final_newline_stays_crlf_and_unterminated(
    engine: LearningEngine, workspace: Path
) -> None:
    engine.teach_rule("Prefer pathlib over os.path")
    path = workspace / "CLAUDE.md"
    original = "# Notes\r\n\r\nCafé ☕ — keep me\r\nlast line".encode()
    path.write_bytes(original)
    assert sync(engine, workspace, "CLAUDE.md") == ["updated"]
    data = path.read_bytes()
    assert data.startswith(original + b"\r\n\r\n" + BEGIN.encode())
    assert b"\n" not in data.replace(b"\r\n", b"")  # every line ending is CRLF
    # now a block sits in the middle of a CRLF file whose last line has no newline
    tail = "\r\nmine after the block — ✓".encode()
    path.write_bytes(data.rstrip(b"\r\n") + tail)
    engine.teach_rule("Write docstrings that say why")
    assert sync(engine, workspace, "CLAUDE.md") == ["updated"]
    again = path.read_bytes()
    assert again.startswith(original + b"\r\n\r\n" + BEGIN.encode())
    assert again.endswith(END.encode() + tail)
    assert b"Write docstrings that say why" in again
    assert b"\n" not in again.replace(b"\r\n", b"")


def test_a_second_sync_writes_nothing(engine: LearningEngine, workspace: Path) -> None:
    engine.teach_rule("Use tabs for indentation")
    assert sync(engine, workspace, "AGENTS.md") == ["created"]
    path = workspace / "AGENTS.md"
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # an mtime any write would move
    inode = path.stat().st_ino
    assert sync(engine, workspace, "AGENTS.md") == ["unchanged"]
    assert path.stat().st_mtime_ns == 1_000_000_000 and path.stat().st_ino == inode
    assert not [p for p in workspace.iterdir() if p.name.endswith(".comodor-tmp")]


def test_a_forgotten_rule_leaves_the_block(engine: LearningEngine, workspace: Path) -> None:
    keep = engine.teach_rule("Use tabs for indentation")
    gone = engine.teach_rule("Always squash merge")
    sync(engine, workspace, "AGENTS.md")
    assert b"Always squash merge" in (workspace / "AGENTS.md").read_bytes()
    assert engine.forget_rule(gone.id)
    assert engine.set_rule(keep.id, active=True)
    assert sync(engine, workspace, "AGENTS.md") == ["updated"]
    data = (workspace / "AGENTS.md").read_bytes()
    assert b"Always squash merge" not in data and b"Use tabs for indentation" in data
    engine.set_rule(keep.id, active=False)  # a disabled rule leaves too
    sync(engine, workspace, "AGENTS.md")
    assert b"Use tabs" not in (workspace / "AGENTS.md").read_bytes()
    assert b"No confident house rules yet" in (workspace / "AGENTS.md").read_bytes()


def test_targets_outside_the_workspace_are_refused(
    engine: LearningEngine, workspace: Path, tmp_path: Path
) -> None:
    engine.teach_rule("Use tabs for indentation")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.md").write_text("precious\n")
    (workspace / "link.md").symlink_to(outside / "victim.md")
    (workspace / "dangling.md").symlink_to(outside / "new.md")
    (workspace / "docs").symlink_to(outside, target_is_directory=True)
    targets = ["../x.md", str(outside / "abs.md"), "link.md", "dangling.md", "docs/AGENTS.md"]
    reports = sync_rules(workspace, engine.confident_rules(), [(t, True) for t in targets])
    assert [r.action for r in reports] == ["refused"] * 5
    assert all("outside the workspace" in r.error for r in reports)
    assert (outside / "victim.md").read_text() == "precious\n"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.md"]
    assert not (tmp_path / "x.md").exists()


def test_a_symlink_inside_the_workspace_is_followed_not_replaced(
    engine: LearningEngine, workspace: Path
) -> None:
    engine.teach_rule("Use tabs for indentation")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "agents.md").write_text("mine\n")
    (workspace / "AGENTS.md").symlink_to("docs/agents.md")
    assert sync(engine, workspace, "AGENTS.md") == ["updated"]
    assert (workspace / "AGENTS.md").is_symlink()
    assert (workspace / "docs" / "agents.md").read_text().startswith("mine\n\n" + BEGIN)


def test_a_user_edit_during_sync_is_kept(engine: LearningEngine, workspace: Path) -> None:
    engine.teach_rule("Use tabs for indentation")
    path = workspace / "AGENTS.md"
    path.write_text("# Agents\n")
    edits = []

    def user_saves(target: Path) -> None:
        if not edits:  # the user saves between our read and our replace, once
            edits.append(target)
            target.write_text(target.read_text() + "A line the user typed meanwhile.\n")

    action = sync_file(
        path,
        engine.confident_rules(),
        create=False,
        allowed=writable_folder(workspace),
        before_replace=user_saves,
    )
    assert action == "updated" and edits
    text = path.read_text()
    assert text.startswith("# Agents\nA line the user typed meanwhile.\n\n" + BEGIN)
    assert "Use tabs for indentation" in text


def test_files_are_created_only_when_asked(engine: LearningEngine, workspace: Path) -> None:
    engine.teach_rule("Use tabs for indentation")
    (workspace / "CLAUDE.md").write_text("mine, no block\n")
    (workspace / ".clinerules").mkdir()
    (workspace / ".clinerules" / "comodor.md").write_text(f"x\n{BEGIN}\nold\n{END}\n")
    plan = plan_targets(workspace, [], [])
    assert plan == [("AGENTS.md", True), (".clinerules/comodor.md", False)]
    assert sync(engine, workspace, "CLAUDE.md", create=False) == ["updated"]  # exists: fine
    assert sync(engine, workspace, ".github/copilot-instructions.md", create=False) == ["skipped"]
    assert not (workspace / ".github").exists()
    assert plan_targets(workspace, ["CLAUDE.md"], ["AGENTS.md"])[0] == ("CLAUDE.md", True)
    assert plan_targets(workspace, [], ["docs/AI.md"])[0] == ("docs/AI.md", True)


def test_a_cursor_rule_file_gets_front_matter(engine: LearningEngine, workspace: Path) -> None:
    engine.teach_rule("Use tabs for indentation")
    assert sync(engine, workspace, ".cursor/rules/comodor.mdc") == ["created"]
    text = (workspace / ".cursor/rules/comodor.mdc").read_text()
    assert text.startswith("\n".join(MDC_FRONT_MATTER) + "\n" + BEGIN)
    assert "alwaysApply: true" in text and "description:" in text and "globs:" in text


def test_a_begin_marker_without_end_is_not_guessed_at(
    engine: LearningEngine, workspace: Path
) -> None:
    engine.teach_rule("Use tabs for indentation")
    original = f"mine\n{BEGIN}\nwho knows where this ends\nmore of mine\n".encode()
    (workspace / "AGENTS.md").write_bytes(original)
    reports = sync_rules(workspace, engine.confident_rules(), [("AGENTS.md", True)])
    assert reports[0].action == "failed" and END in reports[0].error
    assert (workspace / "AGENTS.md").read_bytes() == original


def test_a_rule_cannot_fake_the_end_marker(engine: LearningEngine, workspace: Path) -> None:
    engine.teach_rule(f"Say {END} then stop")
    sync(engine, workspace, "AGENTS.md")
    data = (workspace / "AGENTS.md").read_text()
    assert data.count(END) == 1 and data.count(BEGIN) == 1


def test_the_cli_syncs_the_shared_brain_and_refuses_escapes(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = ComodorApp(workspace)
    try:
        app.execute("comodor.teachRule", {"statement": "Use tabs for indentation"})
    finally:
        app.close()
    assert cli.main(["sync", "--workspace", str(workspace)]) == 0
    assert "Use tabs for indentation" in (workspace / "AGENTS.md").read_text()
    assert "created" in capsys.readouterr().out
    assert cli.main(["sync", "--workspace", str(workspace), "--target", "CLAUDE.md"]) == 0
    assert "Use tabs" in (workspace / "CLAUDE.md").read_text()
    assert "AGENTS.md" not in capsys.readouterr().out  # --target names the one file synced
    assert cli.main(["sync", "--workspace", str(workspace)]) == 0  # AGENTS.md + CLAUDE.md
    out = capsys.readouterr().out
    assert out.count("unchanged") == 2
    assert cli.main(["sync", "--workspace", str(workspace), "--target", "../x.md"]) == 1
    assert "outside the workspace" in capsys.readouterr().err
    assert not (workspace.parent / "x.md").exists()


def test_an_editor_that_shuts_down_while_live_sync_starts_closes_cleanly(workspace: Path) -> None:
    app = ComodorApp(workspace)
    try:
        late = LiveSync(app)
        late.stop(0.1)  # shutdown came before the thread starting sync got this far
        late.start()  # the start that follows does nothing
        assert late.runs == 0 and not _sync_threads()
        running = LiveSync(app)
        running.start()
        running.stop(0.5)
        assert not _sync_threads()
    finally:
        app.close()


def _sync_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "comodor-sync" and t.is_alive()]


def test_a_repository_with_no_confident_rule_gets_no_new_instruction_file(
    engine: LearningEngine, workspace: Path
) -> None:
    assert sync(engine, workspace, "AGENTS.md") == ["skipped"]
    assert not (workspace / "AGENTS.md").exists()


def test_a_named_target_is_the_only_file_synced(engine: LearningEngine, workspace: Path) -> None:
    engine.teach_rule("Use tabs for indentation")
    (workspace / "AGENTS.md").write_text(f"mine\n{BEGIN}\nold\n{END}\n")
    assert plan_targets(workspace, ["CLAUDE.md"], []) == [("CLAUDE.md", True)]
    assert [target for target, _ in plan_targets(workspace, [], [])] == ["AGENTS.md"]
