"""Connecting to a team database: PostgreSQL over the local file, offline when it must be.

Imported only when ``brain.url`` is set (from :func:`comodor.teamdb.opening.open_store`),
so a plain workspace never loads the driver or this package's heavier modules.
"""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

from ..brain.errors import BrainError, BrainUnavailable
from ..brain.store import BrainStore
from .postgres import is_database_url, redact_url, refused_login
from .team_store import TeamStore

log = logging.getLogger(__name__)


def driver_missing() -> str | None:
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as error:
        return str(error)
    return None


def unusable_for_an_editor(local_path: Path, url: str) -> BrainStore | None:
    """The local brain alone, saying the team brain is not shared, when ``url`` cannot work.

    A URL that is not PostgreSQL, or no driver to reach it: the user set ``brain.url``
    believing their team shares one brain, and working on silently from the local
    file would let them believe it. An editor must keep working, so it uses the local
    file (never a throw-away one: what is learned is kept) and its notice, shown
    once, says what to fix. None when the URL is worth connecting to.
    """
    if not is_database_url(url):
        why = f"brain.url must be a postgresql:// URL, got {redact_url(url)[:80]!r}"
        fix = (
            "Set it (or COMODOR_BRAIN_URL) to the team database's postgresql:// URL, or "
            "clear it, and restart the editor."
        )
    else:
        missing = driver_missing()
        if missing is None:
            return None
        why = f"brain.url names a team database, but its driver is not installed ({missing})"
        fix = "Install the driver with pip install 'comodor-lsp[team]' and restart the editor."
    local = BrainStore(local_path)
    local.notices.append(
        f"{why}: the team brain is not shared, and Comodor uses only the brain on this "
        f"machine ({local_path}). {fix}"
    )
    return local


def open_team_store(
    local_path: Path, url: str, *, voter: str = "", strict: bool = False
) -> TeamStore:
    """The team brain for ``url`` over the local file at ``local_path``.

    A database that cannot be reached is not fatal: the store starts offline, keeps
    writes in the local outbox and says so in its notices. A refused login (wrong
    password, unknown role or database) is a configuration error: with ``strict``
    (the command line) it is raised as :class:`BrainUnavailable`; otherwise the store
    starts offline the same way, and the notice names the cause. A missing driver is
    raised (an editor opens :func:`unusable_for_an_editor` instead).
    """
    if not is_database_url(url):
        raise BrainError(
            f"brain.url must be a postgresql:// URL, got {redact_url(url)[:80]!r}; set it "
            "(or COMODOR_BRAIN_URL) to the team database's postgresql:// URL, or clear it "
            "to use the local brain."
        )
    missing = driver_missing()
    if missing is not None:
        raise BrainUnavailable(
            "brain.url names a team database, but its driver is not installed "
            f"({missing}); install it with pip install 'comodor-lsp[team]'."
        )
    from .postgres import PostgresStore

    local = BrainStore(local_path, voter=voter)
    origin = uuid.uuid4().hex

    def connect() -> PostgresStore:
        return PostgresStore(url, voter=local.voter, origin=origin)

    try:
        team: PostgresStore | None = connect()
        reason = ""
    except BrainUnavailable as error:
        if strict and refused_login(error):
            local.close()
            raise
        team, reason = None, error.reason or str(error)
        if refused_login(error):
            log.error("%s", error)
    store = TeamStore(local, team, redact_url(url), reason=reason, origin=origin, connect=connect)
    if "@" in url and redact_url(url) != url:
        store.local.notices.append(
            "brain.url carries a password; Comodor never shows or stores it, but "
            "it belongs in PGPASSWORD or ~/.pgpass, not in a settings file."
        )
    return store
