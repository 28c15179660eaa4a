"""A document as the violation detectors read it: lines, literals, brackets and depths.

The correction detectors compare two texts line by line and can afford to squash
them; a violation detector must point at a column in the editor's text, so it
reads the document once into a :class:`Source` whose ``code`` has the *same
widths* as the text: every string literal keeps its prefix and quotes but its body
is filled with ``~``, every comment becomes spaces, and line breaks stay where they
were. A code regex over ``code`` can then never match inside a string, a comment or
a docstring, and whatever column it finds is the column in the document.

Lines are split the way LSP splits them (at CR LF, CR or LF), not the way
``str.splitlines`` does, so that line numbers agree with the editor's. The expensive
views (bracket pairs, nesting depths) are computed on first use only: a document
with only a quotes rule never pays for them.
"""

from __future__ import annotations

import bisect
import re
from functools import cached_property
from typing import NamedTuple

from ...conventions.indent_reading import nesting_depths
from ...conventions.languages import JS_LIKE
from ...conventions.lexer import pattern_for, python_prefix, token_kind

LINE_BREAK = re.compile(r"\r\n|\r|\n")
FILLER = "~"
"""What a literal's body becomes in ``Source.code``: not a word character, bracket or quote."""
TAB_SIZE = 8
"""Columns of a tab when depths are read from mixed indentation (as Python's tokenizer)."""
_BRACKETS = re.compile(r"[()\[\]{}]")
_OPENER_OF = {")": "(", "]": "[", "}": "{"}


class Literal(NamedTuple):
    """A string literal: where it is (offsets in ``Source.text``) and what it says."""

    start: int
    """Offset of its first character (the prefix, if any)."""
    end: int
    """Offset just after its closing quote (or where it stops, if unterminated)."""
    prefix: str
    quote: str
    body: str
    triple: bool
    closed: bool

    @property
    def quote_start(self) -> int:
        return self.start + len(self.prefix)

    @property
    def is_fstring(self) -> bool:
        return "f" in self.prefix.lower()

    @property
    def raw(self) -> bool:
        return "r" in self.prefix.lower()


class Pair(NamedTuple):
    """A bracket pair found in the code (offsets in ``Source.text``); ``close`` -1 if open."""

    open: int
    close: int
    char: str


