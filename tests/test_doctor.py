"""``comodor-lsp doctor`` tells the truth: one aligned line per check, exit 1 when any fails.

Every test runs the real command in a subprocess, with its own ``COMODOR_HOME``
(and its own ``TMPDIR``, to see that no temporary brain is left behind).
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fake_llm import FakeLLM

LINE = re.compile(r"^(ok  |warn|FAIL) (\S+)( +)(\S.*)$")

BLOCK_PSYCOPG = (
    "import runpy, sys\n"
    "sys.modules['psycopg'] = None  # Python's own way to make an import fail\n"
    "sys.argv[0] = 'comodor-lsp'\n"
    "runpy.run_module('comodor_lsp', run_name='__main__')\n"
)
"""``python -m comodor_lsp`` in an interpreter where ``import psycopg`` fails, as in an
install without the ``team`` extra (the test venv has the driver)."""


def doctor(
    workspace: Path,
    home: Path,
    *extra: str,
    env: dict[str, str] | None = None,
    without_psycopg: bool = False,
) -> subprocess.CompletedProcess[str]:
    temp = workspace.parent / "tmp"
    temp.mkdir(exist_ok=True)
    environment = dict(os.environ)
    environment.pop("COMODOR_BRAIN_URL", None)
    environment.update(COMODOR_HOME=str(home), TMPDIR=str(temp), **(env or {}))
    start = ["-c", BLOCK_PSYCOPG] if without_psycopg else ["-m", "comodor_lsp"]
    return subprocess.run(
        [sys.executable, *start, "doctor", "--workspace", str(workspace), *extra],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=environment,
    )


def checks(completed: subprocess.CompletedProcess[str]) -> dict[str, tuple[str, str]]:
    """name -> (status, detail), asserting every line is aligned and ends with a full stop."""
    lines = completed.stdout.splitlines()
    assert lines, completed.stderr
    found: dict[str, tuple[str, str]] = {}
    columns = set()
    for line in lines:
        match = LINE.match(line)
        assert match, f"not a check line: {line!r}"
        status, name, _, detail = match.groups()
        columns.add(line.index(detail, len(status) + 1 + len(name)))
        assert detail.endswith("."), f"a sentence without its full stop: {line!r}"
        found.setdefault(name, (status.strip(), detail))
    assert len(columns) == 1, f"the details do not start in one column:\n{completed.stdout}"
    assert "Traceback" not in completed.stderr + completed.stdout
    return found


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_doctor_reports_a_healthy_brain_a_watcher_and_reflection_off(
    workspace: Path, home: Path
) -> None:
    completed = doctor(workspace, home)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    found = checks(completed)
    assert list(found) == ["settings", "brain", "watcher", "model"]
    assert found["brain"][0] == "ok" and "integrity ok" in found["brain"][1]
    assert str(home / "brain.db") in found["brain"][1]
    assert found["watcher"][0] == "ok" and re.match(r"(native|polling) on ", found["watcher"][1])
    assert found["model"] == ("ok", "reflection is off; nothing is sent anywhere.")


def test_doctor_json_lists_every_check_with_its_status(workspace: Path, home: Path) -> None:
    completed = doctor(workspace, home, "--json")
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert report["ok"] is True
    assert [(c["name"], c["status"]) for c in report["checks"]] == [
        ("settings", "ok"), ("brain", "ok"), ("watcher", "ok"), ("model", "ok"),
    ]  # fmt: skip
    assert all(check["detail"].endswith(".") for check in report["checks"])


def test_doctor_says_when_the_model_endpoint_answers(workspace: Path, home: Path) -> None:
    with FakeLLM() as llm:
        completed = doctor(workspace, home, "--endpoint", llm.url, "--model", "fake-model")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert checks(completed)["model"][0] == "ok"


def test_doctor_names_an_unreachable_endpoint_and_fails(workspace: Path, home: Path) -> None:
    completed = doctor(workspace, home, "--endpoint", "http://127.0.0.1:9/v1", "--model", "x")
    assert completed.returncode == 1
    status, detail = checks(completed)["model"]
    assert status == "FAIL"
    assert detail.startswith("cannot reach http://127.0.0.1:9/v1: connection refused")


def test_an_endpoint_without_a_model_is_a_usage_error_not_silently_ignored(
    workspace: Path, home: Path
) -> None:
    completed = doctor(workspace, home, "--endpoint", "http://127.0.0.1:9/v1")
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert "--endpoint needs --model" in completed.stderr
    assert not home.exists(), "a usage error opens nothing"


def test_a_home_that_cannot_be_created_fails_instead_of_reporting_a_temporary_brain(
    workspace: Path, tmp_path: Path
) -> None:
    """Works as root too: a file where the home folder should be stops anyone."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    completed = doctor(workspace, blocker / "home")
    assert completed.returncode == 1
    found = checks(completed)
    status, detail = found["brain"]
    assert status == "FAIL" and "cannot create the brain folder" in detail
    assert "temporary brain" in detail and "COMODOR_HOME" in detail
    assert found["watcher"][0] == "ok" and found["model"][0] == "ok", "the others still run"
    assert list((tmp_path / "tmp").iterdir()) == [], "no temporary brain was left behind"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_an_unwritable_home_fails_instead_of_reporting_a_temporary_brain(
    workspace: Path, home: Path
) -> None:
    home.mkdir()
    home.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        completed = doctor(workspace, home)
    finally:
        home.chmod(stat.S_IRWXU)
    assert completed.returncode == 1
    status, detail = checks(completed)["brain"]
    assert status == "FAIL" and "temporary brain" in detail
    assert list(home.iterdir()) == []


def test_a_team_url_without_the_driver_fails_naming_the_extra_to_install(
    workspace: Path, home: Path
) -> None:
    completed = doctor(
        workspace,
        home,
        env={"COMODOR_BRAIN_URL": "postgresql://dora@127.0.0.1:9/team"},
        without_psycopg=True,
    )
    assert completed.returncode == 1, completed.stdout + completed.stderr
    found = checks(completed)
    status, detail = found["database"]
    assert status == "FAIL" and "driver is not installed" in detail
    assert "pip install 'comodor-lsp[team]'" in detail
    assert "nothing is shared with the team" in detail
    assert found["brain"][0] == "ok", "the local brain under it is still checked"


def test_a_brain_url_that_is_not_postgresql_is_a_fail_line_not_a_traceback(
    workspace: Path, home: Path
) -> None:
    completed = doctor(workspace, home, env={"COMODOR_BRAIN_URL": "mysql://dora:s3cret@db/team"})
    assert completed.returncode == 1, completed.stdout + completed.stderr
    status, detail = checks(completed)["database"]
    assert status == "FAIL" and "must be a postgresql:// URL" in detail
    assert "s3cret" not in completed.stdout + completed.stderr


def test_a_malformed_setting_fails_naming_the_setting(workspace: Path, home: Path) -> None:
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"learning": {"topK": "six"}}))
    completed = doctor(workspace, home)
    assert completed.returncode == 1
    status, detail = checks(completed)["settings"]
    assert status == "FAIL" and detail.startswith("learning.topK: ")
