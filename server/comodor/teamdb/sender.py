"""Sending a team brain's writes: the outbox, the database's state, telling the user.

:class:`TeamSender` is the half of :class:`~comodor.teamdb.team_store.TeamStore` that
talks to the team database: every write is queued in the
:class:`~comodor.brain.store.outbox.Outbox` and then sent, oldest first, each with its
receipt (:meth:`TeamBackend.send`); a connection error means *offline* (the user is
told once, reads fall back to :mod:`~comodor.teamdb.offline_view`), and the next
sign of life (the listener reconnecting, a notification) sends the queue first.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..brain.models import Lesson, Skill
from ..brain.store.interface import TEAM_IDS, SharedRecords, VoteInput
from ..brain.store.outbox import Entry, Outbox, is_pending, pending_id
from ..brain.store.rows import VoteRow
from . import offline_view as team_view

if TYPE_CHECKING:
    from ..brain.store import BrainStore

log = logging.getLogger(__name__)

Notice = Callable[[str], None]

RETRY_S = 5.0
"""How often a store that is offline tries the database again on its own."""


class TeamBackend(SharedRecords, Protocol):
    """What a team database offers (``comodor.teamdb.postgres.PostgresStore``).

    The shared records, plus sending with receipts, pinging, and votes of a named voter.
    """

    origin: str
    voter: str

    @property
    def location(self) -> str: ...
    def is_connection_error(self, error: BaseException) -> bool: ...
    def send(self, op: str, apply: Callable[[], int | None]) -> tuple[bool, int | None]: ...
    def rule_ids(self, dimensions: Sequence[tuple[str, str, str]]) -> dict[Any, int]: ...
    def ping(self) -> float: ...
    def reset(self) -> None: ...
    def revive(self) -> None: ...
    def integrity_check(self) -> str: ...
    def close(self) -> None: ...
    def lessons_with_terms(
        self, ids: Sequence[int] | None = None, *, after: int = 0, batch: int = 2000
    ) -> list[tuple[Lesson, str]]: ...
    def index_rows_after(
        self, after: int, batch: int, scopes: Sequence[str] | None = None
    ) -> list[tuple[Any, ...]]: ...
    def count_lessons(self, scopes: Sequence[str]) -> int: ...
    def database_id(self) -> str: ...
    def archive_unrecalled(
        self, scopes: Sequence[str], days: float, now: float | None = None
    ) -> int: ...
    def restore_archived(self, ids: Sequence[int] | None, scopes: Sequence[str]) -> list[int]: ...
    def archived_lessons(
        self, scopes: Sequence[str], limit: int = 1000
    ) -> list[tuple[int, str]]: ...
    def lesson_log_covers(self, rev: int) -> bool: ...
    def count_all_lessons(self) -> int: ...
    def schema_state(self) -> tuple[int, bool]: ...
    def add_votes(
        self,
        votes: Sequence[VoteInput],
        replace_origin: str | None = None,
        replace_scope: str | None = None,
        *,
        voter: str | None = None,
    ) -> list[int]: ...


def personal(scope: str) -> bool:
    """Whether rows of ``scope`` stay on this machine (the user's own, every project)."""
    return scope == "global"


def is_team_id(row_id: int) -> bool:
    return row_id >= TEAM_IDS


class _Offline(Exception):
    """The team database did not answer; the caller falls back to what it has."""


class TeamSender:
    """The team database's state, the outbox, and sending it."""

    def __init__(
        self,
        local: BrainStore,
        team: TeamBackend | None,
        location: str,
        *,
        reason: str = "",
        origin: str = "",
        connect: Callable[[], TeamBackend] | None = None,
    ) -> None:
        self.local = local
        self.team = team
        self.origin = team.origin if team is not None else origin
        """The token our commits carry in ``NOTIFY`` (see ``comodor.teamdb.listener``)."""
        self._connect = connect
        self.path = local.path
        self.voter = local.voter
        self.team_location = location
        self.outbox = Outbox(local, location)
        self.mirror = team_view.Mirror()
        self._listeners: list[Notice] = []
        self._online = team is not None
        self._told_offline = False
        self._team_changed = False
        self._team_seen = False
        self._queue_generation = 0
        self._queued_ids: set[int] = set()
        self._flush_lock = threading.RLock()
        self._team_rev: int = 0
        self._heard = 0
        """Notifications heard; the mirror's lessons are current when ``_mirror_at`` equals it."""
        self._mirror_at = -1
        self._listening: Callable[[], bool] | None = None
        self._log_looked_at = -1
        """``_heard`` when the team's lesson log was last read (see :meth:`log_may_have_moved`)."""
        self._wrote_since_look = True
        self._last_try = time.monotonic()
        if team is None:
            self._went_offline(reason or "it could not be opened")
        else:
            self._flush()

    # -- state and notices ----------------------------------------------------- #

    @property
    def online(self) -> bool:
        return self._online and self.team is not None

    @property
    def notices(self) -> list[str]:
        return self.local.notices

    @property
    def read_only(self) -> bool:
        return self.local.read_only

    @property
    def location(self) -> str:
        return f"{self.team_location} (personal scope and outbox: {self.path})"

    def on_notice(self, listener: Notice) -> None:
        """Call ``listener`` with what the user must be told (outage, recovery)."""
        self._listeners.append(listener)

    def _tell(self, message: str) -> None:
        self.local.notices.append(message)
        log.warning("%s", message)
        for listener in list(self._listeners):
            try:
                listener(message)
            except Exception:
                log.exception("telling the user failed")

    def _went_offline(self, reason: str) -> None:
        was_online = self._online
        self._online = False
        if was_online or not self._told_offline:
            if not self._told_offline:
                self._tell(
                    f"The team database {self.team_location} is unreachable ({reason}). "
                    "Comodor answers from memory and keeps your changes in "
                    f"{self.path}; they are sent when the database is back."
                )
            self._told_offline = True

    def went_offline(self, reason: str) -> None:
        """The listener lost its connection: queue from now on (the user is told once)."""
        self._went_offline(reason)

    def reachable_again(self) -> None:
        """The database answers again (the listener reconnected): send at the next look.

        The queue itself is sent on the brain's write lane (:meth:`changed_elsewhere`,
        called by the catch-up the listener posts), in order with every other write.
        """
        if self.team is None and self._connect is not None:
            try:
                self.team = self._connect()
            except Exception as error:
                log.warning("the team database is still unreachable: %s", error)
                return
        if self.team is not None:
            self._online = True
            self._team_changed = True

    def database_back(self) -> None:
        """The listener got in, so the database answers: reconnect now, send at the next look.

        Only a store that counts itself offline renews its pool (see
        ``PostgresDatabase.revive``); one that is online keeps what works.
        """
        team = self.team
        if team is not None and not self._online:
            try:
                team.revive()
            except Exception:
                log.exception("renewing the team database's connection pool failed")
        self.reachable_again()

    @property
    def _db(self) -> TeamBackend:
        """The team database (only called inside :meth:`_call`, which checks there is one)."""
        if self.team is None:
            raise _Offline
        return self.team

    def _probe(self) -> None:
        """While offline, try the database again now and then (not only on the listener)."""
        if self._online or time.monotonic() - self._last_try < RETRY_S:
            return
        self._last_try = time.monotonic()
        self.reachable_again()
        team = self.team
        if self.online and team is not None:
            try:
                team.reset()
                team.ping()
            except Exception as error:
                if not team.is_connection_error(error):
                    raise
                self._online = False

    def _call(self, function: Callable[[], Any]) -> Any:
        """Run a read on the team database, or raise :class:`_Offline`."""
        self._probe()
        if not self.online or self.team is None:
            raise _Offline
        try:
            return function()
        except Exception as error:
            if self.team.is_connection_error(error):
                self._went_offline(str(error).splitlines()[0] if str(error) else "no answer")
                raise _Offline from error
            raise

    # -- sending --------------------------------------------------------------- #

    def _queue(self, name: str, args: dict[str, Any]) -> tuple[Entry, Any]:
        """Queue one operation and send what is queued; (entry, its result if it was sent)."""
        entry = self.outbox.put(name, args)
        self._wrote_since_look = True
        self._queue_changed()
        self.mirror.stale()
        named = [args[k] for k in ("lesson_id",) if k in args] + list(args.get("ids", ()))
        if name not in ("credit_skills",):
            self.mirror.forget_lessons(named)  # read again after our own change
        self._probe()
        results = self._flush(entry.seq)
        return entry, results.get(entry.seq, _NOT_SENT)

    def _queue_changed(self) -> None:
        """The queue changed: the recall index must look at queued lessons again."""
        self._queue_generation += 1

    def _flush(self, current: int | None = None) -> dict[int, Any]:
        """Send queued operations in order; stop at the first the database does not take.

        ``current`` is the entry the caller just queued: an error of the operation
        itself (not of the connection) is the caller's error and is raised; an older
        entry that can never be applied is dropped, logged and told.
        """
        results: dict[int, Any] = {}
        team = self.team
        if team is None or not self._online:
            return results
        with self._flush_lock:
            entries = self.outbox.pending()
            was_queued = len(entries) - (1 if current is not None else 0)
            for entry in entries:
                try:
                    fresh, result = self._send(team, entry)
                except Exception as error:
                    if team.is_connection_error(error):
                        self._went_offline(str(error).splitlines()[0] if str(error) else "")
                        return results
                    self.outbox.done(entry)
                    self._queue_changed()
                    if entry.seq == current:
                        raise
                    log.exception("dropping a queued change the team database refuses")
                    self._tell(f"A change queued for the team database was refused: {error}")
                    continue
                mapped = self._mapped_ids(entry, fresh, result)
                self.outbox.done(entry, mapped)
                self._queue_changed()
                results[entry.seq] = self._result_of(entry, result, mapped)
            if was_queued > 0 and self._told_offline:
                changes = "1 change" if was_queued == 1 else f"{was_queued} changes"
                verb = "was" if was_queued == 1 else "were"
                self._tell(
                    f"The team database {self.team_location} is back; "
                    f"{changes} made meanwhile {verb} sent."
                )
            self._told_offline = False
        return results

    def _send(self, team: TeamBackend, entry: Entry) -> tuple[bool, int | None]:
        """Send one entry; after a connection error, once more on fresh connections.

        A database that restarted leaves broken connections in the pool; the first
        use of one fails although the server answers. The receipt makes the retry safe.
        """
        apply = functools.partial(self._apply, entry)
        try:
            return team.send(entry.op, apply)
        except Exception as error:
            if not team.is_connection_error(error):
                raise
            team.reset()
            return team.send(entry.op, apply)

    def _translate(self, values: Sequence[int]) -> list[int]:
        pending = [value for value in values if is_pending(value)]
        real = self.outbox.real_ids(pending)
        return [real.get(value, value) if is_pending(value) else value for value in values]

    def _apply(self, entry: Entry) -> int | None:
        """Apply one queued operation on the team database (inside its receipt's transaction)."""
        team = self.team
        assert team is not None
        args = dict(entry.args)
        for field in ("lesson_id", "rule_id"):
            if field in args:
                (args[field],) = self._translate([args[field]])
                if is_pending(args[field]):
                    return None  # the row it names was never sent (refused): nothing to do
        if "ids" in args:
            args["ids"] = [i for i in self._translate(args["ids"]) if not is_pending(i)]
        name = entry.name
        if name == "add_lesson":
            return team.add_lesson(team_view.lesson_from_args(args["lesson"]), args["terms"]).id
        if name == "add_lessons":
            pairs = [(team_view.lesson_from_args(d), terms) for d, terms in args["lessons"]]
            team.add_lessons(pairs)
        elif name == "add_skill":
            return team.add_skill(Skill(**args["skill"])).id
        elif name == "add_votes":
            votes = [
                (key, scope, language, category, VoteRow(**vote))
                for key, scope, language, category, vote in args["votes"]
            ]
            team.add_votes(
                votes, args["replace_origin"], args["replace_scope"], voter=args["voter"]
            )
        elif name == "merge_lessons":
            merges = [(kept, gone) for kept, gone in map(self._translate, args["pairs"])]
            team.merge_lessons([m for m in merges if not (is_pending(m[0]) or is_pending(m[1]))])
        elif name == "set_rule_flags":
            team.set_rule_flags(args["rule_id"], pinned=args["pinned"], active=args["active"])
        else:
            getattr(team, name)(**args)
        return None

    def _mapped_ids(self, entry: Entry, fresh: bool, result: int | None) -> list[tuple[int, int]]:
        """Pending ids this entry handed out, and the real ids their rows got."""
        del fresh
        team = self.team
        if entry.name in ("add_lesson", "add_skill") and result is not None:
            return [(pending_id(entry.seq), result)]
        if entry.name == "add_votes" and team is not None:
            dims = team_view.dimensions(entry.args["votes"])
            found = team.rule_ids(dims)
            return [
                (pending_id(entry.seq, k), found[dim]) for k, dim in enumerate(dims) if dim in found
            ]
        return []

    @staticmethod
    def _result_of(entry: Entry, result: int | None, mapped: Sequence[tuple[int, int]]) -> Any:
        if entry.name == "add_votes":
            return [real for _, real in mapped]
        return result

    def flush(self) -> int:
        """Send whatever is queued now (after an outage); return how many went out."""
        return len(self._flush())

    # -- freshness ------------------------------------------------------------- #

    def listen_with(self, connected: Callable[[], bool]) -> None:
        """A listener hears every commit while ``connected()`` (``teamdb.opening``)."""
        self._listening = connected

    def log_may_have_moved(self) -> bool:
        """Whether the team's lesson log must be read again, or is known unchanged.

        Known unchanged only while a listener is connected (``LISTEN`` hears every
        commit after it, and reconnecting counts as hearing one), nothing was heard
        since the last read, and this store wrote nothing since (its own ``NOTIFY``
        may still be on its way). Otherwise, as without a listener, it is read.
        """
        listening = self._listening
        return (
            listening is None
            or not listening()
            or self._wrote_since_look
            or self._log_looked_at != self._heard
        )

    def looking_at_log(self) -> int:
        """Called just before reading the log: what was heard then."""
        self._wrote_since_look = False
        self._log_looked_at = heard = self._heard
        return heard

    def note_team_change(self, ours: bool) -> None:
        """The listener heard a commit on the team database (``ours``: by this store)."""
        self._team_seen = True
        self._heard += 1
        self.mirror.stale()
        if not ours:
            self._team_changed = True

    def changed_elsewhere(self) -> bool:
        local = self.local.changed_elsewhere()
        team, self._team_changed = self._team_changed, False
        if team and self.outbox.count():
            self._flush()
        return local or team

    def committed_since_last_look(self) -> bool:
        local = self.local.committed_since_last_look()
        team, self._team_seen = self._team_seen, False
        return local or team

    def integrity_check(self) -> str:
        return self.local.integrity_check()

    def recover_if_damaged(self) -> str | None:
        """Only the local file can be damaged by this machine; the database keeps its own."""
        return self.local.recover_if_damaged()

    def close(self) -> None:
        if self.team is not None:
            self.team.close()
        self.local.close()


_NOT_SENT: Any = object()
"""The result of a queued operation that is still in the outbox."""
