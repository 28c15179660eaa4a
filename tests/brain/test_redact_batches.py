"""Every batch of credential kinds by a fresh author, fifth to tenth: its shape and its verdict.

Each batch was written by someone who never read the redactor's rules, then looked at once
(the eighth to tenth split first, a third held out); its module under ``tests/support/`` says
how it was written and what each look found. What holds for every batch alike is tested here
once: enough kinds, names unique and new (the batch before it among the older names), the
same kinds for every seed, secrets drawn from the seed, every secret long enough and inside
its context, the fixed split, and -- written after each look -- every kind redacted but those
its ``STILL_STORED`` lists (none, now). The tests of the families a batch's leaks led to live
beside those families' other tests. (The corpus modules' accounts of how they were written
name the per-batch test modules these tests were gathered from in stop 37.)
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import attrs
import pytest

from tests.support import (
    eighth_batch_secrets,
    fifth_batch_secrets,
    fourth_batch_secrets,
    ninth_batch_secrets,
    seventh_batch_secrets,
    sixth_batch_secrets,
    tenth_batch_secrets,
)
from tests.support.unlisted_secrets import (
    UnlistedSample,
    check_samples_well_formed,
    check_secrets_drawn_from_seed,
    split_a_third,
    stored_kinds,
)


@attrs.frozen
class Batch:
    name: str
    corpus: ModuleType
    build: Callable[[int], list[UnlistedSample]]
    least_kinds: int
    # The batch written just before this one, whose names this one's older names must hold.
    before: Callable[[int], list[UnlistedSample]]

    def __str__(self) -> str:
        return self.name


BATCHES = [
    Batch(
        "fifth",
        fifth_batch_secrets,
        fifth_batch_secrets.build_fifth_batch,
        120,
        fourth_batch_secrets.build_fourth_batch,
    ),
    Batch(
        "sixth",
        sixth_batch_secrets,
        sixth_batch_secrets.build_sixth_batch,
        150,
        fifth_batch_secrets.build_fifth_batch,
    ),
    Batch(
        "seventh",
        seventh_batch_secrets,
        seventh_batch_secrets.build_seventh_batch,
        150,
        sixth_batch_secrets.build_sixth_batch,
    ),
    Batch(
        "eighth",
        eighth_batch_secrets,
        eighth_batch_secrets.build_eighth_batch,
        200,
        seventh_batch_secrets.build_seventh_batch,
    ),
    Batch(
        "ninth",
        ninth_batch_secrets,
        ninth_batch_secrets.build_ninth_batch,
        200,
        eighth_batch_secrets.build_eighth_batch,
    ),
    Batch(
        "tenth",
        tenth_batch_secrets,
        tenth_batch_secrets.build_tenth_batch,
        200,
        ninth_batch_secrets.build_ninth_batch,
    ),
]
SPLIT = [batch for batch in BATCHES if hasattr(batch.corpus, "SPLIT_SEED")]


@pytest.mark.parametrize("batch", BATCHES, ids=str)
def test_a_batch_has_its_kinds_each_named_once_and_none_named_before(batch: Batch) -> None:
    names = [sample.name for sample in batch.build(0)]
    assert len(names) >= batch.least_kinds
    assert len(names) == len(set(names))
    assert set(names) == batch.corpus.NAMES
    assert not batch.corpus.NAMES & batch.corpus.older_names()
    assert {sample.name for sample in batch.before(0)} <= batch.corpus.older_names()


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 17])
@pytest.mark.parametrize("batch", BATCHES, ids=str)
def test_every_sample_of_a_batch_builds_with_its_secret_in_its_context(
    batch: Batch, seed: int
) -> None:
    check_samples_well_formed(batch.build, seed)


@pytest.mark.parametrize("batch", BATCHES, ids=str)
def test_a_batch_draws_every_secret_from_its_seed(batch: Batch) -> None:
    check_secrets_drawn_from_seed(batch.build)


@pytest.mark.parametrize("batch", SPLIT, ids=str)
def test_a_split_batch_holds_out_a_third_by_its_fixed_seed(batch: Batch) -> None:
    corpus = batch.corpus
    assert split_a_third(sorted(corpus.NAMES), corpus.SPLIT_SEED) == (
        set(corpus.TUNE),
        set(corpus.HELD_OUT),
    )
    assert not corpus.TUNE & corpus.HELD_OUT
    assert corpus.TUNE | corpus.HELD_OUT == corpus.NAMES
    assert len(corpus.HELD_OUT) == len(corpus.NAMES) // 3


# --- after each look: what the redactor does with the batch ---------------------------------------


@pytest.mark.parametrize("batch", BATCHES, ids=str)
def test_no_batch_lists_a_kind_it_still_stores(batch: Batch) -> None:
    assert batch.corpus.STILL_STORED <= batch.corpus.NAMES
    assert len(batch.corpus.STILL_STORED) <= 0


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("batch", BATCHES, ids=str)
def test_every_credential_of_a_batch_is_removed_before_a_correction_is_stored(
    batch: Batch, seed: int
) -> None:
    kinds = batch.corpus.NAMES - batch.corpus.STILL_STORED
    assert stored_kinds(batch.build(seed), kinds) == []
