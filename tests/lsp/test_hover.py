"""Hover shows the house rules that apply to the document, with their evidence."""

from __future__ import annotations

import pytest

from tests.lsp.session import Session

AGENT_TEXT = 'name = "comodor"\ngreeting = "hello"\n'
USER_TEXT = "name = 'comodor'\ngreeting = 'hello'\n"


async def learn_single_quotes(session: Session) -> None:
    for name in ("a.py", "b.py"):
        (session.workspace / name).write_text(AGENT_TEXT)
        await session.command("comodor.agentEdit", {"uri": session.uri(name)})
        session.open(name)
        session.save(name, USER_TEXT)
    await session.wait_memory("rule")


async def test_nothing_to_show_is_null(session: Session) -> None:
    (session.workspace / "a.py").write_text("x = 1\n")
    session.open("a.py")
    assert await session.hover("a.py") is None


async def test_hover_lists_taught_rule_with_its_evidence(session: Session) -> None:
    await session.command("comodor.teachRule", {"statement": "Never commit to main."})
    session.open("notes.md", "# notes\n", language="markdown")
    hover = await session.hover("notes.md")
    assert hover is not None
    text = hover.contents.value  # type: ignore[union-attr]
    assert text.startswith("**House rules**")
    assert "Never commit to main. — *taught by you*" in text


async def test_learned_rule_shows_counted_evidence_only_for_its_language(session: Session) -> None:
    await learn_single_quotes(session)
    session.open("c.py", "x = 1\n")
    hover = await session.hover("c.py")
    assert hover is not None
    assert "2 corrections · 100% agree" in hover.contents.value  # type: ignore[union-attr]
    session.open("main.go", "package main\n", language="go")
    assert await session.hover("main.go") is None


@pytest.mark.every_client  # links are for clients that render them; the rest reads the same
async def test_command_links_only_for_clients_that_render_them(session: Session) -> None:
    rule = (await session.command("comodor.teachRule", {"statement": "Use tabs."}))["rule"]
    session.open("a.py", "x = 1\n")
    hover = await session.hover("a.py")
    assert hover is not None
    text = hover.contents.value  # type: ignore[union-attr]
    if session.kind == "vscode":
        assert f"command:comodor.forgetRule?%5B%7B%22id%22%3A%20{rule['id']}%7D%5D" in text
        assert "command:comodor.setRule" in text
        assert "Use tabs. — *taught by you* · [Forget](command:" in text
    else:
        assert "command:" not in text
