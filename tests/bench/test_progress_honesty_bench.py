"""bench.progress_honesty on a few histories, so the benchmark cannot rot unnoticed."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bench import progress_honesty as ph


def test_a_history_without_change_keeps_every_measure_at_its_level() -> None:
    rng = random.Random(1)
    profile = ph.Profile.random(rng, steps=10.0, steps_spread=0.3)
    episodes = ph.history(rng, profile, 400)
    mean_steps = sum(e.steps for e in episodes) / len(episodes)
    assert 9.0 < mean_steps < 11.0
    first, last = episodes[:200], episodes[200:]
    assert abs(sum(e.steps for e in first) - sum(e.steps for e in last)) / 2000 < 0.1


def test_a_large_real_change_is_detected_and_in_the_right_direction() -> None:
    tally = ph.run(
        random.Random(2),
        40,
        60,
        target="steps",
        drift=ph.step,
        effect=-0.6,
        levels=ph.STEPS_STEADY,
    )
    assert tally.detected >= 36 and tally.claims <= 4


def test_the_benchmark_prints_both_tables_and_writes_its_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ph.main(["--histories", "8", "--json", str(tmp_path / "out.json")]) == 0
    printed = capsys.readouterr().out
    assert "### No change: false claims" in printed and "### A real 30% improvement" in printed
    figures = json.loads((tmp_path / "out.json").read_text())
    assert len(figures["null"]) == 8 and len(figures["power"]) == len(ph.SCENARIOS)
    assert all(0.0 <= row["false_claim_rate"] <= 1.0 for row in figures["null"])
