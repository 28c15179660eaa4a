"""The text history keeps what each change replaced, and gives back the very texts.

It no longer holds a copy of the document per change (a keystroke in a 5,000-line file
kept 190 kB), so what it rebuilds must be exactly what a copy would have held.
"""

from __future__ import annotations

import itertools
import random

from comodor_lsp.lsp.text_history import KEEP_CHANGES, Change, TextHistory

URI = "file:///ws/app.py"


def _edited(rng: random.Random, text: str) -> str:
    """``text`` with one random insertion, deletion or replacement (repeats included)."""
    start = rng.randrange(len(text) + 1)
    end = min(len(text), start + rng.choice((0, 0, 1, 2, 40)))
    inserted = rng.choice(("", "x", "ab", "\n", "é€𝄞", text[start:end] * 2, "value = 1\n" * 30))
    return text[:start] + inserted + text[end:]


def test_random_edits_are_given_back_exactly() -> None:
    rng = random.Random(3)
    for _ in range(40):
        text = "".join(
            f"value_{n} = compute({n})  # line {n}\n" for n in range(rng.choice((0, 3, 300)))
        )
        history = TextHistory()
        history.opened(URI, text)
        made: list[Change] = []
        for version in range(2, 2 + rng.randrange(1, KEEP_CHANGES + 10)):
            after = _edited(rng, text)
            changes = None if rng.random() < 0.2 else [(0, 0, 0, 0, "x")]
            assert history.changed(URI, version, after, changes) == text
            made.append(Change(version, text, after, None if changes is None else tuple(changes)))
            text = after
        kept = made[-KEEP_CHANGES:]
        for index, change in enumerate(kept):
            assert history.since(URI, change.version) == kept[index:]
            assert history.before(URI, change.version) == change.before
        for change in made[:-KEEP_CHANGES]:  # forgotten: older than the last 32
            assert history.since(URI, change.version) is None


def test_a_long_document_keeps_every_change_of_a_burst() -> None:
    """190 kB of text and 32 keystrokes: all remembered (copies were capped at ~4 M chars)."""
    text = "".join(f"value_{n} = compute({n})  # line {n}\n" for n in range(5_000))
    history = TextHistory()
    history.opened(URI, text)
    for version in range(2, 2 + KEEP_CHANGES):
        middle = len(text) // 2
        history.changed(
            URI, version, text[:middle] + "x" + text[middle:], [(2500, 0, 2500, 0, "x")]
        )
        text = text[:middle] + "x" + text[middle:]
    changes = history.since(URI, 2)
    assert changes is not None and len(changes) == KEEP_CHANGES
    assert changes[-1].after == text
    assert all(a.after == b.before for a, b in itertools.pairwise(changes))


def test_an_unknown_or_reopened_version_has_no_history() -> None:
    history = TextHistory()
    history.opened(URI, "a\n")
    assert history.changed(URI, 2, "ab\n") == "a\n"
    assert history.since(URI, 1) is None
    history.opened(URI, "c\n")
    assert history.since(URI, 2) is None
    history.closed(URI)
    assert history.before(URI, 2) is None
    assert history.changed(URI, 3, "d\n") is None
