"""The third batch of credential kinds, written without reading the redactor's rules.

``tests/support/unseen_secrets.py`` is split once, before any run, into a tune part and a
held-out part; these tests keep that split honest (fixed, disjoint, no kind repeated from the
earlier corpora).
"""

from __future__ import annotations

from tests.support.unseen_secrets import HELD_OUT, TUNE, _split, build_unseen, older_names


def test_the_unseen_batch_has_sixty_kinds_or_more_none_of_them_named_before() -> None:
    names = {sample.name for sample in build_unseen(0)}
    assert len(names) >= 60
    assert not names & older_names()


def test_the_unseen_batch_is_split_by_its_fixed_seed_into_a_third_held_out() -> None:
    names = [sample.name for sample in build_unseen(3)]
    assert _split(names) == (set(TUNE), set(HELD_OUT))
    assert not TUNE & HELD_OUT
    assert len(HELD_OUT) == len(names) // 3
