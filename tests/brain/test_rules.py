"""House rules: counted evidence, competing values, confidence that is earned."""

from __future__ import annotations

from pathlib import Path

import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Message, Vote
from comodor_lsp.brain.rules import judgement as rules_module


def quotes(value: str, kind: str = "correction", weight: float = 1.0) -> Vote:
    return Vote(
        key="quotes.style",
        value=value,
        statement=f"Use {value} quotes for strings.",
        category="style",
        language="python",
        kind=kind,
        weight=weight,
        detail=f"changed strings to {value} quotes",
    )


def rule(engine: LearningEngine, key: str = "quotes.style"):  # type: ignore[no-untyped-def]
    return next(r for r in engine.all_rules() if r.key == key)


def test_one_correction_is_not_enough_two_from_different_saves_are(
    engine: LearningEngine, events: list[str]
) -> None:
    assert engine.record_votes([quotes("single")], origin="save:1") == []
    assert not rule(engine).confident
    assert engine.record_votes([quotes("single")], origin="save:1") == []  # same save again
    assert rule(engine).corrections == 1
    newly = engine.record_votes([quotes("single")], origin="save:2")
    assert [r.key for r in newly] == ["quotes.style"]
    learned = rule(engine)
    assert learned.confident and learned.evidence == "2 corrections · 100% agree"
    assert events == ["rule"]


def test_reinforcing_a_confident_rule_is_silent(engine: LearningEngine, events: list[str]) -> None:
    for save in range(1, 5):
        engine.record_votes([quotes("single")], origin=f"save:{save}")
    assert events == ["rule"]


def test_votes_for_another_value_count_against_and_the_statement_follows_the_winner(
    engine: LearningEngine,
) -> None:
    engine.record_votes([quotes("single")], origin="save:1")
    engine.record_votes([quotes("single")], origin="save:2")
    engine.record_votes([quotes("double")], origin="save:3")
    current = rule(engine)
    assert (current.value, current.support, current.against) == ("single", 2.0, 1.0)
    assert not current.confident  # 67% agreement is below 70%
    for save in range(4, 7):
        engine.record_votes([quotes("double")], origin=f"save:{save}")
    turned = rule(engine)
    assert turned.value == "double" and turned.statement == "Use double quotes for strings."
    assert (turned.support, turned.against) == (4.0, 2.0)
    assert len([r for r in engine.all_rules() if r.key == "quotes.style"]) == 1


def test_rescanning_the_project_replaces_its_votes_instead_of_adding(
    engine: LearningEngine,
) -> None:
    scan = [quotes("double", kind="observation", weight=0.8)]
    for _ in range(5):
        engine.record_votes(scan, origin="scan", replace=True)
    assert rule(engine).support == 0.8
    engine.record_votes([], origin="scan", replace=True)
    assert [r for r in engine.all_rules() if r.key == "quotes.style"] == []


def test_config_file_evidence_is_confident_but_observations_alone_are_not(
    engine: LearningEngine,
) -> None:
    indent = Vote(
        key="indent.width",
        value="4",
        statement="Indent with 4 spaces.",
        category="style",
        language="python",
        kind="evidence",
        weight=2.0,
        detail=".editorconfig: indent_size = 4",
    )
    engine.record_votes([quotes("single", kind="observation")], origin="scan")
    engine.record_votes([indent], origin="scan:config")
    assert not rule(engine).confident
    assert rule(engine, "indent.width").confident
    assert rule(engine, "indent.width").evidence == ".editorconfig · 100% agree"


def test_taught_rule_is_confident_at_once_and_applies_to_every_language(
    engine: LearningEngine,
) -> None:
    taught = engine.teach_rule("Never commit directly to main.")
    assert taught.confident and taught.source == "user" and taught.language is None
    assert taught in engine.active_rules("rust")


def test_rules_are_filtered_by_language(engine: LearningEngine) -> None:
    engine.record_votes([quotes("single")], origin="save:1")
    engine.record_votes([quotes("single")], origin="save:2")
    assert [r.key for r in engine.active_rules("python")] == ["quotes.style"]
    assert engine.active_rules("go") == []


def test_forgotten_and_disabled_rules_stop_applying(engine: LearningEngine) -> None:
    taught = engine.teach_rule("Use tabs.")
    assert engine.set_rule(taught.id, active=False)
    assert engine.active_rules() == []
    assert engine.set_rule(taught.id, active=True, pinned=True)
    assert engine.active_rules()[0].pinned
    assert engine.forget_rule(taught.id)
    assert engine.all_rules() == [] and not engine.forget_rule(taught.id)


def test_denials_key_on_the_command_and_subcommand(engine: LearningEngine) -> None:
    first = engine.on_denied("run_shell", "git push --force origin main")
    assert first[0].confident and first[0].evidence == "1 denial · 100% agree"  # ask first
    denied = engine.on_denied("run_shell", "git push --force origin release")
    assert [r.key for r in denied] == ["denied.shell.git-push-force"]
    assert denied[0].confident and denied[0].category == "avoid"
    assert denied[0].evidence == "2 denials · 100% agree"
    assert "git push --force" in denied[0].statement
    assert engine.on_denied("run_shell", "git status") != denied
    assert not any(r.key == "denied.shell.git" for r in engine.all_rules())


def test_a_timeout_is_not_a_denial(engine: LearningEngine) -> None:
    assert engine.on_denied("run_shell", "npm publish", reason="timeout") == []
    assert engine.all_rules() == []


