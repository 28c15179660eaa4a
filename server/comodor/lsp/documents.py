"""Documents: baselines on open, corrections on save, prefetch while the user types.

Prefetch is debounced per document (``didChange``) and per client
(``comodor/draft``): after ``prefetchDelayMs`` without a newer change, recall
for that text is computed on the brain thread. The timer checks the document
version when it fires, so a burst of keystrokes costs one recall, not one per
key. The next ``comodor.playbook``/``comodor.beginTask`` for the same draft (or,
with ``uri`` and no query, for the same document) is answered from it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from comodor.app import uri_to_path
from comodor.lsp.hover import document_language
from comodor.lsp.server import ComodorServer

log = logging.getLogger(__name__)

MAX_DRAFT_CHARS = 20_000
CONTEXT_LINES = 2


def _file_path(uri: str) -> Path | None:
    try:
        return uri_to_path(uri)
    except ValueError:
        return None


_EVERY_FILE = types.FileOperationRegistrationOptions(
    filters=[
        types.FileOperationFilter(
            scheme="file",
            pattern=types.FileOperationPattern(
                glob="**/*", matches=types.FileOperationPatternKind.File
            ),
        )
    ]
)
"""Files the editor creates (explorer, paste) are its own, never an agent's writes."""


def _tell_tracker(ls: ComodorServer, params: types.CreateFilesParams, when: str) -> None:
    """Pass the editor's file creations to the tracker, on the brain thread (it reads disk)."""
    app = ls.app
    if app is None or app.tracker is None:
        return
    tracker = app.tracker
    paths = [path for path in map(_file_path, (f.uri for f in params.files)) if path is not None]

    def note() -> None:
        inside = [path for path in paths if tracker.inside(path)]
        if inside and when == "will":
            tracker.editor_will_create(inside)
        elif inside:
            tracker.editor_created(inside)

    if paths:
        ls.brain.submit(note)


def _debounce(ls: ComodorServer, key: str, callback: Any) -> None:
    loop = ls.loop
    if loop is None:
        return
    previous = ls.timers.pop(key, None)
    if previous is not None:
        previous.cancel()
    delay = ls.settings.learning.prefetch_delay_ms / 1000.0
    ls.timers[key] = loop.call_later(delay, callback)


def document_query(ls: ComodorServer, uri: str, line: int) -> str:
    """What a document is about right now: its name, language and the edited lines."""
    document = ls.workspace.text_documents.get(uri)
    if document is None:
        return ""
    lines = document.lines
    start, end = max(0, line - CONTEXT_LINES), min(len(lines), line + CONTEXT_LINES + 1)
    name = Path(document.path).name if document.path else uri.rsplit("/", 1)[-1]
    language = document_language(ls, uri) or ""
    around = " ".join(text.strip() for text in lines[start:end])
    return f"{name} {language} {around}".strip()[:2000]


def register(server: ComodorServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ComodorServer, params: types.DidOpenTextDocumentParams) -> None:
        app, path = ls.app, _file_path(params.text_document.uri)
        if app is None or app.tracker is None or path is None:
            return
        tracker, text = app.tracker, params.text_document.text
        if tracker.inside(path):
            ls.brain.submit(lambda: tracker.did_open(path, text))

    @server.feature(types.WORKSPACE_WILL_CREATE_FILES, _EVERY_FILE)
    def will_create_files(
        ls: ComodorServer, params: types.CreateFilesParams
    ) -> types.WorkspaceEdit | None:
        _tell_tracker(ls, params, "will")
        return None

    @server.feature(types.WORKSPACE_DID_CREATE_FILES, _EVERY_FILE)
    def did_create_files(ls: ComodorServer, params: types.CreateFilesParams) -> None:
        _tell_tracker(ls, params, "did")

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ComodorServer, params: types.DidChangeTextDocumentParams) -> None:
        app = ls.app
        if app is None or not ls.settings.learning.prefetch or not ls.settings.learning.enabled:
            return
        uri, version = params.text_document.uri, params.text_document.version
        line = 0
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                line = change.range.start.line

        def fire() -> None:
            ls.timers.pop(uri, None)
            document = ls.workspace.text_documents.get(uri)
            if document is None or document.version != version:
                return  # a newer change has its own timer
            query = document_query(ls, uri, line)
            if query:
                ls.document_queries[uri] = query
                ls.brain.submit(lambda: app.engine.prefetch(query))

        _debounce(ls, uri, fire)

    @server.feature(
        types.TEXT_DOCUMENT_DID_SAVE, types.TextDocumentSaveRegistrationOptions(include_text=True)
    )
    def did_save(ls: ComodorServer, params: types.DidSaveTextDocumentParams) -> None:
        app, uri = ls.app, params.text_document.uri
        path = _file_path(uri)
        if app is None or app.tracker is None or path is None:
            return
        tracker = app.tracker
        text = params.text

        def capture() -> None:
            if not tracker.inside(path) or tracker.is_ignored(path):
                return
            saved = text if text is not None else ls.workspace.get_text_document(uri).source
            if app.engine.settings.enabled and app.engine.settings.corrections:
                tracker.did_save(path, saved)

        ls.brain.submit(capture)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ComodorServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        timer = ls.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        ls.document_queries.pop(uri, None)

    @server.feature("comodor/draft")
    def draft(ls: ComodorServer, params: Any) -> None:
        app = ls.app
        text = params.get("text") if isinstance(params, dict) else getattr(params, "text", None)
        if app is None or not isinstance(text, str) or not text.strip():
            return
        if len(text) > MAX_DRAFT_CHARS or not ls.settings.learning.prefetch:
            return

        def fire() -> None:
            ls.timers.pop("draft", None)
            ls.brain.submit(lambda: app.engine.prefetch(text))

        _debounce(ls, "draft", fire)
