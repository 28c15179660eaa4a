"""The learned vocabulary: NPMI over tasks (what helped, the user's words), in the brain file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Message
from comodor_lsp.brain.recall.vocabulary import (
    FORGET_WORDS_AFTER,
    MAX_EXPANSION,
    MIN_WORD_PAIR_TASKS,
    _associate,
    _associate_words,
)

from tests.brain.conftest import OpenEngine
from tests.support.secrets import SECRET_SAMPLES, SecretSample

MODULES = ("lexer", "tokenizer", "cache", "router", "config", "scheduler", "mailer", "queue")
OTHER_WORK = (
    "update the changelog for the release",
    "bump the version number",
    "fix the css of the header",
    "rename the deploy script",
    "tidy the docs index",
    "translate the landing page",
    "profile the startup time",
    "clean the build folder",
    "review the license headers",
    "refresh the screenshots",
)
FIXTURES = "pytest fixtures: share setup through conftest.py"
REQUEST = "write a spec for the parser"


def _spec_history(engine: LearningEngine, spec_tasks: int) -> None:
    """Spec tasks that always say pytest (in the goal or a message), alternating with other work."""
    for i in range(spec_tasks):
        _succeed(engine, OTHER_WORK[i % len(OTHER_WORK)])
        module = MODULES[i % len(MODULES)]
        if i % 2:
            _succeed(engine, f"write a spec for the {module} with pytest")
        else:
            task = engine.begin_task(f"spec the {module}")
            engine.end_task(
                task.id, success=True, messages=[Message("user", content="run it under pytest")]
            )


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


def test_words_said_together_in_ten_tasks_find_a_lesson_worded_differently(
    open_engine: OpenEngine,
) -> None:
    engine = open_engine("project:p")
    _spec_history(engine, 10)
    fixtures = engine.teach(FIXTURES, pinned=False)
    changelog = engine.teach("changelog entries: past tense, one line each", pinned=False)
    engine.teach("css: use rem units for spacing", pinned=False)
    assert [lesson.id for lesson in engine.recall(REQUEST)] == [fixtures.id]
    assert [lesson.id for lesson in engine.recall("update the changelog")] == [changelog.id]
    other = open_engine("project:p")  # another process on the same brain
    assert [lesson.id for lesson in other.recall(REQUEST)] == [fixtures.id]
    elsewhere = open_engine("project:elsewhere")  # the vocabulary is per project
    elsewhere.teach(FIXTURES, pinned=False)
    assert elsewhere.recall(REQUEST) == []


def test_words_said_together_too_few_times_teach_nothing(engine: LearningEngine) -> None:
    _spec_history(engine, MIN_WORD_PAIR_TASKS - 1)
    engine.teach(FIXTURES, pinned=False)
    assert engine.recall(REQUEST) == []
    assert engine.lessons.vocabulary.expand(["spec"]) == []


def test_a_real_match_ranks_above_a_lesson_found_through_the_users_words(
    engine: LearningEngine,
) -> None:
    _spec_history(engine, 10)
    fixtures = engine.teach(FIXTURES, pinned=False)
    parser = engine.teach("the parser: keep the grammar in grammar.lark", pinned=False)
    assert [lesson.id for lesson in engine.recall(REQUEST)] == [parser.id, fixtures.id]


def test_a_cancelled_task_and_the_assistants_words_teach_nothing(brain_path: Path) -> None:
    engine = LearningEngine.open(brain_path, "project:p")
    try:
        for i in range(10):
            _succeed(engine, OTHER_WORK[i])
            module = MODULES[i % len(MODULES)]
            task = engine.begin_task(f"write a spec for the {module} with pytest")
            engine.end_task(task.id, success=False, stopped="cancelled")
            task = engine.begin_task(f"spec the {module}")
            said = [Message("assistant", content="I ran pytest"), Message("tool", "run", "pytest")]
            engine.end_task(task.id, success=True, messages=said)
        assert "pytest" not in dict(engine.lessons.vocabulary.expand(["spec"]))
    finally:
        engine.close()


@pytest.mark.parametrize("sample", SECRET_SAMPLES, ids=lambda sample: sample.name)
def test_a_secret_in_a_users_message_is_not_kept_as_a_word(
    brain_path: Path, sample: SecretSample
) -> None:
    engine = LearningEngine.open(brain_path, "project:p")
    try:
        task = engine.begin_task("deploy the service")
        engine.end_task(task.id, success=True, messages=[Message("user", content=sample.context)])
    finally:
        engine.close()
    with sqlite3.connect(brain_path) as conn:
        words = [row[0] for row in conn.execute("SELECT term FROM vocab_word_terms")]
    assert "deploy" in words  # the task's words were counted...
    pieces = [piece.lower() for piece in sample.own_shingles]
    kept = [piece for piece in pieces for word in words if piece in word]
    assert not kept  # ...not the secret


def test_a_word_in_most_of_the_users_tasks_is_ignored_once_there_are_enough() -> None:
    counts = {"write": 10, "pytest": 5, "spec": 5}
    pairs = [("pytest", "write", 5), ("pytest", "spec", 5), ("spec", "write", 5)]
    assert _associate_words(10, counts, pairs) == {
        "pytest": [("spec", 1.0)],
        "spec": [("pytest", 1.0)],
    }


def test_the_users_words_that_only_sometimes_meet_are_not_associated() -> None:
    counts = {"deploy": 20, "css": 20}
    assert _associate_words(50, counts, [("css", "deploy", 8)]) == {}


def test_the_few_expansion_places_go_to_words_some_lesson_holds(engine: LearningEngine) -> None:
    fixtures = engine.teach(FIXTURES, pinned=False)
    for i in range(10):
        _succeed(engine, OTHER_WORK[i])
        task = engine.begin_task(f"write the spec for the {MODULES[i % len(MODULES)]}")
        said = Message(
            "user", content="cover the edge cases, keep them apart, run them with pytest"
        )
        engine.end_task(task.id, success=True, messages=[said])
    assert len(engine.lessons.vocabulary.expand(["spec"])) == MAX_EXPANSION  # apart, case, cover…
    assert [lesson.id for lesson in engine.recall(REQUEST)] == [fixtures.id]


def test_words_said_together_rarely_and_long_ago_are_forgotten_not_the_rest(
    engine: LearningEngine,
) -> None:
    store, scope = engine.store, "project:test"
    store.observe_words(scope, ["kafka", "retention"])  # once, never again
    for _ in range(MIN_WORD_PAIR_TASKS):
        store.observe_words(scope, ["spec", "pytest"])
    for number in range(FORGET_WORDS_AFTER):
        store.observe_words(scope, [f"chore{number}"])
    store.observe_words(scope, ["spec", "lexer"])  # recent: kept even though rare
    engine.consolidate()
    kept = {(first, second) for first, second, _ in store.word_vocabulary(scope, 1)[2]}
    assert kept == {("pytest", "spec"), ("lexer", "spec")}
