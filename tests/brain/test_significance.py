"""The statistics behind progress claims give the textbook answers, ties and all."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

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


def _two_value_p(first: list[float], second: list[float]) -> float:
    """The exact two-sided rank-sum p-value when every value is 0 or 1: a hypergeometric sum."""
    total, size, ones = len(first) + len(second), len(second), round(sum(first) + sum(second))
    expected = size * ones / total
    observed = abs(sum(second) - expected)
    return sum(
        math.comb(ones, x) * math.comb(total - ones, size - x)
        for x in range(max(0, size - (total - ones)), min(ones, size) + 1)
        if abs(x - expected) >= observed - 1e-9
    ) / math.comb(total, size)


def test_a_rare_count_in_unbalanced_groups_gets_its_exact_p_value_not_the_normal_one() -> None:
    # The holdout's shape: 40 tasks without memory against 160 with it, undos rare.
    # The normal approximation said p = 0.0039 here, a claim even after Holm across
    # the eleven tests of such a result (0.05 / 11 = 0.0045); exactly it is 0.015.
    with_memory = [1.0] * 2 + [0.0] * 158
    without = [1.0] * 4 + [0.0] * 36
    assert len(with_memory) + len(without) > EXACT_LIMIT
    result = rank_test(with_memory, without)
    assert result.p_value == pytest.approx(_two_value_p(with_memory, without))
    assert result.p_value == pytest.approx(0.01543, rel=1e-3) and result.sign == 1


def test_a_rare_count_on_noise_is_significant_no_more_often_than_its_level() -> None:
    # With 0/1 values and the totals fixed, each arrangement's chance is hypergeometric, so the
    # chance the test rejects on noise can be summed exactly. At the level Holm uses for about
    # ten tests (0.005) the normal approximation rejected up to several times as often.
    level, size, total = 0.005, 40, 200
    for ones in range(1, 31):
        rejected = 0.0
        for x in range(0, min(ones, size) + 1):
            second = [1.0] * x + [0.0] * (size - x)
            first = [1.0] * (ones - x) + [0.0] * (total - size - ones + x)
            chance = math.comb(ones, x) * math.comb(total - ones, size - x) / math.comb(total, size)
            rejected += chance * (rank_test(first, second).p_value < level)
        assert rejected <= level, (ones, rejected)


def test_past_the_exact_limit_a_count_of_many_values_uses_the_normal_approximation() -> None:
    rng = random.Random(4)
    first = [float(rng.randint(0, 1000)) for _ in range(60)]
    second = [float(rng.randint(200, 1200)) for _ in range(60)]
    pooled = first + second
    ranks = midranks(pooled)
    doubled = {value: round(rank * 2) for value, rank in ranks.items()}
    deviation = abs(sum(doubled[v] for v in second) - 60 * 121)
    # Too many distinct values for the sparse exact count: it gives way.
    assert significance._sparse_rank_p(Counter(pooled), doubled, 60, deviation, 60 * 121) is None
    assert 0 < rank_test(first, second).p_value < 0.001


def test_the_sparse_exact_count_equals_listing_every_arrangement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Forced onto the path large sparse samples take, small samples can be checked by listing.
    monkeypatch.setattr(significance, "EXACT_LIMIT", 0)
    rng = random.Random(11)
    for _ in range(120):
        spread = rng.choice([1, 2, 3, 5])  # two to six distinct values
        first = [float(rng.randint(0, spread)) for _ in range(rng.randint(1, 7))]
        second = [float(rng.randint(0, spread)) for _ in range(rng.randint(1, 7))]
        assert rank_test(first, second).p_value == pytest.approx(_enumerated_p(first, second))
