"""Second readings of a text: what rules that read a line as it stands cannot see.

Two readings, each a :class:`View` -- a text of its own, read by every rule, whose findings
are mapped back to the text they came from (:meth:`View.to_text`) and added to the first
reading's (:func:`comodor.brain.redaction.redactor.find_secrets`):

* :func:`gutter_view` -- lines behind a gutter, read again as the lines they show;
* :func:`percent_view` -- lines with URL escapes, read again as they decode.

Each costs what its lines cost, not what the text costs: a text with neither has no view.

Lines behind a gutter
---------------------
A credential file rarely reaches Comodor as it lies on disk. An agent's patch shows it as ``+``
lines, a chat quotes it with ``> ``, a code view numbers it (``12 | ``, ``12<tab>``), a log
stamps every line, a terminal puts a prompt before it, and a user types a label before a paste
(``credentials: # user: password``). Every rule that reads a line from its start -- a
``.pgpass`` line, a YAML key, a ``Password:`` header, the first line of a block -- misses the
secret behind such a gutter: with the corpora's samples shown that way, one kind in thirty got
through.

So :func:`gutter_view` builds a second reading of a text: each line that starts with a gutter,
the gutter cut off, and an empty line wherever other lines stood, so the view costs what its
gutter lines cost, not what the text costs (a Python file's few ``-`` and ``%`` lines, not its
code). After a label on the first line the whole rest is the view. Its findings are mapped
back to the text (:meth:`View.to_text`) and redacted with the others: the view only adds
findings.

Comments are not gutters here. A Python file's comments would be most of the view of every
correction (+0.4 ms on the 5,000-line budget of 5 ms), and the named rules found too little
behind them to pay for it (30 kinds of 879 stored behind ``# `` before, 21 after).
Indentation is not either (every line of code has it), nor a REPL's ``>>>`` (a doctest is code,
and a stdlib module has hundreds).

Lines with URL escapes
----------------------
A credential handed through a URL is escaped: a SQLAlchemy ``odbc_connect=`` parameter holds a
whole ODBC connection string (``...%3BUID%3Detl%3BPWD%3DTiger799%25ob7P``), a form post or a log
of one holds ``password%3DX``. No rule sees a name, an operator or a value there: the ``=`` and
``;`` they read between them are ``%3D`` and ``%3B``.

So :func:`percent_view` builds a second reading of a text, the way :func:`gutter_view` does
for lines behind a gutter: each line holding an escape of a character that separates names and
values (``%3D`` ``=``, ``%3B`` ``;``, ``%25`` ``%``, ``%40`` ``@``...), decoded, and an empty
line wherever other lines stood. Its findings are mapped back to the text
(:meth:`View.to_text`) and redacted with the others. A text with no such escape costs
one substring search for ``%`` and a regex match at each one; a Python file's ``%s`` and
``%d`` are no escapes (``%20s`` is one, and decodes harmlessly).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from typing import Final


class View:
    """A second reading of a text, and the way back to it.

    The view is pieces, each copied from the text or decoded from it, with where each starts in
    the view and in the text. A position maps back through the piece it falls in: one view
    character per text character inside a copied piece (a gutter line, the runs between URL
    escapes); a decoded escape (one view character for three) maps to where it starts.
    Lines that follow each other in the text follow each other in a view; where other lines
    stood between them, the view has an empty line, so a block never runs on into a line it
    did not reach.
    """

    def __init__(self, text: str, view_starts: list[int], text_starts: list[int]) -> None:
        self.text = text
        self._view_starts = view_starts
        self._text_starts = text_starts

    def to_text(self, position: int) -> int:
        """The position in the original text of *position* in the view."""
        piece = bisect.bisect_right(self._view_starts, position) - 1
        return self._text_starts[piece] + position - self._view_starts[piece]


# --- lines behind a gutter ----------------------------------------------------------------------

GUTTER_START: Final = r"[-+>$%*\d\[\u2022@]"
"""What a gutter of :data:`_GUTTER_RE` starts with; the engine's prefix pass marks the lines
that start so (:func:`.matching.read`), and only those are tried in a long text."""

_GUTTER_RE: Final = re.compile(
    r"""\n[ \t]*+(?="""
    + GUTTER_START
    + r""")(?:
        \d{1,6}+(?:\t|[ ]*+[|:\u2502][ \t]?)           # numbered lines: "12 | ", "  12\t", "12: "
      | (?:>(?!>>)[ \t]?)++                            # quoted mail and Markdown (not a REPL)
      | [+-](?![+-]{2})                               # a unified diff's added and removed lines
      | [$%][ \t]                                     # a shell's prompt
      | [-*\u2022][ \t]++                             # list items
      | \[?\d{4}-\d\d-\d\d[T ][\d:.,]{5,15}+(?:Z|[+-]\d\d:?\d\d)?\]?[ \t]  # a log's stamp
        (?:[ \t]?+\[?[A-Za-z]{3,8}\]?[ \t])?+           # and its level, whole or not at all
      | (?=@@[ ]-\d)                                  # a diff's hunk (its context lines count)
    )(?=[^\n])""",
    re.VERBOSE,
)
"""A gutter at the start of a line, with something behind it.

