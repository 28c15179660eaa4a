"""Correction detectors for layout conventions: quotes, indentation, semicolons, commas.

Each looks only at pairs of replaced lines and asks "is the only difference this
convention?", so an unrelated edit on the same line does not count as a vote.
Indentation is measured as the step between nesting levels: a line that moved
because the user wrapped it in a new block, or took it out of one, keeps its width
per level and teaches nothing (the logic check reports the new block).
"""

from __future__ import annotations

from collections import Counter

from .findings import Edit, Finding, convention_form, majority, plural
from .indent_reading import WIDTHS, indent_char, leading, nesting_depths
from .languages import JS_LIKE, QUOTE_LANGUAGES
from .lexer import StringLit, simple_quoted, unescaped_body

_CLOSERS = (")", "]", "}")
NO_TRAILING_COMMA_STYLE = frozenset({"go", "json", "markdown", "yaml", "toml", "css", "shell"})
"""Languages where a trailing comma is mandatory, invalid, or meaningless."""


def _quote_swaps(before: list[StringLit], after: list[StringLit]) -> Counter[str]:
    """Count literals whose text and prefix stayed but whose quote changed, by new quote."""
    swaps: Counter[str] = Counter()
    unused = [s for s in after if simple_quoted(s)]
    for old in before:
        if not simple_quoted(old):
            continue
        for new in unused:
            if new.prefix.lower() == old.prefix.lower() and unescaped_body(new) == unescaped_body(
                old
            ):
                unused.remove(new)
                if new.quote != old.quote:
                    swaps[new.quote] += 1
                break
    return swaps


def quotes(edit: Edit) -> list[Finding]:
    """Vote for the quote the user switched strings to."""
    if edit.language not in QUOTE_LANGUAGES:
        return []
    swaps: Counter[str] = Counter()
    for i, j in edit.changes.pairs:
        if edit.same_up_to_conventions(i, j):
            swaps += _quote_swaps(edit.before.strings_on(i), edit.after.strings_on(j))
    verdict = majority(swaps["'"], swaps['"'])
    if verdict is None:
        return []
    to_single, count, _ = verdict
    value, old = ("single", "double") if to_single else ("double", "single")
    detail = f"changed {plural(count, 'string')} from {old} to {value} quotes"
    return [Finding("quotes.style", value, detail)]


def _same_code(edit: Edit, i: int, j: int) -> bool:
    return edit.before.squashed(i) == edit.after.squashed(j)


def indentation(edit: Edit) -> list[Finding]:
    """Vote for tabs/spaces and for the width of a level when the user re-indented lines.

    A pair counts only when its code is unchanged and the line sits at the same depth
    before and after; the width per level is its indentation divided by that depth.
    """
    style: Counter[str] = Counter()
    widths: Counter[int] = Counter()
    old_widths: Counter[int] = Counter()
    reindented = [
        (i, j)
        for i, j in edit.changes.pairs
        if leading(edit.before.lines[i]) != leading(edit.after.lines[j]) and _same_code(edit, i, j)
    ]
    if not reindented:
        return []
    before_depths = nesting_depths(edit.before.masked)
    after_depths = nesting_depths(edit.after.masked)
    for i, j in reindented:
        old, new = edit.before.lines[i], edit.after.lines[j]
        depth = before_depths[i] if i < len(before_depths) else None
        if not depth or depth != (after_depths[j] if j < len(after_depths) else None):
            continue  # re-nested (a block added or removed), or its level cannot be read
        old_char, new_char = indent_char(old), indent_char(new)
        if old_char and new_char and old_char != new_char:
            style[new_char] += 1
        if new_char != "spaces" or old_char is None:
            continue
        width, rest = divmod(len(leading(new)), depth)
        if rest or width not in WIDTHS:
            continue
        if old_char == "spaces":
            old_width, old_rest = divmod(len(leading(old)), depth)
            if old_rest or old_width == width:
                continue
            old_widths[old_width] += 1
        widths[width] += 1
    found: list[Finding] = []
    verdict = majority(style["spaces"], style["tabs"])
    if verdict is not None:
        to_spaces, count, _ = verdict
        value = "spaces" if to_spaces else "tabs"
        old = "tabs" if to_spaces else "spaces"
        found.append(
            Finding(
                "indent.style", value, f"re-indented {plural(count, 'line')} from {old} to {value}"
            )
        )
    if widths:
        ranked = widths.most_common()
        width, count = ranked[0]
        if len(ranked) == 1 or ranked[1][1] < count:
            was = f"from {old_widths.most_common(1)[0][0]} " if old_widths else ""
            found.append(
                Finding(
                    "indent.width",
                    str(width),
                    f"re-indented {plural(count, 'line')} {was}to {width} spaces per level",
                )
            )
    return found


