"""The command line with a team database: doctor's report, a wrong password, a workspace's say."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg
from comodor_lsp import config
from comodor_lsp.teamdb.postgres_schema import TEAM_SCHEMA_VERSION

from tests.support.postgres import PASSWORD, Cluster


def run(
    workspace: Path, url: str, *argv: str, password: str = PASSWORD
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COMODOR_BRAIN_URL=url, PGPASSWORD=password, COMODOR_USER="dora")
    return subprocess.run(
        [sys.executable, "-m", "comodor_lsp", *argv, "--workspace", str(workspace)],
        capture_output=True, text=True, timeout=60, check=False, env=env,
    )  # fmt: skip


def test_doctor_reports_the_database_its_schema_and_latency(workspace: Path, team_url: str) -> None:
    done = run(workspace, team_url, "doctor")
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = [line for line in done.stdout.splitlines() if " database " in line]
    assert line.startswith("ok   database ")
    assert f"as dora (schema {TEAM_SCHEMA_VERSION}): round trip" in line
    assert "ms median of 5" in line


def test_doctor_calls_a_newer_but_compatible_team_schema_usable(
    workspace: Path, team_url: str
) -> None:
    assert run(workspace, team_url, "call", "comodor.stats").returncode == 0  # migrated
    newer = TEAM_SCHEMA_VERSION + 1
    with psycopg.connect(team_url) as conn:
        conn.execute("UPDATE meta SET value = %s WHERE key = 'schema_version'", (str(newer),))
    done = run(workspace, team_url, "doctor")
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = [line for line in done.stdout.splitlines() if " database " in line]
    assert line.startswith("ok   database ")
    assert f"(schema {newer}, newer than this Comodor's {TEAM_SCHEMA_VERSION} but usable)" in line


def test_a_wrong_password_is_a_clear_error_that_names_the_fix_and_never_the_password(
    workspace: Path, team_url: str
) -> None:
    started = time.monotonic()
    done = run(workspace, team_url, "call", "comodor.stats", password="wrong-pw-123")
    assert time.monotonic() - started < 30
    assert done.returncode == 1
    assert "refused the login" in done.stderr and "PGPASSWORD" in done.stderr
    assert "wrong-pw-123" not in done.stderr + done.stdout
    doctor = run(workspace, team_url, "doctor", password="wrong-pw-123")
    assert doctor.returncode == 1
    assert any(
        line.startswith("FAIL database") and "refused the login" in line
        for line in doctor.stdout.splitlines()
    )


def test_a_change_made_from_the_command_line_while_the_database_is_down_is_sent_later(
    workspace: Path, pg_cluster: Cluster
) -> None:
    url = pg_cluster.new_database()
    assert run(workspace, url, "call", "comodor.stats").returncode == 0  # migrated
    pg_cluster.stop()
    try:
        taught = run(workspace, url, "call", "comodor.teachRule", '{"statement": "Use uv."}')
        assert taught.returncode == 0, taught.stderr
        assert json.loads(taught.stdout)["rule"]["statement"] == "Use uv."
    finally:
        pg_cluster.start()
    rules = run(workspace, url, "call", "comodor.rules", "{}")  # the next process sends it
    assert [r["statement"] for r in json.loads(rules.stdout)["rules"]] == ["Use uv."]
    assert json.loads(rules.stdout)["rules"][0]["id"] >= 1 << 40


def test_a_workspace_can_never_point_the_brain_at_a_database(workspace: Path) -> None:
    layer = {"brain": {"url": "postgresql://attacker@evil.example/loot"}}
    loaded = config.load(init_options={}, workspace_layer=layer)
    assert loaded.settings.brain.url == ""
    trusted = config.load(init_options={"brain": {"url": "postgresql://me@db/team"}})
    assert trusted.settings.brain.url == "postgresql://me@db/team"


def test_team_restore_lists_and_brings_back_archived_lessons_by_id(
    workspace: Path, team_url: str
) -> None:
    taught = run(workspace, team_url, "teach", "vendoring: keep the third_party folder pruned")
    assert taught.returncode == 0, taught.stderr
    with psycopg.connect(team_url, autocommit=True) as conn:  # as retention would
        conn.execute(
            "WITH gone AS (DELETE FROM lessons RETURNING *)"
            " INSERT INTO archived_lessons SELECT gone.*, 1.0 FROM gone"
        )
        (lesson_id,) = conn.execute("SELECT id FROM archived_lessons").fetchone()
    listed = run(workspace, team_url, "team", "restore", "--list")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == f"{lesson_id}  vendoring: keep the third_party folder pruned\n"
    done = run(workspace, team_url, "team", "restore", str(lesson_id))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"restored 1 lesson: {lesson_id}\n"
    with psycopg.connect(team_url) as conn:
        assert conn.execute("SELECT count(*) FROM archived_lessons").fetchone() == (0,)
        assert conn.execute("SELECT id FROM lessons").fetchall() == [(lesson_id,)]
    again = run(workspace, team_url, "team", "restore", str(lesson_id))
    assert again.returncode == 1 and "not archived in this project" in again.stderr


def test_team_restore_without_ids_or_all_is_a_usage_error(workspace: Path, team_url: str) -> None:
    done = run(workspace, team_url, "team", "restore")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("comodor-lsp: team restore needs lesson ids, --all or --list")