It is matched with the line break before it: a literal start lets the regex engine skip from
line to line by a substring search. Possessive throughout: the view is built on hostile input
(a pasted log can be megabytes), so nothing here may backtrack. A stamp's level is taken
whole or not at all: on a blank log line, backing off from ``INFO `` would cut the stamp
alone and leave ``INFO `` in the view, between a label and the secret it names."""

_DIFF_CONTEXT_RE: Final = re.compile(r"\n (?=[^\n])")
"""A diff's context line (one blank, then the line), counted only in a text with a hunk."""

_WORDS_AND_COLON: Final = r"[A-Za-z][\w.-]{0,31}+(?: [A-Za-z][\w.-]{0,31}+){0,3}+:[ \t]++"
"""A label's few words and a colon (``credentials: ``, ``the config I use: ``)."""
_VERB: Final = r"[A-Z][a-z]{1,15}+ "
"""A label that is a capitalised verb (``Keep ``)."""

_LABEL_RE: Final = re.compile(
    _WORDS_AND_COLON
    + r"(?=[#|<\[{]|-----|[A-Za-z][\w-]{0,31}+:[ \t])"  # then a block, a table or a field
    + r"|"
    + _VERB
    + r"(?=[#|<\[{])"  # or a verb and a block: "Keep | User | Password |"
)
"""A label ahead of a block or a field on a text's first line (``credentials: # user:
password``, ``Keep | User | Password |``, ``note: Authorization: ...``): what a user types
before a paste."""


_ANY_LABEL_RE: Final = re.compile(_WORDS_AND_COLON + r"(?=\S)|" + _VERB + r"(?=\S)")
"""Any label on a short text's first line: what a user types before pasting a command and its
output (``credentials: $ op item get ...``), a properties line (``Keep db.url=jdbc:...``) or a
CSV export (``note: Title,URL,Username,Password``), which :data:`_LABEL_RE` does not know."""

_SHORT_PASTE: Final = 4096
"""Texts up to this long are read again after any label: what a user teaches, pins, or denies,
and an agent's one-line subjects. Longer texts are files and corrections, which a label does
not start, and reading one twice would double its cost."""


def gutter_view(text: str, lines: Sequence[int] | None = None) -> View | None:
    """The view of *text*'s gutter lines, or ``None`` when no line has a gutter.

    *lines*, when known, are where the lines that may have a gutter start, in order (the
    engine finds them with the rules' prefixes, :func:`.matching.read`): only those are tried.
    """
    label = _LABEL_RE.match(text)
    if label is None:
        view = _gutter_lines(text, lines)
        if view is not None or len(text) > _SHORT_PASTE:
            return view
        label = _ANY_LABEL_RE.match(text)
        if label is None:
            return None
    # Everything after the label is what the user pasted: the whole rest is the view.
    return View(text[label.end() :], [0], [label.end()])


def _gutter_lines(text: str, lines: Sequence[int] | None) -> View | None:
    """The view of *text*'s lines that start with a gutter, the gutter cut off, or ``None``.

    A gutter's match starts with its line break and ends on its line, so trying the lines
    *lines* names (their break is where they start, in *lined*) finds what ``finditer`` does.
    """
    lined = "\n" + text  # every line starts after a line break, the first one too
    if lines is None:
        matches: Iterable[re.Match[str] | None] = _GUTTER_RE.finditer(lined)
    else:
        matches = (_GUTTER_RE.match(lined, start) for start in lines)
    gutters = [(m.end() - 1, m.start()) for m in matches if m is not None]
    if any(lined.startswith("@@", end + 1) for end, _ in gutters):  # a unified diff
        context = _DIFF_CONTEXT_RE.finditer(lined)
        gutters = sorted(gutters + [(m.end() - 1, m.start()) for m in context])
    if not gutters:
        return None
    parts: list[str] = []
    view_starts: list[int] = []
    text_starts: list[int] = []
    seen = 0
    line_end = -1
    for start, line_start in gutters:
        if line_start > line_end + 1 and parts:  # lines without a gutter stood between
            parts.append("")
            seen += 1
        line_end = text.find("\n", start)
        if line_end < 0:
            line_end = len(text)
        line = text[start:line_end]
        view_starts.append(seen)
        text_starts.append(start)
        parts.append(line)
        seen += len(line) + 1
    return View("\n".join(parts), view_starts, text_starts)


# --- lines with URL escapes ----------------------------------------------------------------------

_ESCAPE_RE: Final = re.compile(r"%(?:2[0-9A-Fa-f]|3[A-Fa-f]|40|5[BCDbcd]|60|7[B-Eb-e])")
"""An escape of a printable punctuation mark or a blank: what a URL escapes in a value."""


def percent_view(text: str) -> View | None:
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
    return View("".join(parts), view_starts, text_starts)
