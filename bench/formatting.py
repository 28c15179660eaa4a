"""Tell a release's formatting edits from its human edits, without Comodor's own analysis.

Between two releases a project may also have run its formatter (a new black style,
quotes normalised, trailing commas added). Those edits are real style changes, so a
rule learned from them would be right, not false. To measure false rules the
benchmark reverts them and replays only what is left: changed lines that are not
purely formatting.

The judge is deliberately independent of ``comodor.capture`` (a benchmark must not
grade the analysis with the analysis). It works at two grains:

- **Hunks.** Python: apply the hunk alone to the old file; it is formatting when the
  syntax tree (``ast.dump``, no positions) is unchanged and the hunk says the same
  words (comments, string text). JavaScript/TypeScript, for want of a parser in the
  standard library: the hunk's tokens are equal once spacing, statement semicolons,
  trailing commas, quote style and the parentheses of a lone arrow parameter are set
  aside (prettier's options).
- **Lines, inside a human hunk.** A line whose tokens are unchanged but whose
  spelling is not (quotes, spacing, a trailing comma) gets its old spelling back
  under its new indentation: a block that was re-nested *and* re-quoted keeps the
  re-nesting (human) and loses the re-quoting (formatting).

Anything the judge cannot read (a hunk that does not parse alone, a line inside a
multi-line string) is kept as a human edit: that can only make the benchmark harder.
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Sequence

import attrs

_JS_TOKEN = re.compile(
    r"(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))"
    r"|(?P<string>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")"
    r"|(?P<template>`(?:[^`\\]|\\.)*`?)"
    r"|(?P<word>[A-Za-z_$][\w$]*|\d[\w.]*)"
    r"|(?P<space>\s+)"
    r"|(?P<punct>=>|===|!==|\?\?|\?\.|\.\.\.|&&|\|\||[=!<>]=|.)",
    re.DOTALL,
)
_WORDS = re.compile(r"\w+")
_ESCAPE = re.compile(r"\\[\s\S]")
_CLOSERS = (")", "]", "}")
_PY_SKIPPED = frozenset(
    {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
)

Tokens = tuple[str, ...]


@attrs.frozen
class Hunk:
    """One run of changed lines: old lines ``a1:a2`` became new lines ``b1:b2``."""

    a1: int
    a2: int
    b1: int
    b2: int


@attrs.frozen
class Kept:
    """The new release with its formatting reverted."""

    text: str
    human: int
    """Hunks kept (not purely formatting)."""
    formatting: int
    """Hunks reverted whole."""
    formatting_lines: int = 0
    """Lines inside human hunks whose spelling was reverted."""


def hunks(old: Sequence[str], new: Sequence[str]) -> list[Hunk]:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [Hunk(a1, a2, b1, b2) for tag, a1, a2, b1, b2 in matcher.get_opcodes() if tag != "equal"]


def _without_trailing_commas(tokens: list[str]) -> Tokens:
    kept = [
        token
        for k, token in enumerate(tokens)
        if not (token == "," and (k + 1 == len(tokens) or tokens[k + 1] in _CLOSERS))
    ]
    return tuple(kept)


def _python_string(token: str) -> str:
    try:
        return "s:" + repr(ast.literal_eval(token))
    except (SyntaxError, ValueError):  # an f-string: same body, one kind of quote
        return "f:" + token.replace("'", '"').lower()


def python_line_tokens(line: str) -> Tokens | None:
    """Tokens of one Python line with spelling set aside; None when it cannot be read alone."""
    raw: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline):
            if token.type == tokenize.ERRORTOKEN:
                return None
            if token.type in _PY_SKIPPED:
                continue
            if token.type == tokenize.STRING:
                raw.append(_python_string(token.string))
            elif token.type == tokenize.COMMENT:
                raw.extend("#" + word for word in _WORDS.findall(token.string))
            else:
                raw.append(token.string)
    except tokenize.TokenError:
        pass  # an open bracket at the end of the line: the tokens so far are all there is
    except (SyntaxError, IndentationError):
        return None
    return _without_trailing_commas(raw) if raw else None


def js_tokens(text: str) -> list[str]:
    """Tokens of JavaScript/TypeScript with prettier's options set aside."""
    raw: list[str] = []
    for m in _JS_TOKEN.finditer(text):
        kind = m.lastgroup
        value = m.group(0)
        if kind == "space":
            continue
        if kind == "comment":
            raw.extend("#" + word for word in _WORDS.findall(value))
        elif kind == "string":
            body = value[1:-1].replace("\\'", "'").replace('\\"', '"')
            raw.append("s:" + body)
        elif value != ";":
            raw.append(value)
    tokens = list(_without_trailing_commas(raw))
    # (x) => … and x => … are the same function.
    out: list[str] = []
    k = 0
    while k < len(tokens):
        if (
            tokens[k] == "("
            and k + 3 < len(tokens)
            and tokens[k + 2] == ")"
            and tokens[k + 3] == "=>"
            and re.fullmatch(r"[A-Za-z_$][\w$]*", tokens[k + 1])
        ):
            out.append(tokens[k + 1])
            k += 3
            continue
        out.append(tokens[k])
        k += 1
    return out


