"""What ``comodor-lsp team status`` reads from a team database: size, users, change, load.

A platform team asks these before and after rolling a team brain out: how big it
is per scope, how many people vote in it, when it last changed and by whom, which
schema it is at, how many connections the servers hold on it now, and how many
lessons retention archived (:mod:`comodor.teamdb.retention`: never silently). Everything
is read in one short read-only connection of its own (never the pool, never a
migration: a status command must not change the database it reports on).

Lag per server is not known: servers do not record the log revision they have
read anywhere the database can see, so the report says ``unknown`` rather than
guessing from connection ages.
"""

from __future__ import annotations

import time
from typing import Any

import attrs

from ..brain.errors import BrainUnavailable
from .postgres import CONNECT_TIMEOUT_S, describe, redact_url

LAG_UNKNOWN = "unknown"


@attrs.frozen
class ScopeSize:
    scope: str
    lessons: int
    rules: int
    votes: int
    archived: int = 0
    """Lessons retention moved out of recall (``learning.archiveAfterDays``), restorable."""


@attrs.frozen
class LastChange:
    at: float
    """Unix time of the newest lesson, rule or vote change (0 when there is none)."""
    what: str
    """``lesson``, ``rule`` or ``vote``."""
    by: str
    """The voter for a vote; "" when the database does not record who (lessons, rules)."""


@attrs.frozen
class TeamStatus:
    database: str
    schema_version: int
    scopes: list[ScopeSize]
    users: int
    last_change: LastChange | None
    log_revision: int
    connections: int
    """Every session on this database now, this command's own excluded."""
    comodor_connections: int
    """Those opened by Comodor servers: pooled (``comodor``) and listeners (``comodor-listen``)."""
    lag: str = LAG_UNKNOWN
    archived: int = 0
    """Archived lessons in every scope (kept, restorable: ``comodor-lsp team restore``)."""

    def as_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


_SIZES = """
SELECT scope, sum(lessons)::bigint, sum(rules)::bigint, sum(votes)::bigint,
    sum(archived)::bigint FROM (
    SELECT scope, count(*) AS lessons, 0 AS rules, 0 AS votes, 0 AS archived FROM lessons
        GROUP BY scope
    UNION ALL
    SELECT scope, 0, count(*), 0, 0 FROM rules GROUP BY scope
    UNION ALL
    SELECT r.scope, 0, 0, count(*), 0 FROM rule_votes v JOIN rules r ON r.id = v.rule_id
        GROUP BY r.scope
    {archived}
) AS counted GROUP BY scope ORDER BY scope
"""
_ARCHIVED = "UNION ALL SELECT scope, 0, 0, 0, count(*) FROM archived_lessons GROUP BY scope"
_LAST = """
SELECT at, what, by FROM (
    SELECT max(updated_at) AS at, 'lesson' AS what, '' AS by FROM lessons
    UNION ALL
    SELECT max(updated_at), 'rule', '' FROM rules
    UNION ALL
    (SELECT created_at, 'vote', voter FROM rule_votes ORDER BY created_at DESC LIMIT 1)
) AS newest WHERE at IS NOT NULL ORDER BY at DESC LIMIT 1
"""
_CONNECTIONS = """
SELECT count(*), count(*) FILTER (WHERE application_name IN ('comodor', 'comodor-listen'))
FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
"""


def read_status(url: str) -> TeamStatus:
    """The team database's status, or :class:`BrainUnavailable` saying why it cannot be read."""
    try:
        import psycopg
    except ImportError as error:
        raise BrainUnavailable(
            f"brain.url names a team database, but its driver is not installed ({error}); "
            "install it with pip install 'comodor-lsp[team]'."
        ) from None
    where = redact_url(url)
    try:
        with psycopg.connect(
            url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
            application_name="comodor-status",
        ) as conn:  # fmt: skip
            return _read(conn, where)
    except psycopg.OperationalError as error:
        raise BrainUnavailable(
            f"cannot reach the team database {where}: {describe(error)}"
        ) from None
    except psycopg.Error as error:  # reached, but a query was refused (no permission…)
        raise BrainUnavailable(
            f"cannot read the team database {where}: {describe(error)}"
        ) from None


def _read(conn: Any, where: str) -> TeamStatus:
    made = conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()[0]
    total, ours = conn.execute(_CONNECTIONS).fetchone()
    if not made:  # no Comodor has connected yet: nothing to count
        return TeamStatus(where, 0, [], 0, None, 0, int(total), int(ours))
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    archives = conn.execute("SELECT to_regclass('archived_lessons') IS NOT NULL").fetchone()[0]
    sizes = _SIZES.format(archived=_ARCHIVED if archives else "")
    scopes = [ScopeSize(s, int(a), int(b), int(c), int(d)) for s, a, b, c, d in conn.execute(sizes)]
    users = conn.execute(
        "SELECT count(DISTINCT voter) FROM rule_votes WHERE voter <> ''"
    ).fetchone()[0]
    last = conn.execute(_LAST).fetchone()
    revision = conn.execute("SELECT coalesce(max(rev), 0) FROM lesson_log").fetchone()[0]
    return TeamStatus(
        database=where,
        schema_version=int(row[0]) if row else 0,
        scopes=scopes,
        users=int(users),
        last_change=LastChange(float(last[0]), str(last[1]), str(last[2])) if last else None,
        log_revision=int(revision),
        connections=int(total),
        comodor_connections=int(ours),
        archived=sum(size.archived for size in scopes),
    )


def render_status(status: TeamStatus, *, now: float | None = None) -> str:
    """The status for a terminal: one aligned block, a size table per scope."""
    lines = [
        f"database     {status.database}",
        f"schema       {status.schema_version or 'not created yet (no server has connected)'}",
        f"users        {status.users} distinct voter{'s' if status.users != 1 else ''}",
        f"last change  {_change(status.last_change, now)}",
        f"log          revision {status.log_revision}",
        f"connections  {status.connections} open now ({status.comodor_connections} from Comodor)",
        f"lag          {status.lag} (servers do not report the revision they have read)",
        f"archived     {_archived(status.archived)}",
    ]
    if status.scopes:
        width = max(len("scope"), *(len(s.scope) for s in status.scopes))
        lines += [
            "",
            f"{'scope'.ljust(width)}  {'lessons':>9}  {'rules':>7}  {'votes':>7}  {'archived':>9}",
        ]
        for size in status.scopes:
            lines.append(
                f"{size.scope.ljust(width)}  {size.lessons:>9,}  {size.rules:>7,}"
                f"  {size.votes:>7,}  {size.archived:>9,}"
            )
    else:
        lines += ["", "no lessons, rules or votes yet"]
    return "\n".join(lines)


def _archived(count: int) -> str:
    if not count:
        return "none (learning.archiveAfterDays is off, or nothing was old enough)"
    plural = "lesson" if count == 1 else "lessons"
    return (
        f"{count:,} {plural} not recalled for learning.archiveAfterDays, kept out of recall; "
        "comodor-lsp team restore --all brings them back"
    )


def _change(change: LastChange | None, now: float | None) -> str:
    if change is None:
        return "none yet"
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(change.at))
    ago = max(0.0, (now if now is not None else time.time()) - change.at)
    by = f" by {change.by}" if change.by else " (who is not recorded for a lesson or rule)"
    return f"{when} ({_ago(ago)} ago), a {change.what}{by}"


def _ago(seconds: float) -> str:
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.0f} s"
