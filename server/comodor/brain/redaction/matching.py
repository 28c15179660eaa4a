"""The engine that runs the catalogue's rules over a text and merges what they find.

Kept apart from :mod:`.redactor` (which writes the markers) so that a rule may ask for
a second opinion on text it decoded (:mod:`.entropy` re-checks what a base64 token
holds) without the catalogue importing the redactor that imports the catalogue.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Final

import attrs

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


def candidates(text: str, rules: Sequence[Rule]) -> list[_Candidate]:
    """Every span one of ``rules`` finds in ``text``, overlapping and unmerged.

    Rules run in order, so a later rule marked ``skip_covered`` sees what earlier ones found.
    """
    lowered = _lowercase(text)
    markers = [m.span() for m in MARKER_RE.finditer(text)]
    marker_starts = [start for start, _ in markers]
    found: list[_Candidate] = []
    covered: _Coverage | None = None
    for rule in rules:
        subject = lowered if rule.on_lowercase else text
        if rule.skip_covered and covered is None:
            covered = _Coverage(found)
        for m in rule.pattern.finditer(subject):
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