def _js_line_tokens(line: str) -> Tokens | None:
    tokens = js_tokens(line)
    return tuple(tokens) if tokens else None


def _python_comments(text: str) -> dict[int, list[str]]:
    """Comment words by 0-based line."""
    found: dict[int, list[str]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                found.setdefault(token.start[0] - 1, []).extend(_WORDS.findall(token.string))
    except (tokenize.TokenError, SyntaxError):
        return {}
    return found


def _tree(text: str) -> str | None:
    try:
        return ast.dump(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError):
        return None


def _word_counts(lines: Sequence[str]) -> Counter[str]:
    """Words of some lines, escapes aside (``"a\\n"`` and a real line break say the same)."""
    return Counter(_WORDS.findall(_ESCAPE.sub(" ", "\n".join(lines))))


class _PythonJudge:
    line_tokens = staticmethod(python_line_tokens)

    def __init__(self, old: list[str], new: list[str]) -> None:
        self.old, self.new = old, new
        self.tree = _tree("\n".join(old))
        self.old_comments = _python_comments("\n".join(old))
        self.new_comments = _python_comments("\n".join(new))

    def formatting(self, hunk: Hunk) -> bool:
        if self.tree is None:
            return False
        # Formatting moves no word (names, numbers, string and comment text): most human
        # hunks fail this at once, without parsing the file again.
        if _word_counts(self.old[hunk.a1 : hunk.a2]) != _word_counts(self.new[hunk.b1 : hunk.b2]):
            return False
        words_old = [w for k in range(hunk.a1, hunk.a2) for w in self.old_comments.get(k, [])]
        words_new = [w for k in range(hunk.b1, hunk.b2) for w in self.new_comments.get(k, [])]
        if words_old != words_new:
            return False
        applied = self.old[: hunk.a1] + self.new[hunk.b1 : hunk.b2] + self.old[hunk.a2 :]
        return _tree("\n".join(applied)) == self.tree


class _ScriptJudge:
    line_tokens = staticmethod(_js_line_tokens)

    def __init__(self, old: list[str], new: list[str]) -> None:
        self.old, self.new = old, new

    def formatting(self, hunk: Hunk) -> bool:
        before = js_tokens("\n".join(self.old[hunk.a1 : hunk.a2]))
        after = js_tokens("\n".join(self.new[hunk.b1 : hunk.b2]))
        return before == after


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _respelled(
    old: Sequence[str], new: Sequence[str], read: Callable[[str], Tokens | None]
) -> tuple[list[str], int]:
    """The new lines of a human hunk, each same-token line spelled as it was before."""
    old_keys = [read(line) or ("\0old", str(k)) for k, line in enumerate(old)]
    new_keys = [read(line) or ("\0new", str(k)) for k, line in enumerate(new)]
    out = list(new)
    reverted = 0
    matcher = difflib.SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    for tag, a1, a2, b1, _ in matcher.get_opcodes():
        if tag != "equal":
            continue
        for offset in range(a2 - a1):
            before, after = old[a1 + offset], new[b1 + offset]
            if before.strip() != after.strip():
                out[b1 + offset] = _leading(after) + before.strip()
                reverted += 1
    return out, reverted


def keep_human_edits(old_text: str, new_text: str, language: str | None) -> Kept:
    """The new text with its formatting (whole hunks, then single lines) reverted."""
    old, new = old_text.splitlines(), new_text.splitlines()
    judge: _PythonJudge | _ScriptJudge
    judge = _PythonJudge(old, new) if language == "python" else _ScriptJudge(old, new)
    out: list[str] = []
    position = human = formatting = formatting_lines = 0
    for hunk in hunks(old, new):
        out.extend(old[position : hunk.a1])
        if judge.formatting(hunk):
            out.extend(old[hunk.a1 : hunk.a2])
            formatting += 1
        else:
            lines, reverted = _respelled(
                old[hunk.a1 : hunk.a2], new[hunk.b1 : hunk.b2], judge.line_tokens
            )
            out.extend(lines)
            formatting_lines += reverted
            human += 1
        position = hunk.a2
    out.extend(old[position:])
    ending = "\n" if new_text.endswith("\n") else ""
    return Kept(
        text="\n".join(out) + ending if out else "",
        human=human,
        formatting=formatting,
        formatting_lines=formatting_lines,
    )
