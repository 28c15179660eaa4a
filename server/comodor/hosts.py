"""The narrow views of the app that commands, tools, sync and the rules file work through.

:class:`~comodor.app.ComodorApp` assembles the parts; the modules it hands itself to
(the command table, the agent-tool table, sync, the committed rules file) declare here
exactly what they use of it. That keeps each of them readable on its own, testable
with any object of that shape, and out of an import circle with the app: nothing here
imports :mod:`comodor.app`, and ``tests/test_house.py`` checks that nothing does from
below it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .brain.engine import LearningEngine
    from .brain.events import Listener
    from .brain.worker import BrainWorker
    from .capture.own_writes import OwnWrites
    from .capture.tracker import CaptureTracker
    from .protocol import RuleObject, Wire
    from .settings import Settings


class BrainHost(Protocol):
    """An app with a brain and a workspace folder (None: the brain alone)."""

    engine: LearningEngine
    workspace: Path | None
    settings: Settings


class RulesFileHost(BrainHost, Protocol):
    """What reading a committed ``house-rules.md`` needs: the brain and the folder."""


class SyncHost(BrainHost, Protocol):
    """What writing the rules into assistants' instruction files needs."""

    own_writes: OwnWrites

    def subscribe(self, listener: Listener) -> Callable[[], None]: ...


class ToolHost(Protocol):
    """What the agent-tool table needs: run one protocol command."""

    def execute(self, command: str, argument: object) -> Any: ...


class CommandHost(BrainHost, Protocol):
    """What the protocol's commands need of the app they run in."""

    @property
    def wire(self) -> Wire: ...
    @property
    def tracker(self) -> CaptureTracker | None: ...
    @property
    def watching(self) -> str: ...
    def execute(self, command: str, argument: object) -> Any: ...
    def file_from_uri(self, uri: str, field: str = "uri") -> Path: ...
    def document_query(self, uri: str) -> str: ...
    def rule_exception(self, rule_id: int, uri: str, place: str) -> RuleObject: ...
    def export_rules(self, raw: str, field: str = "path") -> Path: ...


class CaptureHost(Protocol):
    """What following the editor's documents needs: the folder, settings, the lanes."""

    workspace: Path | None
    settings: Settings
    worker: BrainWorker

    @property
    def tracker(self) -> CaptureTracker | None: ...
    @property
    def built_tracker(self) -> CaptureTracker | None: ...
