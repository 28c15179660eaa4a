"""The engine that runs the catalogue's rules over a text and merges what they find.

Kept apart from :mod:`.redactor` (which writes the markers) so that a rule may ask for
a second opinion on text it decoded (:mod:`.entropy` re-checks what a base64 token
holds) without the catalogue importing the redactor that imports the catalogue.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Iterator, Sequence
from typing import Final

import attrs
import numpy as np
import numpy.typing as npt

from .base import MARKER_RE, Rule


@attrs.frozen
class SecretMatch:
    """A secret found in a text: ``text[start:end]`` is what :func:`redact` replaces."""

    kind: str
    start: int
    end: int


_ASCII_LOWER: Final = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _lowercase(text: str) -> str:
    """Lowercase *text* without moving any character (so match positions stay valid)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered  # no character expanded, so every one stayed in place
    return text.translate(_ASCII_LOWER)


_Candidate = tuple[int, int, int, str]


class _Coverage:
    """Answers "does one span found so far contain this one?" in logarithmic time."""

    def __init__(self, found: list[_Candidate]) -> None:
        spans = sorted((start, end) for start, end, _, _ in found)
        self._starts = [start for start, _ in spans]
        self._reach: list[int] = []
        reach = -1
        for _, end in spans:
            reach = max(reach, end)
            self._reach.append(reach)

    def covers(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self._starts, start)
        return i > 0 and self._reach[i - 1] >= end


# Above this many occurrences of its prefixes, a rule's regex scans the text itself.
_MOST_ANCHORS: Final = 512
# How far past a run the engine lets a pattern look (its look-aheads are short).
_RUN_MARGIN: Final = 8


class _Finder:
    """Runs one rule's pattern over a text, searching only where a match can start.

    Equivalent to ``rule.pattern.finditer(subject)``: a rule with literal prefixes is tried
    only where one occurs (found with ``str.find``, far faster than the regex engine's own
    scan), and a rule with ``run_chars`` only inside long enough runs of those characters.
    What was found is shared between rules (many start with ``token`` or ``key``).
    """

    def __init__(self, text: str, lowered: str) -> None:
        self._text = text
        self._lowered = lowered
        self._anchors: dict[tuple[str, bool], list[int] | None] = {}
        self._runs: dict[tuple[str, int], list[tuple[int, int]]] = {}
        self._bytes: bytes | None = None
        self._grams: _Grams | None = None
        self._maybe: dict[tuple[str, bool], bool] = {}

    def _may_contain(self, needle: str, lowercase: bool) -> bool:
        """False only when *needle* certainly does not occur (one of its pieces is absent)."""
        if len(self._text) < _GRAMS_FROM:
            return True  # a scan of a short text costs less than building the bitmaps
        key = (needle, lowercase)
        known = self._maybe.get(key)
        if known is None:
            if self._grams is None:
                self._grams = _Grams(self._text, self._lowered)
            known = self._maybe[key] = self._grams.may_contain(needle, lowercase)
        return known

    def matches(self, rule: Rule, subject: str) -> Iterator[re.Match[str]]:
        if rule.run_chars:
            yield from self._in_runs(rule, subject)
            return
        if not rule.needles:
            yield from rule.pattern.finditer(subject)
            return
        needles = [n for n in rule.needles if self._may_contain(n, rule.on_lowercase)]
        if not needles:
            return
        positions: list[int] = []
        for needle in needles:
            found = self._positions(needle, rule.on_lowercase)
            if found is None:
                yield from rule.pattern.finditer(subject)
                return
            positions += found
        if len(needles) > 1:
            positions = sorted(set(positions))
        reached = 0
        match = rule.pattern.match
        for position in positions:
            if position < reached:
                continue
            m = match(subject, position)
            if m is not None:
                reached = m.end()
                yield m

    def _positions(self, needle: str, lowercase: bool) -> list[int] | None:
        """Where *needle* occurs, or ``None`` when it occurs too often to be worth it."""
        key = (needle, lowercase)
        if key in self._anchors:
            return self._anchors[key]
        subject = self._lowered if lowercase else self._text
        positions: list[int] = []
        start = subject.find(needle)
        while start >= 0 and len(positions) <= _MOST_ANCHORS:
            positions.append(start)
            start = subject.find(needle, start + 1)
        self._anchors[key] = positions if start < 0 else None
        return self._anchors[key]

    def _in_runs(self, rule: Rule, subject: str) -> Iterator[re.Match[str]]:
        reached = 0
        after = rule.run_after
        for start, end in self._runs_of(rule.run_chars, rule.min_run):
            if after and (start == 0 or subject[start - 1] not in after):
                continue
            begin = max(reached, start - rule.run_lead)
            for m in rule.pattern.finditer(subject, begin, min(len(subject), end + _RUN_MARGIN)):
                reached = m.end()
                yield m

    def _runs_of(self, chars: str, least: int) -> list[tuple[int, int]]:
        key = (chars, least)
        if key in self._runs:
            return self._runs[key]
        if self._bytes is None:
            # One byte per character (non-ASCII ones become "?"), so positions carry over.
            self._bytes = self._text.encode("ascii", "replace")
        marked = self._bytes.translate(_run_table(chars))
        runs: list[tuple[int, int]] = []
        probe = b"a" * least
        start = marked.find(probe)
        while start >= 0:
            begin = marked.rfind(b" ", 0, start) + 1
            end = marked.find(b" ", start)
            end = len(marked) if end < 0 else end
            runs.append((begin, end))
            start = marked.find(probe, end)
        self._runs[key] = runs
        return runs


