"""The statistics behind progress claims: exact tests, and a correction for testing many at once.

A dashboard that compares a handful of numbers between the first tasks and the
latest ones will "find" a change in one of them most of the time, from noise
alone. Three tools keep its claims honest:

* :func:`rank_test` — the two-sided Mann–Whitney U (Wilcoxon rank-sum) test for
  counts (steps, corrections, tokens…). It asks whether one group tends to be
  larger than the other, with no assumption about the distribution, which
  matters for skewed counts with many ties (most tasks have 0 corrections).
  Small samples get the *exact* permutation distribution, ties included
  (midranks), so the p-value is right even for 6 tasks against 6. So do large
  samples of a sparse count (corrections, undos, approvals: a handful of
  distinct values, most tasks 0), where the normal approximation is *not*
  accurate: with two distinct values the rank sum moves in steps of half the
  sample, the usual continuity correction of one half is far too small, and in
  unbalanced groups (the holdout's 40 tasks against 160) the approximation gave
  p = 0.0039 where the exact answer is 0.015 — the one place a test of this
  module claimed more than its level (``bench/progress_honesty.py``). Only
  large samples with many distinct values use the normal approximation, with
  tie correction and a continuity correction of half the statistic's step.
* :func:`fisher_exact` — the two-sided Fisher's exact test for rates (success
  or not): exact at any sample size, where the two-proportion z-test is not
  trustworthy below a few dozen tasks.
* :func:`holm` — Holm's step-down correction. It keeps the chance that *any*
  claim in the whole result comes from noise at or below α, under any
  dependence between the measures (steps and tokens move together).

Pure Python, no numpy or scipy: the sizes involved (tens to hundreds of tasks)
are small, and the language server should not carry a numerical stack for them.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence

import attrs

EXACT_LIMIT = 40
"""Above this many values in total the rank test uses the normal approximation.

The exact distribution is built as a polynomial whose coefficients count
arrangements; its cost grows with the number of values times the group size.
At 40 values (20 against 20) it takes about 3 ms, and the normal approximation
is already good there (``bench/progress_honesty.py`` measures both regimes).
"""
SPARSE_VALUES = 6
"""Distinct values up to which a large sample's rank test is tried exactly (within the budget)."""
SPARSE_BUDGET = 8_000
"""Partial sums the sparse exact test may visit before it gives way to the normal approximation.

Two to four distinct values (most tasks 0 or 1 corrections) stay well under it
at 200 tasks (about 2,000 partial sums for four values, under a millisecond);
more values reach it within 2 ms, and are the case the normal approximation
handles well.
"""
_RELATIVE_TOLERANCE = 1e-9


@attrs.frozen
class TestResult:
    """A two-sided p-value, and which group the data lean towards."""

    p_value: float
    sign: int
    """+1 when the second group tends to be larger, -1 when smaller, 0 when neither."""


def midranks(values: Sequence[float]) -> dict[float, float]:
    """Rank of each distinct value in ``values`` (1-based; tied values share their mean rank)."""
    ranks: dict[float, float] = {}
    position = 0
    for value, count in sorted(Counter(values).items()):
        ranks[value] = position + (count + 1) / 2
        position += count
    return ranks


def rank_test(first: Sequence[float], second: Sequence[float]) -> TestResult:
    """Two-sided Mann–Whitney U test: whether ``second`` tends to differ from ``first``.

    Exact (the permutation distribution of the rank sum, with ties) up to
    :data:`EXACT_LIMIT` values in total; the normal approximation above.
    """
    n1, n2 = len(first), len(second)
    if n1 == 0 or n2 == 0:
        return TestResult(1.0, 0)
    pooled = [*first, *second]
    ranks = midranks(pooled)
    if len(ranks) == 1:
        return TestResult(1.0, 0)
    # Doubled ranks are integers (midranks are multiples of one half).
    doubled = {value: round(rank * 2) for value, rank in ranks.items()}
    observed = sum(doubled[value] for value in second)
    expected = n2 * (n1 + n2 + 1)  # the mean of the doubled rank sum of `second`
    sign = (observed > expected) - (observed < expected)
    if n1 + n2 <= EXACT_LIMIT:
        # The smaller group's rank sum deviates from its mean exactly as much as the
        # other's does, and its polynomial has fewer terms.
        small = second if n2 <= n1 else first
        small_sum = sum(doubled[value] for value in small)
        small_mean = len(small) * (n1 + n2 + 1)
        p_value = _exact_rank_p(
            Counter(pooled), doubled, len(small), abs(small_sum - small_mean), small_mean
        )
    else:
        small = second if n2 <= n1 else first
        small_sum = sum(doubled[value] for value in small)
        small_mean = len(small) * (n1 + n2 + 1)
        exact = _sparse_rank_p(
            Counter(pooled), doubled, len(small), abs(small_sum - small_mean), small_mean
        )
        p_value = exact if exact is not None else _normal_rank_p(pooled, doubled, n1, n2, observed)
    return TestResult(min(1.0, p_value), sign)


