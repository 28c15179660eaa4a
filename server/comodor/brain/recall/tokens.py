r"""Words in any script: what recall, merging and full-text search see in a text.

Unicode word rules, not ASCII ones, because lessons are written in the user's
language: a Persian, Arabic, Hebrew, Russian, Greek, Hindi, Chinese or Japanese
lesson must be found by a query in the same language.

* A word is a run of letters, digits, underscores and combining marks of any
  script (Python's ``\w`` alone would cut Hindi or vowelled Arabic at every mark).
* A zero-width non-joiner or joiner *inside* a word stays in it: Persian writes
  "می‌خواهم" as one word with a ZWNJ. People also type it without one, so the
  joined spelling is a second word of the same token.
* Chinese and Japanese have no spaces: a run of Han, Hiragana or Katakana becomes
  its overlapping character bigrams (the standard trick of CJK search engines; a
  single character stays a word of its own).
* Identifiers count whole and split: ``read_file`` and ``readFile`` are also
  ``read`` and ``file``.
* Everything is NFKC-normalised and case-folded (``ß`` → ``ss``, final ``ς`` →
  ``σ``); marks that writers of Arabic and Hebrew usually leave out (harakat,
  niqqud, tatweel) are dropped, and the Arabic and Persian forms of yeh and kaf are
  one letter, so a vowelled or Arabic-keyboard spelling finds the plain one.

ASCII text, by far the commonest, takes a fast path with the same results.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_ASCII_WORD = re.compile(r"[A-Za-z0-9_]+(?:['’][A-Za-z]+)?")
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_JOINERS = "\u200c\u200d"
_CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_MARK_BLOCKS = (
    (0x0300, 0x1DFF),  # Latin to Mongolian, Indic, Southeast Asian, Cyrillic, Hebrew, Arabic
    (0x20D0, 0x20FF),
    (0x2CEF, 0x2DFF),
    (0x302A, 0x309A),
    (0xA66F, 0xABFF),
    (0xFB1E, 0xFB1E),
    (0xFE00, 0xFE2F),
    (0x101FD, 0x11FFF),
    (0x1D165, 0x1D244),
    (0x1E000, 0x1E94A),
)
_OPTIONAL_MARKS = ((0x0591, 0x05C7), (0x0610, 0x061A), (0x064B, 0x065F), (0x0670, 0x0670))
"""Hebrew niqqud and cantillation, Arabic harakat: usually not written, so not matched."""
_FOLD = {0x0640: None, 0x064A: 0x06CC, 0x0649: 0x06CC, 0x0643: 0x06A9}
"""Tatweel dropped; Arabic yeh, alef maksura and kaf as their Persian forms."""


def _ranges(blocks: tuple[tuple[int, int], ...], wanted: str) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    for low, high in blocks:
        for point in range(low, high + 1):
            if unicodedata.category(chr(point)).startswith(wanted):
                if found and found[-1][1] == point - 1:
                    found[-1] = (found[-1][0], point)
                else:
                    found.append((point, point))
    return found


@lru_cache(maxsize=1)
def _unicode_rules() -> tuple[re.Pattern[str], dict[int, int | None], re.Pattern[str]]:
    """Word pattern, folding table and CJK runs, built the first time non-ASCII text comes."""
    marks = "".join(
        chr(low) if low == high else f"{chr(low)}-{chr(high)}"
        for low, high in _ranges(_MARK_BLOCKS, "M")
    )
    letter = f"[\\w{marks}]"
    pattern = re.compile(f"{letter}+(?:[{_JOINERS}'’]{letter}+)*")
    table: dict[int, int | None] = dict(_FOLD)
    for low, high in _ranges(_OPTIONAL_MARKS, "M"):
        table.update(dict.fromkeys(range(low, high + 1)))
    return pattern, table, re.compile(f"[{_CJK}]+")


def _identifier_parts(token: str) -> list[str]:
    """``read_file`` → read, file; ``readFile`` → read, file; anything else → itself."""
    parts: list[str] = []
    for piece in token.split("_"):
        if not piece:
            continue
        if piece.isascii() and any(c.isupper() for c in piece[1:]):
            parts.extend(_CAMEL.findall(piece) or [piece])
        else:
            parts.append(piece)
    return parts


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[index : index + 2] for index in range(len(run) - 1)]


def _emit(token: str, out: list[str]) -> None:
    rest = token[1:]
    if (
        "_" not in token
        and rest == rest.lower()
        and "\u200c" not in token
        and "\u200d" not in token
    ):
        out.append(token.casefold())  # a plain word: the common case, kept cheap
        return
    parts = _identifier_parts(token)
    out.extend(part.casefold() for part in parts)
    if len(parts) > 1 or (parts and parts[0] != token.strip("_")):
        out.append(token.casefold())
    if any(joiner in token for joiner in _JOINERS):
        out.append(token.casefold().replace("\u200c", "").replace("\u200d", ""))


def words(text: str) -> list[str]:
    """Case-folded words in order: identifiers split (then whole), CJK as bigrams."""
    out: list[str] = []
    if text.isascii():
        for match in _ASCII_WORD.finditer(text):
            _emit(match.group(0), out)
        return out
    pattern, table, cjk_run = _unicode_rules()
    clean = unicodedata.normalize("NFKC", text).translate(table)
    for match in pattern.finditer(clean):
        token = match.group(0).replace("’", "'")
        if not cjk_run.search(token):
            _emit(token, out)
            continue
        position = 0
        for run in cjk_run.finditer(token):
            if run.start() > position:
                _emit(token[position : run.start()], out)
            out.extend(_bigrams(run.group(0)))
            position = run.end()
        if position < len(token):
            _emit(token[position:], out)
    return out
