"""The learning engine: what makes an assistant better the more it is used.

The cycle, once per task:

1. **Capture** (at the save itself, by the host's capture layer) records what the
   user did with an agent's writes: corrections vote for house rules, undos are
   losses for what that task recalled.
2. **Recall** the lessons and house rules worth spending context on, and render
   them as a playbook under a hard token cap.
3. **Credit**: whatever was recalled shares the task's outcome. A success is a
   win for those lessons, a failure a loss; trust moves accordingly.
4. **Reflect** (optional, in the background): a model reads the finished task
   and proposes lessons; restatements merge into what is already known.
5. **Consolidate**: untrusted and long-unused lessons decay away.

Everything recalled is also *shown* to the user (hover, views, notifications): a
memory you cannot inspect is one you cannot trust.

:class:`LearningEngine` is a small façade over one part per concern —
:mod:`~comodor.brain.lessons.book` (recall, teaching, merging),
:mod:`~comodor.brain.rules.house_rules` (votes and the rule cache),
:mod:`~comodor.brain.tasks` (tasks and credit),
:mod:`~comodor.brain.checkpoints` (agent writes, corrections, undos) — which
share one :class:`~comodor.brain.shared.Shared`. It speaks Python (brain
records, typed events) and validates nothing a protocol already validated: input
from clients is checked once, at the edge (``comodor.protocol``).

Threads: the hosts call it from their brain worker (writes in order on one
thread, reads on another; see ``comodor.brain.worker``). The in-memory caches
are guarded by ``Shared.lock``; no lock is ever held while waiting for SQLite's
write lock.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..settings import LearningSettings
from .blobs import BlobStore
from .checkpoints import Checkpoints
from .events import ChangedElsewhere, EventBus, LessonsLearned
from .lessons.book import LessonBook
from .lessons.merging import Consolidation
from .models import (
    AGENT_WRITE_SOURCES,
    Lesson,
    Message,
    ProposedLesson,
    Rule,
    Skill,
    Stats,
    Vote,
    write_source,
)
from .playbook import Playbook, PlaybookMaker
from .progress.evidence import Progress
from .rules.house_rules import Dimension, HouseRules
from .rules.judgement import export_meta_key, text_digest
from .shared import Shared
from .store import AgentWrite, BrainStore, Store
from .tasks import Reflector, Task, TaskLedger


class LearningEngine:
    """Owns one brain for one project: recall, credit, rules, checkpoints, reflection."""

    def __init__(
        self,
        store: Store,
        project_scope: str,
        settings: LearningSettings | None = None,
        *,
        bus: EventBus | None = None,
        session_id: str = "",
    ) -> None:
        self.shared = Shared(
            store=store,
            project_scope=project_scope,
            settings=settings or LearningSettings(),
            bus=bus or EventBus(),
            session_id=session_id or f"s{uuid.uuid4().hex[:8]}",
            blobs=BlobStore(store.path.parent / "blobs"),
        )
        self.lessons = LessonBook(self.shared)
        self.rules = HouseRules(self.shared)
        self.checkpoints = Checkpoints(self.shared, self.rules, self.lessons)
        self.playbooks = PlaybookMaker(self.shared, self.lessons, self.rules)
        self.tasks = TaskLedger(self.shared, self.lessons, self.rules, self.playbooks)
        self._closed = False

    @classmethod
    def open(
        cls,
        brain_path: Path | str,
        project_scope: str,
        settings: LearningSettings | None = None,
        **kwargs: Any,
    ) -> LearningEngine:
        return cls(BrainStore(brain_path), project_scope, settings, **kwargs)

    # -- what every part shares ------------------------------------------------ #

    @property
    def store(self) -> Store:
        return self.shared.store

    @property
    def blobs(self) -> BlobStore:
        return self.shared.blobs

    @property
    def bus(self) -> EventBus:
        return self.shared.bus

    @property
    def settings(self) -> LearningSettings:
        return self.shared.settings

    @property
    def project_scope(self) -> str:
        return self.shared.project_scope

    @property
    def scopes(self) -> list[str]:
        return self.shared.scopes

    @property
    def write_scope(self) -> str:
        return self.shared.write_scope

    @property
    def notices(self) -> list[str]:
        return self.shared.store.notices

    @property
    def reflector(self) -> Reflector | None:
        return self.tasks.reflector

    @reflector.setter
    def reflector(self, reflector: Reflector | None) -> None:
        self.tasks.reflector = reflector

    def configure(self, settings: LearningSettings) -> None:
        half_life_changed = settings.half_life_days != self.shared.settings.half_life_days
        self.shared.settings = settings
        if half_life_changed:
            self.lessons.set_half_life(settings.half_life_days)
        self.shared.invalidate()

    # -- lessons ------------------------------------------------------------------ #

    def warm(self) -> None:
        self.lessons.warm()

    def teach(self, text: str, kind: str = "preference", pinned: bool = True) -> Lesson:
        return self.lessons.teach(text, kind, pinned)

    def forget(self, lesson_id: int) -> bool:
        return self.lessons.forget(lesson_id)

    def pin(self, lesson_id: int, pinned: bool = True) -> bool:
        return self.lessons.pin(lesson_id, pinned)

    def recall(self, query: str) -> list[Lesson]:
        return list(self.lessons.recall(query).lessons)

    def search(self, query: str = "", limit: int = 20) -> list[Lesson]:
        return self.lessons.search(query, limit)

    def prefetch(self, query: str) -> None:
        self.lessons.prefetch(query)

    def playbook(
        self, query: str, max_tokens: int | None = None, language: str | None = None
    ) -> Playbook:
        """Recall for ``query`` and render it; answers from a prefetch when there is one."""
        return self.playbooks.make(query, max_tokens, language)

    def absorb(self, proposals: Sequence[ProposedLesson], source: str) -> tuple[list[Lesson], int]:
        return self.lessons.absorb(proposals, source)

    def find_similar(self, text: str) -> Lesson | None:
        return self.lessons.find_similar(text)

    def absorb_reflection(
        self, episode_id: int, lessons: Sequence[ProposedLesson], skill: Skill | None = None
    ) -> tuple[list[Lesson], int]:
        """What reflection hands back for one episode (on the host's brain worker)."""
        stored, merged = self.lessons.absorb(lessons, source=f"episode:{episode_id}")
        if skill is not None and len(skill.steps) >= 2:
            skill.scope = self.write_scope
            skill.source = f"episode:{episode_id}"
            self.store.add_skill(skill)
        if stored or merged or skill is not None:
            self.bus.emit(
                LessonsLearned(tuple(stored), merged, skill.name if skill else "", episode_id)
            )
        return stored, merged

    def consolidate(self) -> Consolidation:
        return self.lessons.consolidate()

    # -- house rules ------------------------------------------------------------ #

    def all_rules(self) -> list[Rule]:
        return list(self.rules.rules)

    def confident_rules(self) -> list[Rule]:
        return self.rules.confident()

    def active_rules(self, language: str | None = None) -> list[Rule]:
        return self.rules.active(language)

    def contested_rules(self, language: str | None = None) -> list[Rule]:
        return self.rules.contested(language)

    def rules_markdown(self) -> str:
        return self.rules.markdown()

    def record_votes(
        self,
        votes: Iterable[Vote],
        origin: str,
        *,
        replace: bool = False,
        scope: str | None = None,
    ) -> list[Rule]:
        return self.rules.record_votes(votes, origin, replace=replace, scope=scope)

    def teach_rule(self, statement: str, dimension: Dimension | None = None) -> Rule:
        return self.rules.teach(statement, dimension)

    def add_rule_exception(self, rule_id: int, place: str, detail: str = "") -> Rule | None:
        return self.rules.add_exception(rule_id, place, detail)

    def forget_rule(self, rule_id: int) -> bool:
        return self.rules.forget(rule_id)

    def set_rule(
        self, rule_id: int, *, pinned: bool | None = None, active: bool | None = None
    ) -> bool:
        return self.rules.set_flags(rule_id, pinned=pinned, active=active)

    def on_denied(self, tool: str, subject: str, reason: str = "denied") -> list[Rule]:
        return self.rules.on_denied(tool, subject, reason)

    def remember_export(self, target: Path, data: bytes) -> None:
        """Note what was exported to ``target``, so reading it back is not team evidence."""
        self.store.set_meta(export_meta_key(target), text_digest(data))

    # -- tasks ---------------------------------------------------------------------- #

    def begin_task(self, goal: str) -> Task:
        return self.tasks.begin(goal)

    def end_task(
        self,
        task_id: int,
        success: bool,
        stopped: str = "done",
        steps: int | None = None,
        elapsed: float | None = None,
        approvals: int | None = None,
        tokens: int | None = None,
        messages: Sequence[Message] = (),
    ) -> int:
        return self.tasks.end(
            task_id, success, stopped, steps, elapsed, approvals, tokens, messages
        )

    def feedback(self, good: bool, note: str = "", task_id: int | None = None) -> int:
        return self.tasks.feedback(good, note, task_id)

    def progress(self) -> Progress:
        return self.tasks.progress()

    # -- checkpoints ------------------------------------------------------------------ #

    def record_agent_write(
        self,
        path: str,
        before: str | None,
        after: str,
        *,
        task_id: int | None = None,
        created: bool | None = None,
        source: str = "disk",
    ) -> int:
        return self.checkpoints.record_write(
            path, before, after, task_id=task_id, created=created, source=source
        )

    def record_correction(
        self,
        path: str,
        votes: Sequence[Vote],
        diff: str,
        episode_id: int | None,
        *,
        rule_keys: Sequence[str] = (),
        source: str = "disk",
    ) -> list[Rule]:
        return self.checkpoints.record_correction(
            path, votes, diff, episode_id, rule_keys=rule_keys, source=source
        )

    def undo(self, write: AgentWrite) -> None:
        self.checkpoints.undo(write)

    def on_undo(self, paths: Sequence[str]) -> int:
        return self.checkpoints.undo_paths(paths)

    def prune_checkpoints(
        self, max_age_days: float = 30.0, max_bytes: int = 200_000_000
    ) -> tuple[int, int]:
        return self.checkpoints.prune(max_age_days, max_bytes)

    # -- other processes, reporting, lifecycle ------------------------------------------ #

    def catch_up(self) -> bool:
        """Fold in what other processes wrote; announce it. Call on the write worker.

        Cheap when nothing happened: one ``PRAGMA data_version``. When another
        process committed, the recall index follows the lesson log, the rule
        cache is reloaded, and :class:`~comodor.brain.events.ChangedElsewhere`
        tells the hosts (hover, views and diagnostics refresh on it).
        """
        if not self.store.changed_elsewhere():
            return False
        self.lessons.changed()
        self.rules.refresh()
        self.bus.emit(ChangedElsewhere())
        return True

    def recover_if_damaged(self) -> str | None:
        """Check the brain file; salvage a damaged one into a fresh file and say so.

        Call on the write lane, once, after opening (see
        :meth:`~comodor.brain.store.database.Database.recover_if_damaged`).
        """
        notice = self.store.recover_if_damaged()
        if notice is not None:
            self.lessons.rebuild()
            self.rules.refresh()
            self.bus.emit(ChangedElsewhere())
        return notice

    def refresh(self) -> None:
        """Make the caches current before a read that must see every commit (any thread).

        Cheap when nothing was committed (one ``PRAGMA`` on the read connection);
        otherwise the index follows the lesson log and the rule cache reloads. A
        rule taught by ``comodor-lsp call`` a moment ago is then in this answer, not
        only after the freshness poller's next look.
        """
        if self.store.committed_since_last_look():
            self.lessons.sync()
            self.rules.refresh()

    def stats(self) -> Stats:
        store, scope = self.store, self.project_scope
        rules = self.rules.rules
        by_source = dict.fromkeys(AGENT_WRITE_SOURCES, 0)
        for source, count in store.count_agent_writes_by_source(scope).items():
            kind = write_source(source)
            by_source[kind] += count
        return Stats(
            lessons=self.lessons.count(),
            rules=len(rules),
            confident_rules=sum(1 for rule in rules if rule.confident and rule.active),
            episodes=store.count_episodes(scope),
            agent_writes=sum(by_source.values()),
            agent_writes_by_source=by_source,
            corrections=store.count_signals(scope, "correction"),
            undos=store.count_signals(scope, "undo"),
            scope=scope,
            brain_path=str(store.path),
            prefetch_ready=self.lessons.prefetch_ready,
        )

    def wait_for_reflection(self, timeout: float = 30.0) -> bool:
        """Block until background reflection settles (tests, and a clean exit)."""
        reflector = self.reflector
        return reflector.wait_idle(timeout) if reflector is not None else True

    def close(self) -> None:
        """Stop background reflection and close the brain. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        started = time.monotonic()
        if self.reflector is not None:
            self.reflector.stop(max(0.0, 0.5 - (time.monotonic() - started)))
        self.lessons.close()
        self.store.close()
