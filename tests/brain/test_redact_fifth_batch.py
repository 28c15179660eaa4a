"""The fifth batch of credential kinds, written without reading the redactor's rules.

``tests/support/fifth_batch_secrets.py`` has no tune part: every kind is held out and looked at
once, after the redactor's next change. These tests check only the corpus's shape (enough kinds,
names unique and new, the same kinds for every seed, secrets drawn from the seed, every secret
long enough and inside its context); none of them runs ``redact``.
"""

from __future__ import annotations

import pytest

from tests.support.fifth_batch_secrets import NAMES, build_fifth_batch, older_names


def test_the_fifth_batch_has_120_kinds_or_more_all_held_out_none_named_before() -> None:
    names = [sample.name for sample in build_fifth_batch(0)]
    assert len(names) >= 120
    assert len(names) == len(set(names))
    assert set(names) == NAMES
    assert not NAMES & older_names()


def test_older_names_cover_the_fourth_batch() -> None:
    from tests.support.fourth_batch_secrets import build_fourth_batch

    assert {sample.name for sample in build_fourth_batch(0)} <= older_names()


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_sample_of_the_fifth_batch_builds_with_its_secret_in_its_context(seed: int) -> None:
    samples = build_fifth_batch(seed)
    assert [s.name for s in samples] == [s.name for s in build_fifth_batch(0)]
    for sample in samples:
        assert sample.secret in sample.context
        assert len(sample.secret) >= 8
        assert sample.shingles, f"{sample.name}: every piece of the secret is in its context"


def test_the_fifth_batch_draws_every_secret_from_its_seed() -> None:
    first = {s.name: s.secret for s in build_fifth_batch(0)}
    again = {s.name: s.secret for s in build_fifth_batch(0)}
    other = {s.name: s.secret for s in build_fifth_batch(1)}
    assert first == again
    assert not [name for name in first if first[name] == other[name]]
