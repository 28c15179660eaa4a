"""bench.recall_compare on tiny inputs, so the one-run comparison cannot rot unnoticed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import recall_compare


@pytest.mark.slow
def test_the_comparison_prints_one_table_with_ratios(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "compare.json"
    assert (
        recall_compare.main(
            [
                "--size",
                "1500",
                "--queries",
                "60",
                "--planted",
                "20",
                "--delta",
                "20",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    table = capsys.readouterr().out
    assert "| recall p95 ms (index) |" in table and "×" in table
    assert "recall@6, trusted planted lessons" in table
    assert out.exists()


def test_the_old_walk_and_the_new_index_agree_when_the_walk_is_not_cut(tmp_path: Path) -> None:
    """The comparison's baseline ranks by the same formula, trigger weighting aside."""
    from bench.brain import build_brain

    path = tmp_path / "brain.db"
    build_brain(path, 400)
    lessons = recall_compare.rows_of(path)
    assert all(lesson.trigger_terms for lesson in lessons)
    untold = [lesson._replace(trigger_terms=0) for lesson in lessons]  # every term alike
    old, new = recall_compare.old_index(lessons), recall_compare.new_index(untold)
    from comodor_lsp.brain.recall.text import terms

    from bench.corpus import Corpus

    corpus = Corpus(seed=3)
    now = 1_900_000_000.0
    for _ in range(50):
        query = terms(corpus.query())
        full = old.search(query, ["project:bench"], limit=6, now=now, budget=10**9)
        assert [h.id for h in new.search(query, ["project:bench"], limit=6, now=now)] == [
            h.id for h in full
        ]
