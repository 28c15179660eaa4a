"""Progress: says "better" or "worse" only when a test says so, and "not yet" otherwise."""

from __future__ import annotations

import random

from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Episode
from comodor_lsp.brain.progress.evidence import FIRST_TESTABLE, Series, analyse


def _episodes(
    steps: list[int], success: list[bool] | None = None, **columns: list[int]
) -> list[Episode]:
    success = success if success is not None else [True] * len(steps)
    episodes = []
    for number, (value, succeeded) in enumerate(zip(steps, success, strict=True)):
        episode = Episode(
            goal="g",
            scope="s",
            id=number + 1,
            steps=value,
            success=succeeded,
            stopped="done",
            started_at=float(number),
            ended_at=float(number) + 1,
        )
        for name, values in columns.items():
            setattr(episode, name, values[number])
        episodes.append(episode)
    return episodes


def _noise(rng: random.Random, tasks: int) -> list[Episode]:
    """A project where nothing changes: every task drawn from the same distributions."""
    level = rng.uniform(3, 15)
    return _episodes(
        [max(0, round(rng.gauss(level, level * 0.4))) for _ in range(tasks)],
        [rng.random() < 0.8 for _ in range(tasks)],
        corrections=[rng.choice([0, 0, 0, 1, 1, 2]) for _ in range(tasks)],
        approvals=[rng.choice([0, 0, 1]) for _ in range(tasks)],
        retries=[rng.choice([0, 0, 0, 0, 1]) for _ in range(tasks)],
        tokens=[round(rng.lognormvariate(8, 0.5)) for _ in range(tasks)],
    )


def test_below_the_smallest_testable_history_it_says_how_many_more_tasks_could_settle_it() -> None:
    progress = analyse(_episodes([10, 9, 8, 7, 6]))
    assert not progress.enough_data
    assert progress.headline() == "Not enough tasks yet: 5 tasks recorded, 3 more could settle it."
    assert progress.method().endswith("below 8 tasks no exact test of it could reach α = 3%.")
    steps = progress.get("steps")
    assert steps is not None and steps.improving is None and steps.direction is None
    assert steps.verdict() == "not enough tasks yet" and steps.contrast.p_value is None


def test_a_steady_fourfold_fall_over_eight_tasks_is_reported_as_improved() -> None:
    progress = analyse(_episodes([20, 18, 15, 13, 10, 8, 6, 5]))
    assert progress.enough_data
    steps = progress.get("steps")
    assert steps is not None and steps.improving is True and steps.direction == "better"
    assert steps.contrast.p_value is not None and steps.contrast.p_value < 0.05
    assert progress.headline() == "Steps per task down 56% — better (first 4 tasks vs last 4)."


def test_two_varying_measures_over_eight_tasks_need_two_more_to_settle() -> None:
    # Steps and tokens both vary: the most extreme 4-against-4 outcome (p = 2/70)
    # cannot survive a correction for two tests, so nothing may be claimed yet.
    progress = analyse(
        _episodes([20, 18, 15, 13, 10, 8, 6, 5], tokens=[900, 950, 800, 870, 910, 880, 860, 940])
    )
    assert not progress.enough_data and progress.tests == 0
    assert progress.headline() == "Not enough tasks yet: 8 tasks recorded, 2 more could settle it."
    steps = progress.get("steps")
    assert steps is not None and not steps.significant


def test_two_hundred_short_noise_histories_claim_a_change_at_most_one_time_in_twenty() -> None:
    rng = random.Random(26)
    results = [analyse(_noise(rng, rng.randint(2, 16))) for _ in range(200)]
    claiming = [p for p in results if any(series.significant for series in p.series)]
    assert len(claiming) <= 0.05 * len(results), [p.headline() for p in claiming]


def test_a_worsening_history_names_the_regression() -> None:
    rng = random.Random(1)
    steps = [rng.randint(4, 6) for _ in range(10)] + [rng.randint(12, 18) for _ in range(10)]
    progress = analyse(_episodes(steps, [True] * 10 + [False] * 10))
    series = progress.get("steps")
    assert series is not None
    assert (series.direction, series.significant, series.improving) == ("worse", True, False)
    assert progress.headline().startswith("Steps per task up ")
    assert "— worse" in progress.headline() and "Task success 100% → 0% — worse" in (
        progress.headline()
    )


def test_success_from_none_to_all_is_a_change_in_points_and_the_headline() -> None:
    progress = analyse(_episodes([5] * 16, [False] * 8 + [True] * 8))
    first_try = progress.get("success")
    assert first_try is not None and first_try.significant and first_try.improving is True
    assert first_try.contrast.effect == 100.0 and first_try.contrast.unit == "points"
    assert progress.headline() == "First-try success 0% → 100% — better (first 8 tasks vs last 8)."