def test_the_same_tool_failing_twice_the_same_way_makes_a_workflow_pitfall(
    engine: LearningEngine,
) -> None:
    task = engine.begin_task("fix the build")
    engine.end_task(
        task.id,
        False,
        messages=[
            Message(
                "tool", "pytest", "ModuleNotFoundError: No module named 'app' at /tmp/x1", True
            ),
            Message("assistant", None, "let me retry"),
            Message(
                "tool", "pytest", "ModuleNotFoundError: No module named 'app' at /tmp/x2", True
            ),
        ],
    )
    pitfall = next(r for r in engine.all_rules() if r.key.startswith("pitfall."))
    assert pitfall.category == "workflow" and "pytest" in pitfall.key
    assert pitfall.confident


def test_export_groups_rules_by_category_with_evidence_and_reads_back(
    engine: LearningEngine, tmp_path: Path
) -> None:
    engine.record_votes([quotes("single")], origin="save:1")
    engine.record_votes([quotes("single")], origin="save:2")
    engine.teach_rule("Run the linters before pushing.")
    engine.on_denied("run_shell", "rm -rf build")
    text = engine.rules_markdown()
    assert "## Style" in text and "## Preferences" in text and "## Avoid" in text
    assert "Use single quotes for strings." in text and "2 corrections · 100% agree" in text
    assert "Do not run `rm -rf build` without asking first." in text  # one denial: ask first
    parsed = rules_module.parse_markdown(text)
    assert ("quotes.style", "single", "python", "style", "Use single quotes for strings.") in parsed


# --- a user who changes their mind ------------------------------------------------------


def vote_in_order(engine: LearningEngine, values: list[str], first_save: int = 1) -> None:
    for offset, value in enumerate(values):
        engine.record_votes([quotes(value)], origin=f"save:{first_save + offset}")


@pytest.mark.parametrize("history", [2, 6, 25])
def test_a_changed_mind_turns_the_rule_within_three_corrections_however_long_the_history(
    engine: LearningEngine, history: int
) -> None:
    vote_in_order(engine, ["single"] * history)
    assert rule(engine).confident and rule(engine).value == "single"

    engine.record_votes([quotes("double")], origin="save:100")
    assert not rule(engine).confident  # the old value stops being confident at once
    confident_after = None
    for count in range(2, 4):
        newly = engine.record_votes([quotes("double")], origin=f"save:{100 + count}")
        if rule(engine).confident:
            confident_after = count
            assert [r.key for r in newly] == ["quotes.style"]  # announced as newly learned
            break
    assert confident_after is not None and confident_after <= 3

    turned = rule(engine)
    assert turned.value == "double" and turned.statement == "Use double quotes for strings."
    # Honest counts: plain totals, and the evidence names the recent run and the totals.
    assert (turned.support, turned.against) == (float(confident_after), float(history))
    total = history + confident_after
    assert turned.evidence == (
        f"{confident_after} of the last 3 corrections · {confident_after} of {total} in all"
    )
    assert turned.strength >= 0.7
    assert len([r for r in engine.all_rules() if r.key == "quotes.style"]) == 1


def test_while_the_mind_is_changing_the_evidence_says_how_the_votes_split(
    engine: LearningEngine,
) -> None:
    vote_in_order(engine, ["single", "single", "double"])
    assert rule(engine).value == "single"  # one stray correction does not turn it
    assert rule(engine).evidence == "2 of 3 corrections"
    vote_in_order(engine, ["single", "single", "single"], first_save=4)
    steady = rule(engine)
    assert steady.confident
    assert steady.evidence == "3 of the last 3 corrections · 5 of 6 in all"


def test_a_stray_correction_pauses_a_long_held_rule_and_the_next_agreeing_one_restores_it(
    engine: LearningEngine,
) -> None:
    vote_in_order(engine, ["single"] * 8)
    engine.record_votes([quotes("double")], origin="save:50")
    paused = rule(engine)
    assert paused.value == "single" and not paused.confident
    assert paused.evidence == "2 of the last 3 corrections · 8 of 9 in all"
    engine.record_votes([quotes("single")], origin="save:51")
    assert rule(engine).confident and rule(engine).value == "single"


def test_what_the_code_looked_like_does_not_outvote_the_users_corrections(
    engine: LearningEngine,
) -> None:
    engine.record_votes([quotes("double", kind="observation", weight=1.0)], origin="scan")
    vote_in_order(engine, ["single", "single"])
    learned = rule(engine)
    assert learned.value == "single" and learned.confident
    assert learned.against == 1.0  # the observation still counts against, in the open
    assert learned.evidence == "2 corrections · 100% agree"


def test_the_rules_a_vote_updates_read_the_same_as_a_full_reload(engine: LearningEngine) -> None:
    # After each vote only the rules it touched are read again (a session of hundreds of
    # rules no longer reloads them all per vote): what the user sees must not differ.
    words = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliet",
        "kilo",
        "lima",
    ]
    for n, word in enumerate(words):
        engine.teach_rule(f"Keep the {word} module small.")
        engine.on_denied("run_shell", f"rm -rf build/{n}")
        engine.record_votes([quotes("single" if n % 3 else "double")], origin=f"save:{n}")
    seen = engine.all_rules()
    engine.rules.refresh()  # everything read again from the brain
    assert engine.all_rules() == seen
    assert [r.id for r in seen] == sorted(r.id for r in seen)
    assert len([r for r in seen if r.key.startswith("user.")]) == 12
