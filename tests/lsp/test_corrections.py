"""Corrections and undos captured at the save, turned into house rules."""

from __future__ import annotations

from typing import Any

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


# --- what a correction teaches, on real files through the real server ------------------

SERVICE = (
    "import json\n\n\n"
    "def save_report(path, rows, lock):\n"
    "    header = rows[0]\n"
    "    body = rows[1:]\n"
    '    total = sum(row["size"] for row in body)\n'
    "    if total > 1000:\n"
    '        header["large"] = True\n'
    '    payload = {"header": header, "rows": body}\n'
    "    text = json.dumps(payload, indent=2)\n"
    "    size = len(text)\n"
    '    handle = open(path, "w")\n'
    "    handle.write(text)\n"
    "    handle.close()\n"
    "    return size\n"
)


def wrapped_in_with(text: str) -> str:
    lines = text.splitlines()
    body = [("    " + line) for line in lines[4:15]]
    return "\n".join([*lines[:4], "    with lock:", *body, *lines[15:]]) + "\n"


def two_space(text: str) -> str:
    return "".join(
        " " * ((len(line) - len(line.lstrip(" "))) // 2) + line.lstrip(" ") + "\n"
        for line in text.splitlines()
    )


async def learned(session: Session) -> list[dict[str, Any]]:
    """Rules learned from corrections (the startup scan may also observe the files)."""
    rules = (await session.command("comodor.rules"))["rules"]
    return [rule for rule in rules if rule["source"] == "correction"]


async def correct(session: Session, names: list[str], agent: str, user: str) -> None:
    seen = len([e for e in session.memory if e["action"] == "correction"])
    for name in names:
        await agent_writes(session, name, agent)
        session.save(name, user)
    await session.wait_memory("correction", count=seen + len(names))


async def test_wrapping_ten_lines_in_a_new_with_block_teaches_no_indentation(
    session: Session,
) -> None:
    after = wrapped_in_with(SERVICE)
    assert sum(1 for line in after.splitlines() if line.startswith("        ")) >= 10
    await correct(session, ["report.py", "export.py"], SERVICE, after)
    events = [e for e in session.memory if e["action"] == "correction"]
    assert [e["ruleKeys"] for e in events] == [[], []]
    assert await learned(session) == []
    stats = await session.command("comodor.stats")
    assert (stats["corrections"], stats["confidentRules"]) == (2, 0)


async def test_re_indenting_two_space_files_to_four_learns_indent_by_four(
    session: Session,
) -> None:
    await correct(session, ["report.py", "export.py"], two_space(SERVICE), SERVICE)
    rules = await learned(session)
    assert [(r["key"], r["value"], r["confident"]) for r in rules] == [("indent.width", "4", True)]
    assert rules[0]["statement"] == "Indent by 4 spaces per level."
    assert "from 2 to 4 spaces per level" in rules[0]["detail"]


async def test_import_style_is_learned_after_two_corrections(session: Session) -> None:
    agent = (
        "import os\n\n\ndef locate(root, name):\n"
        "    candidate = os.path.join(root, name)\n"
        "    return candidate if os.path.exists(candidate) else None\n"
    )
    user = agent.replace("import os\n", "from os import path\n").replace("os.path.", "path.")
    await correct(session, ["a.py"], agent, user)
    assert [r["confident"] for r in await learned(session)] == [False]
    await correct(session, ["b.py"], agent, user)
    (rule,) = await learned(session)
    assert (rule["key"], rule["value"], rule["confident"]) == ("python.import_style", "from", True)
    assert rule["evidence"] == "2 corrections · 100% agree"
    playbook = await session.command("comodor.playbook", {"query": "add a helper"})
    assert "Import names from modules" in playbook["text"]


async def test_variable_and_class_names_are_learned_after_two_corrections(
    session: Session,
) -> None:
    agent = (
        "class order_book:\n    pass\n\n\n"
        "def summary(orders):\n"
        "    openOrders = [o for o in orders if o.open]\n"
        "    book = order_book()\n"
        "    return len(openOrders), book\n"
    )
    user = agent.replace("order_book", "OrderBook").replace("openOrders", "open_orders")
    await correct(session, ["a.py", "b.py"], agent, user)
    rules = {r["key"]: r for r in await learned(session)}
    assert set(rules) == {"naming.classes", "naming.variables"}
    assert (rules["naming.classes"]["value"], rules["naming.classes"]["confident"]) == (
        "PascalCase",
        True,
    )
    assert (rules["naming.variables"]["value"], rules["naming.variables"]["confident"]) == (
        "snake_case",
        True,
    )


async def test_a_changed_mind_turns_the_rule_within_three_corrections_with_honest_evidence(
    session: Session,
) -> None:
    await correct(session, ["s1.py", "s2.py", "s3.py"], AGENT, USER)  # single quotes, 3 times
    (held,) = await learned(session)
    assert (held["value"], held["confident"]) == ("single", True)

    announced_before = len([e for e in session.memory if e["action"] == "rule"])
    turned_after = None
    for count in range(1, 4):  # now the user wants double quotes
        await correct(session, [f"d{count}.py"], USER, AGENT)
        (rule,) = await learned(session)
        if count == 1:
            assert not rule["confident"]  # the old value stops at the first contrary one
        if rule["value"] == "double" and rule["confident"]:
            turned_after = count
            break
    assert turned_after is not None and turned_after <= 3
    assert rule["statement"] == "Use double quotes for strings."
    assert (rule["support"], rule["against"]) == (float(turned_after), 3.0)
    assert rule["evidence"] == (
        f"{turned_after} of the last 3 corrections · {turned_after} of {3 + turned_after} in all"
    )
    announced = await session.wait_memory("rule", count=announced_before + 1)
    assert announced[-1]["items"][0]["value"] == "double"
