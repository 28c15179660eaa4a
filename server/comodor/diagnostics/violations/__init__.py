"""Where a document breaks a house rule, and the edits that mend it.

The correction detectors (``capture/detect_*.py``) read what a user *changed*; these
read what a document *is*, for every dimension whose places can be pointed at:
quotes, indentation style and width, JavaScript semicolons, Python string
formatting and return annotations, the casing of names, trailing commas and import
style. They share the correction analysis's lexer (through
:class:`~comodor.diagnostics.violations.source.Source`), its notion of nesting depth and
its casing rules, so a rule is judged here exactly as it was learned.

One promise binds them all: a detector that cannot locate a violation with
confidence says nothing. No place inside a string, a comment, a docstring or an
f-string's fields is ever flagged, and nothing at all in a generated, vendored or
minified file (:func:`~comodor.diagnostics.violations.generated.not_hand_written`).
A fix is offered only where the edit cannot change what the code means.

Pure functions of the text and the rules: no I/O, no brain, callable from any
thread (the language server runs them off its event loop).
"""

from __future__ import annotations

from collections.abc import Mapping

from .detectors import DETECTABLE, DETECTORS
from .generated import not_hand_written
from .incremental import DocumentChecker
from .model import Fix, Replacement, Violation, merge_fixes
from .source import LINE_BREAK, Source

__all__ = [
    "DETECTABLE",
    "DocumentChecker",
    "Fix",
    "Replacement",
    "Violation",
    "find_violations",
    "find_violations_again",
    "merge_fixes",
    "not_hand_written",
    "split_lines",
]


def find_violations(
    text: str, language: str | None, path: str, wanted: Mapping[str, str]
) -> dict[str, list[Violation]]:
    """Violations of each wanted ``key -> value`` in ``text``, by key.

    ``path`` is the document's path relative to the workspace (it decides what is
    vendored or generated, and which dialect a file is: ``.tsx`` has JSX).
    """
    keys = [key for key in wanted if key in DETECTORS]
    if not keys or not_hand_written(path, text):
        return {}
    source = Source(text, language, path)
    return {key: DETECTORS[key](source, key, wanted[key], wanted) for key in keys}


def find_violations_again(
    checker: DocumentChecker,
    text: str,
    language: str | None,
    path: str,
    wanted: Mapping[str, str],
) -> dict[str, list[Violation]]:
    """The same places as :func:`find_violations`, reading only what changed.

    What changed is judged against the ``checker``'s last reading of this document;
    the violations carry no fixes (code actions read the whole text for those).
    """
    keys = {key: value for key, value in wanted.items() if key in DETECTORS}
    if not keys or not_hand_written(path, text):
        return {}
    return checker.check(split_lines(text), language, path, keys)


def split_lines(text: str) -> tuple[str, ...]:
    """The document's lines as LSP counts them (CR LF, CR or LF end a line)."""
    return tuple(LINE_BREAK.split(text))
