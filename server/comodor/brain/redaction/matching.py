"""The engine that runs the catalogue's rules over a text and merges what they find.

Kept apart from :mod:`.redactor` (which writes the markers) so that a rule may ask for
a second opinion on text it decoded (:mod:`.entropy` re-checks what a base64 token
holds) without the catalogue importing the redactor that imports the catalogue.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Final

import attrs

from .base import MARKER_RE, Rule, blocked, indexable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


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
    only where one occurs, and a rule with ``run_chars`` only inside long enough runs of
    those characters. Where the prefixes occur is found for all rules at once (see
    :class:`_Prefixes`) in a long text, with ``str.find`` in a short one.
    """

    def __init__(self, text: str, lowered: str, rules: Sequence[Rule]) -> None:
        self._text = text
        self._lowered = lowered
        self._rules = rules
        self._anchors: dict[tuple[str, bool], list[int] | None] = {}
        self._runs: dict[tuple[str, int], list[tuple[int, int]]] = {}
        self._bytes: bytes | None = None
        self._marked: dict[str, bytes] = {}
        self._indexed = len(text) >= _INDEX_FROM
        self._found: dict[str, list[int]] = {}
        self._skipped: set[int] = set()
        if self._indexed:
            self._found, self._skipped = _prefix_table(rules).find(lowered)

    def matches(self, rule: Rule, subject: str) -> Iterator[re.Match[str]]:
        if rule.run_chars:
            yield from self._in_runs(rule, subject)
            return
        if not rule.needles or rule.scan_whole:
            yield from rule.pattern.finditer(subject)
            return
        # Most rules' prefixes are nowhere in the text: say so with one set operation.
        if (
            rule.index_keys
            and self._indexed
            and not self._skipped
            and self._found.keys().isdisjoint(rule.index_keys)
        ):
            return
        positions: list[int] = []
        for needle in rule.needles:
            found = self._positions(needle, rule.on_lowercase)
            if found is None:
                yield from rule.pattern.finditer(subject)
                return
            positions += found
        if not positions:
            return
        if len(rule.needles) > 1:
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
        positions: list[int] | None
        if self._indexed and indexable(needle) and min(len(needle), 4) not in self._skipped:
            known = self._found.get(needle.lower(), [])
            positions = known if lowercase else [p for p in known if subject.startswith(needle, p)]
            if len(positions) > _MOST_ANCHORS:
                positions = None
        else:
            positions = []
            start = subject.find(needle)
            while start >= 0 and len(positions) <= _MOST_ANCHORS:
                positions.append(start)
                start = subject.find(needle, start + 1)
            if start >= 0:
                positions = None
        self._anchors[key] = positions
        return positions

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
        marked = self._marked.get(chars)
        if marked is None:
            if self._bytes is None:
                # One byte per character (non-ASCII ones become "?"), so positions carry over.
                self._bytes = self._text.encode("ascii", "replace")
            # Translated once per character set: rules sharing one share the pass.
            marked = self._marked[chars] = self._bytes.translate(_run_table(chars))
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


# Below this length every rule simply scans the text (faster than preparing any shortcut);
# from it on, prefixes are found for all rules in one vectorised pass.
SHORTCUTS_FROM: Final = 2048
_INDEX_FROM: Final = SHORTCUTS_FROM
_MASK: Final = (1 << 16) - 1
# Multipliers of the 16-bit hashes of 3 and 4 characters: every character moves all bits,
# so a position's hash rarely equals a prefix's by chance (shifts and xors kept only one bit
# of a 4-character piece's first character: 2,900 false hits in a 5,000-line correction,
# 1,100 with these).
_M3: Final = (0x0C85, 0x0095)
_M4: Final = (0x2F1B, 0x0C85, 0x0095)
# Above this many candidate places (or one in 16 characters), a piece length is searched
# for the old way.
_MOST_HITS: Final = 20_000