class Source:
    """One document, lexed once for every detector that reads it."""

    def __init__(
        self, text: str, language: str | None, path: str = "", after: str | None = None
    ) -> None:
        self.language = language
        self.path = path
        self.after = after
        """The code of the first line after this text, when it is a piece of a document
        (a line's verdict may depend on the next: ``a`` then ``(b)`` is one statement)."""
        self.lines: tuple[str, ...] = tuple(LINE_BREAK.split(text))
        self.text = "\n".join(self.lines)
        starts = [0]
        for text_line in self.lines[:-1]:
            starts.append(starts[-1] + len(text_line) + 1)
        self.line_starts: tuple[int, ...] = tuple(starts)
        literals: list[Literal] = []
        comments: list[tuple[int, int]] = []
        inside: list[str] = [""] * len(self.lines)
        pieces: list[str] = []
        pattern = pattern_for(language)
        position = 0
        python = language == "python"
        if pattern is not None:
            for m in pattern.finditer(self.text):
                start, end = m.span()
                raw = m.group()
                kind = token_kind(raw)
                if python and kind != "c":
                    start = max(position, python_prefix(self.text, start))
                pieces.append(self.text[position:start])
                if kind == "c":
                    comments.append((start, end))
                    pieces.append(_blank(raw, " "))
                else:
                    prefix = self.text[start : end - len(raw)]
                    width = 3 if kind == "t" and raw[0] != "`" else 1
                    quote = raw[:width]
                    closed = len(raw) >= 2 * width and raw.endswith(quote)
                    body = raw[width : len(raw) - width] if closed else raw[width:]
                    literals.append(Literal(start, end, prefix, quote, body, kind == "t", closed))
                    tail = quote if closed else ""
                    pieces.append(prefix + quote + _blank(body, FILLER) + tail)
                if "\n" in raw:
                    first, last = self.line_of(start), self.line_of(end - 1)
                    for row in range(first + 1, last + 1):
                        inside[row] = "comment" if kind == "c" else "string"
                position = end
        pieces.append(self.text[position:])
        self.literals: tuple[Literal, ...] = tuple(literals)
        self.comments: tuple[tuple[int, int], ...] = tuple(comments)
        self.starts_inside: tuple[str, ...] = tuple(inside)
        """What each line begins inside of: ``"string"``, ``"comment"`` or ``""`` (code)."""
        joined = "".join(pieces)
        self.code_text = joined
        self.code: tuple[str, ...] = tuple(joined.split("\n"))
        self.cache: dict[str, object] = {}
        """What detectors work out once per document (the names it uses, its imports)."""

    # -- positions ------------------------------------------------------------ #

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset) - 1

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) of an offset in ``text``; columns count code points."""
        line = self.line_of(offset)
        return line, offset - self.line_starts[line]

    def offset(self, line: int, column: int) -> int:
        return self.line_starts[line] + column

    # -- literals --------------------------------------------------------------- #

    @cached_property
    def _literal_starts(self) -> tuple[int, ...]:
        return tuple(lit.start for lit in self.literals)

    def literal_at(self, offset: int) -> Literal | None:
        """The literal whose first character is at ``offset``, if any."""
        k = bisect.bisect_left(self._literal_starts, offset)
        if k < len(self.literals) and self.literals[k].start == offset:
            return self.literals[k]
        return None

    def literals_between(self, start: int, end: int) -> tuple[Literal, ...]:
        lo = bisect.bisect_left(self._literal_starts, start)
        hi = bisect.bisect_left(self._literal_starts, end)
        return self.literals[lo:hi]

    # -- brackets ----------------------------------------------------------------- #

    @cached_property
    def pairs(self) -> tuple[Pair, ...]:
        """Every bracket pair of the code, in order of their openers."""
        return self._brackets[0]

    @cached_property
    def enclosing(self) -> tuple[int, ...]:
        """For each line, the offset of the innermost bracket open at its start (-1: none)."""
        return self._brackets[1]

    @cached_property
    def _brackets(self) -> tuple[tuple[Pair, ...], tuple[int, ...]]:
        """One pass over the brackets: the pairs, and what is open where each line starts."""
        opens: list[int] = []
        closes: list[int] = []
        chars: list[str] = []
        stack: list[int] = []  # indexes into opens
        enclosing = [-1] * len(self.lines)
        starts = self.line_starts
        line = 0
        last_line = len(starts) - 1
        for m in _BRACKETS.finditer(self.code_text):
            at = m.start()
            while line < last_line and starts[line + 1] <= at:
                line += 1
                enclosing[line] = opens[stack[-1]] if stack else -1
            char = m.group()
            if char in "([{":
                stack.append(len(opens))
                opens.append(at)
                closes.append(-1)
                chars.append(char)
                continue
            want = _OPENER_OF[char]
            if stack and chars[stack[-1]] == want:
                closes[stack.pop()] = at
                continue
            depth = len(stack) - 1
            while depth >= 0 and chars[stack[depth]] != want:
                depth -= 1
            if depth < 0:
                continue  # a stray closer: leave the stack alone
            closes[stack[depth]] = at
            del stack[depth:]
        while line < last_line:
            line += 1
            enclosing[line] = opens[stack[-1]] if stack else -1
        pairs = tuple(map(Pair, opens, closes, chars))
        return pairs, tuple(enclosing)

    @cached_property
    def close_of(self) -> dict[int, int]:
        """Opener offset -> closer offset, for closed pairs."""
        return {pair.open: pair.close for pair in self.pairs if pair.close >= 0}

    @cached_property
    def open_of(self) -> dict[int, int]:
        return {pair.close: pair.open for pair in self.pairs if pair.close >= 0}

    def enclosing_at(self, offset: int) -> int:
        """The innermost bracket open just before ``offset`` (-1: none); one line is walked."""
        line = self.line_of(offset)
        stack = [self.enclosing[line]]
        start = self.line_starts[line]
        for m in _BRACKETS.finditer(self.code_text, start, offset):
            if m.group() in "([{":
                stack.append(m.start())
            elif len(stack) > 1:
                stack.pop()
            else:
                stack = [self.enclosing_at(stack[0])] if stack[0] >= 0 else [-1]
        return stack[-1]

    def code_before(self, offset: int, skip: str = " \t\n") -> int:
        """The offset of the last code character before ``offset`` that is not in ``skip``."""
        code = self.code_text
        k = offset - 1
        while k >= 0 and code[k] in skip:
            k -= 1
        return k

    # -- lines and depths ---------------------------------------------------------- #

    def is_blank(self, line: int) -> bool:
        """No code on the line (blank, or only a comment)."""
        return self._blank[line]

    @cached_property
    def _blank(self) -> tuple[bool, ...]:
        return tuple(not code.strip() for code in self.code)

    @cached_property
    def continuation(self) -> tuple[bool, ...]:
        """Whether each line continues a statement: inside brackets, a string, after a backslash.

        In Python every open bracket continues the statement. In brace languages a
        line inside ``{`` is a statement of a block (or a member of an object
        literal), so only an open ``(`` or ``[`` makes it a continuation.
        """
        python = self.language == "python"
        text = self.text
        result: list[bool] = []
        previous_backslash = False
        for opener, inside, code in zip(self.enclosing, self.starts_inside, self.code, strict=True):
            if inside or previous_backslash:
                result.append(True)
            elif opener < 0:
                result.append(False)
            else:
                result.append(python or text[opener] != "{")
            previous_backslash = code.endswith("\\") or code.rstrip().endswith("\\")
        return tuple(result)

    @cached_property
    def statement_lines(self) -> tuple[bool, ...]:
        """Lines that start a statement at their block's indentation (depths are read off them)."""
        return tuple(
            not blank and not continued
            for blank, continued in zip(self._blank, self.continuation, strict=True)
        )

    def is_statement_line(self, line: int) -> bool:
        return self.statement_lines[line]

    @cached_property
    def depths(self) -> tuple[int | None, ...]:
        """Each statement line's nesting depth (None for every other line).

        Read the way the corrections read it (``indentation.nesting_depths``).
        """
        shaped = [
            " " * visual_width(line[: len(line) - len(line.lstrip(" \t"))]) + "x"
            if statement
            else ""
            for line, statement in zip(self.lines, self.statement_lines, strict=True)
        ]
        return tuple(nesting_depths(shaped))

    def header_of(self, line: int) -> int | None:
        """The statement line that opens the block ``line`` sits in (None at the top level)."""
        depth = self.depths[line]
        if not depth:
            return None
        for k in range(line - 1, -1, -1):
            other = self.depths[k]
            if other is not None and other < depth:
                return k
        return None

    @property
    def brace_language(self) -> bool:
        return self.language in JS_LIKE


def visual_width(lead: str) -> int:
    """Columns of leading whitespace, a tab reaching the next multiple of :data:`TAB_SIZE`."""
    if "\t" not in lead:
        return len(lead)
    return len(lead.expandtabs(TAB_SIZE))


def _blank(text: str, filler: str) -> str:
    """``text`` with every character but line breaks replaced by ``filler``."""
    if "\n" not in text:
        return filler * len(text)
    return "\n".join(filler * len(part) for part in text.split("\n"))
