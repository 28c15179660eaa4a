"""A cloned repository is untrusted: nothing in it may make Comodor write outside it.

Every test plants what an attacker could commit (symbolic links under the names
Comodor writes, settings naming git's own files) and checks the bytes of the file
the attack aimed at afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from comodor_lsp import cli
from comodor_lsp.app import ComodorApp
from comodor_lsp.brain.errors import InvalidInput
from comodor_lsp.sync import BEGIN, sync_rules

PRECIOUS = "export PATH=$HOME/bin:$PATH  # the user's shell start-up file\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file in the user's home that a hostile repository would like to overwrite."""
    target = tmp_path / "home" / ".bashrc"
    target.parent.mkdir()
    target.write_text(PRECIOUS)
    return target


@pytest.fixture
def app(workspace: Path) -> ComodorApp:
    app = ComodorApp(workspace)
    app.execute("comodor.teachRule", {"statement": "Run the tests before pushing."})
    yield app
    app.close()


def test_a_planted_temporary_file_link_does_not_redirect_the_export(
    app: ComodorApp, workspace: Path, outside: Path
) -> None:
    folder = workspace / ".comodor"
    folder.mkdir()
    for name in (".house-rules.md.tmp", "house-rules.md.tmp", ".house-rules.md.comodor-tmp"):
        (folder / name).symlink_to(outside)
    exported = Path(app.execute("comodor.exportRules", {})["path"])
    assert exported == folder / "house-rules.md" and not exported.is_symlink()
    assert "Run the tests before pushing." in exported.read_text()
    assert outside.read_text() == PRECIOUS
    assert sorted(p.name for p in folder.iterdir() if p.name.endswith("tmp")) == sorted(
        (".house-rules.md.tmp", "house-rules.md.tmp", ".house-rules.md.comodor-tmp")
    )


def _link_the_folder(workspace: Path, outside: Path) -> None:
    (workspace / ".comodor").symlink_to(outside.parent)


def _link_the_file(workspace: Path, outside: Path) -> None:
    (workspace / ".comodor").mkdir()
    (workspace / ".comodor" / "house-rules.md").symlink_to(outside)


@pytest.mark.parametrize("plant", [_link_the_folder, _link_the_file])
def test_an_export_through_a_link_out_of_the_workspace_is_refused(
    app: ComodorApp, workspace: Path, outside: Path, plant: object
) -> None:
    plant(workspace, outside)  # type: ignore[operator]
    with pytest.raises(InvalidInput, match="outside the workspace"):
        app.execute("comodor.exportRules", {})
    assert outside.read_text() == PRECIOUS
    assert sorted(p.name for p in outside.parent.iterdir()) == [".bashrc"]


@pytest.mark.parametrize("target", [".git/house-rules.md", ".git/config", "notes.sh", "x.py"])
def test_an_export_only_writes_markdown_outside_git(
    app: ComodorApp, workspace: Path, target: str
) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n")
    with pytest.raises(InvalidInput) as raised:
        app.execute("comodor.exportRules", {"path": target})
    assert raised.value.field == "path"
    assert (workspace / ".git" / "config").read_text() == "[core]\n"
    assert not (workspace / target).exists() or target == ".git/config"


def test_sync_never_writes_git_files_or_scripts_even_when_asked(
    app: ComodorApp, workspace: Path
) -> None:
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / ".git" / "config").write_text("[core]\n")
    (workspace / ".venv" / "bin").mkdir(parents=True)
    (workspace / ".venv" / "bin" / "activate").write_text("# activate\n")
    (workspace / "LINK.md").symlink_to(workspace / ".git" / "config")
    targets = [".git/config", ".git/hooks/pre-commit.md", ".venv/bin/activate", "LINK.md"]
    reports = sync_rules(workspace, app.engine.confident_rules(), [(t, True) for t in targets])
    assert [r.action for r in reports] == ["refused"] * 4, reports
    assert (workspace / ".git" / "config").read_text() == "[core]\n"
    assert (workspace / ".venv" / "bin" / "activate").read_text() == "# activate\n"
    assert not (workspace / ".git" / "hooks" / "pre-commit.md").exists()


def test_a_planted_link_next_to_an_instruction_file_does_not_redirect_sync(
    app: ComodorApp, workspace: Path, outside: Path
) -> None:
    for name in (".AGENTS.md.tmp", "AGENTS.md.tmp", ".AGENTS.md.comodor-tmp"):
        (workspace / name).symlink_to(outside)
    reports = sync_rules(workspace, app.engine.confident_rules(), [("AGENTS.md", True)])
    assert [r.action for r in reports] == ["created"]
    assert (workspace / "AGENTS.md").read_text().startswith(BEGIN)
    assert outside.read_text() == PRECIOUS


def test_a_repository_cannot_choose_the_files_the_cli_syncs(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = ComodorApp(workspace)
    try:
        app.execute("comodor.teachRule", {"statement": "Use tabs for indentation"})
    finally:
        app.close()
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n")
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text(
        json.dumps({"comodor.sync.targets": [".git/config", "CLAUDE.md"]})
    )
    assert cli.main(["sync", "--workspace", str(workspace)]) == 0
    assert (workspace / ".git" / "config").read_text() == "[core]\n"
    assert not (workspace / "CLAUDE.md").exists()
    assert (workspace / "AGENTS.md").read_text().startswith(BEGIN)  # the default target
    capsys.readouterr()
