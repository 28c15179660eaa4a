"""Diagnostics: where open documents break a house rule, pushed as ``publishDiagnostics``.

When: at once after ``didOpen``, :data:`CHANGE_DELAY_S` after the last ``didChange``
(a burst of keystrokes costs one run), and soon after anything that changes what a
document is judged against — a rule learned, taught, forgotten or switched off, a
change made by another process, new settings, an agent write to the file.

Where: the report (``ComodorApp.document_diagnostics``) is computed on a thread of
its own, never on the event loop and never queued behind the brain's reads or
writes: it reads only the document's text and the in-memory rule cache. A result
for a version the user has typed past is dropped and the run repeated.

The last report of each document is kept with the LSP diagnostics it became, so a
``codeAction`` request (sent on every cursor move by some editors) is answered
from memory. This module only translates: ranges into the client's position
encoding, severities into LSP's, fixes into workspace edits.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import re
from collections.abc import Sequence
from typing import Any

import attrs
from lsprotocol import types
from pygls.workspace import PositionCodec

from ..brain.events import AgentWrote, ChangedElsewhere, Event, RulesChanged
from ..protocol import DocumentDiagnostics, FixObject, RangeObject
from .server import ComodorServer

log = logging.getLogger(__name__)

SOURCE = "comodor"
CHANGE_DELAY_S = 0.2
"""Quiet after the last keystroke before a document is judged again."""
REFRESH_DELAY_S = 0.05
"""Coalesces a burst of rule changes (a correction votes for several) into one run."""
SEVERITIES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@attrs.frozen
class Judged:
    """A document's last report, for the version it was computed on."""

    version: int | None
    text: str
    language_id: str | None
    lines: tuple[str, ...]
    report: DocumentDiagnostics
    diagnostics: tuple[types.Diagnostic, ...]


def publisher_of(ls: ComodorServer) -> DiagnosticsPublisher | None:
    """The server's publisher with everything code actions need (its fixes, its reports)."""
    found = ls.diagnostics
    return found if isinstance(found, DiagnosticsPublisher) else None


