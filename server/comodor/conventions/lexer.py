"""Find string literals and comments, so that no analyser mistakes one for code.

This is deliberately not a parser: one compiled regular expression per language
family finds strings and comments left to right (fast enough to sample hundreds of
files), and everything between them is code. It errs on the side of never crashing:
an unterminated string simply ends at the end of its line.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import NamedTuple, TypeVar

import attrs

# Unrolled loops ("normal* (special normal*)*") keep the regex engine from backtracking.
_SQ = r"'[^'\\\n]*(?:\\.[^'\\\n]*)*(?:'|$)"
_DQ = r'"[^"\\\n]*(?:\\.[^"\\\n]*)*(?:"|$)'
_TRIPLE_SQ = r"'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*(?:'''|\Z)"
_TRIPLE_DQ = r'"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*(?:"""|\Z)'
_SLASH_COMMENTS = r"//[^\n]*|/\*.*?(?:\*/|\Z)"
_FLAGS = re.MULTILINE | re.DOTALL

_PYTHON = re.compile(
    r"(?=[#'\"]|(?<!\w)[rRbBuUfF]{1,2}['\"])(?:(?P<c>#[^\n]*)"
    r"|(?P<p>[rRbBuUfF]{1,2})?"
    rf"(?:(?P<t>{_TRIPLE_SQ}|{_TRIPLE_DQ})|(?P<s>{_SQ}|{_DQ})))",
    _FLAGS,
)
_JS = re.compile(
    r"(?=[/`'\"])"
    rf"(?:(?P<c>{_SLASH_COMMENTS})"
    r"|(?P<t>`(?:[^`\\]|\\.)*(?:`|\Z))"
    rf"|(?P<s>{_SQ}|{_DQ}))",
    _FLAGS,
)
_C_LIKE = re.compile(
    r"(?=[/`'\"])"
    rf"(?:(?P<c>{_SLASH_COMMENTS})"
    r"|(?P<t>`[^`]*(?:`|\Z))"
    rf"|(?P<s>{_DQ}|'(?:[^'\\\n]|\\.){{1,2}}'))",
    _FLAGS,
)
_HASH_COMMENTS = re.compile(rf"(?=[#'\"])(?:(?P<c>#[^\n]*)|(?P<s>{_SQ}|{_DQ}))", _FLAGS)
_CSS = re.compile(rf"(?=[/'\"])(?:(?P<c>/\*(?:.|\n)*?(?:\*/|\Z))|(?P<s>{_SQ}|{_DQ}))", _FLAGS)

_PATTERNS: dict[str, re.Pattern[str]] = {
    "python": _PYTHON,
    "javascript": _JS,
    "typescript": _JS,
    "vue": _JS,
    "svelte": _JS,
    "ruby": _HASH_COMMENTS,
    "shell": _HASH_COMMENTS,
    "yaml": _HASH_COMMENTS,
    "toml": _HASH_COMMENTS,
    "css": _CSS,
    "scss": _JS,
    "less": _JS,
}
for _lang in ("go", "rust", "java", "kotlin", "swift", "scala", "c", "cpp", "csharp", "php"):
    _PATTERNS[_lang] = _C_LIKE

_WHITESPACE = re.compile(r"\s+")
PLACEHOLDER = re.compile(r"\x01(\d+)\x02")
"""How a string literal appears in masked text: ``\\x01<index>\\x02``."""


class StringLit(NamedTuple):
    """A string literal: where it is and what it says (a tuple: scans make thousands)."""

    line: int
    prefix: str
    quote: str
    body: str
    triple: bool
    closed: bool

    @property
    def is_fstring(self) -> bool:
        """Whether this literal interpolates (Python f-string)."""
        return "f" in self.prefix.lower()


class Comment(NamedTuple):
    """A comment and the line it starts on."""

    line: int
    text: str


@attrs.frozen
class Lexed:
    """A text with its strings and comments found and a masked copy of its code.

    ``masked`` has the same lines as the text; each string is replaced by a placeholder
    (the index into ``strings``) and each comment by nothing, so code-level regexes
    never see inside either.
    """

    lines: tuple[str, ...]
    masked: tuple[str, ...]
    strings: tuple[StringLit, ...]
    comments: tuple[Comment, ...]

    def strings_on(self, line: int) -> list[StringLit]:
        """Return the literals that start on ``line`` (0-based)."""
        return list(_on_line(self.strings, line))

    def squashed(self, line: int) -> str:
        """Return the code of ``line`` without whitespace or comments, strings spelled out.

        Literals are spelled with one kind of quote and their prefix kept, so two lines
        that differ only in quote style or spacing squash to the same text.
        """
        if line >= len(self.masked):
            return ""
        return self.spell(self.masked[line])

    def spell(self, code: str, fstrings: Callable[[str], str] | None = None) -> str:
        """Squash masked ``code``: drop whitespace, spell its literals with one quote.

        ``fstrings`` rewrites the spelling of interpolating literals (Python f-strings,
        JavaScript template literals), whose bodies hold code: a renamed variable is
        renamed inside ``f"{name}"`` and ``${name}`` too.
        """
        code = _WHITESPACE.sub("", code)

        def literal(m: re.Match[str]) -> str:
            lit = self.strings[int(m.group(1))]
            text = _spelled(lit)
            interpolates = lit.is_fstring or lit.quote == "`"
            return fstrings(text) if fstrings is not None and interpolates else text

        return PLACEHOLDER.sub(literal, code)

    def comments_on(self, line: int) -> list[Comment]:
        """Return the comments that start on ``line`` (0-based)."""
        return list(_on_line(self.comments, line))


