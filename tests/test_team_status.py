"""``comodor-lsp team status`` against a real PostgreSQL: what a platform team reads off it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from comodor_lsp.teamdb.postgres_schema import TEAM_SCHEMA_VERSION

from tests.support.postgres import PASSWORD


def run(
    workspace: Path, *argv: str, url: str = "", user: str = "dora"
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COMODOR_BRAIN_URL=url, PGPASSWORD=PASSWORD, COMODOR_USER=user)
    return subprocess.run(
        [sys.executable, "-m", "comodor_lsp", *argv, "--workspace", str(workspace)],
        capture_output=True, text=True, timeout=60, check=False, env=env,
    )  # fmt: skip


def test_team_status_counts_each_scope_names_the_last_voter_and_the_schema(
    workspace: Path, team_url: str
) -> None:
    taught = run(workspace, "call", "comodor.teachRule", '{"statement": "Use uv."}', url=team_url)
    assert taught.returncode == 0, taught.stderr
    lesson = run(workspace, "teach", "When deploying: run the smoke tests first.", url=team_url)
    assert lesson.returncode == 0, lesson.stderr
    done = run(workspace, "team", "status", "--json", url=team_url)
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["schema_version"] == TEAM_SCHEMA_VERSION
    assert status["users"] == 1
    (scope,) = status["scopes"]
    assert scope["lessons"] >= 1 and scope["rules"] == 1 and scope["votes"] >= 1
    assert status["last_change"]["at"] > 0
    assert status["lag"] == "unknown"
    assert status["connections"] >= 0 and "PASSWORD" not in done.stdout
    text = run(workspace, "team", "status", url=team_url)
    assert text.returncode == 0, text.stderr
    assert f"schema       {TEAM_SCHEMA_VERSION}" in text.stdout
    assert "users        1 distinct voter" in text.stdout
    assert "lag          unknown" in text.stdout
    assert scope["scope"] in text.stdout


def test_team_status_sees_a_running_servers_connections(workspace: Path, team_url: str) -> None:
    import psycopg

    with psycopg.connect(team_url, application_name="comodor"):
        status = json.loads(run(workspace, "team", "status", "--json", url=team_url).stdout)
    assert status["comodor_connections"] >= 1 and status["connections"] >= 1
    assert status["schema_version"] == 0  # nothing migrated it: status never does


def test_team_status_without_a_team_brain_is_one_line_and_exit_1(workspace: Path) -> None:
    done = run(workspace, "team", "status")
    assert done.returncode == 1
    assert done.stderr.startswith("comodor-lsp: no team brain is configured.")
    assert len(done.stderr.splitlines()) == 1 and done.stdout == ""


def test_team_status_of_a_database_that_cannot_be_reached_is_one_line_and_exit_1(
    workspace: Path,
) -> None:
    from tests.support.postgres import free_port

    url = f"postgresql://comodor@127.0.0.1:{free_port()}/nowhere"
    done = run(workspace, "team", "status", url=url)
    assert done.returncode == 1
    assert done.stderr.startswith("comodor-lsp: cannot reach the team database")
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