def test_an_improvement_is_reported_with_its_size_and_windows() -> None:
    progress = analyse(_episodes([12, 11, 13, 12, 10, 12, 11, 12, 6, 5, 6, 5, 4, 6, 5, 6]))
    steps = progress.get("steps")
    assert steps is not None and steps.direction == "better" and steps.improving is True
    assert progress.headline() == "Steps per task down 54% — better (first 8 tasks vs last 8)."
    assert steps.verdict() == "down 54% — better (p < 0.001)"


def test_a_regression_is_named_even_when_an_improvement_is_stronger() -> None:
    steps = [20] * 10 + [5] * 10
    corrections = [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 3, 2, 1, 2, 3, 2, 2, 3, 2]
    progress = analyse(_episodes(steps, corrections=corrections))
    headline = progress.headline()
    assert headline.startswith("Steps per task down 75% — better")
    assert "Corrections per task 0.1 → 2.2 — worse" in headline


def test_random_histories_claim_nothing_in_at_least_95_percent_of_results() -> None:
    rng = random.Random(15)
    results = [analyse(_noise(rng, rng.randint(12, 30))) for _ in range(300)]
    claiming = [p for p in results if any(series.significant for series in p.series)]
    assert len(claiming) <= 0.05 * len(results), [p.headline() for p in claiming]
    assert sum(p.headline().startswith("No measurable change") for p in results) >= 285
    # The same histories, judged test by test without the correction, would claim a lot.
    uncorrected = [
        p
        for p in results
        if any(s.contrast.raw is not None and s.contrast.raw.p_value < 0.05 for s in p.series)
    ]
    assert len(uncorrected) > 3 * max(1, len(claiming))


def test_a_change_inside_the_flat_band_is_never_a_claim() -> None:
    steps = [100] * 50 + [103] * 50  # perfectly consistent, and too small to matter
    progress = analyse(_episodes(steps))
    series = progress.get("steps")
    assert series is not None and not series.significant and series.direction is None
    assert series.verdict() == "too small to matter (+3%, p < 0.001)"
    assert progress.headline().startswith("No measurable change yet")


def test_a_negligible_change_from_zero_is_not_a_claim_however_many_tasks() -> None:
    retries = [0] * 50 + [0] * 48 + [1, 1]  # 0 → 0.04 a task: fewer than one in twenty
    series = analyse(_episodes([5] * 100, retries=retries)).get("retries")
    assert series is not None and series.contrast.flat and not series.significant


def test_a_tiny_base_is_said_in_absolute_terms_never_as_a_percentage() -> None:
    retries = [1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0] + [0] * 12
    progress = analyse(_episodes([5] * 24, retries=retries))
    series = progress.get("retries")
    assert series is not None and series.significant and series.improving is True
    headline = progress.headline()
    assert headline.startswith("Tool errors per task 0.7 → 0 — better") and "%" not in headline


def test_series_that_never_vary_are_not_tested_and_cost_the_others_nothing() -> None:
    progress = analyse(_episodes([5] * 12 + [9] * 12))
    assert progress.tests == 1  # steps only: success is 100% throughout
    success = progress.get("success")
    assert success is not None and success.verdict() == "no change"
    assert progress.method().endswith("Holm-corrected across 1 test at α = 3%.")


def test_cancelled_tasks_are_left_out_and_all_zero_series_dropped() -> None:
    episodes = _episodes([3] * FIRST_TESTABLE)
    episodes[0].stopped = "cancelled"
    progress = analyse(episodes)
    assert progress.episodes == FIRST_TESTABLE - 1 and not progress.enough_data
    assert progress.get("approvals") is None and progress.get("tokens") is None


def test_a_long_history_compares_its_first_fifty_tasks_with_its_latest_fifty() -> None:
    progress = analyse(_episodes([10] * 150 + [4] * 30))
    steps = progress.get("steps")
    assert steps is not None and steps.window == 50
    assert steps.means() == (10.0, (20 * 10 + 30 * 4) / 50)
    assert progress.headline().endswith("(first 50 tasks vs last 50).")


def test_sparkline_has_an_ascii_form() -> None:
    series = Series("steps", "Steps", [1, 2, 3, 4, 5, 6, 7, 8])
    assert series.sparkline(ascii_only=True) == ".:-=+*#%"
    assert len(series.sparkline(width=4)) == 4


def test_engine_progress_reflects_real_tasks(engine: LearningEngine) -> None:
    for steps in (14, 12, 13, 12, 11, 12, 13, 14, 5, 4, 4, 3, 4, 5, 3, 4):
        task = engine.begin_task("refactor the module")
        engine.end_task(task.id, True, steps=steps)
    progress = engine.progress()
    assert progress.episodes == 16 and progress.enough_data and progress.holdout is None
    steps_series = progress.get("steps")
    assert steps_series is not None and steps_series.improving is True
    assert steps_series.change == (4.0 - 12.625) / 12.625 * 100
