"""Count conventions in sampled code and turn clear majorities into observations.

Observations are weaker than config evidence (weight at most 1.0) and only appear
when the code agrees with itself: a minimum number of occurrences and a clear
majority. The detail states the real counts so a human can judge them.

A majority that is overwhelming (at least 95% of the occurrences, in at least 10
files that show the dimension) is a **consensus**: the project's code has settled the
question, so the observation is a confident rule on its own, with its counts as its
evidence. Only conventions a majority can state are eligible (indentation, quotes,
semicolons, annotated returns); the *absence* of annotations is not a convention.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import attrs

from ..detect_naming import declared_names
from ..indent_reading import WIDTHS, indent_unit
from ..languages import JS_LIKE, QUOTE_LANGUAGES
from ..lexer import Lexed, simple_quoted
from ..votes import CONSENSUS, Vote, make_vote

MIN_OCCURRENCES = 20
MIN_FILES = 2
MIN_SHARE = 0.75
FULL_CONFIDENCE_AT = 200
"""Occurrences at which an observation's weight stops growing."""
CONSENSUS_SHARE = 0.95
CONSENSUS_FILES = 10
_CAN_AGREE_ON = {
    "indent.style": None,
    "indent.width": None,
    "quotes.style": None,
    "js.semicolons": None,
    "python.return_annotations": frozenset({"added"}),
}
"""Dimensions (and values, None: any) an overwhelming majority of the code can settle."""

_STATEMENT_END = re.compile(r"[\w)\]\x02'\"]$")
_NOT_A_STATEMENT = re.compile(
    r"^(?:(?:if|else|for|while|do|switch|try|catch|finally|function|class|interface|type|enum)"
    r"\b|[@.?:+*]|&&|\|\||-(?!-))"
)
_DEF = re.compile(r"def[ \t]+\w+[ \t]*\((?:[^()]|\([^()]*\))*\)\s*(->)?")
"""A def and its signature; starts with a literal so the regex engine can skip ahead."""
_CLOSING_LINE = re.compile(r"\n[ \t]*[)\]}]")
_TAB_INDENTED = re.compile(r"^\t+\S", re.MULTILINE)
_SPACE_INDENTED = re.compile(r"^ +\S", re.MULTILINE)
_UNIT_NOUN = {
    "quotes.style": "strings",
    "indent.style": "indented lines",
    "js.semicolons": "statements",
    "python.return_annotations": "functions",
    "trailing_commas": "multi-line lists",
    "naming.functions": "function names",
    "naming.variables": "variable names",
    "naming.classes": "class names",
}
_PHRASE = {
    ("quotes.style", "single"): "use single quotes",
    ("quotes.style", "double"): "use double quotes",
    ("indent.style", "spaces"): "are indented with spaces",
    ("indent.style", "tabs"): "are indented with tabs",
    ("js.semicolons", "always"): "end with a semicolon",
    ("js.semicolons", "never"): "end without a semicolon",
    ("python.return_annotations", "added"): "annotate their return type",
    ("python.return_annotations", "removed"): "leave their return type unannotated",
    ("trailing_commas", "always"): "end with a trailing comma",
    ("trailing_commas", "never"): "end without a trailing comma",
    **{
        (key, shape): f"are in {shape}"
        for key in ("naming.functions", "naming.variables", "naming.classes")
        for shape in ("snake_case", "camelCase", "PascalCase")
    },
}


