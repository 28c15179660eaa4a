"""The learned vocabulary: NPMI over successful tasks, shared through the brain file."""

from __future__ import annotations

from pathlib import Path

from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.recall.vocabulary import MAX_EXPANSION, _associate


def _succeed(engine: LearningEngine, goal: str) -> None:
    task = engine.begin_task(goal)
    engine.end_task(task.id, success=True)


def test_an_association_needs_two_successes_and_is_shared_by_another_process(
    brain_path: Path,
) -> None:
    engine = LearningEngine.open(brain_path, "project:p")
    other = LearningEngine.open(brain_path, "project:p")
    try:
        helm = engine.teach("deploying the gateway: run helm upgrade --atomic", pinned=False)
        _succeed(engine, "ship the gateway release")
        assert engine.lessons.vocabulary.expand(["ship", "release"]) == []
        _succeed(engine, "ship the gateway release now")
        expanded = dict(engine.lessons.vocabulary.expand(["ship", "release"]))
        assert 0 < len(expanded) <= MAX_EXPANSION and all(0.3 <= v <= 1 for v in expanded.values())
        other.refresh()
        assert [lesson.id for lesson in other.recall("ship release")] == [helm.id]
    finally:
        engine.close()
        other.close()


def test_a_term_in_most_tasks_is_ignored_once_there_are_enough() -> None:
    counts = {("q", "fix"): 10, ("l", "pytest"): 10, ("q", "ledger"): 2, ("l", "alembic"): 2}
    pairs = [("fix", "pytest", 10), ("ledger", "alembic", 2)]
    assert _associate(10, counts, pairs) == {"ledger": [("alembic", 1.0)]}


def test_independent_terms_are_not_associated() -> None:
    counts = {("q", "deploy"): 20, ("l", "css"): 20}
    assert _associate(40, counts, [("deploy", "css", 10)]) == {}
