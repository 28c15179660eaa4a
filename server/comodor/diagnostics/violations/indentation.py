"""``indent.style`` and ``indent.width``: statement lines indented the other way.

A line's depth is read from the stack of indentations above it
(:func:`~comodor.conventions.indent_reading.nesting_depths`), never from its width divided
by a unit, and only statement lines are judged: continuation lines inside brackets
(hanging indents, aligned arguments), the inside of multi-line strings and comments,
and blank lines may be indented however the author likes.

The fix re-indents the whole top-level block the line belongs to. Re-indenting one
line of a Python block alone would change what the code means (or not compile); a
top-level block (a function, a class) is the smallest unit whose lines can move
together. The inside of multi-line strings is never touched: it is part of a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from ...conventions.indent_reading import indent_unit, leading
from ...conventions.lexer import pattern_for
from .model import Fix, Replacement, Violation
from .source import Source

WIDTHS = {"2": 2, "4": 4, "8": 8}
DEFAULT_UNIT = 4
_NOT_STYLE = frozenset({"go", "makefile", "yaml", "markdown", "json", "toml"})
"""Languages whose indentation a tool or the grammar fixes (gofmt's tabs, a Makefile's tabs)."""


def find(source: Source, key: str, value: str, wanted: Mapping[str, str]) -> list[Violation]:
    language = source.language
    if language in _NOT_STYLE or pattern_for(language) is None:
        return []
    style = value if key == "indent.style" else wanted.get("indent.style", "spaces")
    if key == "indent.width" and (style == "tabs" or value not in WIDTHS):
        return []  # a width per level is a spaces convention
    if style not in ("spaces", "tabs"):
        return []
    unit = _unit(source, wanted)
    depths = source.depths
    found: list[Violation] = []
    blocks: dict[int, Fix | None] = {}

    def block_fix(top: int) -> Fix | None:
        if top not in blocks:
            blocks[top] = _block_fix(source, top, style, unit)
        return blocks[top]

    for line, depth in enumerate(depths):
        if not depth:
            continue
        lead = leading(source.lines[line])
        if key == "indent.style":
            broken = ("\t" in lead) if style == "spaces" else (" " in lead)
        else:
            broken = "\t" not in lead and len(lead) != depth * unit
        if not broken:
            continue
        top = _block_top(depths, line)
        found.append(Violation(key, value, (line, 0), (line, len(lead)), partial(block_fix, top)))
    return found


def _unit(source: Source, wanted: Mapping[str, str]) -> int:
    width = WIDTHS.get(wanted.get("indent.width", ""))
    if width:
        return width
    statement_lines = (
        source.lines[k] for k, depth in enumerate(source.depths) if depth is not None
    )
    return indent_unit(statement_lines) or DEFAULT_UNIT


def _block_top(depths: tuple[int | None, ...], line: int) -> int:
    for k in range(line, -1, -1):
        if depths[k] == 0:
            return k
    return -1


def _block_fix(source: Source, top: int, style: str, unit: int) -> Fix | None:
    """Re-indent every line of the top-level block that starts after ``top``, or None."""
    depths = source.depths
    stop = len(depths)
    for k in range(top + 1, len(depths)):
        if depths[k] == 0:
            stop = k
            break
    new_leads: dict[int, str] = {}
    statements = [k for k in range(top + 1, stop) if source.is_statement_line(k)]
    for k in statements:
        depth = depths[k]
        if depth is None:
            return None  # a line whose level cannot be read: no edit is safe
        new_leads[k] = "\t" * depth if style == "tabs" else " " * (depth * unit)
    replacements: list[Replacement] = []
    for k in range(top + 1, stop):
        old = leading(source.lines[k])
        if k in new_leads:
            new = new_leads[k]
        elif source.starts_inside[k] == "string" or not source.lines[k].strip():
            continue  # part of a string's value, or a blank line
        else:
            new = _follow(source, k, old, new_leads, style, unit)
        if new != old:
            replacements.append(Replacement((k, 0), (k, len(old)), new))
    if not replacements:
        return None
    if style == "tabs":
        title = "Indent this block with tabs"
    else:
        title = f"Indent this block with {unit} spaces per level"
    return Fix(title, tuple(replacements))


def _follow(
    source: Source, line: int, old: str, new_leads: Mapping[int, str], style: str, unit: int
) -> str:
    """The new indentation of a comment or continuation line: it moves with its statement.

    A comment goes with the statement below it when it is aligned with it, else with
    the one above; a continuation line keeps its offset from the line it continues.
    """
    below = next((k for k in range(line + 1, len(source.lines)) if k in new_leads), None)
    above = next((k for k in range(line - 1, -1, -1) if k in new_leads), None)
    comment = source.is_blank(line) or source.starts_inside[line] == "comment"
    reference = above
    if comment and below is not None and leading(source.lines[below]) == old:
        reference = below
    if reference is None:
        return old
    ref_old, ref_new = leading(source.lines[reference]), new_leads[reference]
    if not old.startswith(ref_old):
        return old.replace("\t", " " * unit) if style == "spaces" else old
    rest = old[len(ref_old) :]
    if style == "spaces":
        rest = rest.replace("\t", " " * unit)
    return ref_new + rest