class _Prefixes:
    """Every rule's literal prefixes, found in a text in one vectorised pass.

    A text of 5,000 lines would otherwise be scanned once per prefix (~200 of them, ~0.1 ms
    each). Instead each position's first 3 and 4 lower-cased characters are hashed to 16 bits
    with numpy (multiply and add, wrapping), a table says which hashes begin some prefix
    (looked up with ``np.take``, several times faster than indexing), and only those positions are
    checked with ``str.startswith``. Found on the lower-cased text, so a case-sensitive
    prefix's positions are a superset that :class:`_Finder` narrows down.
    """

    def __init__(self, needles: set[str]) -> None:
        self._by_quad: dict[int, list[str]] = {}
        self._by_triple: dict[int, list[str]] = {}
        self._by_pair: dict[int, list[str]] = {}
        for needle in sorted(needles):
            codes = [ord(c) for c in needle]
            if len(needle) == 2:
                self._by_pair.setdefault(((codes[0] & 127) << 7) | (codes[1] & 127), []).append(
                    needle
                )
                continue
            if len(needle) == 3:
                triple = (codes[0] * _M3[0] + codes[1] * _M3[1] + codes[2]) & _MASK
                self._by_triple.setdefault(triple, []).append(needle)
            else:
                quad = (
                    codes[0] * _M4[0] + codes[1] * _M4[1] + codes[2] * _M4[2] + codes[3]
                ) & _MASK
                self._by_quad.setdefault(quad, []).append(needle)
        self._quad_table = _table(self._by_quad)
        self._triple_table = _table(self._by_triple)
        self._pair_table = _table(self._by_pair)

    def find(self, lowered: str) -> tuple[dict[str, list[int]], set[int]]:
        """Where each prefix occurs in *lowered* (already lower-cased), and lengths left out.

        A prefix length is left out (searched for the old way) when its pieces occur so often
        (``ghp_ghp_ghp_...``) that checking each place would cost more than scanning.
        """
        import numpy as np  # only long texts come here: a server starts without numpy

        # One byte per character (non-ASCII ones become "?"), so positions carry over;
        # 16-bit arithmetic wraps exactly like masking to 16 bits.
        raw = np.frombuffer(lowered.encode("ascii", "replace"), dtype=np.uint8).astype(np.uint16)
        found: dict[str, list[int]] = {}
        skipped: set[int] = set()
        if len(raw) < 4:
            return found, {2, 3, 4}
        triples = raw[:-2] * np.uint16(_M3[0])
        triples += raw[1:-1] * np.uint16(_M3[1])
        triples += raw[2:]
        quads = raw[:-3] * np.uint16(_M4[0])
        quads += raw[1:-2] * np.uint16(_M4[1])
        quads += raw[2:-1] * np.uint16(_M4[2])
        quads += raw[3:]
        seven = np.uint16(127)
        pairs = raw[:-1] & seven
        pairs <<= np.uint16(7)
        pairs |= raw[1:] & seven
        most = max(_MOST_HITS, len(raw) // 16)
        for length, codes, table, by_code in (
            (4, quads, self._quad_table, self._by_quad),
            (3, triples, self._triple_table, self._by_triple),
            (2, pairs, self._pair_table, self._by_pair),
        ):
            # np.take, not table[codes]: the same lookup, about five times faster.
            hits = np.flatnonzero(np.take(table, codes))
            if len(hits) > most:
                skipped.add(length)
                continue
            for position, code in zip(hits.tolist(), codes[hits].tolist(), strict=True):
                for needle in by_code[code]:
                    if lowered.startswith(needle, position):
                        found.setdefault(needle, []).append(position)
        return found, skipped


def _table(by_code: dict[int, list[str]]) -> npt.NDArray[np.bool_]:
    import numpy as np

    table = np.zeros(1 << 16, dtype=np.bool_)
    table[list(by_code)] = True
    return table


_TABLES: dict[int, tuple[Sequence[Rule], _Prefixes]] = {}


def _prefix_table(rules: Sequence[Rule]) -> _Prefixes:
    """The prefix table of *rules*, built once per rule set (the catalogue, its re-check)."""
    cached = _TABLES.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    table = _Prefixes(
        {n.lower() for rule in rules if not rule.scan_whole for n in rule.needles if indexable(n)}
    )
    if len(_TABLES) > 16:
        _TABLES.clear()
    _TABLES[id(rules)] = (rules, table)
    return table


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
    finder = _Finder(text, lowered, rules) if len(text) >= SHORTCUTS_FROM else None
    for rule in rules:
        subject = lowered if rule.on_lowercase else text
        if rule.skip_covered and covered is None:
            covered = _Coverage(found)
        found_by_rule = (
            rule.pattern.finditer(subject) if finder is None else finder.matches(rule, subject)
        )
        for m in found_by_rule:
            if rule.not_after and blocked(subject, m.start(), rule.not_after):
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
