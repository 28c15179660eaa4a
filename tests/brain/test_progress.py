"""Progress: honest about trends, and about the lack of them."""

from __future__ import annotations

import pytest

from comodor.brain.engine import LearningEngine
from comodor.brain.models import Episode
from comodor.brain.progress import MIN_FOR_TREND, Series, analyse


def _episodes(steps: list[int], **fields: object) -> list[Episode]:
    return [
        Episode(
            goal="g",
            scope="s",
            steps=value,
            success=True,
            stopped="done",
            started_at=float(i),
            ended_at=float(i) + 1,
            **fields,
        )  # type: ignore[arg-type]
        for i, value in enumerate(steps)
    ]


def test_fewer_than_six_tasks_is_not_a_trend() -> None:
    progress = analyse(_episodes([10, 9, 8, 7, 6]))
    assert not progress.enough_data
    assert progress.headline() == "5 tasks recorded — 1 more before a trend means anything."
    assert all(series.improving is None for series in progress.series)


def test_falling_steps_make_the_headline() -> None:
    progress = analyse(_episodes([10, 10, 9, 6, 5, 4, 4, 4]))
    steps = progress.get("steps")
    assert steps is not None and steps.improving is True
    assert progress.headline().startswith("Steps per task down ")


def test_a_change_inside_five_percent_is_flat() -> None:
    series = Series("steps", "Steps", [100, 100, 100, 100, 102, 103])
    assert series.improving is None


def test_a_tiny_base_cannot_headline_a_claim() -> None:
    episodes = _episodes([5] * 8)
    for episode, retries in zip(episodes, [1, 0, 0, 0, 0, 0, 0, 0], strict=True):
        episode.retries = retries
    progress = analyse(episodes)
    retries_series = progress.get("retries")
    assert retries_series is not None and retries_series.improving is True
    assert "Tool errors" not in progress.headline()


def test_cancelled_tasks_are_left_out_and_all_zero_series_dropped() -> None:
    episodes = _episodes([3] * MIN_FOR_TREND)
    episodes[0].stopped = "cancelled"
    progress = analyse(episodes)
    assert progress.episodes == MIN_FOR_TREND - 1
    assert progress.get("approvals") is None and progress.get("tokens") is None


def test_sparkline_has_an_ascii_form() -> None:
    series = Series("steps", "Steps", [1, 2, 3, 4, 5, 6, 7, 8])
    assert series.sparkline(ascii_only=True) == ".:-=+*#%"
    assert len(series.sparkline(width=4)) == 4


def test_engine_progress_reflects_real_tasks(engine: LearningEngine) -> None:
    for steps in (12, 11, 10, 5, 4, 3, 3):
        task = engine.begin_task("refactor the module")
        engine.end_task(task.id, True, steps=steps)
    progress = engine.progress()
    assert progress.episodes == 7 and progress.enough_data
    steps_series = progress.get("steps")
    assert steps_series is not None
    assert steps_series.change == pytest.approx((3.0 - 11.5) / 11.5 * 100)
