"""The application: one brain, one project, every door into it.

``ComodorApp`` is what the language server, the MCP server and the CLI share:
the settings (resolved once, the same way for every door: :mod:`comodor.config`),
the learning engine for the workspace's project, the capture tracker, optional
reflection, the brain worker, and the protocol's commands
(:meth:`ComodorApp.execute`). Hosts translate their transport to these methods
and the brain's events to their notifications (through :attr:`ComodorApp.wire`);
they hold no logic of their own.

Threads: :meth:`execute` runs on the caller's thread and may block (SQLite,
files). Long-running hosts call :meth:`call` instead, which runs the command on
the brain worker's write or read lane (see ``comodor.brain.worker``); background
parts (the watcher, the scan, reflection, the freshness poller) hand their work
to the same worker.
"""

from __future__ import annotations

import concurrent.futures
import logging
import tempfile
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from . import config, protocol
from .brain.engine import LearningEngine
from .brain.errors import BrainUnavailable, InvalidInput
from .brain.events import Event
from .brain.store.relocate import adopt_previous_brain
from .brain.worker import BrainWorker
from .capture.own_writes import OwnWrites
from .conventions.languages import language_of
from .document_capture import DocumentCapture, inside, uri_to_path
from .paths import (
    default_brain_path,
    in_git_folder,
    previous_default_brain_path,
    project_key,
    resolve_inside,
    writable_folder,
)
from .settings import Settings
from .teamdb import opening as team_brain

if TYPE_CHECKING:
    from .brain.freshness import ChangeWatcher
    from .capture.tracker import CaptureTracker
    from .capture.workspace_capture import Capture
    from .committed_rules import TeamImport
    from .diagnostics.violations import DocumentChecker
    from .reflect.reflection_service import ReflectionService
    from .sync import LiveSync
    from .teamdb.listener import TeamListener

log = logging.getLogger(__name__)

Listener = Callable[[Event], None]


