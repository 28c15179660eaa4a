"""The eighth batch of credential kinds, written without reading the redactor's rules.

``tests/support/eighth_batch_secrets.py`` has no tune part: every kind is held out, and none has
been looked at yet. These tests check only the corpus's shape (enough kinds, names unique and
new, the same kinds for every seed, secrets drawn from the seed, every secret long enough and
inside its context); what the redactor does with the batch is for the lead's first look.
"""

from __future__ import annotations

import pytest

from tests.support.eighth_batch_secrets import NAMES, STILL_STORED, build_eighth_batch, older_names
from tests.support.unlisted_secrets import (
    check_samples_well_formed,
    check_secrets_drawn_from_seed,
    stored_kinds,
)


def test_the_eighth_batch_has_200_kinds_or_more_all_held_out_none_named_before() -> None:
    names = [sample.name for sample in build_eighth_batch(0)]
    assert len(names) >= 200
    assert len(names) == len(set(names))
    assert set(names) == NAMES
    assert not NAMES & older_names()


def test_older_names_cover_the_seventh_batch() -> None:
    from tests.support.seventh_batch_secrets import NAMES as SEVENTH_NAMES
    from tests.support.seventh_batch_secrets import build_seventh_batch
    from tests.support.seventh_batch_secrets import older_names as names_before_seventh

    assert {sample.name for sample in build_seventh_batch(0)} <= older_names()
    assert older_names() >= SEVENTH_NAMES
    assert older_names() >= names_before_seventh()


def test_still_stored_names_only_kinds_of_this_batch() -> None:
    assert STILL_STORED <= NAMES


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_sample_of_the_eighth_batch_builds_with_its_secret_in_its_context(seed: int) -> None:
    check_samples_well_formed(build_eighth_batch, seed)


def test_the_eighth_batch_draws_every_secret_from_its_seed() -> None:
    check_secrets_drawn_from_seed(build_eighth_batch)


def test_the_eighth_batch_is_split_by_its_fixed_seed_into_a_third_held_out() -> None:
    from tests.support.eighth_batch_secrets import HELD_OUT, SPLIT_SEED, TUNE
    from tests.support.unlisted_secrets import split_a_third

    assert split_a_third(sorted(NAMES), SPLIT_SEED) == (set(TUNE), set(HELD_OUT))
    assert not TUNE & HELD_OUT
    assert TUNE | HELD_OUT == NAMES
    assert len(HELD_OUT) == len(NAMES) // 3


# --- after the held-out look: what the redactor does with the batch -------------------------------


def test_what_the_eighth_batch_still_stores_is_a_few_of_its_own_kinds() -> None:
    assert STILL_STORED <= NAMES
    assert len(STILL_STORED) <= 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_eighth_batch_credential_is_removed_before_a_correction_is_stored(seed: int) -> None:
    assert stored_kinds(build_eighth_batch(seed), NAMES - STILL_STORED) == []
