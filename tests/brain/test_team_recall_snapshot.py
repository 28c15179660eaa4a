"""A team brain starts from its recall snapshot, and a stale one never hides a change.

Real PostgreSQL (the session's throwaway cluster), real brain files: a server is
"down" when its engine is closed, and what teammates change meanwhile must be
recalled the moment it starts again, whether the snapshot is used or refused.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.recall.team_snapshots import team_snapshot_path
from comodor_lsp.brain.recall.text import terms
from comodor_lsp.teamdb.connect import open_team_store

SCOPE = "project:team"


def engine_of(home: Path, url: str, user: str, scope: str = SCOPE) -> LearningEngine:
    engine = LearningEngine(open_team_store(home / "brain.db", url, voter=user, strict=True), scope)
    engine.warm()
    return engine


def recalled(engine: LearningEngine, query: str) -> list[str]:
    return [lesson.guidance for lesson in engine.recall(query)]


def sql(url: str, statement: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(statement)


def seeded(home: Path, url: str) -> tuple[LearningEngine, list[int]]:
    """Alice's server with 40 team lessons, its snapshot written."""
    alice = engine_of(home, url, "alice")
    ids = [
        alice.teach(f"building module m{n}: run the generator g{n} first", pinned=False).id
        for n in range(40)
    ]
    alice.lessons.index.reset()  # waits for any file being written
    team_snapshot_path(home / "brain.db", SCOPE).unlink(missing_ok=True)
    alice.lessons.rebuild()  # as a first start does: the index built, its file written
    snapshots = alice.lessons.index.snapshots
    assert snapshots is not None and snapshots.wait(10)
    assert team_snapshot_path(home / "brain.db", SCOPE).exists()
    return alice, ids


def test_changes_made_while_a_server_was_down_are_recalled_after_it_starts_from_its_snapshot(
    tmp_path: Path, team_url: str
) -> None:
    alice, ids = seeded(tmp_path / "alice", team_url)
    alice.close()  # the server is down

    bob = engine_of(tmp_path / "bob", team_url, "bob")
    bob.teach("deploying the canary: it runs in zone quetzal9", pinned=False)
    assert bob.forget(ids[3])
    edited = "building module m5: use the turbocharger t7"
    bob.store.update_lesson_text(ids[5], "building module m5", "use the turbocharger t7",
                                 " ".join(terms(edited)))  # fmt: skip
    bob.close()

    again = engine_of(tmp_path / "alice", team_url, "alice")
    snapshots = again.lessons.index.snapshots
    assert snapshots is not None and snapshots.reason == ""  # started from the file
    assert "it runs in zone quetzal9" in recalled(again, "canary zone quetzal9")
    assert "run the generator g3 first" not in recalled(again, "building module m3 generator g3")
    assert "use the turbocharger t7" in recalled(again, "turbocharger t7")
    assert again.lessons.count() == 40  # 40 - 1 forgotten + 1 taught
    again.close()


def test_a_snapshot_of_a_recreated_database_is_not_used(tmp_path: Path, team_url: str) -> None:
    alice, _ = seeded(tmp_path / "alice", team_url)
    alice.close()
    sql(team_url, "UPDATE meta SET value = 'another-database' WHERE key = 'database_id'")
    sql(team_url, "DELETE FROM lessons WHERE guidance LIKE '%g1_ first'")  # g10 … g19

    again = engine_of(tmp_path / "alice", team_url, "alice")
    snapshots = again.lessons.index.snapshots
    assert snapshots is not None and "another brain" in snapshots.reason
    assert again.lessons.count() == 30
    assert "run the generator g12 first" not in recalled(again, "building module m12 g12")
    again.close()


def test_a_snapshot_older_than_the_pruned_log_is_rebuilt_and_misses_nothing(
    tmp_path: Path, team_url: str
) -> None:
    alice, _ = seeded(tmp_path / "alice", team_url)
    alice.close()
    bob = engine_of(tmp_path / "bob", team_url, "bob")
    for n in range(3):
        bob.teach(f"releasing train r{n}: tag it with the codename zebra{n}", pinned=False)
    bob.close()
    sql(team_url, "DELETE FROM lesson_log WHERE rev < (SELECT max(rev) FROM lesson_log)")

    again = engine_of(tmp_path / "alice", team_url, "alice")
    snapshots = again.lessons.index.snapshots
    assert snapshots is not None and "no longer lead on" in snapshots.reason
    assert "tag it with the codename zebra0" in recalled(again, "releasing train r0 zebra0")
    assert again.lessons.count() == 43
    again.close()


def test_a_snapshot_that_disagrees_with_the_database_is_rebuilt(
    tmp_path: Path, team_url: str
) -> None:
    """A row changed behind the log's back (a restore, a hand edit) is caught by the count."""
    alice, _ = seeded(tmp_path / "alice", team_url)
    alice.close()
    with psycopg.connect(team_url, autocommit=True) as conn:
        (logged,) = conn.execute("SELECT max(rev) FROM lesson_log").fetchone()
        conn.execute("DELETE FROM lessons WHERE guidance LIKE '%g2_ first'")  # g20 … g29
        conn.execute(f"DELETE FROM lesson_log WHERE rev > {logged}")  # as if never logged

    again = engine_of(tmp_path / "alice", team_url, "alice")
    snapshots = again.lessons.index.snapshots
    assert snapshots is not None and "disagrees" in snapshots.reason
    assert again.lessons.count() == 30
    again.close()


def test_a_server_indexes_only_its_own_project_of_a_shared_database(
    tmp_path: Path, team_url: str
) -> None:
    """Five projects on one database cost each server one project's index, start or follow."""
    other = engine_of(tmp_path / "carol", team_url, "carol", scope="project:other")
    for n in range(30):
        other.teach(f"building module m{n}: run the generator g{n} first", pinned=False)
    alice, _ = seeded(tmp_path / "alice", team_url)
    with alice.lessons.shared.lock:
        assert len(alice.lessons.index.current()) == 40  # not 70
    other.teach("deploying the canary: it runs in zone quetzal9", pinned=False)
    alice.catch_up()
    assert recalled(alice, "canary zone quetzal9") == []
    with alice.lessons.shared.lock:
        assert len(alice.lessons.index.current()) == 40
    alice.close()
    again = engine_of(tmp_path / "alice", team_url, "alice")  # from its snapshot
    snapshots = again.lessons.index.snapshots
    assert snapshots is not None and snapshots.reason == ""
    assert again.lessons.count() == 40
    again.close()
    other.close()
