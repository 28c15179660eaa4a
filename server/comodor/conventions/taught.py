"""Which catalogued convention a rule the user taught in words is about.

"Use single quotes for strings." is the same rule as the one two corrections
would teach: ``quotes.style = single``. Recognising it gives the taught rule that
key and value, so it is checked in the editor and counted against later
corrections like a learned one. The statement itself stays the user's.

The reading is deliberately narrow: a statement must name one value of one
dimension, with any "not"/"never"/"no" read as turning the value to its opposite
("Never use double quotes" is single quotes, "No semicolons." is ``never``). A
statement that names two dimensions, or contradicts itself, keeps its own key.
"""

from __future__ import annotations

import re

from ..brain.rules.house_rules import Dimension
from .votes import CATALOG

_NEGATION = re.compile(r"\b(?:no|not|never|don'?t|do not|avoid|without|instead of|over)\b", re.I)

_PHRASES: tuple[tuple[str, str, str, str | None], ...] = (
    # (key, value, pattern, the opposite value when negated)
    ("quotes.style", "single", r"\bsingle[- ]quot(?:e|es|ed|ing)\b|\bsingle[- ]quoted\b", "double"),
    ("quotes.style", "double", r"\bdouble[- ]quot(?:e|es|ed|ing)\b|\bdouble[- ]quoted\b", "single"),
    (
        "indent.style",
        "tabs",
        r"\b(?:indent\w*|indentation)\b.*\btabs?\b|\btabs?\b.*\bindent",
        "spaces",
    ),
    ("indent.width", "2", r"\b(?:2|two)[- ]spaces?\b", None),
    ("indent.width", "4", r"\b(?:4|four)[- ]spaces?\b", None),
    ("indent.width", "8", r"\b(?:8|eight)[- ]spaces?\b", None),
    ("indent.style", "spaces", r"\b(?:indent\w*|indentation)\b.*\bspaces\b(?!.*\btabs?\b)", "tabs"),
    ("js.semicolons", "always", r"\bsemi-?colons?\b", "never"),
    ("python.string_format", "fstring", r"\bf-?strings?\b", "format"),
    ("python.string_format", "format", r"\bstr\.format\b|\.format\(\)|%-format", "fstring"),
    (
        "python.return_annotations",
        "added",
        r"\breturn (?:type )?(?:annotations?|types?)\b|\bannotate\b.*\breturn",
        "removed",
    ),
    ("trailing_commas", "always", r"\btrailing commas?\b", "never"),
)
_NAMING = re.compile(
    r"\b(?P<what>functions?|methods?|variables?|classes|class names?|function names?"
    r"|variable names?)\b.*?\b(?P<case>snake[_ ]case|camel[_ ]?case|pascal[_ ]?case)\b"
    r"|\b(?P<case2>snake[_ ]case|camel[_ ]?case|pascal[_ ]?case)\b.*?\bfor\b.*?"
    r"\b(?P<what2>functions?|methods?|variables?|classes)\b",
    re.I,
)
_CASES = {"snake": "snake_case", "camel": "camelCase", "pascal": "PascalCase"}
_WHATS = {"function": "naming.functions", "method": "naming.functions",
          "variable": "naming.variables", "class": "naming.classes"}  # fmt: skip
_INSTEAD = r",?\s+(?:not|instead of|over|rather than)\s+"
_TABS_ALONE = re.compile(rf"^\W*(?:use\s+|prefer\s+)?tabs\W*$|\btabs\b{_INSTEAD}spaces\b", re.I)
_SPACES_ALONE = re.compile(rf"^\W*(?:use\s+|prefer\s+)?spaces\W*$|\bspaces\b{_INSTEAD}tabs\b", re.I)


def statement_dimension(statement: str) -> Dimension | None:
    """The catalogued key and value ``statement`` names, or None when it names none clearly."""
    text = " ".join(statement.split())
    for dimension in CATALOG.values():  # a statement copied from an export or a hover
        for value, sentence in dimension.statements.items():
            if sentence.rstrip(".").lower() == text.rstrip(".").lower():
                return Dimension(dimension.key, value, dimension.category)
    if _TABS_ALONE.search(text):
        return _dimension("indent.style", "tabs")
    if _SPACES_ALONE.search(text):
        return _dimension("indent.style", "spaces")
    found: dict[str, str] = {}
    for clause in re.split(r"[,;]|\bbut\b", text):
        for key, value in _clause_values(clause):
            if found.get(key, value) != value:
                return None  # "single quotes, not single quotes": no clear value
            found[key] = value
    naming = _NAMING.search(text)
    if naming is not None:
        what = (naming["what"] or naming["what2"] or "").lower()
        case = (naming["case"] or naming["case2"] or "").lower()
        key = next((k for prefix, k in _WHATS.items() if what.startswith(prefix)), "")
        value = next((v for prefix, v in _CASES.items() if case.startswith(prefix)), "")
        if key and value and not _NEGATION.search(text):
            found[key] = value
    if "indent.width" in found:
        found.pop("indent.style", None)  # "indent with 2 spaces" is a width
    if len(found) != 1:
        return None
    ((key, value),) = found.items()
    return _dimension(key, value)


def _clause_values(clause: str) -> list[tuple[str, str]]:
    values: list[tuple[str, str]] = []
    for key, value, pattern, opposite in _PHRASES:
        m = re.search(pattern, clause, re.I)
        if m is None:
            continue
        negated = bool(_NEGATION.search(clause[: m.start()]))
        if negated and opposite is None:
            continue
        values.append((key, opposite if negated and opposite else value))
    return values


def _dimension(key: str, value: str) -> Dimension:
    return Dimension(key, value, CATALOG[key].category)