_Token = TypeVar("_Token", StringLit, Comment)


def _on_line(tokens: tuple[_Token, ...], line: int) -> tuple[_Token, ...]:
    """Tokens are in text order, so the ones on a line are found by bisection."""
    lo = bisect.bisect_left(tokens, line, key=lambda t: t.line)
    hi = bisect.bisect_right(tokens, line, key=lambda t: t.line)
    return tokens[lo:hi]


def _scanning(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` without its leading lookahead and named groups, so the engine skips ahead.

    When every branch of a pattern starts with a literal character and nothing else
    stands in the way, the regex engine jumps from candidate to candidate; a leading
    lookahead or named groups make it try every position of the text (measured four
    to eight times slower on a 5,000-line file).
    """
    text = re.sub(r"^\(\?=\[[^\]]*\]\)", "", pattern.pattern)
    return re.compile(re.sub(r"\(\?P<\w>", "(?:", text), pattern.flags)


_SCAN_PATTERNS: dict[str, re.Pattern[str]] = {
    language: _scanning(pattern)
    for language, pattern in _PATTERNS.items()
    if pattern is not _PYTHON
}
_SCAN_PATTERNS["python"] = re.compile(rf"#[^\n]*|{_TRIPLE_SQ}|{_TRIPLE_DQ}|{_SQ}|{_DQ}", _FLAGS)
_PREFIX_LETTERS = frozenset("rRbBuUfF")


def token_kind(raw: str) -> str:
    """What a match of :func:`pattern_for` is: ``c`` comment, ``t`` triple/template, ``s``."""
    first = raw[:1]
    if first == "#" or raw[:2] in ("//", "/*"):
        return "c"
    if first == "`" or raw[:3] in ('"""', "'''"):
        return "t"
    return "s"


def pattern_for(language: str | None) -> re.Pattern[str] | None:
    """A pattern that finds a language's strings and comments quickly (None: no lexer).

    The same strings and comments :func:`lex` finds, without groups (for speed:
    :func:`token_kind` says what a match is); a Python literal's prefix is not part
    of the match: :func:`python_prefix` finds it.
    """
    return _SCAN_PATTERNS.get(language or "")


def python_prefix(text: str, quote_at: int) -> int:
    """Where a Python literal whose quote is at ``quote_at`` starts (its ``rb``/``f``… prefix)."""
    start = quote_at
    while start > 0 and quote_at - start < 2 and text[start - 1] in _PREFIX_LETTERS:
        start -= 1
    if start < quote_at and start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return quote_at  # the letters end a name (`buf"…"`), they are no prefix
    return start


def lex(text: str, language: str | None) -> Lexed:
    """Split ``text`` into strings, comments and masked code; unknown languages have none."""
    lines = tuple(text.splitlines())
    pattern = _PATTERNS.get(language or "")
    if pattern is None:
        return Lexed(lines=lines, masked=lines, strings=(), comments=())
    joined = "\n".join(lines)
    line = 0
    strings: list[StringLit] = []
    comments: list[Comment] = []
    out: list[str] = []
    pos = 0
    for m in pattern.finditer(joined):
        start, end = m.span()
        line += joined.count("\n", pos, start)
        out.append(joined[pos:start])
        kind = m.lastgroup or "s"
        raw = m.group(kind)
        inner = raw.count("\n")
        if kind == "c":
            comments.append(Comment(line, raw))
            out.append("\n" * inner)
        else:
            prefix = joined[start : end - len(raw)]
            width = 3 if kind == "t" and raw[0] != "`" else 1
            quote = raw[:width]
            closed = len(raw) >= 2 * width and raw.endswith(quote)
            body = raw[width : len(raw) - width] if closed else raw[width:]
            out.append(f"{prefix}\x01{len(strings)}\x02" + "\n" * inner)
            strings.append(StringLit(line, prefix, quote, body, kind == "t", closed))
        pos = end
        line += inner
    out.append(joined[pos:])
    masked = tuple("".join(out).split("\n")) if lines else ()
    return Lexed(lines=lines, masked=masked, strings=tuple(strings), comments=tuple(comments))


def _spelled(lit: StringLit) -> str:
    quote = '"""' if lit.triple else '"'
    return f"{quote}{unescaped_body(lit)}{quote}"


def unescaped_body(lit: StringLit) -> str:
    """Return the body as it would read with either quote, so quote swaps compare equal."""
    return lit.body.replace("\\'", "'").replace('\\"', '"')


def simple_quoted(lit: StringLit) -> bool:
    """Whether this literal's quote is a free style choice (plain, one line, no other quote)."""
    if lit.triple or not lit.closed or lit.quote not in ("'", '"'):
        return False
    other = '"' if lit.quote == "'" else "'"
    return other not in unescaped_body(lit)
