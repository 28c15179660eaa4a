"""Correction detectors for Python habits: return annotations, string formatting, logging.

The two idiom rewrites (``.format`` → f-string, ``print`` → ``logger``) cannot be the
same tokens before and after; instead a line votes only when it uses no name the
old line lacked, apart from the idiom's own words.
"""

from __future__ import annotations

import re

from .findings import Edit, Finding, majority, plural
from .lexer import PLACEHOLDER

_DEF_OR_CLOSE = re.compile(r"^(?:(?:async)?def\w|\))")
_RETURN_ANNOTATION = re.compile(r"->.*?(?=:$)")
_DEF_NAME = re.compile(r"^((?:async)?def)\w+")
_OLD_FORMAT = re.compile(r"\x02\s*(?:\.\s*format\s*\(|%\s*[\w(\x01\[{])")
_FSTRING = re.compile(r"(?<!\w)[rR]?[fF][rR]?\x01")
_PRINT = re.compile(r"(?<![\w.])print\s*\(")
_LOGGER_CALL = re.compile(
    r"(?<![\w.])(?:logging|logger|log|LOGGER|LOG|_logger|_log|self\.logger|self\.log)"
    r"\.(?:debug|info|warning|warn|error|exception|critical|log)\s*\("
)
_LOGGING_SETUP = re.compile(
    r"^\s*(?:import\s+logging\s*$|from\s+logging\s+import\b|"
    r"(?:logger|log|LOGGER|LOG|_logger|_log)\s*=\s*logging\.getLogger\()"
)
_WORD = re.compile(r"[A-Za-z_]\w+")
_FORMAT_VOCABULARY = frozenset({"format"})
_LOGGING_VOCABULARY = frozenset(
    {
        "print",
        "logging",
        "logger",
        "log",
        "LOGGER",
        "LOG",
        "_logger",
        "_log",
        "self",
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "getLogger",
        "file",
        "sys",
        "stderr",
        "stdout",
        "exc_info",
        "__name__",
    }
)


def _only_reworded(before: str, after: str, vocabulary: frozenset[str]) -> bool:
    """Whether ``after`` uses no word that ``before`` (plus the idiom's own words) lacked.

    A rewrite from one idiom to another keeps the same names; a new name means the
    user also changed what the line does.
    """
    known = set(_WORD.findall(before)) | vocabulary
    return set(_WORD.findall(after)) <= known


def return_annotations(edit: Edit) -> list[Finding]:
    """Vote "added" when the user annotated returns the agent left bare, "removed" the reverse."""
    if edit.language != "python":
        return []
    added = removed = 0
    for i, j in edit.changes.pairs:
        old, new = edit.before.squashed(i), edit.after.squashed(j)
        if not (_DEF_OR_CLOSE.match(old) and _DEF_OR_CLOSE.match(new)):
            continue
        # A rename on the same line is its own story (naming.functions); the
        # annotation is still the only change to the signature.
        old, new = _DEF_NAME.sub(r"\1_", old), _DEF_NAME.sub(r"\1_", new)
        old_has, new_has = "->" in old, "->" in new
        if not old_has and new_has and _RETURN_ANNOTATION.sub("", new) == old:
            added += 1
        elif old_has and not new_has and _RETURN_ANNOTATION.sub("", old) == new:
            removed += 1
    verdict = majority(added, removed)
    if verdict is None:
        return []
    to_added, count, _ = verdict
    value = "added" if to_added else "removed"
    return [
        Finding(
            "python.return_annotations",
            value,
            f"{value} return annotations on {plural(count, 'function')}",
        )
    ]


def _format_switch(old: str, new: str) -> str | None:
    old_style = bool(_OLD_FORMAT.search(old)), bool(_FSTRING.search(old))
    new_style = bool(_OLD_FORMAT.search(new)), bool(_FSTRING.search(new))
    if old_style == (True, False) and new_style == (False, True):
        return "fstring"
    if old_style == (False, True) and new_style == (True, False):
        return "format"
    return None


def _logging_switch(old: str, new: str) -> str | None:
    old_print, new_print = bool(_PRINT.search(old)), bool(_PRINT.search(new))
    old_log, new_log = bool(_LOGGER_CALL.search(old)), bool(_LOGGER_CALL.search(new))
    if old_print and not old_log and new_log and not new_print:
        return "logging"
    if old_log and not old_print and new_print and not new_log:
        return "print"
    return None


def _balanced(code: str) -> bool:
    return sum(code.count(ch) for ch in "([{") == sum(code.count(ch) for ch in ")]}")


def _idiom_switches(edit: Edit, i: int, j: int) -> tuple[str | None, str | None]:
    """How line pair (i, j) switched string formatting and output, if that is all it did.

    Both lines must hold whole expressions (a call continued on the next line is only
    half seen), and the new line may use no name the old one lacked, apart from the
    words of the idioms it switched.
    """
    old, new = edit.before.masked[i], edit.after.masked[j]
    if not (_balanced(PLACEHOLDER.sub("", old)) and _balanced(PLACEHOLDER.sub("", new))):
        return None, None
    formatting, output = _format_switch(old, new), _logging_switch(old, new)
    vocabulary = (_FORMAT_VOCABULARY if formatting else frozenset()) | (
        _LOGGING_VOCABULARY if output else frozenset()
    )
    if not vocabulary or not _only_reworded(edit.before.lines[i], edit.after.lines[j], vocabulary):
        return None, None
    return formatting, output


def string_format(edit: Edit) -> list[Finding]:
    """Vote for f-strings or for str.format()/% when the user rewrote one into the other."""
    if edit.language != "python":
        return []
    to_f: set[tuple[int, int]] = set()
    to_old: set[tuple[int, int]] = set()
    for i, j in edit.changes.pairs:
        switched, _ = _idiom_switches(edit, i, j)
        if switched == "fstring":
            to_f.add((i, j))
        elif switched == "format":
            to_old.add((i, j))
    verdict = majority(len(to_f), len(to_old))
    if verdict is None:
        return []
    to_fstring, count, _ = verdict
    explained = frozenset(to_f if to_fstring else to_old)
    if to_fstring:
        return [
            Finding(
                "python.string_format",
                "fstring",
                f"rewrote {plural(count, 'string')} from str.format()/% to f-strings",
                explained=explained,
            )
        ]
    return [
        Finding(
            "python.string_format",
            "format",
            f"rewrote {plural(count, 'f-string')} as str.format()/%",
            explained=explained,
        )
    ]


def logging_calls(edit: Edit) -> list[Finding]:
    """Vote for logging when the user replaced print() with logger calls, print the reverse."""
    if edit.language != "python":
        return []
    to_log: set[tuple[int, int]] = set()
    to_print: set[tuple[int, int]] = set()
    for i, j in edit.changes.pairs:
        _, switched = _idiom_switches(edit, i, j)
        if switched == "logging":
            to_log.add((i, j))
        elif switched == "print":
            to_print.add((i, j))
    verdict = majority(len(to_log), len(to_print))
    if verdict is None:
        return []
    to_logging, count, _ = verdict
    explained = frozenset(to_log if to_logging else to_print)
    if to_logging:
        setup = frozenset(
            j for j in edit.changes.added if _LOGGING_SETUP.match(edit.after.masked[j])
        )
        return [
            Finding(
                "python.logging",
                "logging",
                f"replaced {plural(count, 'print() call')} with logging calls",
                explained=explained,
                setup=setup,
            )
        ]
    return [
        Finding(
            "python.logging",
            "print",
            f"replaced {plural(count, 'logging call')} with print()",
            explained=explained,
        )
    ]