def _sparse_rank_p(
    counts: Counter[float], doubled: dict[float, int], size: int, deviation: int, expected: int
) -> float | None:
    """The exact P(|S − E| ≥ deviation) for few distinct values; None past :data:`SPARSE_BUDGET`.

    The same distribution as :func:`_exact_rank_p`, counted over the reachable
    (values chosen, doubled rank sum) pairs only: with k distinct values there are
    at most C(size + k − 1, k − 1) of them, whatever the sample size, so a sparse
    count of 200 tasks is as cheap as 12 tasks of distinct values.
    """
    if len(counts) > SPARSE_VALUES:
        return None
    total = sum(counts.values())
    remaining = total
    states: dict[int, dict[int, int]] = {0: {0: 1}}
    work = 0
    for value, multiplicity in sorted(counts.items()):
        rank = doubled[value]
        remaining -= multiplicity
        updated: dict[int, dict[int, int]] = {}
        for chosen, sums in states.items():
            # Keep only choices that can still fill `size` from the values left.
            fewest = max(0, size - chosen - remaining)
            for extra in range(fewest, min(multiplicity, size - chosen) + 1):
                work += len(sums)
                if work > SPARSE_BUDGET:
                    return None
                ways, shift = math.comb(multiplicity, extra), extra * rank
                target = updated.setdefault(chosen + extra, {})
                for rank_sum, count in sums.items():
                    target[rank_sum + shift] = target.get(rank_sum + shift, 0) + count * ways
        states = updated
    final = states.get(size, {})
    extreme = sum(ways for rank_sum, ways in final.items() if abs(rank_sum - expected) >= deviation)
    return extreme / math.comb(total, size)


def _exact_rank_p(
    counts: Counter[float], doubled: dict[float, int], size: int, deviation: int, expected: int
) -> float:
    """P(|S − E| ≥ deviation) for S, the doubled rank sum of ``size`` values drawn at random.

    The generating function ``∏ over distinct values of Σ_j C(m, j) · y^(j·rank) · z^j``
    is kept as one big integer per power of ``z`` (the number of values chosen so
    far), each coefficient of ``y`` in its own fixed-width slot of bits. A shift
    and an add then update every sum at once, which makes the exact test cheap
    in pure Python.
    """
    total = sum(counts.values())
    slot = (total + 8) // 8 * 8  # bits per coefficient: C(total, size) < 2**total
    polynomials = [0] * (size + 1)
    polynomials[0] = 1
    for value, multiplicity in counts.items():
        rank = doubled[value]
        updated = [0] * (size + 1)
        for chosen, polynomial in enumerate(polynomials):
            if not polynomial:
                continue
            for extra in range(min(multiplicity, size - chosen) + 1):
                ways = math.comb(multiplicity, extra)
                updated[chosen + extra] += (polynomial << (extra * rank * slot)) * ways
        polynomials = updated
    coefficients = polynomials[size]
    width = slot // 8
    raw = coefficients.to_bytes((coefficients.bit_length() + 7) // 8 or 1, "little")
    extreme = 0
    for start in range(0, len(raw), width):
        ways = int.from_bytes(raw[start : start + width], "little")
        if ways and abs(start // width - expected) >= deviation:
            extreme += ways
    return extreme / math.comb(total, size)


def _normal_rank_p(
    pooled: Sequence[float], doubled: dict[float, int], n1: int, n2: int, doubled_sum: int
) -> float:
    """The normal approximation, with tie correction and a continuity correction of half a step.

    The rank sum can only move by multiples of the greatest common divisor of the
    gaps between (doubled) midranks: 1 without ties, much more when ties are
    large. Half that step is the continuity correction; the textbook 0.5 is the
    untied case.
    """
    total = n1 + n2
    ties = sum(count**3 - count for count in Counter(pooled).values())
    variance = n1 * n2 / 12 * ((total + 1) - ties / (total * (total - 1)))
    if variance <= 0:
        return 1.0
    values = sorted(set(doubled.values()))
    step = 0
    for low, high in itertools.pairwise(values):
        step = math.gcd(step, high - low)
    u_statistic = doubled_sum / 2 - n2 * (n2 + 1) / 2
    distance = max(0.0, abs(u_statistic - n1 * n2 / 2) - max(step, 1) / 4)
    return math.erfc(distance / math.sqrt(variance) / math.sqrt(2))


def fisher_exact(
    first_hits: int, first_total: int, second_hits: int, second_total: int
) -> TestResult:
    """Two-sided Fisher's exact test of two rates (hits out of totals).

    The p-value sums the probabilities of every table with the same margins that
    is no more likely than the observed one (the usual two-sided definition).
    """
    if first_total == 0 or second_total == 0:
        return TestResult(1.0, 0)
    hits = first_hits + second_hits
    total = first_total + second_total
    if hits in (0, total):
        return TestResult(1.0, 0)
    denominator = math.comb(total, second_total)

    def weight(x: int) -> int:
        return math.comb(hits, x) * math.comb(total - hits, second_total - x)

    observed = weight(second_hits)
    low, high = max(0, second_total - (total - hits)), min(hits, second_total)
    limit = observed * (1 + _RELATIVE_TOLERANCE)
    extreme = sum(w for w in (weight(x) for x in range(low, high + 1)) if w <= limit)
    difference = second_hits * first_total - first_hits * second_total
    sign = (difference > 0) - (difference < 0)
    return TestResult(min(1.0, extreme / denominator), sign)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the order given: reject where the adjusted value is < α.

    Step-down: the smallest p-value is multiplied by the number of tests, the
    next by one fewer, and so on, each never below the one before it. This
    controls the family-wise error rate (the chance of even one false claim) at
    α whatever the dependence between the tests.
    """
    count = len(p_values)
    order = sorted(range(count), key=lambda index: p_values[index])
    adjusted = [1.0] * count
    running = 0.0
    for step, index in enumerate(order):
        running = max(running, min(1.0, (count - step) * p_values[index]))
        adjusted[index] = running
    return adjusted
