"""Denials through the protocol: one "no" makes an ask-first rule about what was refused."""

from __future__ import annotations

from typing import Any

from tests.lsp.session import Session


async def deny(session: Session, tool: str, subject: str) -> list[dict[str, Any]]:
    result = await session.command("comodor.denied", {"tool": tool, "subject": subject})
    rules: list[dict[str, Any]] = result["rules"]
    return rules


async def test_one_denial_is_a_confident_ask_first_rule_in_the_playbook(
    session: Session,
) -> None:
    [rule] = await deny(session, "run_shell", "cd src && git reset --hard HEAD~1")
    assert rule["confident"] and rule["category"] == "avoid"
    assert rule["statement"] == "Do not run `git reset --hard` without asking first."
    assert rule["evidence"] == "1 denial · 100% agree"
    announced = await session.wait_memory("rule")
    assert announced[0]["items"][0]["id"] == rule["id"]
    playbook = await session.command("comodor.playbook", {"query": "clean up the branch"})
    assert "Do not run `git reset --hard` without asking first." in playbook["text"]
    assert "cd src --hard" not in playbook["text"]


async def test_a_denied_command_is_quoted_as_typed(session: Session) -> None:
    [rule] = await deny(session, "run_shell", "rm -rf build")
    assert rule["statement"] == "Do not run `rm -rf build` without asking first."


async def test_force_pushes_however_spelled_are_one_rule(session: Session) -> None:
    [short] = await deny(session, "run_shell", "git push -f")
    [long] = await deny(session, "run_shell", "git push --force origin main")
    assert short["id"] == long["id"] and long["key"] == "denied.shell.git-push-force"
    assert long["evidence"] == "2 denials · 100% agree"
    rules = (await session.command("comodor.rules"))["rules"]
    assert [r["key"] for r in rules] == ["denied.shell.git-push-force"]


async def test_two_pages_of_one_site_are_one_rule(session: Session) -> None:
    [first] = await deny(session, "WebFetch", "https://docs.example.com/guide/intro")
    [second] = await deny(session, "fetch_webpage", "https://docs.example.com/api/v2?x=1")
    [third] = await deny(session, "run_shell", "curl -s https://docs.example.com/install.sh")
    assert first["id"] == second["id"] == third["id"]
    assert third["statement"] == (
        "Do not fetch anything from `docs.example.com` without asking first."
    )
    [other] = await deny(session, "WebFetch", "https://example.org/")
    assert other["id"] != first["id"]


async def test_a_denied_file_edit_names_the_file(session: Session) -> None:
    [rule] = await deny(session, "Write", "config/prod.yaml")
    assert rule["statement"] == "Do not change `config/prod.yaml` without asking first."
    [again] = await deny(session, "Edit", '{"file_path": "config/prod.yaml"}')
    assert again["id"] == rule["id"]
