"""Corrections that disagree make a contested rule, never enforced, until one side clearly leads.

The rule is stated once, in :mod:`comodor_lsp.brain.rules.judgement`: a value is
confident only when its recency-weighted support exceeds the opposition by more
than one fresh correction. Checked here on the judgement itself (fast, no store)
for every dimension the issue names, and once through a real engine for the
playbook.
"""

from __future__ import annotations

import attrs
import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Vote
from comodor_lsp.brain.rules import judgement
from comodor_lsp.brain.store import RuleRow, VoteRow
from comodor_lsp.conventions.votes import make_vote

# (dimension, old value, new value, language)
DIMENSIONS = [
    ("quotes.style", "single", "double", "python"),
    ("js.semicolons", "always", "never", "typescript"),
    ("indent.style", "spaces", "tabs", "python"),
]


def corrections(key: str, language: str, values: list[str]) -> RuleRow:
    """A rule row holding one correction per value, oldest first, each from its own save."""
    votes = []
    for position, value in enumerate(values):
        vote = make_vote(key, value, kind="correction", language=language)
        votes.append(
            VoteRow(
                value=value,
                statement=vote.statement,
                kind="correction",
                weight=1.0,
                origin=f"save:{position + 1}",
                detail="",
                created_at=1000.0 + position,
            )
        )
    return RuleRow(
        id=1,
        key=key,
        scope="project:test",
        language=language,
        category="style",
        pinned=False,
        active=True,
        created_at=1000.0,
        updated_at=1000.0 + len(values),
        votes=tuple(votes),
    )


@pytest.mark.parametrize(("key", "old", "new", "language"), DIMENSIONS)
@pytest.mark.parametrize(
    ("before", "after"),
    [(2, 2), (3, 2)],
    ids=["tie 2-2", "lead of one 3-2"],
)
def test_a_tie_or_a_lead_of_one_correction_is_contested_with_both_sides(
    key: str, old: str, new: str, language: str, before: int, after: int
) -> None:
    rule = judgement.summarize(corrections(key, language, [old] * before + [new] * after))
    assert rule.value == new  # the latest side leads, but not clearly
    assert not rule.confident and rule.contested
    assert rule.opposition == f"{before} corrections for {old}"
    assert rule.evidence == (
        f"2 of the last 3 corrections · 2 of {before + after} in all"
        if before + after > 3
        else f"2 of {before + after} corrections"
    )


@pytest.mark.parametrize(("key", "old", "new", "language"), DIMENSIONS)
@pytest.mark.parametrize("before", [2, 3, 8])
def test_three_consistent_corrections_after_a_change_of_mind_flip_the_rule(
    key: str, old: str, new: str, language: str, before: int
) -> None:
    rule = judgement.summarize(corrections(key, language, [old] * before + [new] * 3))
    assert (rule.value, rule.confident, rule.contested) == (new, True, False)
    assert rule.opposition == ""
    assert rule.evidence == f"3 of the last 3 corrections · 3 of {before + 3} in all"


@pytest.mark.parametrize(("key", "old", "new", "language"), DIMENSIONS)
def test_agreeing_corrections_are_confident_and_not_contested(
    key: str, old: str, new: str, language: str
) -> None:
    rule = judgement.summarize(corrections(key, language, [new, new]))
    assert (rule.confident, rule.contested) == (True, False)
    assert rule.evidence == "2 corrections · 100% agree"


@pytest.mark.parametrize(
    "history",
    [
        ["single", "double", "single", "double"],
        ["double", "single", "double", "single", "double"],
        ["single", "double", "single", "double", "single", "double"],
    ],
    ids=["2-2", "3-2", "3-3"],
)
def test_alternating_corrections_stay_contested(history: list[str]) -> None:
    rule = judgement.summarize(corrections("quotes.style", "python", history))
    assert rule.value == history[-1] and rule.contested and not rule.confident


def test_one_stray_correction_after_a_long_habit_is_contested_not_turned() -> None:
    rule = judgement.summarize(corrections("quotes.style", "python", ["single"] * 8 + ["double"]))
    assert rule.value == "single" and rule.contested and not rule.confident
    assert rule.opposition == "1 correction for double"


def test_observations_of_the_code_alone_are_never_contested() -> None:
    row = corrections("quotes.style", "python", [])
    observed = [
        VoteRow("single", "Use single quotes for strings.", "observation", 0.6, "scan", "", 1.0),
        VoteRow("double", "Use double quotes for strings.", "observation", 0.5, "scan2", "", 2.0),
    ]
    rule = judgement.summarize(attrs.evolve(row, votes=tuple(observed)))
    assert not rule.confident and not rule.contested


def _quotes(value: str) -> Vote:
    return make_vote("quotes.style", value, kind="correction", language="python")


def test_a_contested_rule_is_listed_but_never_in_the_playbook(engine: LearningEngine) -> None:
    for save, value in enumerate(["single", "single", "double", "double"], start=1):
        engine.record_votes([_quotes(value)], origin=f"save:{save}")
    rule = next(r for r in engine.all_rules() if r.key == "quotes.style")
    assert rule.contested and not rule.confident
    assert engine.active_rules("python") == []
    assert [r.key for r in engine.contested_rules("python")] == ["quotes.style"]
    assert "quotes" not in engine.playbook("fix the parser", language="python").text

    engine.record_votes([_quotes("double")], origin="save:5")  # the third: the mind has changed
    assert [r.value for r in engine.active_rules("python")] == ["double"]
    assert engine.contested_rules("python") == []
    assert "Use double quotes" in engine.playbook("fix the parser", language="python").text
