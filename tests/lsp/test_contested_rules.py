"""Corrections that disagree make a contested rule: shown with both sides, never enforced.

Through a real server: the user corrects the agent one way twice, then the other
way twice (or three times, then twice). The rule is listed as contested with both
sides' evidence (hover says so beside a confident rule), but no document gets a
diagnostic for it and no playbook carries it. A third consistent correction turns it: confident,
diagnosed, in the playbook.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.lsp.session import Session
from tests.support.corrections import CORRECTION

# (dimension, old value, new value, file suffix, a document that breaks the new value)
DIMENSIONS = [
    ("quotes.style", "single", "double", ".py", "z = 'c'\nw = 'd'\n"),
    ("js.semicolons", "always", "never", ".ts", "const c = 3;\nconst d = 4;\n"),
    ("indent.style", "spaces", "tabs", ".py", "def g(y):\n    return y\n"),
]
STATEMENTS = {
    "quotes.style": ("Use single quotes", "Use double quotes"),
    "js.semicolons": ("End statements with semicolons", "Do not end statements"),
    "indent.style": ("Indent with spaces", "Indent with tabs"),
}


async def correct(session: Session, key: str, values: list[str], suffix: str, first: int) -> None:
    """One correction per value, each in a new file the agent wrote, oldest first."""
    for number, value in enumerate(values, start=first):
        name = f"f{number}{suffix}"
        agent, user = CORRECTION[(key, value)]
        (session.workspace / name).write_text(agent)
        await session.command("comodor.agentEdit", {"uri": session.uri(name), "text": agent})
        session.open(name, agent)
        session.save(name, user)
        await session.wait_memory("correction", count=number)


async def the_rule(session: Session, key: str) -> dict[str, Any]:
    return next(rule for rule in await session.rules() if rule["key"] == key)


async def diagnosed(session: Session, name: str, text: str, key: str) -> list[Any]:
    session.open(name, text)
    published = await session.wait_diagnostics(name)
    return [d for d in published if d.code == key]


@pytest.mark.parametrize(("key", "old", "new", "suffix", "breaking"), DIMENSIONS)
async def test_two_against_two_is_contested_and_a_third_turns_it(
    session: Session, key: str, old: str, new: str, suffix: str, breaking: str
) -> None:
    await correct(session, key, [old, old, new, new], suffix, first=1)
    rule = await the_rule(session, key)
    assert (rule["value"], rule["confident"], rule["contested"]) == (new, False, True)
    assert rule["opposition"] == f"2 corrections for {old}"
    assert await diagnosed(session, f"check1{suffix}", breaking, key) == []
    # Hover is null without a confident rule (the protocol); beside one, it says why
    # this rule is not enforced. (Tabs against spaces has taught a confident width.)
    if not any(other["confident"] for other in await session.rules()):
        assert await session.hover_text(f"check1{suffix}") == "(no hover)"
    await session.command("comodor.teachRule", {"statement": "Name tests after behaviour"})
    hover = await session.hover_text(f"check1{suffix}")
    assert "Name tests after behaviour" in hover
    assert "contested, not enforced" in hover and f"against: 2 corrections for {old}" in hover
    playbook = (await session.command("comodor.playbook", {"query": "write a function"}))["text"]
    assert not any(statement in playbook for statement in STATEMENTS[key])

    await correct(session, key, [new], suffix, first=5)
    rule = await the_rule(session, key)
    assert (rule["value"], rule["confident"], rule["contested"]) == (new, True, False)
    assert await diagnosed(session, f"check2{suffix}", breaking, key) != []
    playbook = (await session.command("comodor.playbook", {"query": "write a function"}))["text"]
    assert STATEMENTS[key][1] in playbook


async def test_a_lead_of_one_correction_is_contested_too(session: Session) -> None:
    await correct(session, "quotes.style", ["single"] * 3 + ["double"] * 2, ".py", first=1)
    rule = await the_rule(session, "quotes.style")
    assert (rule["value"], rule["confident"], rule["contested"]) == ("double", False, True)
    assert rule["opposition"] == "3 corrections for single"
    assert await diagnosed(session, "check.py", "z = 'c'\n", "quotes.style") == []
    assert await diagnosed(session, "check2.py", 'z = "c"\n', "quotes.style") == []
