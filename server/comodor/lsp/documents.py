"""Documents: baselines on open, corrections on save, prefetch while the user types.

Prefetch is debounced per document (``didChange``) and per client
(``comodor/draft``): after ``prefetchDelayMs`` without a newer change, recall
for that text is computed on the brain worker. The timer checks the document
version when it fires, so a burst of keystrokes costs one recall, not one per
key. The next ``comodor.playbook``/``comodor.beginTask`` for the same draft (or,
with ``uri`` and no query, for the same document) is answered from it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath
from typing import Any

from lsprotocol import types

from . import assistant_edits
from .diagnostics import CHANGE_DELAY_S
from .hover import document_language_id
from .server import ComodorServer

log = logging.getLogger(__name__)

MAX_DRAFT_CHARS = 20_000
CONTEXT_LINES = 2
MAX_CONTEXT_CHARS = 2000


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


def _debounce(ls: ComodorServer, key: str, callback: Callable[[], None]) -> None:
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
    name = PurePosixPath(document.path).name if document.path else uri.rsplit("/", 1)[-1]
    language = document_language_id(ls, uri) or ""
    around = " ".join(text.strip() for text in lines[start:end])
    return f"{name} {language} {around}".strip()[:MAX_CONTEXT_CHARS]


def did_open(ls: ComodorServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.texts.opened(params.text_document.uri, params.text_document.text)
    if ls.app is not None:
        ls.app.documents.opened(params.text_document.uri, params.text_document.text)
    if ls.diagnostics is not None:
        ls.diagnostics.schedule(params.text_document.uri, 0)


def will_create_files(
    ls: ComodorServer, params: types.CreateFilesParams
) -> types.WorkspaceEdit | None:
    """The editor is about to create files (explorer, paste): they are not agent writes."""
    if ls.app is not None:
        ls.app.documents.created([item.uri for item in params.files], done=False)
    return None


def did_create_files(ls: ComodorServer, params: types.CreateFilesParams) -> None:
    if ls.app is not None:
        ls.app.documents.created([item.uri for item in params.files], done=True)


def _text_changes(
    changes: Sequence[types.TextDocumentContentChangeEvent],
) -> list[tuple[int, int, int, int, str]] | None:
    """A plain copy of a ``didChange``'s changes (None: the client sent whole texts)."""
    plain: list[tuple[int, int, int, int, str]] = []
    for change in changes:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            return None
        start, end = change.range.start, change.range.end
        plain.append((start.line, start.character, end.line, end.character, change.text))
    return plain


def _follow_change(ls: ComodorServer, params: types.DidChangeTextDocumentParams) -> None:
    """Keep the text before this change; an assistant-edited document's lines move with it."""
    uri, version = params.text_document.uri, params.text_document.version
    document = ls.workspace.text_documents.get(uri)
    if document is None:
        return
    after = document.source
    changes = _text_changes(params.content_changes)
    before = ls.texts.changed(uri, version, after, changes)
    app = ls.app
    if app is not None and before is not None and app.documents.follows(uri):
        app.documents.changed(uri, before, after, changes)


def did_change(ls: ComodorServer, params: types.DidChangeTextDocumentParams) -> None:
    _follow_change(ls, params)
    assistant_edits.document_reached(ls, params.text_document.uri, params.text_document.version)
    if ls.diagnostics is not None:
        ls.diagnostics.schedule(params.text_document.uri, CHANGE_DELAY_S)
    app, learning = ls.app, ls.settings.learning
    if app is None or not learning.prefetch or not learning.enabled:
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
            app.prefetch(query, uri)

    _debounce(ls, uri, fire)


def did_save(ls: ComodorServer, params: types.DidSaveTextDocumentParams) -> None:
    if ls.app is not None:
        ls.app.documents.saved(params.text_document.uri, params.text)


def did_close(ls: ComodorServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.texts.closed(uri)
    assistant_edits.forget(ls, uri)
    timer = ls.timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    if ls.app is not None:
        ls.app.document_closed(uri)
    if ls.diagnostics is not None:
        ls.diagnostics.closed(uri)


def draft(ls: ComodorServer, params: Any) -> None:
    """``comodor/draft``: the user is typing a request; recall for it once they pause."""
    app = ls.app
    text = params.get("text") if isinstance(params, dict) else getattr(params, "text", None)
    if app is None or not isinstance(text, str) or not text.strip():
        return
    if len(text) > MAX_DRAFT_CHARS or not ls.settings.learning.prefetch:
        return

    def fire() -> None:
        ls.timers.pop("draft", None)
        app.prefetch(text)

    _debounce(ls, "draft", fire)


def register(server: ComodorServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.WORKSPACE_WILL_CREATE_FILES, _EVERY_FILE)(will_create_files)
    server.feature(types.WORKSPACE_DID_CREATE_FILES, _EVERY_FILE)(did_create_files)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(
        types.TEXT_DOCUMENT_DID_SAVE, types.TextDocumentSaveRegistrationOptions(include_text=True)
    )(did_save)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(did_close)
    server.feature("comodor/draft")(draft)
