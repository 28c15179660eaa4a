"""A team brain: shared rows in a team database, personal ones in the local file.

:class:`TeamStore` is the :class:`~comodor.brain.store.interface.Store` a brain gets
when ``brain.url`` names a database. It routes, and owns no SQL of its own:

* **by scope, for new rows**: a lesson, skill or vote in the ``global`` scope (the
  user's own, for every project) goes to the local file and never leaves the
  machine; every other scope (the project's) goes to the team database;
* **by id, for existing rows**: ids are disjoint (team rows start at
  :data:`~comodor.brain.store.interface.TEAM_IDS`, queued ones at
  :data:`~comodor.brain.store.outbox.PENDING_IDS`), so ``forget(id)`` knows where
  the row is;
* **reads cover both**: the local file may also hold project rows from before the
  team database (nothing learned is hidden by pointing at one);
* **what is personal stays local**: tasks, signals, feedback, checkpoints and meta.

Every team write goes through the :class:`~comodor.brain.store.outbox.Outbox` (durable
first, then sent, exactly once, in order). While the database is unreachable, writes
stay queued, reads answer from :mod:`~comodor.teamdb.offline_view` (the mirror and
the overlay of the queue), and the user is told once; when it answers again the queue
is sent before anything else and the user is told how much went out.

The backend (:class:`TeamBackend`) is supplied by ``comodor.teamdb``, so the brain
itself imports no database driver.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import attrs

from ..brain.errors import BrainUnavailable
from ..brain.models import Lesson, Skill
from ..brain.recall.text import terms as text_terms
from ..brain.store.interface import LogPosition, VoteInput
from ..brain.store.outbox import is_pending, pending_id
from ..brain.store.rows import RuleRow
from . import offline_view as team_view
from .personal_rows import PersonalRows
from .sender import _NOT_SENT, TeamSender, _Offline, is_team_id, personal


class TeamStore(TeamSender, PersonalRows):
    """The local brain file plus a team database, seen as one store."""

    # -- lessons ----------------------------------------------------------------- #

    def _overlay(self) -> team_view.Overlay:
        return team_view.fold(self.outbox.pending(), self.voter)

    def add_lesson(self, lesson: Lesson, terms: str) -> Lesson:
        if personal(lesson.scope):
            return self.local.add_lesson(lesson, terms)
        entry, result = self._queue("add_lesson", {"lesson": attrs.asdict(lesson), "terms": terms})
        lesson.id = result if result is not _NOT_SENT else pending_id(entry.seq)
        if result is not _NOT_SENT:
            self.mirror.put_lessons([(lesson, terms)])
        return lesson

    def add_lessons(self, lessons: Iterable[tuple[Lesson, str]]) -> int:
        pairs = list(lessons)
        mine = [(lesson, terms) for lesson, terms in pairs if personal(lesson.scope)]
        shared = [
            [attrs.asdict(lesson), terms] for lesson, terms in pairs if not personal(lesson.scope)
        ]
        if mine:
            self.local.add_lessons(mine)
        if shared:
            self._queue("add_lessons", {"lessons": shared})
        return len(pairs)

    def get_lessons(self, ids: Sequence[int]) -> list[Lesson]:
        """Lessons by id; team lessons the mirror holds come from memory.

        The mirror follows the lesson log as the recall index does: reading the log
        drops the rows it names (the index then reads them again), so right after a
        look at the log with nothing heard since, every row left is current and a
        recall's winners are read without a round trip. Only ``uses``/``last_used``
        may lag (they are not logged, as in the local file: every recall bumps them).
        """
        if not ids:
            return []
        by_id = {lesson.id: lesson for lesson in self.local.get_lessons(
            [i for i in ids if not is_team_id(i)])}  # fmt: skip
        wanted = [i for i in ids if is_team_id(i) and not is_pending(i)]
        if self._mirror_at == self._heard and self.online and not self.outbox.count():
            by_id.update(self.mirror.known_lessons(wanted))
        team_ids = [i for i in wanted if i not in by_id]
        if team_ids:
            try:
                found = self._call(lambda: self._db.get_lessons(team_ids))
                self.mirror.put_lessons((lesson, None) for lesson in found)
                by_id.update((lesson.id, lesson) for lesson in found)
            except _Offline:
                view = self.mirror.lesson_view(self._overlay())
                by_id.update((i, view[i][0]) for i in team_ids if i in view)
        if any(is_pending(i) for i in ids):
            view = self.mirror.lesson_view(self._overlay())
            by_id.update((i, view[i][0]) for i in ids if is_pending(i) and i in view)
        return [by_id[i] for i in ids if i in by_id]

    def get_lesson(self, lesson_id: int) -> Lesson | None:
        found = self.get_lessons([lesson_id])
        return found[0] if found else None

    def _team_lessons_view(self, scopes: Sequence[str]) -> list[Lesson]:
        wanted = set(scopes)
        view = self.mirror.lesson_view(self._overlay())
        return [lesson for lesson, _ in view.values() if lesson.scope in wanted]

    def lessons(self, scopes: Sequence[str], limit: int = 1_000_000) -> list[Lesson]:
        found = self.local.lessons(scopes, limit)
        shared = [s for s in scopes if not personal(s)]
        if shared:
            try:
                team = self._call(lambda: self._db.lessons(shared, limit))
                self.mirror.put_lessons((lesson, None) for lesson in team)
                team += [pair[0] for pair in self._overlay().lessons.values()]
            except _Offline:
                team = self._team_lessons_view(shared)
            found += team
        found.sort(key=lambda lesson: (not lesson.pinned, -lesson.updated_at, -lesson.id))
        return found[:limit]

    def count_lessons(self, scopes: Sequence[str]) -> int:
        count = self.local.count_lessons(scopes)
        shared = [s for s in scopes if not personal(s)]
        if shared:
            try:
                count += int(self._call(lambda: self._db.count_lessons(shared)))
            except _Offline:
                count += len(self._team_lessons_view(shared))
        return count

    def search_lessons(
        self, words: Sequence[str], scopes: Sequence[str], limit: int
    ) -> list[tuple[Lesson, float]]:
        """Both stores' best matches, interleaved by rank (their scores differ in kind)."""
        local = self.local.search_lessons(words, scopes, limit)
        shared = [s for s in scopes if not personal(s)]
        team: list[tuple[Lesson, float]] = []
        if shared and words:
            try:
                team = self._call(lambda: self._db.search_lessons(words, shared, limit))
                self.mirror.put_lessons((lesson, None) for lesson, _ in team)
            except _Offline:
                team = team_view_search(self._team_lessons_view(shared), words, limit)
        merged: list[tuple[Lesson, float]] = []
        for pair in zip(local, team, strict=False):
            merged.extend(pair)
        longer = local if len(local) > len(team) else team
        merged.extend(longer[min(len(local), len(team)) :])
        return merged[:limit]

    def index_rows(self, lesson_ids: Sequence[int] | None = None) -> list[tuple[Any, ...]]:
        if lesson_ids is None:
            return list(self.iter_index_rows())
        rows = self.local.index_rows([i for i in lesson_ids if not is_team_id(i)])
        team_ids = [i for i in lesson_ids if is_team_id(i) and not is_pending(i)]
        view: dict[int, tuple[Lesson, str]] | None = None
        if team_ids:
            try:
                found = self._call(lambda: self._db.lessons_with_terms(team_ids))
                self.mirror.forget_lessons(team_ids)
                self.mirror.put_lessons(found)
                rows += [team_view.index_row(lesson, terms) for lesson, terms in found]
            except _Offline:
                view = self.mirror.lesson_view(self._overlay())
                rows += [team_view.index_row(*view[i]) for i in team_ids if i in view]
        pending = [i for i in lesson_ids if is_pending(i)]
        if pending:
            queued = self._overlay()
            view = self.mirror.lesson_view(queued)
            rows += [team_view.index_row(*view[i]) for i in pending if i in view]
        return rows

    def iter_index_rows(
        self, batch: int = 2000, scopes: Sequence[str] | None = None
    ) -> Iterator[tuple[Any, ...]]:
        """Every lesson's index row (of ``scopes``, if given): never a lesson's text.

        The team's rows come from the database's own index rows (``trigger_terms`` is
        stored), so building the index neither re-reads 200,000 texts nor keeps a copy
        of them: the mirror holds the lessons this server has actually read (recall's
        winners, lists), which is what it can answer from while the database is away.
        With ``scopes`` (the recall index of one project: ``global`` and the project's)
        the other projects' lessons are not read at all.
        """
        wanted = None if scopes is None else set(scopes)

        def ours(row: tuple[Any, ...]) -> bool:
            return wanted is None or row[1] in wanted

        yield from filter(ours, self.local.iter_index_rows(batch))
        shared = None if scopes is None else [s for s in scopes if not personal(s)]
        given: set[int] = set()
        try:
            last = 0
            while shared != []:
                found = self._call(
                    functools.partial(self._db.index_rows_after, last, batch, shared)
                )
                for row in found:
                    given.add(row[0])
                    yield tuple(row)
                if len(found) < batch:
                    break
                last = found[-1][0]
            queued = self._overlay()
            for lesson, terms in queued.lessons.values():
                if lesson.id not in queued.deleted_lessons:
                    yield from filter(ours, [team_view.index_row(lesson, terms)])
        except _Offline:
            for lesson, terms in self.mirror.lesson_view(self._overlay()).values():
                if lesson.id not in given:
                    yield from filter(ours, [team_view.index_row(lesson, terms)])

    def lesson_log_head(self) -> LogPosition:
        local = self.local.lesson_log_head()
        assert isinstance(local, int)
        with contextlib.suppress(_Offline):
            self._team_rev = int(self._call(self._db.lesson_log_head))
        self._queued_ids = set(self._overlay().lessons)
        return (local, self._team_rev, self._queue_generation)

    def lesson_log_since(self, rev: LogPosition) -> tuple[LogPosition, list[int]]:
        assert isinstance(rev, tuple) and len(rev) == 3
        local_rev, team_rev, generation = rev
        local_head, changed = self.local.lesson_log_since(local_rev)
        assert isinstance(local_head, int)
        changed = list(changed)
        if self.online and not self.log_may_have_moved():
            pass  # the listener heard nothing since the last read: no round trip
        else:
            heard = self.looking_at_log()
            try:
                head, team_changed = self._call(lambda: self._db.lesson_log_since(team_rev))
                team_rev = int(head)
                changed += team_changed
                self.mirror.forget_lessons(team_changed)
                self._mirror_at = heard
            except _Offline:
                self._wrote_since_look = True
        if generation != self._queue_generation:
            queued = set(self._overlay().lessons)
            changed += sorted(queued | self._queued_ids)
            self._queued_ids = queued
            generation = self._queue_generation
        return (local_head, team_rev, generation), list(dict.fromkeys(changed))

    # -- retention (comodor.teamdb.retention) ---------------------------------- #

    def archive_unrecalled(
        self, scopes: Sequence[str], days: float, now: float | None = None
    ) -> int:
        """Archive the team lessons not recalled for ``days`` days; 0 while offline."""
        shared = [s for s in scopes if not personal(s)]
        if not shared or days <= 0:
            return 0
        self._wrote_since_look = True
        try:
            return int(self._call(lambda: self._db.archive_unrecalled(shared, days, now)))
        except _Offline:
            return 0  # archiving can wait for the database; nothing is lost meanwhile

    def restore_archived(self, ids: Sequence[int] | None, scopes: Sequence[str]) -> list[int]:
        """Bring archived team lessons back (all of ``scopes``' when ``ids`` is None)."""
        shared = [s for s in scopes if not personal(s)]
        self._wrote_since_look = True
        try:
            return list(self._call(lambda: self._db.restore_archived(ids, shared)))
        except _Offline:
            raise BrainUnavailable(
                f"the team database {self.team_location} is unreachable; "
                "archived lessons can be restored once it answers"
            ) from None

    def archived_lessons(self, scopes: Sequence[str]) -> list[tuple[int, str]]:
        shared = [s for s in scopes if not personal(s)]
        return list(self._call(lambda: self._db.archived_lessons(shared)))

    # -- the recall snapshot (comodor.brain.recall.team_snapshots) ----------------- #

    def recall_snapshot_identity(self) -> str | None:
        """Local brain, team database and its schema; None when the database is away.

        The scopes the index holds are the snapshot's too (its file is per project).
        """
        local = self.local.get_meta("brain_id")
        if local is None:
            return None
        try:
            database = self._call(self._db.database_id)
            schema, _ = self._call(self._db.schema_state)
        except _Offline:
            return None
        return f"{local}/{database}/team-schema-{schema}"

    def recall_snapshot_covers(self, local_rev: int, team_rev: int) -> bool:
        """Whether both logs lead on from these revisions (none behind it, none pruned)."""
        local_head = self.local.lesson_log_head()
        assert isinstance(local_head, int)
        if local_rev > local_head or not self.local.lesson_log_covers(local_rev):
            return False
        try:
            team_head = int(self._call(self._db.lesson_log_head))
            return team_rev <= team_head and bool(
                self._call(lambda: self._db.lesson_log_covers(team_rev))
            )
        except _Offline:
            return False

    def recall_snapshot_writable(self) -> bool:
        """Only while online with nothing queued: a pending id means nothing elsewhere."""
        return self.online and not self.outbox.count()

    def count_indexed_lessons(self, scopes: Sequence[str]) -> int:
        """The lessons of ``scopes`` a recall index must hold: local, team, queued; -1 offline."""
        wanted = set(scopes)
        queued = self._overlay()
        pending = len(
            [
                lesson_id
                for lesson_id, (lesson, _) in queued.lessons.items()
                if lesson_id not in queued.deleted_lessons and lesson.scope in wanted
            ]
        )
        shared = [s for s in scopes if not personal(s)]
        try:
            team = int(self._call(lambda: self._db.count_lessons(shared))) if shared else 0
        except _Offline:
            return -1
        return self.local.count_lessons(scopes) + team + pending

    def update_lesson_text(self, lesson_id: int, trigger: str, guidance: str, terms: str) -> None:
        if not is_team_id(lesson_id):
            self.local.update_lesson_text(lesson_id, trigger, guidance, terms)
            return
        self._queue(
            "update_lesson_text",
            {"lesson_id": lesson_id, "trigger": trigger, "guidance": guidance, "terms": terms},
        )

    def reinforce(self, lesson_id: int, boost: float, ceiling: float) -> None:
        if not is_team_id(lesson_id):
            self.local.reinforce(lesson_id, boost, ceiling)
            return
        self._queue("reinforce", {"lesson_id": lesson_id, "boost": boost, "ceiling": ceiling})

    def _known_lesson(self, lesson_id: int) -> bool:
        """Whether the lesson exists: the mirror holds only what this server read."""
        if lesson_id in self.mirror.lesson_view(self._overlay()):
            return True
        if is_pending(lesson_id):
            return False
        try:
            return bool(self._call(lambda: self._db.get_lessons([lesson_id])))
        except _Offline:
            return False

    def set_pinned(self, lesson_id: int, pinned: bool) -> bool:
        if not is_team_id(lesson_id):
            return self.local.set_pinned(lesson_id, pinned)
        known = self._known_lesson(lesson_id)
        _, result = self._queue("set_pinned", {"lesson_id": lesson_id, "pinned": pinned})
        return bool(result) if result is not _NOT_SENT and result is not None else known

    def delete_lesson(self, lesson_id: int) -> bool:
        if not is_team_id(lesson_id):
            return self.local.delete_lesson(lesson_id)
        known = self._known_lesson(lesson_id)
        self._queue("delete_lesson", {"lesson_id": lesson_id})
        self.mirror.forget_lessons([lesson_id])
        return known

    def delete_lessons(self, ids: Sequence[int]) -> int:
        mine = [i for i in ids if not is_team_id(i)]
        shared = [i for i in ids if is_team_id(i)]
        if mine:
            self.local.delete_lessons(mine)
        if shared:
            self._queue("delete_lessons", {"ids": shared})
            self.mirror.forget_lessons(shared)
        return len(ids)

    def credit(self, ids: Sequence[int], won: bool, now: float | None = None) -> None:
        mine = [i for i in ids if not is_team_id(i)]
        shared = [i for i in ids if is_team_id(i)]
        if mine:
            self.local.credit(mine, won, now)
        if shared:
            self._queue("credit", {"ids": shared, "won": won, "now": now})

    def mark_used(self, ids: Sequence[int], now: float | None = None) -> None:
        mine = [i for i in ids if not is_team_id(i)]
        shared = [i for i in ids if is_team_id(i)]
        if mine:
            self.local.mark_used(mine, now)
        if shared:
            self._queue("mark_used", {"ids": shared, "now": now})

    def lesson_terms(self, scopes: Sequence[str]) -> dict[int, tuple[str, ...]]:
        found = self.local.lesson_terms(scopes)
        shared = [s for s in scopes if not personal(s)]
        if shared:
            try:
                found.update(self._call(lambda: self._db.lesson_terms(shared)))
            except _Offline:
                for lesson in self._team_lessons_view(shared):
                    found[lesson.id] = tuple(text_terms(lesson.text))
        return found

    def merge_lessons(self, pairs: Sequence[tuple[int, int]]) -> int:
        """Local pairs merge in the file; team pairs are one queued change (in order)."""
        mine = [pair for pair in pairs if not any(is_team_id(i) for i in pair)]
        shared = [list(pair) for pair in pairs if all(is_team_id(i) for i in pair)]
        done = self.local.merge_lessons(mine) if mine else 0
        if shared:
            self._queue("merge_lessons", {"pairs": shared})
            self.mirror.forget_lessons([merged for _, merged in shared])
            done += len(shared)
        return done

    def prune_lesson_log(self, keep: int = 50_000) -> None:
        self.local.prune_lesson_log(keep)
        with contextlib.suppress(_Offline):
            self._call(lambda: self._db.prune_lesson_log(keep))

    # -- skills ------------------------------------------------------------------ #

    def add_skill(self, skill: Skill) -> Skill:
        if personal(skill.scope):
            return self.local.add_skill(skill)
        entry, result = self._queue("add_skill", {"skill": attrs.asdict(skill)})
        skill.id = result if result is not _NOT_SENT else pending_id(entry.seq)
        return skill

    def skills(self, scopes: Sequence[str]) -> list[Skill]:
        found = self.local.skills(scopes)
        shared = [s for s in scopes if not personal(s)]
        if shared:
            try:
                if self.mirror.skills_fresh(shared) and self.online:
                    team = self.mirror.skill_list(shared)
                else:
                    team = self._call(lambda: self._db.skills(shared))
                    self.mirror.put_skills(team, shared)
            except _Offline:
                team = self.mirror.skill_list(shared)
            found += team
        return found

    def credit_skills(self, ids: Sequence[int], won: bool) -> None:
        mine = [i for i in ids if not is_team_id(i)]
        shared = [i for i in ids if is_team_id(i)]
        if mine:
            self.local.credit_skills(mine, won)
        if shared:
            self._queue("credit_skills", {"ids": shared, "won": won})

    # -- rules ------------------------------------------------------------------- #

    def add_votes(
        self,
        votes: Sequence[VoteInput],
        replace_origin: str | None = None,
        replace_scope: str | None = None,
    ) -> list[int]:
        replace_here = replace_origin is not None and personal(replace_scope or "")
        replace_there = replace_origin is not None and not replace_here
        mine = [vote for vote in votes if personal(vote[1])]
        shared = [vote for vote in votes if not personal(vote[1])]
        touched: list[int] = []
        if mine or replace_here:
            touched += self.local.add_votes(
                mine,
                replace_origin if replace_here else None,
                replace_scope if replace_here else None,
            )
        if shared or replace_there:
            entry, result = self._queue(
                "add_votes",
                {
                    "votes": [[k, s, lang, c, attrs.asdict(v)] for k, s, lang, c, v in shared],
                    "replace_origin": replace_origin if replace_there else None,
                    "replace_scope": replace_scope if replace_there else None,
                    "voter": self.voter,
                },
            )
            if result is not _NOT_SENT:
                touched += result
            else:
                view = self.mirror.rule_view(self._overlay(), self.voter)
                wanted = set(team_view.dimensions(entry.args["votes"]))
                touched += [
                    r.id for r in view.values() if (r.key, r.scope, r.language or "") in wanted
                ]
        return list(dict.fromkeys(touched))

    def rules(
        self, scopes: Sequence[str] | None = None, ids: Sequence[int] | None = None
    ) -> list[RuleRow]:
        local_ids = None if ids is None else [i for i in ids if not is_team_id(i)]
        found = self.local.rules(scopes, local_ids) if local_ids != [] else []
        team_ids = None if ids is None else [i for i in ids if is_team_id(i)]
        shared = None if scopes is None else [s for s in scopes if not personal(s)]
        if shared == [] or team_ids == []:
            return found
        try:
            real = None if team_ids is None else [i for i in team_ids if not is_pending(i)]
            team = self._call(lambda: self._db.rules(shared, real)) if real != [] else []
            self.mirror.put_rules(team, shared if ids is None else None)
            if not self.outbox.count():
                return found + team
        except _Offline:
            pass
        view = self.mirror.rule_view(self._overlay(), self.voter)
        wanted = None if shared is None else set(shared)
        picked = [
            row
            for row in sorted(view.values(), key=lambda r: r.id)
            if (wanted is None or row.scope in wanted) and (team_ids is None or row.id in team_ids)
        ]
        return found + picked

    def set_rule_flags(
        self, rule_id: int, *, pinned: bool | None = None, active: bool | None = None
    ) -> bool:
        if not is_team_id(rule_id):
            return self.local.set_rule_flags(rule_id, pinned=pinned, active=active)
        known = rule_id in self.mirror.rule_view(self._overlay(), self.voter)
        self._queue("set_rule_flags", {"rule_id": rule_id, "pinned": pinned, "active": active})
        return known

    def delete_rule(self, rule_id: int) -> bool:
        if not is_team_id(rule_id):
            return self.local.delete_rule(rule_id)
        known = rule_id in self.mirror.rule_view(self._overlay(), self.voter)
        self._queue("delete_rule", {"rule_id": rule_id})
        return known


def team_view_search(
    lessons: Sequence[Lesson], words: Sequence[str], limit: int
) -> list[tuple[Lesson, float]]:
    """Search the mirror while the database is away: lessons sharing the most words."""
    wanted = set(text_terms(" ".join(words)))
    scored = []
    for lesson in lessons:
        score = float(len(wanted & set(text_terms(lesson.text))))
        if score:
            scored.append((lesson, score))
    scored.sort(key=lambda pair: -pair[1])
    return scored[:limit]
