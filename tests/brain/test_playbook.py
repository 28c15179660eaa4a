"""The playbook: rules first under their own budget, whole entries only."""

from __future__ import annotations

import attrs
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Vote


def _confident_rule(engine: LearningEngine, key: str, statement: str) -> None:
    vote = Vote(key, "yes", statement, "style", None, "correction")
    engine.record_votes([vote], origin=f"save:{key}:1")
    engine.record_votes([vote], origin=f"save:{key}:2")


def test_empty_brain_gives_an_empty_playbook(engine: LearningEngine) -> None:
    playbook = engine.playbook("anything at all")
    assert (playbook.text, playbook.tokens, playbook.lessons) == ("", 0, ())


def test_rules_come_first_then_lessons_in_the_fixed_line_format(engine: LearningEngine) -> None:
    _confident_rule(engine, "quotes.style", "Use single quotes for strings.")
    engine.teach("running tests: use pytest -x")
    text = engine.playbook("running tests").text
    assert text.index("Use single quotes") < text.index("When running tests")
    assert "- (preference, 100%) When running tests: use pytest -x" in text.splitlines()
    assert "2 corrections · 100% agree" in text


def test_a_tight_budget_never_cuts_an_entry_in_half(engine: LearningEngine) -> None:
    for number in range(20):
        engine.teach(f"topic {number}: " + "detailed guidance " * 10, pinned=False)
    engine.configure(attrs.evolve(engine.settings, top_k=20))
    playbook = engine.playbook("topic guidance detailed", max_tokens=200)
    lines = [line for line in playbook.text.splitlines() if line.startswith("- (")]
    assert 0 < len(lines) < 20
    assert all(line.rstrip().endswith("guidance") for line in lines)
    assert len(playbook.lessons) == len(lines)


def test_rules_keep_their_budget_when_lessons_overflow(engine: LearningEngine) -> None:
    _confident_rule(engine, "indent.width", "Indent with 4 spaces.")
    for number in range(10):
        engine.teach(f"topic {number}: " + "very long guidance " * 30, pinned=False)
    playbook = engine.playbook("topic guidance", max_tokens=60)
    assert "Indent with 4 spaces." in playbook.text
    assert playbook.rules and playbook.rules[0].key == "indent.width"


def test_pinned_lessons_come_before_ranked_ones(engine: LearningEngine) -> None:
    engine.teach("shipping code: squash commits", pinned=False)
    engine.teach("always: write the changelog entry")
    lines = engine.playbook("shipping code").text.splitlines()
    entries = [line for line in lines if line.startswith("- (")]
    assert "changelog" in entries[0] and "squash" in entries[1]
