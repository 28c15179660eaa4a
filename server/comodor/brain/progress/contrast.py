"""One measure compared between two groups of tasks, and what may honestly be said about it.

The progress dashboard makes two kinds of comparison: the first tasks of a
project against the latest ones (is the assistant getting better?) and tasks
without memory against tasks with it (does the memory help?). Both are a
:class:`Contrast`: a ``before`` and an ``after`` group of one measure, a
statistical test between them, and the words for the result. Keeping the rules
in one place means the trend and the holdout can never be judged differently.

A contrast is *significant* only when all of these hold:

* the test's p-value, after the correction for every other test of the same
  result (:func:`comodor.brain.progress.significance.holm`, applied by the caller), is
  below :data:`ALPHA`;
* the change is outside the flat band (±5% for counts, ±5 points for rates, and
  for counts at least one event in twenty tasks): a real but negligible change is
  not news;
* the means move the same way as the ranks (a single outlier cannot turn a
  mostly-lower group into a "higher" headline).

Counts whose smaller group averages below :data:`MEANINGFUL_BASE` are never
stated as a percentage: "tool errors down 100%" from 0.4 a task to 0 sounds
bigger than it is, so such changes are said in absolute terms ("0.4 → 0").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

from .significance import TestResult, fisher_exact, rank_test

ALPHA = 0.03
MIN_GROUP = 6
"""Tasks each group of the memory-off holdout needs before it is compared.

Six against six is the smallest design whose most extreme outcome (p = 1/462 for
ranks or rates) survives Holm's correction for the dozen tests a result holds.
The trend has no such floor: a trend contrast is tested whenever its own test
could reach α (:attr:`Contrast.attainable`), and the correction's family is only
the tests that could (:func:`comodor.brain.progress.evidence.correct`).
"""
FLAT_BAND_PERCENT = 5.0
FLAT_BAND_POINTS = 5.0
FLAT_BAND_ABSOLUTE = 0.05
"""A count must move by at least this much a task (one event in twenty tasks): with
thousands of tasks, 0 → 0.01 tool errors a task can be significant and still mean nothing."""
MEANINGFUL_BASE = 1.0


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def number(value: float) -> str:
    """A count for a sentence: ``0``, ``0.4``, ``12``."""
    if abs(value) >= 10:
        return f"{value:.0f}"
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def p_text(p_value: float) -> str:
    return "p < 0.001" if p_value < 0.001 else f"p = {p_value:.2g}"


@attrs.define
class Contrast:
    """``before`` against ``after`` for one measure; the test runs in :meth:`run`."""

    before: list[float]
    after: list[float]
    lower_is_better: bool = True
    rate: bool = False
    """Values are 0/1 outcomes: compared with Fisher's exact test, changes in points."""
    raw: TestResult | None = None
    """The uncorrected test, or None when the groups are too small to test."""
    p_value: float | None = None
    """Corrected for every test of the result (the value compared with :data:`ALPHA`)."""
    significant: bool = False
    min_group: int = 1
    """Tasks each group needs before it is tested at all (the holdout keeps :data:`MIN_GROUP`)."""
    best_p: float | None = None
    """The smallest p-value the test could give these groups' values in any arrangement."""

    @property
    def testable(self) -> bool:
        return len(self.before) >= self.min_group and len(self.after) >= self.min_group > 0

    @property
    def attainable(self) -> float:
        """The smallest p-value any arrangement of these values into the two groups could give.

        It depends only on the pooled values and the group sizes, never on which group
        holds which value, so choosing the tests by it (Tarone's rule) keeps the
        correction honest: a test that could not reach α even alone is left out of the
        family instead of diluting the tests that could.
        """
        if self.best_p is None:
            self.best_p = _best_p(self.before, self.after, self.rate)
        return self.best_p

    @property
    def constant(self) -> bool:
        """Every value is the same: no arrangement can show a change, so nothing is tested."""
        return len(set(self.before) | set(self.after)) <= 1

    @property
    def before_mean(self) -> float:
        return _mean(self.before)

    @property
    def after_mean(self) -> float:
        return _mean(self.after)

    @property
    def unit(self) -> str:
        return "points" if self.rate else "percent"

    @property
    def effect(self) -> float | None:
        """Percentage points for rates; percent change for counts (None from a zero base)."""
        if self.rate:
            return (self.after_mean - self.before_mean) * 100.0
        if self.before_mean <= 0:
            return None
        return (self.after_mean - self.before_mean) / self.before_mean * 100.0

    @property
    def flat(self) -> bool:
        if self.rate:
            return abs(self.after_mean - self.before_mean) * 100.0 < FLAT_BAND_POINTS
        if abs(self.after_mean - self.before_mean) < FLAT_BAND_ABSOLUTE:
            return True
        effect = self.effect
        return effect is not None and abs(effect) < FLAT_BAND_PERCENT

    @property
    def tiny_base(self) -> bool:
        """A count too small for a percentage to mean anything (see the module docstring)."""
        return not self.rate and min(self.before_mean, self.after_mean) < MEANINGFUL_BASE

    def run(self) -> TestResult | None:
        """Test the two groups; None (and left out of the correction) when untestable.

        Groups that no arrangement could make significant are untestable too: their
        p-value stays None and the verdict says more tasks are needed.
        """
        if self.testable and not self.constant and self.attainable >= ALPHA:
            self.raw = None
            self.p_value = None
            return None
        if not self.testable or self.constant:
            self.raw = None
            self.p_value = 1.0 if self.testable else None
            return None
        if self.rate:
            self.raw = fisher_exact(
                round(sum(self.before)), len(self.before), round(sum(self.after)), len(self.after)
            )
        else:
            self.raw = rank_test(self.before, self.after)
        return self.raw

    def decide(self, adjusted_p: float) -> None:
        """Record the corrected p-value and whether the change may be claimed."""
        assert self.raw is not None
        self.p_value = adjusted_p
        moved = (self.after_mean > self.before_mean) - (self.after_mean < self.before_mean)
        self.significant = adjusted_p < ALPHA and not self.flat and moved == self.raw.sign != 0

    @property
    def better(self) -> bool:
        """Whether ``after`` looks better than ``before`` (whatever the evidence)."""
        lower = self.after_mean < self.before_mean
        return lower if self.lower_is_better else not lower

    @property
    def direction(self) -> str | None:
        """``better`` or ``worse`` for a significant change; None when nothing may be claimed."""
        if not self.significant:
            return None
        return "better" if self.better else "worse"

    def change_text(self) -> str:
        """The observed change, shortest honest form: ``−12%``, ``+30 points``, ``0 → 0.4``."""
        effect = self.effect
        if self.rate:
            assert effect is not None
            return f"{effect:+.0f} points".replace("-", "−")
        if effect is None or self.tiny_base:
            return f"{number(self.before_mean)} → {number(self.after_mean)}"
        return f"{effect:+.0f}%".replace("-", "−")

    def verdict(self, claim: str) -> str:
        """One phrase for this measure: ``claim`` when significant, else why there is none."""
        if self.p_value is None:
            return "not enough tasks yet"
        if self.raw is None:
            return "no change"
        if self.significant:
            return f"{claim} ({p_text(self.p_value)})"
        if self.flat and self.p_value < ALPHA:
            return f"too small to matter ({self.change_text()}, {p_text(self.p_value)})"
        return f"no measurable change ({self.change_text()}, {p_text(self.p_value)})"


