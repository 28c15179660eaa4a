"""Turn one user correction of an agent's file into votes for house rules.

The agent wrote ``before``; the user saved ``after``. Only the changed lines are read,
and each detector votes only when its convention is the whole story of a line pair
(the two lines are the same tokens up to the catalogued conventions), so a file full
of double quotes in which the user fixed two strings to single quotes is a vote for
single quotes, and a line the user rewrote is no vote at all. Whether the user also
changed logic is decided separately by comparing canonical forms (see
:mod:`comodor.conventions.canonical`).

Every vote carries the language of the file: a house rule learned in Python is not
imposed on TypeScript, and that includes indentation and trailing commas, which
projects routinely set differently per language.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from . import detect_edits, detect_format, detect_imports, detect_naming, detect_python
from .canonical import logic_changed
from .changes import compute_changes, unified_diff
from .findings import Edit, Finding
from .languages import language_of
from .lexer import lex
from .votes import Vote, make_vote

__all__ = ["Correction", "analyse_correction", "language_of"]

Detector = Callable[[Edit], list[Finding]]

_DETECTORS: tuple[Detector, ...] = (
    detect_format.quotes,
    detect_format.indentation,
    detect_format.semicolons,
    detect_format.trailing_commas,
    detect_python.return_annotations,
    detect_python.string_format,
    detect_python.logging_calls,
    detect_edits.comments,
    detect_naming.function_names,
    detect_naming.variable_names,
    detect_naming.class_names,
    detect_imports.import_style,
)


@attrs.frozen
class Correction:
    """What one correction teaches: votes, its size, and whether logic changed too."""

    votes: tuple[Vote, ...]
    changed_lines: int
    logic_change: bool
    diff: str


def analyse_correction(
    before: str, after: str, language: str | None, *, baseline: str | None = None
) -> Correction:
    """Compare the agent's text with what the user saved and say what it teaches.

    ``baseline`` is optional: the file as it was before the agent wrote it. With it,
    the verbosity check measures deletions against the lines the agent added rather
    than against the whole file.
    """
    changes = compute_changes(before, after)
    if not changes.changed_lines:
        return Correction(votes=(), changed_lines=0, logic_change=False, diff="")
    edit = Edit(
        changes=changes, before=lex(before, language), after=lex(after, language), language=language
    )
    findings: list[Finding] = []
    for detect in _DETECTORS:
        findings.extend(detect(edit))
    findings.extend(detect_edits.verbosity(edit, baseline))
    explained = {pair for f in findings for pair in f.explained}
    renames = {old: new for f in findings for old, new in f.renames.items()}
    setup = {j for f in findings for j in f.setup}
    seen: set[str] = set()
    votes: list[Vote] = []
    for finding in findings:
        if finding.key in seen:
            continue
        seen.add(finding.key)
        votes.append(
            make_vote(
                finding.key,
                finding.value,
                kind="correction",
                language=language,
                detail=finding.detail,
            )
        )
    return Correction(
        votes=tuple(votes),
        changed_lines=changes.changed_lines,
        logic_change=logic_changed(
            edit.before, edit.after, language, explained=explained, renames=renames, setup=setup
        ),
        diff=unified_diff(before, after),
    )
