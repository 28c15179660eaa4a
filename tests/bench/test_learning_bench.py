"""bench.learning on a tiny configuration, so the benchmark cannot rot unnoticed."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bench import learning
from bench.codegen import PROFILE, Style, logic_edit, new_spec, render


def test_the_agent_and_user_texts_differ_only_where_the_profile_says() -> None:
    spec = new_spec(random.Random(3), "python", 0)
    user = learning.User().style()
    assert render(spec, user) == render(spec, user)
    assert render(spec, Style()) != render(spec, user)
    changed, _ = logic_edit(spec, random.Random(4), Style())
    assert render(changed, Style()) != render(spec, Style())


def test_every_convention_is_seen_alone_by_the_capture() -> None:
    probe = learning.isolation_probe(seed=1, samples=2)
    assert set(probe) == {c.name for c in PROFILE}
    assert all(row["alone"] == row["samples"] for row in probe.values())


@pytest.mark.slow  # a whole benchmark run through real server processes
def test_a_tiny_run_learns_without_false_rules(tmp_path: Path) -> None:
    args = learning.build_parser().parse_args(
        ["--seeds", "1", "--files", "9", "--flip-files", "6", "--tasks", "6"]
    )
    result = asyncio.run(learning.run_seed(args, args.seed, tmp_path / "run"))
    summary = result["summary"]
    assert set(summary["per_convention"]) == {c.name for c in PROFILE}
    assert summary["logic_edits"] == 3
    assert summary["false_rules"] == [] and summary["logic_edit_votes"] == 0
    assert summary["flip"]["both_values_confident_at_once"] == 0
    assert 0.0 <= summary["precision"] <= 1.0 and 0.0 <= summary["recall"] <= 1.0
    series = result["series"]
    assert len(series["memory_on"]["corrections"]) == len(series["memory_off"]["corrections"]) == 6
