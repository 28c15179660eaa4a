"""Corrections and undos captured at the save, turned into house rules."""

from __future__ import annotations

from tests.lsp.session import Session

AGENT = 'def greet(name):\n    message = "hello " + name\n    return message\n'
USER = "def greet(name):\n    message = 'hello ' + name\n    return message\n"


async def agent_writes(session: Session, name: str, text: str = AGENT) -> None:
    (session.workspace / name).write_text(text)
    await session.command("comodor.agentEdit", {"uri": session.uri(name), "text": text})
    session.open(name, text)


async def test_one_correction_is_counted_but_teaches_no_confident_rule(session: Session) -> None:
    await agent_writes(session, "a.py")
    session.save("a.py", USER)
    events = await session.wait_memory("correction")
    assert events[0]["uri"] == session.uri("a.py") and events[0]["ruleKeys"] == ["quotes.style"]
    rules = (await session.command("comodor.rules"))["rules"]
    assert [(r["key"], r["value"], r["confident"]) for r in rules] == [
        ("quotes.style", "single", False)
    ]
    assert not [event for event in session.memory if event["action"] == "rule"]


async def test_the_same_correction_in_two_files_learns_the_rule_and_announces_it(
    session: Session,
) -> None:
    for name in ("a.py", "b.py"):
        await agent_writes(session, name)
        session.save(name, USER)
    announced = await session.wait_memory("rule")
    rule = announced[0]["items"][0]
    assert rule["key"] == "quotes.style" and rule["confident"] and rule["language"] == "python"
    assert rule["evidence"] == "2 corrections · 100% agree"
    playbook = await session.command("comodor.playbook", {"query": "write a function"})
    assert "Use single quotes" in playbook["text"]
    stats = await session.command("comodor.stats")
    assert (stats["agentWrites"], stats["corrections"], stats["confidentRules"]) == (2, 2, 1)


async def test_saving_the_agents_text_unchanged_is_no_correction(session: Session) -> None:
    await agent_writes(session, "a.py")
    session.save("a.py", AGENT)
    await session.settle()
    assert (await session.command("comodor.stats"))["corrections"] == 0


async def test_restoring_the_text_from_before_the_agent_is_an_undo(session: Session) -> None:
    original = "def greet(name):\n    return 'hi ' + name\n"
    (session.workspace / "a.py").write_text(original)
    session.open("a.py", original)
    await agent_writes(session, "a.py")
    session.save("a.py", original)
    await session.wait_memory("undo")
    stats = await session.command("comodor.stats")
    assert (stats["undos"], stats["corrections"]) == (1, 0)


async def test_a_logic_rewrite_is_a_correction_that_teaches_nothing(session: Session) -> None:
    await agent_writes(session, "a.py")
    session.save(
        "a.py", 'def greet(name):\n    message = "bye " + name.title()\n    return message\n'
    )
    events = await session.wait_memory("correction")
    assert events[0]["ruleKeys"] == []
    assert (await session.command("comodor.rules"))["rules"] == []


async def test_each_correction_counts_once_across_saves(session: Session) -> None:
    await agent_writes(session, "a.py")
    session.save("a.py", USER)
    session.save("a.py", USER)  # saved again without changes
    await session.wait_memory("correction")
    await session.settle()
    assert (await session.command("comodor.stats"))["corrections"] == 1


async def test_corrections_are_counted_in_the_task_that_wrote_the_file(session: Session) -> None:
    task = await session.command("comodor.beginTask", {"goal": "add a greeting"})
    await agent_writes(session, "a.py")
    await session.command("comodor.endTask", {"taskId": task["taskId"], "success": True})
    session.save("a.py", USER)
    await session.wait_memory("correction")
    progress = await session.command("comodor.progress")
    corrections = next(s for s in progress["series"] if s["key"] == "corrections")
    assert corrections["values"] == [1.0]
