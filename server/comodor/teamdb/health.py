"""What ``comodor-lsp doctor`` says about a team database: reach, schema, latency, outbox."""

from __future__ import annotations

import statistics

from .postgres import PostgresStore
from .postgres_schema import TEAM_SCHEMA_VERSION
from .team_store import TeamStore

PINGS = 5


def check_team(store: TeamStore) -> tuple[bool, str]:
    """(healthy, one line): connection, migrations and round-trip latency, queued changes."""
    queued = store.outbox.count()
    waiting = f"; {queued} change{'s' if queued != 1 else ''} waiting to be sent" if queued else ""
    if store.team is None:
        store.reachable_again()
    team = store.team
    if team is None:
        reason = next((n for n in reversed(store.notices) if "team database" in n), "")
        return False, f"{store.team_location}: unreachable. {reason}{waiting}".strip()
    assert isinstance(team, PostgresStore)
    try:
        version, usable = team.schema_state()
        latencies = [team.ping() * 1000 for _ in range(PINGS)]
    except Exception as error:
        if not team.is_connection_error(error):
            raise
        return False, f"{store.team_location}: unreachable ({team.unreachable(error)}){waiting}"
    if store.outbox.count():
        store.reachable_again()
        store.flush()
        queued = store.outbox.count()
        waiting = f"; {queued} changes still waiting to be sent" if queued else ""
    if version == TEAM_SCHEMA_VERSION:
        migrated = f"schema {version}"
    elif usable:
        migrated = f"schema {version}, newer than this Comodor's {TEAM_SCHEMA_VERSION} but usable"
    else:
        migrated = f"schema {version}, expected {TEAM_SCHEMA_VERSION}"
    detail = (
        f"{store.team_location} as {store.voter} ({migrated}): round trip "
        f"{statistics.median(latencies):.1f} ms median of {PINGS}{waiting}"
    )
    return usable and not queued, detail
