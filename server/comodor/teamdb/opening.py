"""Opening the brain an app asked for: the local file, or a team database over it.

``ComodorApp`` calls :func:`open_store` once, with the settings every door resolves
the same way (``brain.url``: ``initializationOptions``, the user-level settings file
or ``COMODOR_BRAIN_URL``; never a workspace), and :func:`watch_team` from
``watch_other_processes`` in long-running hosts. The team database itself lives in
:mod:`comodor.teamdb`, imported only when a URL is set.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..brain.events import EventBus, Notice
from ..brain.store import BrainStore, Store
from ..settings import Settings

if TYPE_CHECKING:
    from .listener import TeamListener


def open_store(settings: Settings, brain_path: Path, *, strict: bool) -> Store:
    """The store for these settings (``strict``: a refused login is an error, not offline).

    Without ``strict`` (an editor) a team URL that cannot work (not PostgreSQL, no
    driver) opens the local file alone, with a notice that nothing is shared; the
    command line refuses.
    """
    url = settings.brain.url.strip()
    if not url:
        return BrainStore(brain_path)
    from .connect import open_team_store, unusable_for_an_editor

    local = None if strict else unusable_for_an_editor(brain_path, url)
    return local if local is not None else open_team_store(brain_path, url, strict=strict)


def announce_notices(store: Store, bus: EventBus) -> None:
    """A team store's outage and recovery notices become :class:`Notice` events."""
    if isinstance(store, BrainStore):
        return  # the local file alone: nothing of the team database is loaded
    from .team_store import TeamStore

    if isinstance(store, TeamStore):
        store.on_notice(lambda message: bus.emit(Notice(message)))


def watch_team(
    store: Store,
    url: str,
    post: Callable[[Callable[[], object], str], None],
    catch_up: Callable[[], object],
) -> TeamListener | None:
    """Listen for other users' changes and for outages (None without a team database)."""
    if isinstance(store, BrainStore):
        return None
    from .team_store import TeamStore

    if not isinstance(store, TeamStore):
        return None
    from .listener import TeamListener

    def changed(ours: bool) -> None:
        store.note_team_change(ours)
        if not ours:
            post(catch_up, "catch up with the team database")

    def back() -> None:
        store.database_back()
        post(catch_up, "send the outbox and catch up with the team database")

    listener = TeamListener(
        url,
        store.origin,
        on_change=changed,
        on_lost=store.went_offline,
        on_back=back,
        offline=lambda: not store.online,
    )
    store.listen_with(listener.connected.is_set)
    return listener.start()