class ComodorApp:
    """The brain for one workspace, with the protocol's commands on top."""

    def __init__(
        self,
        workspace: Path | None,
        settings: Settings | None = None,
        *,
        session_id: str = "",
        worker: BrainWorker | None = None,
        temporary_fallback: bool = True,
    ) -> None:
        self.settings = (
            settings if settings is not None else config.for_workspace(workspace).settings
        )
        self.workspace = workspace.resolve() if workspace is not None else None
        self.project_scope = f"project:{project_key(self.workspace or Path.cwd())}"
        self.brain_path = default_brain_path(self.settings.brain_path)
        adopted = adopt_previous_brain(
            self.brain_path, previous_default_brain_path(self.settings.brain_path)
        )
        self.worker = worker or BrainWorker()
        self._owns_worker = worker is None
        self.engine = self._open_engine(
            session_id or f"s{uuid.uuid4().hex[:8]}", temporary_fallback
        )
        if adopted:
            self.engine.notices.append(adopted)
        self.own_writes = OwnWrites(self.engine.store, call=self.worker.call)
        """Files Comodor writes (sync, export): noted before each write, never agent writes."""
        self._tracker: CaptureTracker | None = None
        self._tracker_lock = threading.Lock()
        self.documents = DocumentCapture(self)
        """The editor's documents, resolved once and handed to capture."""
        self.reflection: ReflectionService | None = None
        self.capture: Capture | None = None
        self.live_sync: LiveSync | None = None
        self._freshness: ChangeWatcher | None = None
        self._checkers: dict[str, DocumentChecker] = {}
        """uri -> the last reading of that open document's house rules (see diagnose)."""
        self._team_listener: TeamListener | None = None
        self._document_queries: dict[str, str] = {}
        """uri -> the query whose recall was prefetched while that document was edited"""
        self._apply_reflection()

    @property
    def built_tracker(self) -> CaptureTracker | None:
        """The tracker if something built it already (never builds it)."""
        return self._tracker

    @property
    def tracker(self) -> CaptureTracker | None:
        """What capture knows about the workspace's files (None without a workspace).

        Built at first use, not when the app is: its module brings the whole
        convention analysis, which an editor waiting for ``initialize`` does not need.
        """
        if self.workspace is None:
            return None
        with self._tracker_lock:
            if self._tracker is None:
                from .capture.tracker import CaptureTracker

                self._tracker = CaptureTracker(
                    self.engine,
                    self.workspace,
                    max_file_bytes=self.settings.watch.max_file_bytes,
                    post=self.worker.post,
                    own_writes=self.own_writes,
                    own_folders=(self.engine.blobs.root,),
                )
            return self._tracker

    def _open_engine(self, session: str, temporary_fallback: bool) -> LearningEngine:
        """Open the brain; a long-running host may fall back to a temporary one.

        An editor must keep working when the brain cannot be written, so it runs
        on a throw-away brain and says so. A command-line run must not: it would
        report success for a write that is thrown away, so there the error stands
        (and a read-only brain refuses writes with :class:`BrainUnavailable`).
        """
        settings = self.settings.learning
        try:
            store = team_brain.open_store(
                self.settings, self.brain_path, strict=not temporary_fallback
            )
            engine = LearningEngine(store, self.project_scope, settings, session_id=session)
            team_brain.announce_notices(store, engine.bus)
        except BrainUnavailable as error:
            if not temporary_fallback:
                if self._owns_worker:
                    self.worker.stop(0.1)
                raise
            fallback = Path(tempfile.mkdtemp(prefix="comodor-unsaved-")) / "brain.db"
            engine = LearningEngine.open(fallback, self.project_scope, settings, session_id=session)
            engine.notices.append(
                f"Comodor cannot use its brain: {error} Until that is fixed it runs on a "
                f"temporary brain ({fallback}); nothing learned meanwhile is kept."
            )
        return engine

    # -- settings and conversion ----------------------------------------------- #

    @property
    def wire(self) -> protocol.Wire:
        """Converts this app's brain records and events into protocol objects."""
        return protocol.Wire(self.settings.learning.half_life_days, self.workspace)

    @property
    def notices(self) -> list[str]:
        """What the user should be told about opening the brain."""
        return self.engine.notices

    def configure(self, settings: Settings) -> None:
        """Apply new settings; the brain location is fixed for the life of the app."""
        self.settings = attrs.evolve(
            settings, brain_path=self.settings.brain_path, brain=self.settings.brain
        )
        self.engine.configure(self.settings.learning)
        self._apply_reflection()
        if self._tracker is not None:  # one not built yet reads the settings when it is
            self._tracker.max_file_bytes = self.settings.watch.max_file_bytes
        if self.live_sync is not None:
            self.live_sync.poke()  # sync.targets may have changed

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
            from .reflect.reflection_service import ReflectionService

            self.reflection = ReflectionService(self.engine, self.settings.reflect, self.worker)
            self.engine.reflector = self.reflection

    # -- events ------------------------------------------------------------------ #

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Listen to the brain's events (typed; convert with :attr:`wire`)."""
        return self.engine.bus.subscribe(listener)

    # -- commands -------------------------------------------------------------- #

    def execute(self, command: str, argument: object) -> Any:
        """Run one protocol command here: validate, call the brain, return JSON-ready data."""
        from .commands import COMMANDS

        entry = COMMANDS.get(command)
        if entry is None:
            raise InvalidInput("command", f"unknown command {command!r}")
        params = protocol.structure(argument, entry.params)
        if entry.fresh:
            self.engine.refresh()
        return protocol.unstructure(entry.run(self, params))

    def call(self, command: str, argument: object) -> concurrent.futures.Future[Any]:
        """Run one protocol command on the brain worker (reads on the read lane)."""
        from .commands import COMMANDS

        entry = COMMANDS.get(command)
        submit = (
            self.worker.submit_read if entry is not None and entry.reads else self.worker.submit
        )
        return submit(lambda: self.execute(command, argument))

    # -- workspace files and documents --------------------------------------------- #

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

    def file_from_uri(self, uri: str, field: str = "uri") -> Path:
        """The workspace file a URI names, or an error naming ``field``."""
        try:
            path = uri_to_path(uri)
        except InvalidInput:
            raise InvalidInput(field, f"expected a file: URI, got {uri[:80]!r}") from None
        if self.workspace is None:
            raise InvalidInput(field, "there is no workspace folder")
        if not inside(self.workspace, path):
            raise InvalidInput(field, f"{uri[:200]!r} is outside the workspace folder")
        return path

    def document_closed(self, uri: str) -> None:
        self._document_queries.pop(uri, None)
        self._checkers.pop(uri, None)
        self.documents.closed(uri)

    def prefetch(self, query: str, uri: str | None = None) -> None:
        """Recall ahead for what the user is typing (a draft, or a document's context)."""
        if uri is not None:
            self._document_queries[uri] = query
        self.worker.submit_read(lambda: self.engine.prefetch(query))

    def document_query(self, uri: str) -> str:
        """The query prefetched for a document, for ``comodor.playbook {uri}``."""
        return self._document_queries.get(uri, "")

    def document_rules(self, uri: str, language_id: str | None) -> list[protocol.RuleObject]:
        """The rules that apply to a document, from memory, no I/O.

        The confident, active ones, then the contested ones (shown so a user sees
        the split, never enforced).
        """
        language = language_of_document(uri, language_id)
        engine = self.engine
        return self.wire.rules([*engine.active_rules(language), *engine.contested_rules(language)])

    def relative_document_path(self, uri: str) -> str | None:
        """A workspace document's path relative to the workspace (None: not one of ours)."""
        path, tracker = self.documents.path(uri), self.tracker
        if path is None or tracker is None:
            return None
        return tracker.key(path)

    def document_diagnostics(
        self,
        uri: str,
        text: str,
        language_id: str | None,
        *,
        fixes_for: tuple[int, int] | None = None,
        fix_all: bool = False,
    ) -> protocol.DocumentDiagnostics:
        """Where a document breaks its house rules (memory only, any thread).

        With ``fixes_for`` (first, last line) the places on those lines carry their
        fix; with ``fix_all`` the report has the fix for the whole document.
        """
        from .diagnostics.rule_check import document_report
        from .diagnostics.violations import DocumentChecker

        language = language_of_document(uri, language_id)
        return document_report(
            self.engine.active_rules(language),
            self.settings,
            self.relative_document_path(uri),
            text,
            language,
            fixes_for=fixes_for,
            fix_all=fix_all,
            checker=self._checkers.setdefault(uri, DocumentChecker()),
        )

    def rule_exception(self, rule_id: int, uri: str, place: str) -> protocol.RuleObject:
        """Say "not here": the rule does not apply at this place of the document."""
        from .diagnostics.rule_check import exception_key

        path = self.relative_document_path(uri)
        if path is None:
            raise InvalidInput("uri", f"{uri[:200]!r} is not a document of this workspace")
        rule = self.engine.add_rule_exception(
            rule_id, exception_key(path, place), detail=f"not here, in {path}"
        )
        if rule is None:
            raise InvalidInput("id", f"there is no house rule {rule_id}")
        return self.wire.rule(rule)

    # -- rules files --------------------------------------------------------------- #

    def export_rules(self, raw: str, field: str = "path") -> Path:
        """Write the confident rules as Markdown a team can read, review and commit.

        The target must be a Markdown file inside the workspace and outside
        ``.git``; it is written atomically and through nothing a repository could
        have planted (see :mod:`comodor.brain.atomic`).
        """
        from .brain.atomic import UnsafeWrite, write_atomic

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

    def rules_markdown(self) -> str:
        """The confident house rules as Markdown, in the committed export format."""
        self.engine.refresh()
        return self.engine.rules_markdown()

    def lessons_markdown(self, limit: int = 200) -> str:
        """The project's lessons as Markdown (newest ``limit``, pinned first)."""
        from .brain.lessons.markdown import lessons_markdown

        lessons = self.engine.search("", limit)
        return lessons_markdown(
            lessons, self.engine.settings.half_life_days, project=self.project_scope
        )

    def read_team_rules(self) -> TeamImport:
        """Read a teammate's committed ``house-rules.md`` (see :mod:`comodor.committed_rules`)."""
        from .committed_rules import import_team_rules

        return import_team_rules(self)

    # -- background parts for long-running hosts ------------------------------------- #

    def check_brain(self, on_notice: Callable[[str], None]) -> None:
        """Check every page of the brain in the background; salvage a damaged one."""

        def check() -> None:
            notice = self.engine.recover_if_damaged()
            if notice is not None:
                on_notice(notice)

        self.worker.post(check, "check the brain file")

    def watch_other_processes(self) -> None:
        """Follow changes other processes make to the brain (hover, views, stats)."""
        if self._freshness is None:
            from .brain.freshness import ChangeWatcher

            engine = self.engine
            self._freshness = ChangeWatcher(
                self.engine.store.path,
                lambda: self.worker.post(engine.catch_up, "catch up with other processes"),
            ).start()
            self._team_listener = team_brain.watch_team(
                engine.store, self.settings.brain.url, self.worker.post, engine.catch_up
            )

    def start_capture(self, on_notice: Callable[[str], None]) -> None:
        """Watch the workspace and read its conventions (language server only)."""
        if self.workspace is None or self.tracker is None or self.capture is not None:
            return
        from .capture.workspace_capture import Capture

        learning = self.settings.learning
        scan = learning.enabled and learning.rules
        self.capture = Capture(
            self.engine, self.tracker, self.workspace, self.worker, self.settings.watch, on_notice
        ).start(scan=scan)

    def start_live_sync(self) -> None:
        """Keep ``sync.targets`` current as rules change (language server only)."""
        if self.workspace is None or self.live_sync is not None:
            return
        from .sync import LiveSync

        self.live_sync = LiveSync(self)
        self.live_sync.start()

    @property
    def watching(self) -> str:
        """The watcher's state: ``native``, ``polling``, ``starting``, ``stopped`` or ``off``."""
        return self.capture.mode if self.capture is not None else "off"

    # -- lifecycle ----------------------------------------------------------- #

    def close(self, timeout: float = 0.5) -> None:
        """Stop background work and close the brain; never waits on a hung model."""
        if self._freshness is not None:
            self._freshness.stop(0.2)
        if self._team_listener is not None:
            self._team_listener.stop(0.3)
        if self.live_sync is not None:
            self.live_sync.stop(0.2)
        if self.capture is not None:
            self.capture.stop(timeout)
        self.engine.close()
        if self._owns_worker:
            self.worker.stop(0.2)


def language_of_document(uri: str, language_id: str | None) -> str | None:
    """The Comodor language of a document: from the editor's language id, else the name."""
    if language_id:
        return EDITOR_LANGUAGES.get(language_id, language_id)
    return language_of(uri)


EDITOR_LANGUAGES = {
    "python": "python",
    "typescript": "typescript",
    "typescriptreact": "typescript",
    "javascript": "javascript",
    "javascriptreact": "javascript",
}
"""Editors' language ids that differ from Comodor's language names."""
