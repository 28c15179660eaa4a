"""Every command of the protocol through a real server process, checked against schemas/."""

from __future__ import annotations

from tests.lsp.session import Session


async def test_every_spec_command_is_advertised(session: Session) -> None:
    result = session.client.init_result.capabilities  # type: ignore[attr-defined]
    assert result.execute_command_provider is not None
    advertised = set(result.execute_command_provider.commands)
    expected = {
        "comodor.teach",
        "comodor.teachRule",
        "comodor.forget",
        "comodor.forgetRule",
        "comodor.pin",
        "comodor.setRule",
        "comodor.lessons",
        "comodor.rules",
        "comodor.playbook",
        "comodor.beginTask",
        "comodor.endTask",
        "comodor.feedback",
        "comodor.denied",
        "comodor.agentEdit",
        "comodor.undo",
        "comodor.exportRules",
        "comodor.progress",
        "comodor.progressChart",
        "comodor.stats",
        "comodor.consolidate",
    }
    assert expected <= advertised


async def test_taught_lesson_is_listed_recalled_pinned_and_forgotten(session: Session) -> None:
    taught = await session.command("comodor.teach", {"text": "running tests: use pytest -x"})
    lesson = taught["lesson"]
    assert (lesson["trigger"], lesson["guidance"], lesson["pinned"]) == (
        "running tests",
        "use pytest -x",
        True,
    )
    assert lesson["confidence"] == 1.0 and lesson["source"] == "user"
    listed = await session.command("comodor.lessons", {"query": "pytest"})
    assert [item["id"] for item in listed["lessons"]] == [lesson["id"]]
    playbook = await session.command("comodor.playbook", {"query": "running tests"})
    assert "- (preference, 100%) When running tests: use pytest -x" in playbook["text"]
    assert playbook["prefetched"] is False and playbook["tokens"] > 0
    assert await session.command("comodor.pin", {"id": lesson["id"], "pinned": False}) == {
        "ok": True
    }
    assert await session.command("comodor.forget", {"id": lesson["id"]}) == {"removed": True}
    assert await session.command("comodor.forget", {"id": lesson["id"]}) == {"removed": False}
    assert (await session.command("comodor.lessons"))["lessons"] == []
    actions = [event["action"] for event in session.memory]
    assert "taught" in actions and "forgot" in actions


async def test_a_forgotten_id_is_never_given_to_the_next_lesson_or_rule(session: Session) -> None:
    """Protocol v1.2: a stale ``forget`` of an old id (another window's list) must miss."""
    first = (await session.command("comodor.teach", {"text": "testing: use pytest -q"}))["lesson"]
    gone = (await session.command("comodor.teach", {"text": "formatting: run ruff"}))["lesson"]
    assert (await session.command("comodor.forget", {"id": gone["id"]}))["removed"]
    again = (await session.command("comodor.teach", {"text": "releasing: tag it"}))["lesson"]
    assert again["id"] > gone["id"] > first["id"]
    assert await session.command("comodor.forget", {"id": gone["id"]}) == {"removed": False}

    old_rule = (await session.command("comodor.teachRule", {"statement": "Use tabs."}))["rule"]
    assert (await session.command("comodor.forgetRule", {"id": old_rule["id"]}))["removed"]
    rule = await session.command("comodor.teachRule", {"statement": "Never push to main."})
    assert rule["rule"]["id"] > old_rule["id"]


async def test_taught_rule_is_confident_and_can_be_disabled_and_forgotten(session: Session) -> None:
    rule = (await session.command("comodor.teachRule", {"statement": "Use tabs."}))["rule"]
    assert rule["confident"] and rule["source"] == "user" and rule["language"] is None
    assert (await session.command("comodor.setRule", {"id": rule["id"], "active": False}))["ok"]
    rules = (await session.command("comodor.rules", {"includeUnconfident": False}))["rules"]
    assert [r["active"] for r in rules] == [False]
    assert (await session.command("comodor.forgetRule", {"id": rule["id"]}))["removed"]
    assert (await session.command("comodor.rules"))["rules"] == []


async def test_teaching_a_rule_announces_it_once(session: Session) -> None:
    await session.command("comodor.teachRule", {"statement": "Use tabs."})
    await session.command("comodor.teachRule", {"statement": "Use tabs."})  # already confident
    await session.command("comodor.stats")  # notifications sent before this answer have arrived
    announced = [event for event in session.memory if event["action"] == "rule"]
    assert len(announced) == 2, announced  # one per teach, not two for the first


