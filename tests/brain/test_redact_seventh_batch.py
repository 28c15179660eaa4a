"""The seventh batch of credential kinds, written without reading the redactor's rules.

``tests/support/seventh_batch_secrets.py`` has no tune part: every kind is held out. These tests
check only the corpus's shape (enough kinds, names unique and new, the same kinds for every seed,
secrets drawn from the seed, every secret long enough and inside its context); none of them calls
the redactor.
"""

from __future__ import annotations

import pytest

from tests.support.seventh_batch_secrets import NAMES, build_seventh_batch, older_names
from tests.support.unlisted_secrets import check_samples_well_formed, check_secrets_drawn_from_seed


def test_the_seventh_batch_has_150_kinds_or_more_all_held_out_none_named_before() -> None:
    names = [sample.name for sample in build_seventh_batch(0)]
    assert len(names) >= 150
    assert len(names) == len(set(names))
    assert set(names) == NAMES
    assert not NAMES & older_names()


def test_older_names_cover_the_sixth_batch() -> None:
    from tests.support.sixth_batch_secrets import NAMES as SIXTH_NAMES
    from tests.support.sixth_batch_secrets import build_sixth_batch

    assert {sample.name for sample in build_sixth_batch(0)} <= older_names()
    assert older_names() >= SIXTH_NAMES


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 17])
def test_every_sample_of_the_seventh_batch_builds_with_its_secret_in_its_context(seed: int) -> None:
    check_samples_well_formed(build_seventh_batch, seed)


def test_the_seventh_batch_draws_every_secret_from_its_seed() -> None:
    check_secrets_drawn_from_seed(build_seventh_batch)
