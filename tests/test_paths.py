"""Where the brain lives, and which project a folder is."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from comodor_lsp.paths import default_brain_path, previous_default_brain_path, project_key


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


def test_a_git_project_keeps_its_key_when_the_folder_moves(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    git(folder, "init", "-q")
    git(folder, "config", "user.email", "t@example.com")
    git(folder, "config", "user.name", "T")
    (folder / "a.py").write_text("x = 1\n")
    git(folder, "add", ".")
    git(folder, "commit", "-qm", "root")
    before = project_key(folder)
    moved = tmp_path / "renamed"
    shutil.move(folder, moved)
    assert project_key(moved) == before and before.startswith("git-")


def test_a_plain_folder_is_keyed_by_its_path(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    assert project_key(one) != project_key(two)
    assert project_key(one) == project_key(one / ".")


def test_brain_location_follows_override_then_comodor_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMODOR_HOME", str(tmp_path / "home"))
    assert default_brain_path() == tmp_path / "home" / "brain.db"
    assert default_brain_path(str(tmp_path / "x.db")) == tmp_path / "x.db"
    monkeypatch.delenv("COMODOR_HOME")
    assert default_brain_path().name == "brain.db"


def test_the_default_brain_has_its_own_folder_not_the_comodor_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PyPI's other comodor keeps its brain.db in $XDG_DATA_HOME/comodor: ours is elsewhere."""
    monkeypatch.delenv("COMODOR_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_brain_path() == tmp_path / "data" / "comodor-lsp" / "brain.db"
    assert previous_default_brain_path() == tmp_path / "data" / "comodor" / "brain.db"
    assert previous_default_brain_path(str(tmp_path / "x.db")) is None
    monkeypatch.setenv("COMODOR_HOME", str(tmp_path / "home"))
    assert previous_default_brain_path() is None
