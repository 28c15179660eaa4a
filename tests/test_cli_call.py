"""``comodor-lsp call``: a wrong name says which names exist; an id that matches nothing fails.

Real subprocess runs with their own ``COMODOR_HOME``, as a script would call them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from comodor_lsp.commands import COMMANDS


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def call(workspace: Path, home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COMODOR_HOME=str(home))
    env.pop("COMODOR_BRAIN_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "comodor_lsp", "call", *argv, "--workspace", str(workspace)],
        capture_output=True, text=True, timeout=60, check=False, env=env,
    )  # fmt: skip


def test_a_misspelt_command_suggests_the_nearest_name_lists_them_all_and_opens_nothing(
    workspace: Path, home: Path
) -> None:
    done = call(workspace, home, "comodor.rule", "{}")
    assert done.returncode == 2
    assert done.stdout == ""
    first = done.stderr.splitlines()[0]
    assert first == (
        "comodor-lsp: unknown command 'comodor.rule'. Did you mean comodor.rules? "
        "The protocol's commands:"
    )
    for name, entry in COMMANDS.items():
        assert f"  {name}" in done.stderr and entry.summary in done.stderr
    assert not home.exists(), "an unknown name opens no brain"


def test_a_command_without_its_prefix_is_suggested_with_it(workspace: Path, home: Path) -> None:
    done = call(workspace, home, "teachrule")
    assert done.returncode == 2
    assert "Did you mean comodor.teachRule?" in done.stderr


def test_a_name_like_nothing_lists_the_commands_without_a_guess(
    workspace: Path, home: Path
) -> None:
    done = call(workspace, home, "comodor.xyzzy")
    assert done.returncode == 2
    assert "unknown command 'comodor.xyzzy'." in done.stderr
    assert "Did you mean" not in done.stderr and "comodor.progress" in done.stderr


def test_call_help_lists_the_protocols_commands(workspace: Path, home: Path) -> None:
    done = call(workspace, home, "--help")
    assert done.returncode == 0
    assert "The protocol's commands:" in done.stdout
    assert all(f"  {name}" in done.stdout for name in COMMANDS)


def test_forgetting_an_id_that_matches_nothing_exits_1_and_says_so(
    workspace: Path, home: Path
) -> None:
    taught = call(workspace, home, "comodor.teach", '{"text": "testing: use pytest -q"}')
    assert taught.returncode == 0, taught.stderr
    lesson = json.loads(taught.stdout)["lesson"]
    missing = lesson["id"] + 1000
    done = call(workspace, home, "comodor.forget", json.dumps({"id": missing}))
    assert done.returncode == 1
    assert json.loads(done.stdout) == {"removed": False}
    assert done.stderr.strip() == (
        f"comodor-lsp: no lesson has id {missing} (forgotten already, or never taught). "
        "Nothing was changed; `comodor-lsp call comodor.lessons` lists them."
    )
    listed = call(workspace, home, "comodor.lessons", "{}")
    assert [item["id"] for item in json.loads(listed.stdout)["lessons"]] == [lesson["id"]]

    forgot = call(workspace, home, "comodor.forget", json.dumps({"id": lesson["id"]}))
    assert forgot.returncode == 0 and forgot.stderr == ""
    again = call(workspace, home, "comodor.forget", json.dumps({"id": lesson["id"]}))
    assert again.returncode == 1 and "no lesson has id" in again.stderr


def test_forgetting_a_rule_that_does_not_exist_exits_1(workspace: Path, home: Path) -> None:
    done = call(workspace, home, "comodor.forgetRule", '{"id": 7}')
    assert done.returncode == 1
    assert "no rule has id 7" in done.stderr and "comodor.rules" in done.stderr
