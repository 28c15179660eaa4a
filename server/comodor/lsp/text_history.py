"""The text each open document had just before its latest change.

pygls applies a ``didChange`` to its copy of the document before our handler runs,
so the text *before* a change is gone by then. An assistant's edit is announced
right after the change that carried it (``comodor/assistantEdit`` names that
version), and capture needs the text it replaced: this keeps it, one text per open
document (the previous version's string, which pygls has just let go of).
"""

from __future__ import annotations


class TextHistory:
    """``uri -> current text`` and ``uri -> (version, text before the change to it)``."""

    def __init__(self) -> None:
        self._current: dict[str, str] = {}
        self._before: dict[str, tuple[int, str]] = {}

    def opened(self, uri: str, text: str) -> None:
        self._current[uri] = text
        self._before.pop(uri, None)

    def changed(self, uri: str, version: int, text: str) -> str | None:
        """The document reached ``version`` holding ``text``; return the text it had."""
        previous = self._current.get(uri)
        self._current[uri] = text
        if previous is None:
            self._before.pop(uri, None)
        else:
            self._before[uri] = (version, previous)
        return previous

    def before(self, uri: str, version: int) -> str | None:
        """The text before the change that made ``version``, if that was the latest one."""
        entry = self._before.get(uri)
        return entry[1] if entry is not None and entry[0] == version else None

    def closed(self, uri: str) -> None:
        self._current.pop(uri, None)
        self._before.pop(uri, None)
