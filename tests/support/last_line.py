"""Leave-family-out: what the rules that need no format catch alone, corpus by corpus.

Every later batch of kinds leaked at first look because the named families know only formats
someone had seen. The last line (:data:`comodor.brain.redaction.LAST_LINE`: the
secret-shaped-value net and the random-token net) needs no format, so how many kinds of each
earlier corpus it catches with every named rule switched off is the nearest thing to a fresh
batch that needs no fresh author. ``bench/redaction.py --arm last-line`` prints it;
``tests/brain/test_redact_net.py`` keeps it from falling.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from comodor_lsp.brain.redaction import Rule

from tests.support import (
    eighth_batch_secrets,
    fifth_batch_secrets,
    fourth_batch_secrets,
    ninth_batch_secrets,
    seventh_batch_secrets,
    sixth_batch_secrets,
    tenth_batch_secrets,
    unlisted_secrets,
    unseen_secrets,
)
from tests.support.secrets import build_corpus


class Sample(Protocol):
    """A credential in its context: both corpora's samples are read through this."""

    @property
    def name(self) -> str: ...

    @property
    def context(self) -> str: ...

    @property
    def shingles(self) -> set[str]: ...


def corpus_parts(seed: int) -> Iterator[tuple[str, Sequence[Sample]]]:
    """Every earlier corpus drawn from *seed*, split into the parts its file fixed."""
    yield "named kinds", build_corpus(seed)
    unlisted = unlisted_secrets.build_unlisted(seed)
    for part, names in (
        ("unlisted tune", unlisted_secrets.TUNE),
        ("unlisted held-out", unlisted_secrets.HELD_OUT),
        ("unlisted fresh", unlisted_secrets.FRESH),
    ):
        yield part, [s for s in unlisted if s.name in names]
    for title, samples, tune, held_out in (
        ("unseen", unseen_secrets.build_unseen(seed), unseen_secrets.TUNE, unseen_secrets.HELD_OUT),
        (
            "fourth",
            fourth_batch_secrets.build_fourth_batch(seed),
            fourth_batch_secrets.TUNE,
            fourth_batch_secrets.HELD_OUT,
        ),
    ):
        yield f"{title} tune", [s for s in samples if s.name in tune]
        yield f"{title} held-out", [s for s in samples if s.name in held_out]
    # The fifth batch has no tune part: every kind was held out until its first look.
    yield "fifth held-out", fifth_batch_secrets.build_fifth_batch(seed)
    # So has the sixth, by a third fresh author.
    yield "sixth held-out", sixth_batch_secrets.build_sixth_batch(seed)
    # And the seventh, by a fourth, writing as an outside reviewer would.
    yield "seventh held-out", seventh_batch_secrets.build_seventh_batch(seed)
    # The eighth, by a fifth, split again: a third held out by a fixed seed.
    eighth = eighth_batch_secrets.build_eighth_batch(seed)
    yield "eighth tune", [s for s in eighth if s.name in eighth_batch_secrets.TUNE]
    yield "eighth held-out", [s for s in eighth if s.name in eighth_batch_secrets.HELD_OUT]
    # The ninth, by a sixth, writing as an outside reviewer would, split the same way.
    ninth = ninth_batch_secrets.build_ninth_batch(seed)
    yield "ninth tune", [s for s in ninth if s.name in ninth_batch_secrets.TUNE]
    yield "ninth held-out", [s for s in ninth if s.name in ninth_batch_secrets.HELD_OUT]
    # The tenth, by a seventh: solo, maintainer, data, mobile and home-lab workspaces.
    tenth = tenth_batch_secrets.build_tenth_batch(seed)
    yield "tenth tune", [s for s in tenth if s.name in tenth_batch_secrets.TUNE]
    yield "tenth held-out", [s for s in tenth if s.name in tenth_batch_secrets.HELD_OUT]


def caught_alone(rules: Sequence[Rule], seeds: Sequence[int]) -> dict[str, tuple[int, int]]:
    """For each part: (kinds, kinds no piece of whose secret survives *rules* in any seed)."""
    from comodor_lsp.brain.redaction.redactor import redact

    kinds: dict[str, set[str]] = {}
    stored: dict[str, set[str]] = {}
    for seed in seeds:
        for part, samples in corpus_parts(seed):
            for sample in samples:
                kinds.setdefault(part, set()).add(sample.name)
                redacted = redact(sample.context, rules=rules)
                if any(piece in redacted for piece in sample.shingles):
                    stored.setdefault(part, set()).add(sample.name)
    return {
        part: (len(names), len(names - stored.get(part, set()))) for part, names in kinds.items()
    }
