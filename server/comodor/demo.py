"""``comodor demo``: the brain learning, step by step, on a throw-away brain."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from comodor.brain.engine import LearningEngine
from comodor.brain.models import Message, Vote


def run_demo(keep: bool = False) -> int:
    folder = Path(tempfile.mkdtemp(prefix="comodor-demo-"))
    engine = LearningEngine.open(folder / "brain.db", "project:demo")
    try:
        print("1. The user teaches a lesson:")
        lesson = engine.teach("running the tests: use pytest -p no:cacheprovider")
        print(f"   taught #{lesson.id}: When {lesson.trigger}: {lesson.guidance}\n")

        print("2. The user corrects the agent's quotes in two files:")
        vote = Vote(
            "quotes.style",
            "single",
            "Use single quotes for strings.",
            "style",
            "python",
            "correction",
            detail="changed strings to single quotes",
        )
        for save in (1, 2):
            newly = engine.record_votes([vote], origin=f"save:{save}")
            for rule in newly:
                print(f"   learned: {rule.statement} ({rule.evidence})")
        print()

        print("3. The next request gets a playbook:")
        task = engine.begin_task("add a test for the parser")
        print("   " + task.playbook.text.replace("\n", "\n   ") + "\n")
        engine.end_task(task.id, True, steps=4, messages=[Message("tool", "pytest", "ok")])

        print("4. Progress:")
        print(f"   {engine.progress().headline()}")
    finally:
        engine.close()
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0
