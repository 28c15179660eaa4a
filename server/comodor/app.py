"""The application: one brain, one project, every door into it.

``ComodorApp`` is what the language server, the MCP server and the CLI share.
It owns the learning engine for the workspace's project, the capture tracker,
optional reflection, and the command table of the protocol. Hosts translate
their transport to :meth:`ComodorApp.execute` and forward the JSON-ready
``comodor/memory`` events it publishes; they hold no logic of their own.

Everything here may block (SQLite, file reads): hosts call it off their event
loop.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

import attrs

from comodor import protocol
from comodor.brain.atomic import UnsafeWrite, write_atomic
from comodor.brain.engine import LearningEngine
from comodor.brain.errors import BrainUnavailable, InvalidInput
from comodor.brain.lessons_md import lessons_markdown
from comodor.brain.models import Lesson, Rule
from comodor.capture.own_writes import OwnWrites
from comodor.capture.tracker import CaptureTracker
from comodor.paths import (
    default_brain_path,
    in_git_folder,
    project_key,
    resolve_inside,
    writable_folder,
)
from comodor.settings import Settings

if TYPE_CHECKING:
    from comodor.reflect.service import ReflectionService

log = logging.getLogger(__name__)

MemoryListener = Callable[[dict[str, Any]], None]


def uri_to_path(uri: str) -> Path:
    """A ``file:`` URI as a local path; anything else is invalid input."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise InvalidInput("uri", f"expected a file: URI, got {uri[:80]!r}")
    return Path(unquote(parsed.path))


def path_to_uri(path: Path | str) -> str:
    return Path(path).resolve().as_uri()