_GRAM_MASK: Final = (1 << 16) - 1
_GRAMS_FROM: Final = 16_384


class _Grams:
    """Which pieces a text holds, as bitmaps built in one vectorised pass each.

    Asking whether a needle may occur then costs a few lookups instead of a scan of the
    whole text; the rules' ~200 literal prefixes would otherwise mean ~200 scans. Pieces of
    three characters are taken from the lower-cased text (so one bitmap serves every rule),
    pairs from the text as it is; a hash collision only makes a needle look present (it is
    then searched for properly).
    """

    def __init__(self, text: str, lowered: str) -> None:
        # One byte per character (non-ASCII ones become "?"), so pieces stay aligned.
        # 16-bit arithmetic wraps exactly like masking to 16 bits, on half the memory.
        raw = np.frombuffer(text.encode("ascii", "replace"), dtype=np.uint8).astype(np.uint16)
        low = np.frombuffer(lowered.encode("ascii", "replace"), dtype=np.uint8).astype(np.uint16)
        triples = _triple_codes(low)
        self._triples = _bitmap(triples, 1 << 16)
        self._quads = _bitmap(_quad_codes(triples, low), 1 << 16)
        self._pairs = _bitmap(_pair_codes(raw), 1 << 14)

    def may_contain(self, needle: str, lowercase: bool) -> bool:
        if not needle.isascii() or len(needle) < 2:
            return True
        pairs = self._pairs
        if lowercase:
            # The rule sees the lower-cased text: a pair may stand in any case in the original.
            if not all(any(pairs[c] for c in variants) for variants in _any_case_pairs(needle)):
                return False
        elif not all(pairs[code] for code in _needle_pairs(needle)):
            return False
        lowered = needle.lower()
        triples = self._triples
        if not all(triples[code] for code in _needle_triples(lowered)):
            return False
        quads = self._quads
        return all(quads[code] for code in _needle_quads(lowered))


def _triple_codes(raw: npt.NDArray[np.uint16]) -> npt.NDArray[np.uint16]:
    if len(raw) < 3:
        return raw[:0]
    codes = raw[:-2] << np.uint16(10)
    codes ^= raw[1:-1] << np.uint16(5)
    codes ^= raw[2:]
    return codes


def _quad_codes(
    triples: npt.NDArray[np.uint16], raw: npt.NDArray[np.uint16]
) -> npt.NDArray[np.uint16]:
    if len(raw) < 4:
        return raw[:0]
    codes = triples[:-1] << np.uint16(5)
    codes ^= raw[3:]
    return codes


@functools.lru_cache(maxsize=1024)
def _needle_quads(needle: str) -> tuple[int, ...]:
    codes = [ord(c) for c in needle]
    mask = _GRAM_MASK
    return tuple(
        (((((a << 10) ^ (b << 5) ^ c) & mask) << 5) ^ d) & mask
        for a, b, c, d in zip(codes, codes[1:], codes[2:], codes[3:], strict=False)
    )


