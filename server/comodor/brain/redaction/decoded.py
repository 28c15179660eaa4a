"""Lines with URL escapes, read again as they decode.

A credential handed through a URL is escaped: a SQLAlchemy ``odbc_connect=`` parameter holds a
whole ODBC connection string (``...%3BUID%3Detl%3BPWD%3DTiger799%25ob7P``), a form post or a log
of one holds ``password%3DX``. No rule sees a name, an operator or a value there: the ``=`` and
``;`` they read between them are ``%3D`` and ``%3B``.

So :func:`percent_view` builds a second reading of a text, the way :mod:`.gutters` does for
lines behind a gutter: each line holding an escape of a character that separates names and
values (``%3D`` ``=``, ``%3B`` ``;``, ``%25`` ``%``, ``%40`` ``@``...), decoded, and an empty
line wherever other lines stood. Its findings are mapped back to the text
(:meth:`PercentView.to_text`) and redacted with the others. A text with no such escape costs
one substring search for ``%`` and a regex match at each one; a Python file's ``%s`` and
``%d`` are no escapes (``%20s`` is one, and decodes harmlessly).
"""

from __future__ import annotations

import bisect
import re
from typing import Final

_ESCAPE_RE: Final = re.compile(r"%(?:2[0-9A-Fa-f]|3[A-Fa-f]|40|5[BCDbcd]|60|7[B-Eb-e])")
"""An escape of a printable punctuation mark or a blank: what a URL escapes in a value."""


class PercentView:
    """A text's lines with URL escapes, decoded, and the way back to the text.

    The view is pieces: runs copied from the text (one view character per text character) and
    decoded escapes (one view character for three). A position maps back through the piece it
    falls in; an end that falls on an escape maps to where the escape starts.
    """

    def __init__(self, text: str, view_starts: list[int], text_starts: list[int]) -> None:
        self.text = text
        self._view_starts = view_starts
        self._text_starts = text_starts

    def to_text(self, position: int) -> int:
        """The position in the original text of *position* in the view."""
        piece = bisect.bisect_right(self._view_starts, position) - 1
        return self._text_starts[piece] + position - self._view_starts[piece]


def percent_view(text: str) -> PercentView | None:
    """The decoded view of *text*'s lines with URL escapes, or ``None`` when none has one."""
    m = _ESCAPE_RE.search(text) if "%" in text else None
    if m is None:
        return None
    parts: list[str] = []
    view_starts: list[int] = []
    text_starts: list[int] = []

    def add(piece: str, at: int) -> None:
        view_starts.append(view_starts[-1] + len(parts[-1]) if parts else 0)
        text_starts.append(at)
        parts.append(piece)

    previous_end = -1
    while m is not None:
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_stop = text.find("\n", m.start())
        if line_stop < 0:
            line_stop = len(text)
        if parts:  # a line break, and an empty line where lines without an escape stood
            add("\n" if line_start == previous_end + 1 else "\n\n", previous_end)
        copied = line_start
        for escape in _ESCAPE_RE.finditer(text, line_start, line_stop):
            add(text[copied : escape.start()], copied)
            add(chr(int(text[escape.start() + 1 : escape.end()], 16)), escape.start())
            copied = escape.end()
        add(text[copied:line_stop], copied)  # empty or not: where a decoded escape ends
        previous_end = line_stop
        m = _ESCAPE_RE.search(text, line_stop)
    return PercentView("".join(parts), view_starts, text_starts)
