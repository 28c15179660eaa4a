"""The statistics behind progress claims give the textbook answers, ties and all."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from comodor_lsp.brain.progress import significance
from comodor_lsp.brain.progress.significance import (
    EXACT_LIMIT,
    fisher_exact,
    holm,
    midranks,
    rank_test,
)


def _enumerated_p(first: list[float], second: list[float]) -> float:
    """The permutation p-value of the rank sum, by listing every arrangement."""
    pooled = first + second
    ranks = midranks(pooled)
    expected = len(second) * (len(pooled) + 1) / 2
    observed = abs(sum(ranks[value] for value in second) - expected)
    arrangements = list(itertools.combinations(range(len(pooled)), len(second)))
    extreme = sum(
        1
        for chosen in arrangements
        if abs(sum(ranks[pooled[i]] for i in chosen) - expected) >= observed - 1e-9
    )
    return extreme / len(arrangements)


def test_the_exact_rank_test_equals_listing_every_arrangement_with_ties() -> None:
    rng = random.Random(5)
    for _ in range(150):
        spread = rng.choice([1, 2, 4, 1000])  # from all-ties to no ties
        first = [float(rng.randint(0, spread)) for _ in range(rng.randint(1, 7))]
        second = [float(rng.randint(0, spread)) for _ in range(rng.randint(1, 7))]
        assert rank_test(first, second).p_value == pytest.approx(_enumerated_p(first, second))


def test_the_rank_test_says_which_way_the_second_group_leans() -> None:
    assert rank_test([1.0] * 6, [2.0] * 6).sign == 1
    assert rank_test([5.0, 6, 7, 8, 9, 10], [1.0, 2, 3, 4, 5, 6]).sign == -1
    # Six against six, perfectly separated: 2 of the C(12, 6) = 924 arrangements.
    assert rank_test([1.0] * 6, [2.0] * 6).p_value == pytest.approx(2 / 924)


def test_identical_values_or_an_empty_group_show_nothing() -> None:
    assert rank_test([3.0] * 8, [3.0] * 8).p_value == 1.0
    assert rank_test([], [1.0, 2.0]).p_value == 1.0


def test_past_the_exact_limit_the_normal_approximation_agrees_with_the_exact_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(9)
    half = EXACT_LIMIT // 2
    first = [float(rng.randint(0, 30)) for _ in range(half)]
    second = [float(rng.randint(10, 40)) for _ in range(half)]
    exact = rank_test(first, second)
    monkeypatch.setattr(significance, "EXACT_LIMIT", 0)
    approximate = rank_test(first, second)
    assert 0.0001 < exact.p_value < 0.05 and exact.sign == approximate.sign == 1
    assert approximate.p_value == pytest.approx(exact.p_value, rel=0.25)


def test_fisher_exact_gives_the_tea_tasting_answer() -> None:
    # Fisher's lady tasting tea: 3 of 4 right against 1 of 4, two-sided p = 34/70.
    result = fisher_exact(3, 4, 1, 4)
    assert result.p_value == pytest.approx(34 / 70) and result.sign == -1
    assert fisher_exact(0, 6, 6, 6).p_value == pytest.approx(2 / math.comb(12, 6))
    assert fisher_exact(5, 5, 5, 5).p_value == 1.0  # every task succeeded: no contrast


def test_holm_steps_down_and_never_reorders() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([0.3, 0.9]) == pytest.approx([0.6, 0.9])
    assert holm([]) == []