def _pair_codes(raw: npt.NDArray[np.uint16]) -> npt.NDArray[np.uint16]:
    if len(raw) < 2:
        return raw[:0]
    low7 = np.uint16(127)
    codes = raw[:-1] & low7
    codes <<= np.uint16(7)
    codes |= raw[1:] & low7
    return codes


def _bitmap(codes: npt.NDArray[np.uint16], size: int) -> bytes:
    seen = np.zeros(size, dtype=np.uint8)
    seen[codes] = 1
    return seen.tobytes()  # indexing bytes is far cheaper than indexing an array


@functools.lru_cache(maxsize=1024)
def _needle_triples(needle: str) -> tuple[int, ...]:
    codes = [ord(c) for c in needle]
    return tuple(
        ((a << 10) ^ (b << 5) ^ c) & _GRAM_MASK
        for a, b, c in zip(codes, codes[1:], codes[2:], strict=False)
    )


@functools.lru_cache(maxsize=1024)
def _any_case_pairs(needle: str) -> tuple[tuple[int, ...], ...]:
    return tuple(
        tuple(
            {((ord(x) & 127) << 7) | (ord(y) & 127) for x in {a, a.upper()} for y in {b, b.upper()}}
        )
        for a, b in itertools.pairwise(needle)
    )


@functools.lru_cache(maxsize=1024)
def _needle_pairs(needle: str) -> tuple[int, ...]:
    codes = [ord(c) & 127 for c in needle]
    return tuple((a << 7) | b for a, b in itertools.pairwise(codes))


@functools.lru_cache(maxsize=16)
def _run_table(chars: str) -> bytes:
    """A ``bytes.translate`` table: *chars* become ``a``, every other byte a space."""
    table = bytearray(b" " * 256)
    for c in chars:
        table[ord(c)] = ord("a")
    return bytes(table)


def candidates(text: str, rules: Sequence[Rule]) -> list[_Candidate]:
    """Every span one of ``rules`` finds in ``text``, overlapping and unmerged.

    Rules run in order, so a later rule marked ``skip_covered`` sees what earlier ones found.
    """
    lowered = _lowercase(text)
    markers = [m.span() for m in MARKER_RE.finditer(text)]
    marker_starts = [start for start, _ in markers]
    found: list[_Candidate] = []
    covered: _Coverage | None = None
    finder = _Finder(text, lowered)
    for rule in rules:
        subject = lowered if rule.on_lowercase else text
        if rule.skip_covered and covered is None:
            covered = _Coverage(found)
        for m in finder.matches(rule, subject):
            if rule.not_after and m.start() > 0 and subject[m.start() - 1] in rule.not_after:
                continue
            if rule.skip_covered and covered is not None and covered.covers(*m.span()):
                continue
            kind = rule.kind if rule.classify is None else rule.classify(m, text)
            if kind is None:
                continue
            spans = [m.span("secret")] if rule.spans is None else rule.spans(m, text)
            for start, stop in spans:
                # Never take trailing line breaks or spaces along (truncated PEM bodies end so).
                end = stop
                while end > start and text[end - 1].isspace():
                    end -= 1
                if end <= start:
                    continue
                # Text already redacted stays as it is: that is what makes redact() idempotent.
                i = bisect.bisect_left(marker_starts, end)
                if i > 0 and markers[i - 1][1] > start:
                    continue
                found.append((start, end, rule.priority, kind))
    return found


def merge(found: list[_Candidate]) -> list[SecretMatch]:
    """Merge overlapping candidates, naming each merged match after its most specific rule."""
    merged: list[SecretMatch] = []
    best = -1
    for start, end, priority, kind in sorted(found, key=lambda c: (c[0], -c[1], -c[2])):
        if merged and start < merged[-1].end:
            last = merged[-1]
            if priority > best:
                best = priority
                last_kind = kind
            else:
                last_kind = last.kind
            merged[-1] = SecretMatch(last_kind, last.start, max(last.end, end))
        else:
            merged.append(SecretMatch(kind, start, end))
            best = priority
    return merged


def contains(text: str, rules: Sequence[Rule]) -> bool:
    """Whether one of ``rules`` finds a secret in ``text``."""
    return bool(merge(candidates(text, rules)))
