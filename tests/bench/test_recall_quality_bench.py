"""bench.recall_quality on a tiny brain, so the benchmark cannot rot unnoticed."""

from __future__ import annotations

import random
from pathlib import Path

from bench import recall_quality as rq


def _planted(count: int) -> list[rq.Triple]:
    every = [rq.Triple(a, o, c) for a in rq.ACTIONS for o in rq.OBJECTS for c in rq.COMPONENTS]
    return random.Random(1).sample(every, k=count)


def test_paraphrases_are_not_the_trigger() -> None:
    rng = random.Random(2)
    for triple in _planted(20):
        assert rq.paraphrase(rng, triple) != triple.trigger()


def test_a_trusted_planted_lesson_is_recalled_among_500_distractors(tmp_path: Path) -> None:
    planted = _planted(10)
    arm = rq.Arm("fresh and trusted", 0.95, 3, distractors_vary=False)
    ids = rq.build(tmp_path / "brain.db", arm, planted, 500, seed=1)
    assert len(ids) == 10
    result = rq.measure_recall(tmp_path / "brain.db", planted, ids, seed=1)
    assert result["queries"] == 10
    assert result["recall_at_6"] >= 0.9
    assert 0 < result["mrr_at_20"] <= 1


def test_no_lesson_merges_with_its_negation(tmp_path: Path) -> None:
    families = rq.measure_merges(tmp_path / "empty.db")
    assert sum(row["negation_merged"] for row in families.values()) == 0
    assert sum(row["restated_merged"] for row in families.values()) > 0
