"""Tasks: what was recalled shares the outcome; episodes record what really happened."""

from __future__ import annotations

import threading

import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.errors import InvalidInput
from comodor_lsp.brain.models import EpisodeSummary, Message, ProposedLesson, Skill, Vote


def test_success_credits_recalled_lessons_and_failure_debits_them(engine: LearningEngine) -> None:
    lesson = engine.teach("migrations: run alembic upgrade head", pinned=False)
    won = engine.begin_task("write a migration")
    assert [found.id for found in won.playbook.lessons] == [lesson.id]
    engine.end_task(won.id, success=True)
    lost = engine.begin_task("write another migration")
    engine.end_task(lost.id, success=False)
    stored = engine.store.get_lesson(lesson.id)
    assert stored is not None and (stored.wins, stored.losses, stored.uses) == (1, 1, 2)


def test_cancelled_task_credits_nothing_and_is_left_out_of_progress(engine: LearningEngine) -> None:
    lesson = engine.teach("migrations: run alembic upgrade head", pinned=False)
    task = engine.begin_task("write a migration")
    engine.end_task(task.id, success=False, stopped="cancelled")
    stored = engine.store.get_lesson(lesson.id)
    assert stored is not None and (stored.wins, stored.losses) == (0, 0)
    assert engine.progress().episodes == 0
    assert engine.stats().episodes == 0


def test_episode_metrics_count_only_the_tasks_own_messages(engine: LearningEngine) -> None:
    first = engine.begin_task("first")
    engine.end_task(first.id, True, messages=[Message("tool", "grep", "boom", True)] * 3)
    second = engine.begin_task("second")
    engine.end_task(second.id, True, messages=[Message("tool", "ls", "ok")])
    episode = engine.store.get_episode(second.id)
    assert episode is not None
    assert (episode.retries, episode.steps, episode.tools_used) == (0, 1, ["ls"])


def test_corrections_and_undos_are_counted_in_the_task_that_wrote_the_file(
    engine: LearningEngine,
) -> None:
    task = engine.begin_task("add a helper")
    write = engine.record_agent_write("/ws/a.py", None, 'x = "1"\n', task_id=task.id)
    assert write > 0
    engine.record_correction(
        "/ws/a.py",
        [Vote("quotes.style", "single", "Use single quotes.", "style", "python", "correction")],
        diff="-x = \"1\"\n+x = '1'",
        episode_id=task.id,
    )
    engine.end_task(task.id, True)
    assert engine.on_undo(["/ws/a.py"]) == 1
    episode = engine.store.get_episode(task.id)
    assert episode is not None and (episode.corrections, episode.undos) == (1, 1)
    stats = engine.stats()
    assert (stats.agent_writes, stats.corrections, stats.undos) == (1, 1, 1)


def test_undo_penalises_the_lessons_recalled_for_that_task(engine: LearningEngine) -> None:
    lesson = engine.teach("styling: prefer dataclasses", pinned=False)
    task = engine.begin_task("styling the models")
    engine.record_agent_write("/ws/models.py", "old\n", "new\n", task_id=task.id)
    engine.end_task(task.id, True)
    assert engine.on_undo(["/ws/models.py", "/ws/never-written.py"]) == 1
    assert engine.on_undo(["/ws/models.py"]) == 0  # already undone
    stored = engine.store.get_lesson(lesson.id)
    assert stored is not None and (stored.wins, stored.losses) == (1, 1)


def test_feedback_credits_the_last_ended_task_by_default(engine: LearningEngine) -> None:
    lesson = engine.teach("deploys: tag before pushing", pinned=False)
    task = engine.begin_task("deploys")
    engine.end_task(task.id, True)
    assert engine.feedback(good=False, note="that tag was wrong") == 1
    stored = engine.store.get_lesson(lesson.id)
    assert stored is not None and (stored.wins, stored.losses) == (1, 1)


def test_feedback_with_no_task_yet_credits_nothing(engine: LearningEngine) -> None:
    assert engine.feedback(good=True) == 0


def test_ending_a_task_twice_or_an_unknown_task_is_refused(engine: LearningEngine) -> None:
    task = engine.begin_task("something")
    engine.end_task(task.id, True)
    with pytest.raises(InvalidInput, match="already ended") as ended:
        engine.end_task(task.id, True)
    assert ended.value.field == "taskId"
    with pytest.raises(InvalidInput, match="no task 999"):
        engine.end_task(999, True)


def test_learned_skills_are_recalled_and_credited(engine: LearningEngine) -> None:
    engine.absorb_reflection(
        1,
        [],
        Skill(
            name="release the package",
            description="cut a release of the package",
            steps=["bump version", "tag", "twine upload"],
            scope="",
        ),
    )
    task = engine.begin_task("release the package to PyPI")
    assert [skill.name for skill in task.playbook.skills] == ["release the package"]
    assert "skill: release the package" in task.playbook.text
    engine.end_task(task.id, True)
    skill = engine.store.skills(engine.scopes)[0]
    assert (skill.wins, skill.uses) == (1, 1)


class ThreadReflector:
    """A real background reflector: a thread that 'reads' the episode and proposes a lesson."""

    def __init__(self, engine: LearningEngine) -> None:
        self.engine = engine
        self.threads: list[threading.Thread] = []
        self.seen: list[EpisodeSummary] = []

    def submit(self, episode_id: int, summary: EpisodeSummary) -> None:
        def work() -> None:
            self.seen.append(summary)
            self.engine.absorb_reflection(
                episode_id,
                [
                    ProposedLesson(
                        "pitfall",
                        "the build fails on import",
                        "install the package in editable mode",
                    )
                ],
            )

        thread = threading.Thread(target=work)
        thread.start()
        self.threads.append(thread)

    def wait_idle(self, timeout: float) -> bool:
        for thread in self.threads:
            thread.join(timeout)
        return True

    def stop(self, timeout: float) -> None:
        self.wait_idle(timeout)


def test_finished_task_is_reflected_on_in_the_background_and_the_lesson_recalled_next(
    engine: LearningEngine, events: list[str]
) -> None:
    reflector = ThreadReflector(engine)
    engine.reflector = reflector
    task = engine.begin_task("fix the failing import in the build")
    engine.end_task(task.id, False, messages=[Message("tool", "pytest", "ImportError", True)])
    engine.wait_for_reflection(5)
    assert reflector.seen[0].goal == "fix the failing import in the build"
    assert "learned" in events
    next_task = engine.begin_task("the build fails on import again")
    assert any("editable mode" in lesson.guidance for lesson in next_task.playbook.lessons)