async def test_a_task_recalls_credits_and_shows_in_progress(session: Session) -> None:
    await session.command(
        "comodor.teach", {"text": "migrations: run alembic upgrade head", "pinned": False}
    )
    begun = await session.command("comodor.beginTask", {"goal": "write a migration"})
    assert [lesson["trigger"] for lesson in begun["lessons"]] == ["migrations"]
    ended = await session.command(
        "comodor.endTask",
        {
            "taskId": begun["taskId"],
            "success": True,
            "steps": 3,
            "approvals": 1,
            "tokens": 900,
            "messages": [{"role": "tool", "name": "pytest", "content": "ok"}],
        },
    )
    assert ended["episodeId"] == begun["taskId"]
    lessons = (await session.command("comodor.lessons"))["lessons"]
    assert (lessons[0]["wins"], lessons[0]["uses"]) == (1, 1)
    progress = await session.command("comodor.progress")
    assert progress["episodes"] == 1 and progress["enoughData"] is False
    assert progress["headline"].startswith(
        "Not enough tasks yet: 1 task recorded, 7 more could settle it"
    )
    stats = await session.command("comodor.stats")
    assert stats["episodes"] == 1 and stats["lessons"] == 1
    assert stats["scope"].startswith("project:")
    feedback = await session.command("comodor.feedback", {"good": False, "note": "meh"})
    assert feedback == {"credited": 1}


async def test_denials_of_the_same_command_become_one_avoid_rule(session: Session) -> None:
    first = await session.command(
        "comodor.denied", {"tool": "run_shell", "subject": "git push --force origin main"}
    )
    assert [rule["confident"] for rule in first["rules"]] == [True]  # one denial: ask first
    second = await session.command(
        "comodor.denied", {"tool": "run_shell", "subject": "git push --force origin dev"}
    )
    [rule] = second["rules"]
    assert rule["key"] == "denied.shell.git-push-force" and rule["confident"]
    assert rule["category"] == "avoid" and rule["id"] == first["rules"][0]["id"]


async def test_export_writes_inside_the_workspace_and_refuses_outside(session: Session) -> None:
    await session.command("comodor.teachRule", {"statement": "Run ruff before committing."})
    exported = await session.command("comodor.exportRules")
    path = session.workspace / ".comodor" / "house-rules.md"
    assert exported == {"path": str(path)}
    assert "Run ruff before committing." in path.read_text()
    error = await session.command_error("comodor.exportRules", [{"path": "/tmp/elsewhere.md"}])
    assert error.code == -32602 and "outside the workspace" in str(error)
    (session.workspace / "escape").symlink_to("/tmp")
    error = await session.command_error("comodor.exportRules", [{"path": "escape/rules.md"}])
    assert "outside the workspace" in str(error)


async def test_consolidate_reports_what_it_removed(session: Session) -> None:
    assert await session.command("comodor.consolidate") == {"removed": 0, "merged": 0, "merges": []}


async def test_agent_edit_and_undo_are_counted(session: Session) -> None:
    target = session.workspace / "a.py"
    target.write_text('x = "1"\n')
    assert await session.command("comodor.agentEdit", {"uri": session.uri("a.py")}) == {"ok": True}
    assert await session.command("comodor.undo", {"uris": [session.uri("a.py")]}) == {"undone": 1}
    stats = await session.command("comodor.stats")
    assert (stats["agentWrites"], stats["undos"]) == (1, 1)
    await session.wait_memory("undo")
    assert session.memory[-1]["uri"] == session.uri("a.py")


async def test_agent_tools_run_through_the_editor_as_over_mcp(session: Session) -> None:
    """VS Code's agent mode runs the MCP tool table through ``comodor.tool``: same words."""
    begun = await session.command(
        "comodor.tool", {"name": "comodor_begin_task", "arguments": {"goal": "add a parser"}}
    )
    assert not begun["isError"] and begun["text"].startswith("taskId: ")
    task_id = begun["data"]["taskId"]
    ended = await session.command(
        "comodor.tool",
        {"name": "comodor_end_task", "arguments": {"taskId": task_id, "success": True}},
    )
    assert not ended["isError"] and ended["data"] == {"episodeId": task_id}
    wrong = await session.command(
        "comodor.tool", {"name": "comodor_teach", "arguments": {"text": ""}}
    )
    assert wrong["isError"] and "`text`" in wrong["text"]
    unknown = await session.command("comodor.tool", {"name": "comodor_nope"})
    assert unknown["isError"] and "no tool" in unknown["text"]
