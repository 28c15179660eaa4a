"""``comodor/assistantEdit``: the editor reports an edit an assistant made inside it.

Protocol v1.2. The client knows who made a change (VS Code's own edit source, or the
extension's attribution); the server checks the notice against the document it holds
and hands it to capture as an agent write of those lines. A notice that does not
match (an unknown or closed document, a version no remembered change made, ranges
outside the text) is ignored with a log line: counting an edit nobody can place
would teach a false rule, and missing one only misses a lesson.

The notice may come after later changes of the document (the user typing on right
after accepting a completion): its ranges are placed in the version it names, and
the assistant's lines then follow the changes since (see :mod:`.text_history`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ..brain.errors import InvalidInput
from ..protocol import AssistantEditParams
from ..protocol.convert import structure
from ..protocol.params import RangeParams
from .server import ComodorServer

log = logging.getLogger(__name__)

METHOD = "comodor/assistantEdit"


def plain(value: Any) -> Any:
    """Pygls hands params of methods it doesn't know as nested ``Object`` namedtuples."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def _utf16_length(line: str) -> int:
    return len(line) if line.isascii() else len(line.encode("utf-16-le")) // 2


def line_spans(ranges: Sequence[RangeParams], lines: Sequence[str]) -> list[tuple[int, int]]:
    """``(first, last)`` lines of each range, or InvalidInput when one is not in the text.

    A range that ends at the start of a line (whole lines inserted) does not own it.
    """
    spans: list[tuple[int, int]] = []
    for index, item in enumerate(ranges):
        start, end = item.start, item.end
        if (end.line, end.character) < (start.line, start.character):
            raise InvalidInput(f"ranges[{index}]", "ends before it starts")
        for position in (start, end):
            if position.line >= len(lines):
                raise InvalidInput(
                    f"ranges[{index}]", f"line {position.line} is past the document's end"
                )
            if position.character > _utf16_length(lines[position.line].rstrip("\r")):
                raise InvalidInput(
                    f"ranges[{index}]",
                    f"character {position.character} is past the end of line {position.line}",
                )
        last = end.line - 1 if end.character == 0 and end.line > start.line else end.line
        spans.append((start.line, last))
    return spans


def assistant_edit(ls: ComodorServer, params: Any) -> None:
    if ls.app is None:
        return
    try:
        notice = structure(plain(params), AssistantEditParams)
    except InvalidInput as error:
        log.warning("%s ignored: %s", METHOD, error)
        return
    document = ls.workspace.text_documents.get(notice.uri)
    if document is None:
        log.warning("%s ignored: %s is not an open document", METHOD, notice.uri[:200])
        return
    if document.version is not None and notice.version > document.version:
        # A client that debounces didChange (Neovim, Emacs) may send this first: wait
        # for the change that carries it (see :func:`document_reached`).
        ls.early_notices[notice.uri] = notice
        return
    _count(ls, notice)


def document_reached(ls: ComodorServer, uri: str, version: int) -> None:
    """A ``didChange`` made ``version``: count a notice that arrived before it."""
    notice = ls.early_notices.get(uri)
    if notice is None or notice.version > version:
        return
    del ls.early_notices[uri]
    _count(ls, notice)


def forget(ls: ComodorServer, uri: str) -> None:
    ls.early_notices.pop(uri, None)


def _count(ls: ComodorServer, notice: AssistantEditParams) -> None:
    """Check ``notice`` against the document as it is now and hand it to capture."""
    app, uri = ls.app, notice.uri
    document = ls.workspace.text_documents.get(uri)
    if app is None or document is None:
        return
    if notice.version > document.version:
        log.warning(
            "%s ignored: version %d of %s, the document is at %s",
            METHOD,
            notice.version,
            uri[:200],
            document.version,
        )
        return
    # The user may have typed on before the notice came (it follows the change that made
    # its version by a moment): its lines then move through the changes since.
    changes = ls.texts.since(uri, notice.version)
    if changes is None:
        log.warning(
            "%s ignored: no change of %s that is still remembered made version %d",
            METHOD,
            uri[:200],
            notice.version,
        )
        return
    made, later = changes[0], changes[1:]
    try:
        spans = line_spans(notice.ranges, made.after.split("\n"))
    except InvalidInput as error:
        log.warning("%s ignored: %s", METHOD, error)
        return
    reason = app.documents.assistant_edited(uri, made.before, made.after, spans, notice.source)
    if reason is not None:
        log.info("%s of %s not counted: %s", METHOD, uri[:200], reason)
        return
    for change in later:
        app.documents.changed(uri, change.before, change.after, change.changes)


def register(server: ComodorServer) -> None:
    server.feature(METHOD)(assistant_edit)
