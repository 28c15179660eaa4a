"""Tasks and credit: a task begins with a playbook and ends with an outcome that is shared.

Whatever was recalled into a task shares its outcome: a success is a win for
those lessons, a failure a loss. Coarse on purpose: attributing a multi-step
outcome to single lessons is not solvable here, and over many tasks the coarse
signal separates the useful lessons from the useless ones. A cancelled task
credits nothing and is left out of progress.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Protocol

import attrs

from .errors import InvalidInput
from .events import FeedbackGiven, Recalled
from .lessons.book import LessonBook
from .models import Episode, EpisodeSummary, Message, Rule, Vote
from .playbook import Playbook, PlaybookMaker
from .progress.evidence import Progress, analyse
from .progress.holdout import withhold_memory
from .redaction.redactor import redact
from .rules import signals
from .rules.house_rules import HouseRules
from .shared import Shared

MAX_GOAL_CHARS = 1000


class Reflector(Protocol):
    """Background reflection: the brain hands over finished tasks, results come back.

    Implementations run their own worker and hand what the model proposed back to
    :meth:`comodor.brain.engine.LearningEngine.absorb_reflection` (through the
    host's brain worker).
    """

    def submit(self, episode_id: int, summary: EpisodeSummary) -> None: ...
    def wait_idle(self, timeout: float) -> bool: ...
    def stop(self, timeout: float) -> None: ...


@attrs.frozen
class Task:
    """A begun task: its id and the playbook recalled for it."""

    id: int
    playbook: Playbook
    holdout: bool = False
    """Begun without memory (``learning.holdoutRate``): the playbook is empty."""


class TaskLedger:
    """Begin, end and credit tasks; the episodes behind the progress dashboard."""

    def __init__(
        self, shared: Shared, lessons: LessonBook, rules: HouseRules, playbooks: PlaybookMaker
    ) -> None:
        self.shared = shared
        self.lessons = lessons
        self.rules = rules
        self.playbooks = playbooks
        self.reflector: Reflector | None = None

    def begin(self, goal: str) -> Task:
        """Start a task: recall, and remember what was recalled.

        What the user did since the last task (corrections, undos) is already in
        the brain: capture records it at the save itself, before this request.
        """
        shared = self.shared
        playbook = self.playbooks.make(goal)
        episode = shared.store.open_episode(
            Episode(
                goal=redact(goal)[:MAX_GOAL_CHARS],
                scope=shared.project_scope,
                session_id=shared.session_id,
                recalled=[lesson.id for lesson in playbook.lessons],
                skills=[skill.id for skill in playbook.skills],
                rules_active=len(playbook.rules),
            )
        )
        holdout = withhold_memory(episode.id, shared.settings.holdout_rate)
        if holdout:
            shared.store.mark_holdout(episode.id)
            playbook = Playbook.empty()
        shared.store.mark_used([lesson.id for lesson in playbook.lessons])
        if playbook.lessons or playbook.rules:
            shared.bus.emit(
                Recalled(playbook.lessons, playbook.rules, episode.id, redact(goal)[:200])
            )
        return Task(episode.id, playbook, holdout)

    def open_episode(self, task_id: int) -> Episode:
        """The task ``task_id`` of this project, still open; else the field is invalid."""
        episode = self.shared.store.get_episode(task_id)
        if episode is None or episode.scope != self.shared.project_scope:
            raise InvalidInput("taskId", f"no task {task_id} in this project")
        if not episode.open:
            raise InvalidInput("taskId", f"task {task_id} has already ended")
        return episode

    def end(
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
        """Close a task: record the episode, credit what was recalled, maybe reflect.

        The metrics count only this task's own messages.
        """
        shared = self.shared
        episode = self.open_episode(task_id)
        errors = signals.tool_errors(messages)
        episode.success = success
        episode.stopped = stopped
        episode.steps = (
            steps if steps is not None else sum(1 for message in messages if message.role == "tool")
        )
        episode.elapsed = (
            float(elapsed) if elapsed is not None else max(0.0, time.time() - episode.started_at)
        )
        episode.approvals = approvals or 0
        episode.tokens = tokens or 0
        episode.retries = len(errors)
        episode.tools_used = sorted({m.name for m in messages if m.role == "tool" and m.name})
        episode.error_kind = redact(errors[-1].name or "")[:80] if errors else ""
        episode.ended_at = time.time()
        shared.store.close_episode(episode)
        if stopped == "cancelled":
            return episode.id
        shared.store.credit(episode.recalled, won=success)
        shared.store.credit_skills(episode.skills, won=success)
        # How the user talks: the terms of the goal and their messages came together.
        vocabulary = self.lessons.vocabulary
        vocabulary.observe(episode.goal, messages)
        if success and episode.recalled:
            # What helped, in the words the user asked with: the learned vocabulary.
            vocabulary.learn(episode.goal, shared.store.get_lessons(episode.recalled), messages)
        self.lessons.changed()
        if shared.settings.corrections:
            self._record_pitfalls(messages, episode.id)
        if self.reflector is not None:
            self.reflector.submit(
                episode.id,
                EpisodeSummary(
                    goal=episode.goal,
                    success=success,
                    stopped=stopped,
                    steps=episode.steps,
                    messages=tuple(messages),
                    corrections=tuple(shared.store.episode_signals(episode.id, "correction")[-5:]),
                ),
            )
        return episode.id

    def _record_pitfalls(self, messages: Sequence[Message], episode_id: int) -> list[Rule]:
        votes = [
            Vote(
                key=pitfall.key,
                value="avoid",
                statement=pitfall.statement,
                category="workflow",
                language=None,
                kind="evidence",
                detail=f"failed {pitfall.count} times in task {episode_id}",
            )
            for pitfall in signals.find_pitfalls(messages)
        ]
        return self.rules.record_votes(votes, origin=f"episode:{episode_id}") if votes else []

    def feedback(self, good: bool, note: str = "", task_id: int | None = None) -> int:
        """Explicit "this helped" / "this didn't": credit what that task recalled."""
        shared = self.shared
        if task_id is not None:
            episode = shared.store.get_episode(task_id)
            if episode is None or episode.scope != shared.project_scope:
                raise InvalidInput("taskId", f"no task {task_id} in this project")
        else:
            episode = shared.store.last_episode(shared.project_scope, ended=True)
        if episode is None:
            return 0
        clean_note = redact(note)
        value = 1.0 if good else -1.0
        shared.store.credit(episode.recalled, won=good)
        shared.store.credit_skills(episode.skills, won=good)
        shared.store.add_feedback("episode", episode.id, value, clean_note)
        for lesson_id in episode.recalled:
            shared.store.add_feedback("lesson", lesson_id, value, clean_note)
        self.lessons.changed()
        shared.bus.emit(FeedbackGiven(good, len(episode.recalled), episode.id))
        return len(episode.recalled)

    def progress(self) -> Progress:
        shared = self.shared
        return analyse(
            shared.store.episodes(shared.project_scope),
            lessons=self.lessons.count(),
            rules_active=len(self.rules.active()),
        )