@attrs.define
class Tally:
    """Counts over the sample, per language: occurrences and the files they came from."""

    counts: dict[tuple[str, str], Counter[str]] = attrs.field(factory=lambda: defaultdict(Counter))
    files: Counter[str] = attrs.field(factory=Counter)
    widths: dict[str, Counter[int]] = attrs.field(factory=lambda: defaultdict(Counter))
    showing: Counter[tuple[str, str]] = attrs.field(factory=Counter)
    """(language, key) -> files with at least one occurrence of that dimension."""

    def add_file(self, lexed: Lexed, language: str) -> None:
        """Count one file's conventions, and which dimensions it shows at all."""
        before = {key: sum(c.values()) for key, c in self.counts.items() if key[0] == language}
        self._count(lexed, language)
        for key, counter in self.counts.items():
            if key[0] == language and sum(counter.values()) > before.get(key, 0):
                self.showing[key] += 1

    def _count(self, lexed: Lexed, language: str) -> None:
        """Count one file's quotes, indentation, semicolons, annotations, commas and names."""
        self.files[language] += 1
        if language in QUOTE_LANGUAGES:
            quotes = self.counts[(language, "quotes.style")]
            for lit in lexed.strings:
                if simple_quoted(lit):
                    quotes["single" if lit.quote == "'" else "double"] += 1
        code = "\n".join(lexed.masked)
        style = self.counts[(language, "indent.style")]
        style["tabs"] += len(_TAB_INDENTED.findall(code))
        style["spaces"] += len(_SPACE_INDENTED.findall(code))
        unit = indent_unit(lexed.masked)
        if unit:
            self.widths[language][unit] += 1
        if language in JS_LIKE:
            self._semicolons(lexed, language)
        if language == "python" or language in JS_LIKE:
            for key, shape in declared_names(code, language):
                self.counts[(language, key)][shape] += 1
        if language == "python":
            annotations = self.counts[(language, "python.return_annotations")]
            for m in _DEF.finditer(code):
                annotations["added" if m.group(1) else "removed"] += 1
        if language not in ("go", "css"):
            commas = self.counts[(language, "trailing_commas")]
            for m in _CLOSING_LINE.finditer(code):
                k = m.start() - 1
                while k >= 0 and code[k] in " \t\n":
                    k -= 1
                block_end = code[k] == "}" and language != "python" if k >= 0 else False
                if k >= 0 and code[k] not in "([{;:" and not block_end:
                    commas["always" if code[k] == "," else "never"] += 1

    def _semicolons(self, lexed: Lexed, language: str) -> None:
        counter = self.counts[(language, "js.semicolons")]
        for line in lexed.masked:
            text = line.strip()
            if not text or _NOT_A_STATEMENT.match(text):
                continue
            if text.endswith(";") and not text.startswith("for"):
                counter["always"] += 1
            elif _STATEMENT_END.search(text):
                counter["never"] += 1


def _weight(winner: int, total: int) -> float:
    return round(min(1.0, total / FULL_CONFIDENCE_AT) * winner / total, 2)


def _kind(key: str, value: str, winner: int, total: int, files: int) -> str:
    """``consensus`` for an overwhelming majority of an eligible dimension, else ``observation``."""
    values = _CAN_AGREE_ON.get(key, frozenset())
    eligible = key in _CAN_AGREE_ON and (values is None or value in values)
    overwhelming = winner >= CONSENSUS_SHARE * total and files >= CONSENSUS_FILES
    return CONSENSUS if eligible and overwhelming else "observation"


def observations(tally: Tally) -> list[Vote]:
    """Turn the tally's clear majorities into observation votes with honest details."""
    votes: list[Vote] = []
    for (language, key), counter in sorted(tally.counts.items()):
        total = sum(counter.values())
        if total < MIN_OCCURRENCES:
            continue
        value, winner = counter.most_common(1)[0]
        if winner / total < MIN_SHARE:
            continue
        files = tally.files[language]
        detail = (
            f"{winner} of {total} {_UNIT_NOUN[key]} in {files} {language} "
            f"file{'s' if files != 1 else ''} {_PHRASE[(key, value)]}"
        )
        votes.append(
            make_vote(
                key,
                value,
                kind=_kind(key, value, winner, total, tally.showing[(language, key)]),
                language=language,
                weight=_weight(winner, total),
                detail=detail,
            )
        )
    for language, widths in sorted(tally.widths.items()):
        total = sum(widths.values())
        width, winner = widths.most_common(1)[0]
        if total < MIN_FILES or winner / total < MIN_SHARE or width not in WIDTHS:
            continue
        votes.append(
            make_vote(
                "indent.width",
                str(width),
                kind=_kind("indent.width", str(width), winner, total, total),
                language=language,
                weight=round(min(1.0, total / 20) * winner / total, 2),
                detail=f"{winner} of {total} space-indented {language} files indent by "
                f"{width} spaces per level",
            )
        )
    return votes
