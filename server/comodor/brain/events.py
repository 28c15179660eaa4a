"""What the brain tells its hosts: typed events on one synchronous bus.

Every change a user should see is an event: a rule became confident, lessons
were learned, something was taught or forgotten, a correction was counted,
another process changed the brain. The events are plain records in the brain's
own terms (snake_case, brain models); the hosts decide what to do with them
(:func:`comodor.protocol.memory_params` turns a :class:`MemoryEvent` into the
``comodor/memory`` notification, the live sync rewrites instruction files on
:class:`RulesChanged`). There is exactly one way to listen:
:meth:`EventBus.subscribe`.

Listeners run on the emitting thread (the brain worker) and must be quick and
non-blocking; a listener that raises is logged, never allowed to break learning.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import ClassVar

import attrs

from .models import Lesson, Rule

log = logging.getLogger(__name__)


@attrs.frozen
class Event:
    """Base of every event."""


@attrs.frozen
class MemoryEvent(Event):
    """An event the user is told about (a ``comodor/memory`` notification)."""

    action: ClassVar[str] = ""
    """The protocol's ``action`` for this event."""


@attrs.frozen
class RulesLearned(MemoryEvent):
    """Rules became confident (or changed their winning value)."""

    action: ClassVar[str] = "rule"
    rules: tuple[Rule, ...]
    taught: bool = False
    """The user stated the rule themselves (``teachRule``): no "learned" surprise."""


@attrs.frozen
class LessonsLearned(MemoryEvent):
    """Reflection stored or merged lessons (and maybe a skill) for a task."""

    action: ClassVar[str] = "learned"
    lessons: tuple[Lesson, ...]
    merged: int
    skill: str
    task_id: int


@attrs.frozen
class LessonTaught(MemoryEvent):
    action: ClassVar[str] = "taught"
    lessons: tuple[Lesson, ...]


@attrs.frozen
class LessonForgotten(MemoryEvent):
    action: ClassVar[str] = "forgot"
    id: int


@attrs.frozen
class RuleForgotten(MemoryEvent):
    action: ClassVar[str] = "forgotRule"
    id: int


@attrs.frozen
class FeedbackGiven(MemoryEvent):
    action: ClassVar[str] = "feedback"
    good: bool
    count: int
    task_id: int


@attrs.frozen
class Recalled(MemoryEvent):
    """A task began with these lessons and rules in its playbook."""

    action: ClassVar[str] = "recalled"
    lessons: tuple[Lesson, ...]
    rules: tuple[Rule, ...]
    task_id: int
    query: str


@attrs.frozen
class CorrectionCounted(MemoryEvent):
    action: ClassVar[str] = "correction"
    path: str
    """Workspace-relative path of the corrected file."""
    rule_keys: tuple[str, ...]
    source: str = "disk"
    """Who made the write the user corrected (protocol v1.2 sources, see ``AgentWrite``)."""


@attrs.frozen
class UndoCounted(MemoryEvent):
    action: ClassVar[str] = "undo"
    path: str
    source: str = "disk"
    """Who made the write the user threw away."""


@attrs.frozen
class ChangedElsewhere(MemoryEvent):
    """Another process (a second server, ``comodor-lsp mcp`` or ``call``) changed the brain."""

    action: ClassVar[str] = "changed"


@attrs.frozen
class Notice(Event):
    """Something the user must be told now (the team database went away, or came back)."""

    message: str


@attrs.frozen
class RulesChanged(Event):
    """The rule cache changed in any way (learned, taught, forgotten, disabled, turned).

    Unlike :class:`RulesLearned`, which announces only rules that *became*
    confident, this fires for every change: mirrors of the rules (the managed
    block in ``AGENTS.md``, diagnostics) need exactly that.
    """

    rules: tuple[Rule, ...]


@attrs.frozen
class AgentWrote(Event):
    """An agent write was checkpointed (mirrors of a file, such as diagnostics, refresh)."""

    path: str
    """Workspace-relative path of the written file."""


Listener = Callable[[Event], None]


class EventBus:
    """Fan out events to listeners; a failing listener never breaks the brain."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with every event from now on; return the unsubscribe function."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: Event) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # a UI problem must not lose what was learned
                log.exception("event listener failed for %s", type(event).__name__)
