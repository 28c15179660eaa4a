"""A team brain on a real PostgreSQL server: what is shared, what is not, and outages.

Each test gets a fresh database on the session's throwaway cluster and reads the
tables themselves where the claim is about what reached the database.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from pathlib import Path

import psycopg
import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.errors import BrainError, BrainUnavailable
from comodor_lsp.brain.models import Vote
from comodor_lsp.brain.store import TEAM_IDS, BrainStore
from comodor_lsp.brain.store.outbox import PENDING_IDS
from comodor_lsp.brain.store.sqlite_schema import MIGRATIONS
from comodor_lsp.teamdb.connect import open_team_store
from comodor_lsp.teamdb.postgres import POOL_TIMEOUT_S, redact_url
from comodor_lsp.teamdb.postgres_schema import TEAM_COMPATIBLE_FROM, TEAM_SCHEMA_VERSION
from comodor_lsp.teamdb.team_store import TeamStore

from tests.support.postgres import Cluster


def team_engine(path: Path, url: str, user: str, scope: str = "project:team") -> LearningEngine:
    return LearningEngine(open_team_store(path, url, voter=user, strict=True), scope)


def rows(url: str, sql: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as conn:
        return list(conn.execute(sql).fetchall())


def correction(value: str = "single") -> Vote:
    return Vote(
        key="quotes.style",
        value=value,
        statement=f"Use {value} quotes for strings.",
        category="style",
        language="python",
        kind="correction",
    )


def test_personal_lessons_and_rules_never_reach_the_database(tmp_path: Path, team_url: str) -> None:
    engine = team_engine(tmp_path / "a" / "brain.db", team_url, "alice")
    engine.configure(engine.settings.__class__(share_scope="global"))
    personal = engine.teach("my laptop: the ssh agent is at ~/.ssh/agent.sock")
    engine.teach_rule("Answer me in French.")
    engine.configure(engine.settings.__class__(share_scope="project"))
    shared = engine.teach("releasing: run make release from a clean tree")
    assert personal.id < TEAM_IDS <= shared.id
    texts = [row[0] for row in rows(team_url, "SELECT guidance FROM lessons")]
    assert texts == ["run make release from a clean tree"]
    assert rows(team_url, "SELECT count(*) FROM rules WHERE scope = 'global'") == [(0,)]
    assert all("French" not in str(r) for r in rows(team_url, "SELECT statement FROM rule_votes"))
    local = sqlite3.connect(tmp_path / "a" / "brain.db")
    assert local.execute("SELECT count(*) FROM lessons WHERE scope = 'global'").fetchone() == (1,)
    assert {lesson.id for lesson in engine.search("")} == {personal.id, shared.id}
    engine.close()


def test_the_database_itself_refuses_a_personal_row(tmp_path: Path, team_url: str) -> None:
    team_engine(tmp_path / "brain.db", team_url, "alice").close()  # migrate
    with psycopg.connect(team_url) as conn, pytest.raises(psycopg.errors.CheckViolation):
        conn.execute(
            "INSERT INTO lessons (kind, scope, trigger, guidance, confidence, created_at,"
            " updated_at) VALUES ('fact', 'global', 'x', 'y', 0.5, 0, 0)"
        )


def test_a_teammates_lesson_and_rule_are_seen_with_the_people_counted(
    tmp_path: Path, team_url: str
) -> None:
    alice = team_engine(tmp_path / "alice" / "brain.db", team_url, "alice")
    bob = team_engine(tmp_path / "bob" / "brain.db", team_url, "bob")
    alice.warm()
    bob.warm()
    taught = alice.teach("database migrations: run alembic upgrade head first", pinned=False)
    alice.record_correction("a.py", [correction()], "-x\n+y", None)
    bob.record_correction("b.py", [correction()], "-x\n+y", None)
    bob.record_correction("c.py", [correction()], "-x\n+y", None)
    alice.refresh()
    (rule,) = [r for r in alice.all_rules() if r.key == "quotes.style"]
    assert rule.confident
    assert rule.evidence == "3 corrections from 2 people · 100% agree"
    bob.refresh()
    assert [lesson.id for lesson in bob.recall("database migrations")] == [taught.id]
    voters = rows(team_url, "SELECT voter, count(*) FROM rule_votes GROUP BY voter ORDER BY 1")
    assert voters == [("alice", 1), ("bob", 2)]
    alice.close()
    bob.close()


def test_one_users_rescan_undo_or_denial_never_deletes_another_users_evidence(
    tmp_path: Path, team_url: str
) -> None:
    alice = team_engine(tmp_path / "alice" / "brain.db", team_url, "alice")
    bob = team_engine(tmp_path / "bob" / "brain.db", team_url, "bob")
    fact = Vote("indent.width", "4", "Indent with 4 spaces.", "style", "python", "evidence", 2.0)
    alice.record_votes([fact], origin="scan", replace=True, scope="project:team")
    alice.record_correction("a.py", [correction()], "-x\n+y", None)
    bob.record_votes([], origin="scan", replace=True, scope="project:team")  # bob re-scans
    bob.record_agent_write("a.py", "x\n", "y\n")
    assert bob.on_undo(["a.py"]) == 1
    bob.on_denied("shell", "git push --force", "denied")
    kept = rows(team_url, "SELECT origin FROM rule_votes WHERE voter = 'alice' ORDER BY 1")
    assert [str(origin).split(":")[0] for (origin,) in kept] == ["save", "scan"]
    alice.close()
    bob.close()


def test_rules_taught_while_the_database_is_down_arrive_once_it_is_back(
    tmp_path: Path, pg_cluster: Cluster
) -> None:
    url = pg_cluster.new_database()
    alice = team_engine(tmp_path / "alice" / "brain.db", url, "alice")
    store = alice.store
    assert isinstance(store, TeamStore)
    told: list[str] = []
    store.on_notice(told.append)
    alice.teach("before: the database was up")
    pg_cluster.stop()
    try:
        started = time.monotonic()
        rule = alice.teach_rule("Never push to main on Fridays.")
        # refused at once: the first write of an outage does not wait out the pool's timeout
        assert time.monotonic() - started < POOL_TIMEOUT_S
        lesson = alice.teach("during the outage: deploys wait for the database")
        again = alice.teach("also during the outage: nothing is lost")
        assert rule.id >= PENDING_IDS and lesson.id >= PENDING_IDS
        assert any("Fridays" in r.statement for r in alice.active_rules())
        assert {found.id for found in alice.search("")} >= {lesson.id, again.id}
        assert alice.forget(again.id)
        assert len(told) == 1 and "unreachable" in told[0]
        assert store.outbox.count() == 4
    finally:
        pg_cluster.start()
    store.reachable_again()
    assert alice.catch_up()
    assert store.outbox.count() == 0
    assert "back" in told[-1] and "4 changes" in told[-1]
    statements = rows(url, "SELECT statement FROM rule_votes")
    assert statements == [("Never push to main on Fridays.",)]
    guidance = sorted(str(row[0]) for row in rows(url, "SELECT guidance FROM lessons"))
    assert guidance == ["deploys wait for the database", "the database was up"]
    assert rows(url, "SELECT count(*) FROM receipts") == [(5,)]  # one per change, none twice
    alice.refresh()
    assert all(r.id < PENDING_IDS for r in alice.all_rules())
    assert all(found.id < PENDING_IDS for found in alice.search(""))
    alice.close()


def test_a_send_whose_outbox_deletion_was_lost_is_not_applied_twice(
    tmp_path: Path, team_url: str
) -> None:
    alice = team_engine(tmp_path / "brain.db", team_url, "alice")
    lesson = alice.teach("credit: counted exactly once")
    store = alice.store
    assert isinstance(store, TeamStore) and store.team is not None
    entry = store.outbox.put("credit", {"ids": [lesson.id], "won": True, "now": None})
    fresh, _ = store.team.send(entry.op, lambda: store._apply(entry))  # sent, then a crash
    assert fresh
    assert store.flush() == 1  # the next sender finds the receipt and skips it
    assert rows(team_url, f"SELECT wins FROM lessons WHERE id = {lesson.id}") == [(1,)]
    alice.close()


def _open_and_write(path: str, url: str, worker: int, count: int) -> None:
    engine = team_engine(Path(path), url, f"user{worker}")
    for number in range(count):
        engine.teach(f"worker {worker}: lesson number {number}", pinned=False)
        engine.record_correction(f"w{worker}-{number}.py", [correction()], "-a\n+b", None)
    engine.close()


@pytest.mark.slow
def test_eight_processes_migrating_and_writing_at_once_lose_nothing(
    tmp_path: Path, team_url: str
) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(
            target=_open_and_write, args=(str(tmp_path / f"u{w}" / "brain.db"), team_url, w, 40)
        )
        for w in range(8)
    ]
    for process in workers:
        process.start()
    for process in workers:
        process.join(240)
        assert process.exitcode == 0
    assert rows(team_url, "SELECT count(*) FROM lessons") == [(320,)]
    assert rows(team_url, "SELECT count(DISTINCT voter), count(*) FROM rule_votes") == [(8, 320)]
    assert rows(team_url, "SELECT value FROM meta WHERE key = 'schema_version'") == [
        (str(TEAM_SCHEMA_VERSION),)
    ]
    revs = [row[0] for row in rows(team_url, "SELECT lesson_id FROM lesson_log ORDER BY rev")]
    assert len(set(revs)) == 320


def _as_if_migrated_by_a_newer_comodor(url: str, compatible_from: int | None) -> None:
    """What a later release leaves: a higher schema, and what it says of older ones."""
    with psycopg.connect(url) as conn:
        conn.execute(
            "UPDATE meta SET value = %s WHERE key = 'schema_version'",
            (str(TEAM_SCHEMA_VERSION + 1),),
        )
        if compatible_from is None:
            conn.execute("DELETE FROM meta WHERE key = 'compatible_from'")
        else:
            conn.execute(
                "UPDATE meta SET value = %s WHERE key = 'compatible_from'", (str(compatible_from),)
            )


def test_migrating_records_the_oldest_schema_that_can_still_use_the_database(
    tmp_path: Path, team_url: str
) -> None:
    team_engine(tmp_path / "brain.db", team_url, "alice").close()
    assert rows(team_url, "SELECT key, value FROM meta ORDER BY key") == [
        ("compatible_from", str(TEAM_COMPATIBLE_FROM)),
        ("schema_version", str(TEAM_SCHEMA_VERSION)),
    ]
    assert TEAM_COMPATIBLE_FROM <= TEAM_SCHEMA_VERSION


@pytest.mark.parametrize("compatible_from", [TEAM_SCHEMA_VERSION + 1, None])
def test_a_database_migrated_by_a_newer_incompatible_comodor_is_refused(
    tmp_path: Path, team_url: str, compatible_from: int | None
) -> None:
    team_engine(tmp_path / "brain.db", team_url, "alice").close()
    _as_if_migrated_by_a_newer_comodor(team_url, compatible_from)
    with pytest.raises(BrainError, match="newer Comodor"):
        open_team_store(tmp_path / "other.db", team_url, strict=True)


def test_a_teammate_on_an_older_release_keeps_working_after_a_compatible_migration(
    tmp_path: Path, team_url: str
) -> None:
    alice = team_engine(tmp_path / "a" / "brain.db", team_url, "alice")
    alice.teach("releasing: run make release from a clean tree", pinned=False)
    alice.close()
    _as_if_migrated_by_a_newer_comodor(team_url, compatible_from=TEAM_SCHEMA_VERSION)
    bob = team_engine(tmp_path / "b" / "brain.db", team_url, "bob")
    try:
        bob.teach("deploying: run make deploy", pinned=False)
        found = [lesson.guidance for lesson in bob.recall("releasing the app")]
        assert found == ["run make release from a clean tree"]
    finally:
        bob.close()
    newer = str(TEAM_SCHEMA_VERSION + 1)
    assert rows(team_url, "SELECT value FROM meta WHERE key = 'schema_version'") == [(newer,)]
    assert rows(team_url, "SELECT count(*) FROM lessons") == [(2,)]


def test_a_wrong_password_is_a_clear_error_not_a_hang(
    tmp_path: Path, pg_cluster: Cluster, team_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PGPASSWORD", "not-the-password")
    started = time.monotonic()
    with pytest.raises(BrainUnavailable, match="refused the login") as caught:
        open_team_store(tmp_path / "brain.db", team_url, strict=True)
    assert time.monotonic() - started < 10
    assert "not-the-password" not in str(caught.value)
    offline = open_team_store(tmp_path / "brain.db", team_url)  # an editor keeps working
    assert not offline.online and any("refused the login" in n for n in offline.notices)
    offline.close()


def test_a_password_in_the_url_is_never_shown() -> None:
    url = "postgresql://alice:s3cret-pw@db.example:5433/team?sslmode=require"
    assert redact_url(url) == "postgresql://alice:***@db.example:5433/team?sslmode=require"
    assert "s3cret" not in redact_url(url)


def test_a_brain_file_from_before_users_keeps_its_votes(tmp_path: Path) -> None:
    path = tmp_path / "brain.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for index, script in enumerate(MIGRATIONS[:2]):
        conn.executescript(script)
        conn.execute(f"PRAGMA user_version = {index + 1}")
    conn.execute(
        "INSERT INTO rules (key, scope, category, created_at, updated_at)"
        " VALUES ('quotes.style', 'project:a', 'style', 1, 1)"
    )
    conn.execute(
        "INSERT INTO rule_votes (rule_id, value, statement, kind, weight, origin, created_at)"
        " VALUES (1, 'single', 'Use single quotes.', 'correction', 1, 'save:1', 1)"
    )
    conn.close()
    store = BrainStore(path, voter="alice")
    (rule,) = store.rules(["project:a"])
    assert [(vote.origin, vote.voter) for vote in rule.votes] == [("save:1", "")]
    store.close()
