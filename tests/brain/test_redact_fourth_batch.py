"""The fourth batch of credential kinds, written without reading the redactor's rules.

``tests/support/fourth_batch_secrets.py`` is split once, before any run, into a tune part and a
held-out part; these tests keep that split honest (fixed, disjoint, a third held out, no kind
repeated from the earlier corpora) and keep every sample well formed. They are structural
only: nothing here runs the redactor, so the first look at the held-out part is still to come.
"""

from __future__ import annotations

import pytest

from tests.support.fourth_batch_secrets import (
    HELD_OUT,
    TUNE,
    _split,
    build_fourth_batch,
    older_names,
)


def test_the_fourth_batch_has_120_kinds_or_more_none_of_them_named_before() -> None:
    names = {sample.name for sample in build_fourth_batch(0)}
    assert len(names) >= 120
    assert not names & older_names()


def test_the_fourth_batch_is_split_by_its_fixed_seed_into_a_third_held_out() -> None:
    names = [sample.name for sample in build_fourth_batch(3)]
    assert _split(names) == (set(TUNE), set(HELD_OUT))
    assert not TUNE & HELD_OUT
    assert set(names) == TUNE | HELD_OUT
    assert len(HELD_OUT) == len(names) // 3


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_sample_of_the_fourth_batch_builds_with_its_secret_in_its_context(
    seed: int,
) -> None:
    samples = build_fourth_batch(seed)
    assert [s.name for s in samples] == [s.name for s in build_fourth_batch(0)]
    for sample in samples:
        assert sample.secret in sample.context
        assert len(sample.secret) >= 8
        assert sample.shingles, f"{sample.name}: every piece of the secret is in its context"


def test_the_fourth_batch_draws_every_secret_from_its_seed() -> None:
    first = {s.name: s.secret for s in build_fourth_batch(0)}
    again = {s.name: s.secret for s in build_fourth_batch(0)}
    other = {s.name: s.secret for s in build_fourth_batch(1)}
    assert first == again
    assert not [name for name in first if first[name] == other[name]]
