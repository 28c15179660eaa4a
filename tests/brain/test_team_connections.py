"""A team brain holds two connections per server, however busy it is.

PostgreSQL's ``max_connections`` is shared by the whole team: a server that opened a
connection per busy thread would lock teammates out. One pooled connection serves
every thread (callers wait their turn); the listener is the other.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import psycopg
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.teamdb.connect import open_team_store
from comodor_lsp.teamdb.listener import TeamListener


def sessions(url: str) -> dict[str, int]:
    with psycopg.connect(url, autocommit=True) as conn:
        return dict(
            conn.execute(
                "SELECT application_name, count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name LIKE 'comodor%'"
                " GROUP BY application_name"
            ).fetchall()
        )


def test_eight_busy_threads_share_one_pooled_connection_and_all_finish(
    tmp_path: Path, team_url: str
) -> None:
    store = open_team_store(tmp_path / "brain.db", team_url, voter="ann", strict=True)
    listener = TeamListener(
        team_url, store.origin, on_change=lambda ours: None, on_lost=print, on_back=lambda: None
    ).start()
    engine = LearningEngine(store, "project:busy")
    peak: dict[str, int] = {}
    errors: list[BaseException] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for name, count in sessions(team_url).items():
                peak[name] = max(peak.get(name, 0), count)
            time.sleep(0.02)

    def busy(number: int) -> None:
        try:
            for _ in range(15):
                store.lessons(["project:busy"], 50)
                store.rules(["project:busy"])
                store.count_lessons(["project:busy"])
                store.search_lessons(["thread"], ["project:busy"], 5)
                if number % 2:
                    store.add_lessons([])  # nothing, but through the same pool
        except BaseException as error:
            errors.append(error)

    try:
        watcher = threading.Thread(target=watch)
        watcher.start()
        engine.teach("thread safety: one connection serves every thread")
        threads = [threading.Thread(target=busy, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for number in range(10):
            engine.teach_rule(f"Prefer busyprobe{chr(ord('a') + number)} names.")
        for thread in threads:
            thread.join(60)
        done.set()
        watcher.join()
        assert not errors, errors
        assert peak.get("comodor") == 1, peak  # the pool never grew
        assert peak.get("comodor-listen") == 1, peak
        assert len(store.rules(["project:busy"])) == 10
    finally:
        done.set()
        listener.stop()
        store.close()