class DiagnosticsPublisher:
    """Keeps every open document's diagnostics current and remembers the last report."""

    def __init__(self, server: ComodorServer) -> None:
        self.server = server
        self.executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="comodor-diagnostics"
        )
        self.judged: dict[str, Judged] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._shown: set[str] = set()
        """Documents whose last published list was not empty (they need clearing)."""
        self._closed = False

    # -- when ------------------------------------------------------------------ #

    def schedule(self, uri: str, delay: float) -> None:
        """Judge ``uri`` after ``delay`` seconds of quiet (on the event loop)."""
        loop = self.server.loop
        if loop is None or self._closed:
            return
        self.judged.pop(uri, None)  # the text or its rules changed: the report is stale
        previous = self._timers.pop(uri, None)
        if previous is not None:
            previous.cancel()
        if uri in self._running:
            self._again.add(uri)
            return
        self._timers[uri] = loop.call_later(delay, self._start, uri)

    def schedule_all(self, delay: float = REFRESH_DELAY_S) -> None:
        for uri in list(self.server.workspace.text_documents):
            self.schedule(uri, delay)

    def closed(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self.judged.pop(uri, None)
        if uri in self._shown:
            self._publish(uri, None, [])

    def on_event(self, event: Event) -> None:
        """A brain event (on the brain worker's thread): maybe judge documents again."""
        loop = self.server.loop
        if loop is None or loop.is_closed():
            return
        if isinstance(event, (RulesChanged, ChangedElsewhere)):
            loop.call_soon_threadsafe(self.schedule_all)
        elif isinstance(event, AgentWrote):
            app = self.server.app
            if app is not None:
                uri = app.wire.uri(event.path)
                loop.call_soon_threadsafe(self._agent_wrote, uri)

    def _agent_wrote(self, uri: str) -> None:
        if uri in self.server.workspace.text_documents:
            self.schedule(uri, REFRESH_DELAY_S)

    def close(self) -> None:
        self._closed = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self.executor.shutdown(wait=False, cancel_futures=True)

    # -- judging ------------------------------------------------------------------ #

    def _start(self, uri: str) -> None:
        self._timers.pop(uri, None)
        if uri in self._running or self._closed:
            self._again.add(uri)
            return
        task = asyncio.ensure_future(self._run(uri))
        self._running[uri] = task
        task.add_done_callback(lambda _: self._finished(uri))

    def _finished(self, uri: str) -> None:
        self._running.pop(uri, None)
        if uri in self._again:
            self._again.discard(uri)
            self.schedule(uri, 0)

    async def _run(self, uri: str) -> None:
        judged = await self.judge(uri)
        if judged is None:
            return
        severity = self.server.settings.diagnostics.severity
        if severity == "off" and uri not in self._shown:
            return  # turned off: nothing is ever published, only cleared
        self._publish(uri, judged.version, list(judged.diagnostics))

    async def judge(self, uri: str) -> Judged | None:
        """The report for the document's current version: from memory, or computed now."""
        server, app = self.server, self.server.app
        loop = server.loop
        while app is not None and loop is not None and not self._closed:
            document = server.workspace.text_documents.get(uri)
            if document is None:
                return None
            version = document.version
            cached = self.judged.get(uri)
            if cached is not None and cached.version == version and uri not in self._again:
                return cached
            self._again.discard(uri)
            text, language_id = document.source, document.language_id

            def check(
                text: str = text, language_id: str = language_id, version: int | None = version
            ) -> Judged:
                # Converting 500 places into LSP ranges is as much work as finding them:
                # it happens here too, off the event loop.
                report = app.document_diagnostics(uri, text, language_id)
                lines = tuple(_LINE_BREAK.split(text))
                converted = tuple(self._diagnostic(lines, item) for item in report.diagnostics)
                return Judged(version, text, language_id, lines, report, converted)

            try:
                judged = await loop.run_in_executor(self.executor, check)
            except (RuntimeError, concurrent.futures.CancelledError):
                return None  # shutting down
            except Exception:
                log.exception("diagnostics failed for %s", uri)
                return None
            current = server.workspace.text_documents.get(uri)
            if current is None:
                return None
            if current.version != version:
                continue  # typed past: judge the newer text
            self.judged[uri] = judged
            return judged
        return None

    async def with_fixes(
        self, uri: str, judged: Judged, lines: tuple[int, int] | None, fix_all: bool
    ) -> tuple[DocumentDiagnostics, tuple[types.Diagnostic, ...]] | None:
        """The judged text's report again, with the fixes of ``lines`` and maybe for all."""
        app, loop = self.server.app, self.server.loop
        if app is None or loop is None or self._closed:
            return None

        def report() -> DocumentDiagnostics:
            return app.document_diagnostics(
                uri, judged.text, judged.language_id, fixes_for=lines, fix_all=fix_all
            )

        def report_converted() -> tuple[DocumentDiagnostics, tuple[types.Diagnostic, ...]]:
            fixed = report()
            return fixed, tuple(self._diagnostic(judged.lines, item) for item in fixed.diagnostics)

        try:
            return await loop.run_in_executor(self.executor, report_converted)
        except (RuntimeError, concurrent.futures.CancelledError):
            return None

    def _publish(self, uri: str, version: int | None, items: list[types.Diagnostic]) -> None:
        if items:
            self._shown.add(uri)
        else:
            self._shown.discard(uri)
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=items)
        )

    # -- translation ---------------------------------------------------------------- #

    def _diagnostic(self, lines: Sequence[str], item: Any) -> types.Diagnostic:
        return types.Diagnostic(
            range=self.range(lines, item.range),
            message=item.message,
            severity=SEVERITIES.get(item.severity, types.DiagnosticSeverity.Information),
            code=item.code,
            source=SOURCE,
            data={"ruleId": item.rule_id, "place": item.place},
        )

    def range(self, lines: Sequence[str], value: RangeObject) -> types.Range:
        codec = self.server.workspace.position_codec
        return types.Range(
            start=_position(codec, lines, value.start_line, value.start_character),
            end=_position(codec, lines, value.end_line, value.end_character),
        )

    def workspace_edit(self, uri: str, judged: Judged, fix: FixObject) -> types.WorkspaceEdit:
        edits = [
            types.TextEdit(range=self.range(judged.lines, edit.range), new_text=edit.new_text)
            for edit in fix.edits
        ]
        capabilities = self.server.client_capabilities
        workspace = capabilities.workspace if capabilities else None
        changes = workspace.workspace_edit if workspace else None
        if changes is not None and changes.document_changes and judged.version is not None:
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(
                            uri=uri, version=judged.version
                        ),
                        edits=list(edits),
                    )
                ]
            )
        return types.WorkspaceEdit(changes={uri: edits})


def _position(
    codec: PositionCodec, lines: Sequence[str], line: int, character: int
) -> types.Position:
    """A code-point column as the client counts (UTF-16 unless negotiated otherwise)."""
    text = lines[line] if 0 <= line < len(lines) else ""
    if text.isascii():
        return types.Position(line=line, character=character)
    return types.Position(line=line, character=codec.client_num_units(text[:character]))


def attach(server: ComodorServer) -> None:
    """Start following the app's rules (called once the app exists, at ``initialize``)."""
    publisher, app = publisher_of(server), server.app
    if publisher is not None and app is not None:
        app.subscribe(publisher.on_event)


def register(server: ComodorServer) -> None:
    server.diagnostics = DiagnosticsPublisher(server)
