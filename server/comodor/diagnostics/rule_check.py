"""House rules in the editor: which rules a document is checked against, and the report.

The app's part of diagnostics, between the brain's rule cache and the detectors in
:mod:`comodor.diagnostics.violations`:

- **Which rules.** The confident, active rules that apply to the document (scope and
  language, from memory: no SQLite), whose key a detector can locate. One rule per
  key: a rule learned for this language beats one for every language, the user's
  own words beat the rest, then the newest. Rules whose only evidence is a project
  config file are left to the formatter that config belongs to, unless
  ``diagnostics.configRules`` says otherwise.
- **Where not.** Files outside the workspace, files larger than ``watch.maxFileBytes``,
  generated and vendored files (the detectors decide), and places the user said
  "not here" about (the rule's exceptions).
- **What is said.** Each place says the rule's statement and evidence; its code is the
  rule's key, its data the rule's id and the place's key for "Not here".

Pure over its inputs and the in-memory rule cache, so the language server runs it
on its own thread, off the event loop.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from ..brain.models import Rule
from ..protocol.editor import (
    DiagnosticObject,
    DocumentDiagnostics,
    FixObject,
    RangeObject,
    TextEditObject,
)
from ..settings import Settings
from .violations import (
    DETECTABLE,
    DocumentChecker,
    Fix,
    find_violations,
    find_violations_again,
    merge_fixes,
    split_lines,
)

MAX_DIAGNOSTICS = 500
"""Places shown per document; fix-all still mends every place it can."""
FIX_ALL_TITLE = "Fix all Comodor issues"


def place_of(line_text: str) -> str:
    """The key of a spot for "Not here": a digest of its line (it survives edits elsewhere)."""
    return hashlib.sha256(line_text.strip().encode("utf-8")).hexdigest()[:16]


def exception_key(relative_path: str, place: str) -> str:
    """What a rule's exception remembers: the file and the place in it."""
    return f"{relative_path}:{place}"


def rules_to_check(rules: Iterable[Rule], *, config_rules: bool) -> dict[str, Rule]:
    """One rule per detectable key, the most specific and most explicit first."""
    chosen: dict[str, Rule] = {}
    for rule in rules:
        if rule.key not in DETECTABLE:
            continue
        if rule.source == "evidence" and not rule.team and not config_rules:
            continue  # a formatter's config says so: the formatter enforces it
        best = chosen.get(rule.key)
        if best is None or _rank(rule) > _rank(best):
            chosen[rule.key] = rule
    return chosen


def _rank(rule: Rule) -> tuple[bool, bool, float]:
    return (rule.language is not None, rule.source == "user", rule.updated_at)


def document_report(
    rules: Iterable[Rule],
    settings: Settings,
    path: str | None,
    text: str,
    language: str | None,
    *,
    fixes_for: tuple[int, int] | None = None,
    fix_all: bool = False,
    checker: DocumentChecker | None = None,
) -> DocumentDiagnostics:
    """Where the document breaks ``rules``; fixes only where asked for.

    ``rules`` are the confident, active rules that apply to the document's language;
    ``path`` is its workspace-relative path (None: not a workspace document). Finding
    the places is cheap, proving a fix safe is not (a rename must see every use), so
    a place carries its fix only when it starts on a line in ``fixes_for`` (first,
    last), and the fix for the whole document is worked out only with ``fix_all``.
    Without fixes, a ``checker`` that read this document before re-reads only the
    top-level blocks an edit changed.
    """
    severity = settings.diagnostics.severity
    if severity == "off" or path is None or len(text) > settings.watch.max_file_bytes:
        return DocumentDiagnostics()
    chosen = rules_to_check(rules, config_rules=settings.diagnostics.config_rules)
    if not chosen:
        return DocumentDiagnostics()
    wanted = {key: rule.value for key, rule in chosen.items()}
    if checker is not None and fixes_for is None and not fix_all:
        found = find_violations_again(checker, text, language, path, wanted)
    else:
        found = find_violations(text, language, path, wanted)
    lines = split_lines(text) if found else ()
    messages = {
        key: f"{rule.statement} ({rule.evidence})" if rule.evidence else rule.statement
        for key, rule in chosen.items()
    }
    exceptions = {key: frozenset(rule.exceptions) for key, rule in chosen.items()}
    places: dict[int, str] = {}
    ordered = sorted(
        ((violation, key) for key, violations in found.items() for violation in violations),
        key=lambda item: (item[0].start, item[1]),
    )
    diagnostics: list[DiagnosticObject] = []
    fixes: list[Fix] = []
    for violation, key in ordered:
        line = violation.start[0]
        place = places.get(line)
        if place is None:
            place = places[line] = place_of(lines[line] if line < len(lines) else "")
        if exceptions[key] and exception_key(path, place) in exceptions[key]:
            continue
        if fix_all and violation.fix is not None:
            fixes.append(violation.fix)
        if len(diagnostics) >= MAX_DIAGNOSTICS:
            if fix_all:
                continue
            break
        fix = None
        if fixes_for is not None and fixes_for[0] <= line <= fixes_for[1]:
            fix = _fix_object(violation.fix) if violation.fix is not None else None
        rule = chosen[key]
        diagnostics.append(
            DiagnosticObject(
                range=_range(violation.start, violation.end),
                message=messages[key],
                code=key,
                rule_id=rule.id,
                severity=severity,
                place=place,
                fix=fix,
            )
        )
    merged = merge_fixes(fixes) if fix_all else ()
    whole = (
        FixObject(FIX_ALL_TITLE, tuple(_edit(r.start, r.end, r.text) for r in merged))
        if merged
        else None
    )
    return DocumentDiagnostics(tuple(diagnostics), whole)


def _range(start: tuple[int, int], end: tuple[int, int]) -> RangeObject:
    return RangeObject(start[0], start[1], end[0], end[1])


def _edit(start: tuple[int, int], end: tuple[int, int], new_text: str) -> TextEditObject:
    return TextEditObject(_range(start, end), new_text)


def _fix_object(fix: Fix) -> FixObject:
    return FixObject(fix.title, tuple(_edit(r.start, r.end, r.text) for r in fix.replacements))