def _best_p(before: Sequence[float], after: Sequence[float], rate: bool) -> float:
    """The most extreme arrangement's p-value: one group holds the lowest values, or the highest."""
    n1, n2 = len(before), len(after)
    if not n1 or not n2:
        return 1.0
    if rate:
        hits, total = round(sum(before) + sum(after)), n1 + n2
        fewest, most = max(0, n2 - (total - hits)), min(hits, n2)
        return min(fisher_exact(hits - x, n1, x, n2).p_value for x in (fewest, most))
    pooled = sorted([*before, *after])
    low = rank_test(pooled[n2:], pooled[:n2]).p_value
    high = rank_test(pooled[:n1], pooled[n1:]).p_value
    return min(low, high)


def smallest_design(tests: int = 1) -> int:
    """Tasks a trend needs before its halves could reach α across ``tests`` tests at all.

    The most extreme outcome of ``w`` distinct values against ``w`` (ranks or rates)
    has p = 2 / C(2w, w); below the smallest such ``2w`` no test of the trend can
    be significant, whatever the tasks show. With one varying measure that is 8
    tasks (p = 2/70), with two to six 10 (2/252), with up to 23 12.
    """
    width = 1
    while 2 / math.comb(2 * width, width) >= ALPHA / max(1, tests):
        width += 1
    return 2 * width


def trend_change(contrast: Contrast) -> str:
    """``up 190% — worse``, ``0% → 100% — better``: a trend without its label."""
    verdict = "better" if contrast.better else "worse"
    effect = contrast.effect
    if contrast.rate:
        change = f"{contrast.before_mean:.0%} → {contrast.after_mean:.0%}"
    elif effect is None or contrast.tiny_base:
        change = f"{number(contrast.before_mean)} → {number(contrast.after_mean)}"
    else:
        change = f"{'up' if effect > 0 else 'down'} {abs(effect):.0f}%"
    return f"{change} — {verdict}"


def memory_change(contrast: Contrast) -> str:
    """``60% lower with memory``, ``100% with memory vs 60% without`` (``before``: no memory)."""
    effect = contrast.effect
    if contrast.rate:
        return f"{contrast.after_mean:.0%} with memory vs {contrast.before_mean:.0%} without"
    if effect is None or contrast.tiny_base:
        return (
            f"{number(contrast.after_mean)} with memory vs {number(contrast.before_mean)} without"
        )
    return f"{abs(effect):.0f}% {'higher' if effect > 0 else 'lower'} with memory"
