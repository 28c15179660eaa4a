"""The team listener against a real PostgreSQL: backoff while it is away, catch-up after.

The cluster is the session's throwaway one (tests/support/postgres.py); stopping it is
a real outage (nothing listens on the port), not a simulated error.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

import psycopg
import pytest
from comodor_lsp.teamdb.backoff import CAP_S, Backoff
from comodor_lsp.teamdb.listener import TeamListener
from comodor_lsp.teamdb.postgres import PostgresStore

from tests.support.postgres import Cluster


def within(seconds: float, check: Callable[[], bool]) -> None:
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > seconds:
            raise AssertionError(f"not within {seconds} s")
        time.sleep(0.02)


def test_waits_grow_from_half_a_second_to_the_cap_and_are_spread_at_random() -> None:
    backoff = Backoff(rng=random.Random(7))
    windows = []
    for _ in range(12):
        windows.append(backoff.window())
        assert 0.0 <= backoff.next() <= windows[-1]
    assert windows[:4] == [0.5, 1.0, 2.0, 4.0]
    assert windows[-1] == CAP_S
    # Full jitter: a hundred servers' first waits cover the window, not its edge.
    firsts = [Backoff(rng=random.Random(seed)).next() for seed in range(100)]
    assert min(firsts) < 0.1 and max(firsts) > 0.4
    backoff.reset()
    assert backoff.window() == 0.5


def test_a_backoff_that_makes_no_sense_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="base <= cap"):
        Backoff(base=0.0)
    with pytest.raises(ValueError, match="base <= cap"):
        Backoff(base=10.0, cap=1.0)


class Recorder:
    """What the listener told its store, in order."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.lock = threading.Lock()

    def note(self, event: str) -> None:
        with self.lock:
            self.events.append(event)

    def count(self, event: str) -> int:
        with self.lock:
            return self.events.count(event)


@pytest.mark.slow
def test_a_listener_backs_off_while_the_database_is_down_and_catches_up_when_back(
    pg_cluster: Cluster, team_url: str
) -> None:
    PostgresStore(team_url).close()  # the schema (the NOTIFY triggers) exists
    seen = Recorder()
    listener = TeamListener(
        team_url,
        "me",
        on_change=lambda ours: seen.note("ours" if ours else "change"),
        on_lost=lambda reason: seen.note("lost"),
        on_back=lambda: seen.note("back"),
    ).start()
    try:
        within(5, listener.connected.is_set)
        catch_ups = seen.count("change")
        pg_cluster.stop()
        try:
            within(5, lambda: seen.count("lost") == 1)
            tried = listener.attempts
            time.sleep(8.0)
            # 0.5 s doubling with full jitter averages 0.25 + 0.5 + 1 + 2 + 4 s for
            # the first five waits: 4 to 6 tries in 8 s (more than 8 once in 10^5).
            during = listener.attempts - tried
            assert 1 <= during <= 8, during
            assert listener.backoff.window() >= 8.0  # and the waits keep growing
        finally:
            pg_cluster.start()
        # A change committed while the listener is still away is caught up, not lost.
        with psycopg.connect(team_url, autocommit=True) as conn:
            conn.execute("SELECT pg_notify('comodor_brain', 'someone')")
        within(40, lambda: seen.count("back") == 1)
        within(5, lambda: seen.count("change") > catch_ups)  # the catch-up after LISTEN
        assert listener.connected.is_set()
        within(8, lambda: listener.backoff.failures == 0)  # healthy again: reset
        with psycopg.connect(team_url, autocommit=True) as conn:
            conn.execute("SELECT pg_notify('comodor_brain', 'me')")
        within(3, lambda: seen.count("ours") == 1)
    finally:
        listener.stop()