def semicolons(edit: Edit) -> list[Finding]:
    """Vote for or against statement-ending semicolons in JavaScript and TypeScript."""
    if edit.language not in JS_LIKE:
        return []
    added = removed = 0
    for i, j in edit.changes.pairs:
        old, new = edit.before.squashed(i), edit.after.squashed(j)
        if not _same_statement(edit, i, j):
            continue
        if old.endswith(";") and old[:-1] == new and new:
            removed += 1
        elif new.endswith(";") and new[:-1] == old and old:
            added += 1
    verdict = majority(added, removed)
    if verdict is None:
        return []
    to_always, count, _ = verdict
    value = "always" if to_always else "never"
    verb = "added" if to_always else "removed"
    return [Finding("js.semicolons", value, f"{verb} {plural(count, 'semicolon')} at line ends")]


_OPENERS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_OPENER_LOOKBACK = 400


def _opener(masked: tuple[str, ...], index: int) -> int | None:
    """The line that opened the bracket a closing line (``};``, ``});``) starts by closing."""
    need = 1
    for k in range(index - 1, max(-1, index - 1 - _OPENER_LOOKBACK), -1):
        for ch in reversed(masked[k]):
            need += -_OPENERS.get(ch, 0)
            if need == 0:
                return k
    return None


def _same_statement(edit: Edit, i: int, j: int) -> bool:
    """Whether a semicolon on a closing line ends the same statement on both sides.

    ``};`` → ``}`` is a semicolon dropped by a changed statement when the line that
    opened it changed too (``type T = {`` became ``interface T {``).
    """
    if edit.before.squashed(i)[:1] not in _CLOSERS:
        return True
    old, new = _opener(edit.before.masked, i), _opener(edit.after.masked, j)
    if old is None or new is None:
        return False
    return convention_form(edit.before, old, edit.language) == convention_form(
        edit.after, new, edit.language
    )


def _closes_next(lines: tuple[str, ...], masked: tuple[str, ...], index: int) -> bool:
    """Whether the next non-blank line starts with a closing bracket (a multi-line list)."""
    for k in range(index + 1, min(len(masked), index + 4)):
        text = masked[k].strip()
        if text:
            return text.startswith(_CLOSERS)
    return False


def trailing_commas(edit: Edit) -> list[Finding]:
    """Vote for or against a comma after the last item of a multi-line literal or call."""
    if edit.language in NO_TRAILING_COMMA_STYLE:
        return []
    added = removed = 0
    for i, j in edit.changes.pairs:
        old, new = edit.before.squashed(i), edit.after.squashed(j)
        if new == old + "," and _closes_next(edit.after.lines, edit.after.masked, j):
            added += 1
        elif old == new + "," and _closes_next(edit.before.lines, edit.before.masked, i):
            removed += 1
    verdict = majority(added, removed)
    if verdict is None:
        return []
    to_always, count, _ = verdict
    value = "always" if to_always else "never"
    verb = "added" if to_always else "removed"
    return [
        Finding(
            "trailing_commas",
            value,
            f"{verb} {plural(count, 'trailing comma')} in multi-line lists",
        )
    ]