class ComodorApp:
    """The brain for one workspace, with the protocol's commands on top."""

    def __init__(
        self,
        workspace: Path | None,
        settings: Settings | None = None,
        *,
        session_id: str = "",
    ) -> None:
        self.settings = settings or Settings()
        self.workspace = workspace.resolve() if workspace is not None else None
        self.project_scope = f"project:{project_key(self.workspace or Path.cwd())}"
        self.brain_path = default_brain_path(self.settings.brain_path)
        session = session_id or f"s{uuid.uuid4().hex[:8]}"
        try:
            self.engine = LearningEngine.open(
                self.brain_path, self.project_scope, self.settings.learning, session_id=session
            )
        except BrainUnavailable as error:
            # The editor must keep working: run on a throw-away brain, and say so.
            fallback = Path(tempfile.mkdtemp(prefix="comodor-unsaved-")) / "brain.db"
            self.engine = LearningEngine.open(
                fallback, self.project_scope, self.settings.learning, session_id=session
            )
            self.engine.notices.append(
                f"Comodor cannot use its brain: {error} Until that is fixed it runs on a "
                f"temporary brain ({fallback}); nothing learned meanwhile is kept."
            )
        self.own_writes = OwnWrites(self.engine.store)
        """Files Comodor writes (sync, export): noted before each write, never agent writes."""
        self.tracker: CaptureTracker | None = None
        if self.workspace is not None:
            self.tracker = CaptureTracker(
                self.engine,
                self.workspace,
                max_file_bytes=self.settings.watch.max_file_bytes,
                own_writes=self.own_writes,
                own_folders=(self.engine.blobs.root,),
            )
            self.engine.capture_hook = None
        self._listeners: list[MemoryListener] = []
        self._listeners_lock = threading.Lock()
        self.engine.bus.subscribe(self._publish)
        self.reflection: ReflectionService | None = None
        self.watcher: Any = None
        """The workspace watcher, once a host started capture (see ``capture.service``)."""
        self._apply_reflection()

    # -- settings -------------------------------------------------------------- #

    def configure(self, settings: Settings) -> None:
        """Apply new settings; the brain location is fixed for the life of the app."""
        self.settings = attrs.evolve(settings, brain_path=self.settings.brain_path)
        self.engine.configure(self.settings.learning)
        self._apply_reflection()
        if self.tracker is not None:
            self.tracker.max_file_bytes = self.settings.watch.max_file_bytes

    def _apply_reflection(self) -> None:
        """Start, restart or stop background reflection to match the settings."""
        wanted = self.settings.reflect.active
        current = self.reflection
        if current is not None and (not wanted or current.settings != self.settings.reflect):
            current.stop(0.5)
            self.reflection = None
            self.engine.reflector = None
        if wanted and self.reflection is None:
            # Imported here: the HTTP client is only loaded when reflection is on.
            from comodor.reflect.service import ReflectionService

            self.reflection = ReflectionService(self.engine, self.settings.reflect)
            self.engine.reflector = self.reflection

    # -- events ------------------------------------------------------------ #

    def on_memory(self, listener: MemoryListener) -> Callable[[], None]:
        """Subscribe to ``comodor/memory`` payloads (JSON-ready, camelCase)."""
        with self._listeners_lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._listeners_lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _publish(self, event: dict[str, Any]) -> None:
        payload = self.memory_payload(event)
        with self._listeners_lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(payload)
            except Exception:
                log.exception("memory listener failed")

    def memory_payload(self, event: dict[str, Any]) -> dict[str, Any]:
        """Turn a brain event into the protocol's ``comodor/memory`` params."""
        payload: dict[str, Any] = {}
        for name, value in event.items():
            if name == "items":
                payload["items"] = [self.to_object(item) for item in value]
            elif name == "rules":
                payload["rules"] = [self.to_object(item) for item in value]
            elif name == "path":
                payload["uri"] = self.uri_for(value)
            else:
                payload[name] = value
        return payload

    def uri_for(self, key: str) -> str:
        path = Path(key)
        if not path.is_absolute() and self.workspace is not None:
            path = self.workspace / path
        return path_to_uri(path)

    # -- conversions ---------------------------------------------------------- #

    def to_object(self, item: object) -> Any:
        if isinstance(item, Lesson):
            return protocol.unstructure(self.lesson_object(item))
        if isinstance(item, Rule):
            return protocol.unstructure(self.rule_object(item))
        return item

    def lesson_object(self, lesson: Lesson) -> protocol.LessonObject:
        return protocol.LessonObject(
            id=lesson.id,
            kind=lesson.kind,
            scope=lesson.scope,
            trigger=lesson.trigger,
            guidance=lesson.guidance,
            confidence=round(lesson.effective_confidence(self.engine.settings.half_life_days), 4),
            uses=lesson.uses,
            wins=lesson.wins,
            losses=lesson.losses,
            pinned=lesson.pinned,
            source=lesson.source,
            created_at=lesson.created_at,
            updated_at=lesson.updated_at,
            last_used=lesson.last_used,
        )

    @staticmethod
    def rule_object(rule: Rule) -> protocol.RuleObject:
        return protocol.RuleObject(
            id=rule.id,
            key=rule.key,
            value=rule.value,
            category=rule.category,
            statement=rule.statement,
            detail=rule.detail,
            scope=rule.scope,
            language=rule.language,
            support=rule.support,
            against=rule.against,
            strength=round(rule.strength, 4),
            confident=rule.confident,
            pinned=rule.pinned,
            active=rule.active,
            source=rule.source,
            created_at=rule.created_at,
            updated_at=rule.updated_at,
            evidence=rule.evidence,
            team=rule.team,
        )

    # -- workspace paths ------------------------------------------------------ #

    def workspace_path(self, raw: str, field: str) -> Path:
        """Resolve ``raw`` inside the workspace (following symlinks), or refuse it."""
        if self.workspace is None:
            raise InvalidInput(field, "there is no workspace folder to write into")
        try:
            return resolve_inside(self.workspace, raw)
        except ValueError:
            raise InvalidInput(
                field, f"{raw!r} is outside the workspace folder {self.workspace}"
            ) from None

    def export_rules(self, raw: str, field: str = "path") -> Path:
        """Write the confident rules as Markdown a team can read, review and commit.

        The target must be a Markdown file inside the workspace and outside
        ``.git``; it is written atomically and through nothing a repository could
        have planted (see :mod:`comodor.brain.atomic`).
        """
        target = self.workspace_path(raw, field)
        assert self.workspace is not None  # workspace_path guarantees one
        if target.suffix.lower() not in (".md", ".markdown"):
            raise InvalidInput(field, f"{raw!r} is not a Markdown file (.md)")
        if in_git_folder(self.workspace, target) or target.is_dir():
            raise InvalidInput(field, f"{raw!r} is not a file Comodor may write")
        data = self.rules_markdown().encode("utf-8")
        self.own_writes.note(target, data)
        try:
            write_atomic(target, data, allowed=writable_folder(self.workspace))
        except UnsafeWrite as error:
            raise InvalidInput(field, str(error)) from None
        except OSError as error:
            raise BrainUnavailable(f"cannot write {target}: {error.strerror or error}") from None
        self.engine.remember_export(target, data)
        return target

    def file_from_uri(self, uri: str, field: str = "uri") -> Path:
        path = uri_to_path(uri)
        if self.workspace is None or self.tracker is None:
            raise InvalidInput(field, "there is no workspace folder")
        if not self.tracker.inside(path):
            raise InvalidInput(field, f"{uri[:200]!r} is outside the workspace folder")
        return path

    # -- commands -------------------------------------------------------------- #

    def execute(self, command: str, argument: object) -> Any:
        """Run one protocol command: validate, call the brain, return JSON-ready data."""
        from comodor.commands import COMMANDS

        entry = COMMANDS.get(command)
        if entry is None:
            raise InvalidInput("command", f"unknown command {command!r}")
        params = protocol.structure(argument, entry.params)
        if entry.fresh:
            self.catch_up()
        return protocol.unstructure(entry.run(self, params))

    def catch_up(self) -> None:
        """See what other processes wrote to the shared brain since our last look.

        Another host (the language server next to an MCP server) may have taught or
        forgotten rules; the recall index catches up by itself through the lesson
        log, the rule cache only when asked. Cheap: one query over the rules.
        """
        self.engine.refresh_rules()

    def rules_markdown(self) -> str:
        """The confident house rules as Markdown, in the committed export format."""
        return self.engine.rules_markdown()

    def lessons_markdown(self, limit: int = 200) -> str:
        """The project's lessons as Markdown (newest ``limit``, pinned first)."""
        lessons = self.engine.search("", limit)
        return lessons_markdown(
            lessons, self.engine.settings.half_life_days, project=self.project_scope
        )

    @property
    def watching(self) -> str:
        """The watcher's state: ``native``, ``polling``, ``starting``, ``stopped`` or ``off``."""
        return str(self.watcher.mode) if self.watcher is not None else "off"

    # -- lifecycle ----------------------------------------------------------- #

    def close(self) -> None:
        started = time.monotonic()
        self.engine.close()  # stops the reflector too, without waiting for a hung model
        log.debug("closed in %.0f ms", (time.monotonic() - started) * 1000)
