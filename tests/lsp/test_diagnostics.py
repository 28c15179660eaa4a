"""House rules in the editor: diagnostics, quick fixes, fix-all, "Not here", taught rules."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import initialize_params
from tests.lsp.session import SERVER, Session, apply_edits, edits_of, make_client
from tests.lsp.test_hover import learn_single_quotes

NEW_FILE = (
    "import os\n"
    "\n"
    "\n"
    "def describe(path):\n"
    '    """Say what the file is, in a sentence."""\n'
    '    name = os.path.basename(path)  # e.g. "report.txt"\n'
    "    kind = 'file' if os.path.isfile(path) else \"folder\"\n"
    '    return f"{name} is a {kind}"\n'
    "\n"
    "\n"
    'GREETING = "hello"\n'
)
"""A new file that breaks single quotes on lines 6, 7 (an f-string is a string too) and
10, and has double quotes nobody may touch: the docstring, the comment."""


def flagged_lines(diagnostics: list[types.Diagnostic]) -> list[int]:
    return sorted({d.range.start.line for d in diagnostics})


def ours(diagnostics: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.source == "comodor"]


async def learned_quotes(session: Session) -> dict[str, Any]:
    await learn_single_quotes(session)
    rules = (await session.command("comodor.rules", {"includeUnconfident": False}))["rules"]
    return next(rule for rule in rules if rule["key"] == "quotes.style")


async def test_a_learned_quotes_rule_flags_exactly_the_breaking_lines_of_a_new_file(
    session: Session,
) -> None:
    rule = await learned_quotes(session)
    session.open("c.py", NEW_FILE)
    diagnostics = await session.wait_diagnostics("c.py", lambda d: len(d) > 0)
    assert flagged_lines(diagnostics) == [6, 7, 10]
    first = diagnostics[0]
    assert first.source == "comodor" and first.code == "quotes.style"
    assert first.message.startswith("Use single quotes for strings.")
    assert "2 corrections · 100% agree" in first.message
    assert first.severity == types.DiagnosticSeverity.Information
    assert first.data["ruleId"] == rule["id"]  # type: ignore[index]
    line_six = [d for d in diagnostics if d.range.start.line == 6]
    column = NEW_FILE.splitlines()[6].index('"folder"')
    assert [(d.range.start.character, d.range.end.character) for d in line_six] == [
        (column, column + len('"folder"'))
    ]


@pytest.mark.every_client  # code actions and their edits depend on the client
async def test_the_quick_fix_mends_only_its_place(session: Session) -> None:
    await learned_quotes(session)
    session.open("c.py", NEW_FILE)
    diagnostics = await session.wait_diagnostics("c.py", lambda d: len(d) == 3)
    target = next(d for d in diagnostics if d.range.start.line == 10)
    actions = await session.code_actions("c.py", [target])
    fix = next(a for a in actions if a.is_preferred)
    assert fix.kind == types.CodeActionKind.QuickFix and fix.title == "Use single quotes"
    fixed = apply_edits(NEW_FILE, edits_of(fix.edit))
    assert fixed == NEW_FILE.replace('GREETING = "hello"', "GREETING = 'hello'")
    titles = [a.title for a in actions]
    assert "Not here: this rule does not apply at this place" in titles
    assert "Forget this house rule" in titles
    session.replace_all("c.py", fixed)
    remaining = await session.wait_diagnostics("c.py", lambda d: len(d) == 2)
    assert flagged_lines(remaining) == [6, 7]


@pytest.mark.every_client  # code actions and their edits depend on the client
async def test_fix_all_mends_the_file_and_the_diagnostics_clear(session: Session) -> None:
    await learned_quotes(session)
    session.open("c.py", NEW_FILE)
    await session.wait_diagnostics("c.py", lambda d: len(d) == 3)
    actions = await session.code_actions("c.py", [], only=["source.fixAll.comodor"])
    assert [a.kind for a in actions] == ["source.fixAll.comodor"]
    fixed = apply_edits(NEW_FILE, edits_of(actions[0].edit))
    assert '"folder"' not in fixed and "'folder'" in fixed and "GREETING = 'hello'" in fixed
    assert '"""Say what the file is, in a sentence."""' in fixed  # the docstring stays
    assert '# e.g. "report.txt"' in fixed  # and so does the comment
    session.replace_all("c.py", fixed)
    assert await session.wait_diagnostics("c.py", lambda d: len(d) == 0) == []


async def test_a_source_fix_all_request_from_an_editor_finds_ours(session: Session) -> None:
    await learned_quotes(session)
    session.open("c.py", NEW_FILE)
    await session.wait_diagnostics("c.py", lambda d: len(d) == 3)
    # VS Code asks for the parent kind when a user runs "Fix All" (source.fixAll)
    actions = await session.code_actions("c.py", [], only=["source.fixAll"])
    assert [a.title for a in actions] == ["Fix all Comodor issues"]
    assert await session.code_actions("c.py", [], only=["refactor"]) == []


@pytest.mark.parametrize(
    ("statement", "name", "language", "text", "line"),
    [
        (
            "Use single quotes for strings.",
            "a.py",
            "python",
            "x = 'ok'\ny = \"no\"\n",
            1,
        ),
        (
            "Indent with tabs.",
            "b.py",
            "python",
            "def f():\n\treturn 1\n\n\ndef g():\n    return 2\n",
            5,
        ),
        (
            "No semicolons.",
            "c.js",
            "javascript",
            "const a = 1\nconst b = 2;\nconsole.log(a + b)\n",
            1,
        ),
    ],
)
async def test_a_rule_taught_in_words_is_diagnosed(
    session: Session, statement: str, name: str, language: str, text: str, line: int
) -> None:
    rule = (await session.command("comodor.teachRule", {"statement": statement}))["rule"]
    assert rule["source"] == "user" and not rule["key"].startswith("user.")
    session.open(name, text, language=language)
    diagnostics = await session.wait_diagnostics(name, lambda d: len(d) > 0)
    assert flagged_lines(diagnostics) == [line]
    assert diagnostics[0].message.startswith(statement)
    assert diagnostics[0].code == rule["key"]


async def test_a_document_that_follows_every_rule_gets_an_empty_list(session: Session) -> None:
    await session.command("comodor.teachRule", {"statement": "Use single quotes for strings."})
    session.open("fine.py", "x = 'ok'\n")
    assert await session.wait_diagnostics("fine.py") == []


async def test_forgetting_the_rule_clears_its_diagnostics(session: Session) -> None:
    rule = (
        await session.command("comodor.teachRule", {"statement": "Use single quotes for strings."})
    )["rule"]
    session.open("a.py", 'x = "no"\n')
    diagnostics = await session.wait_diagnostics("a.py", lambda d: len(d) == 1)
    actions = await session.code_actions("a.py", diagnostics)
    forget = next(a for a in actions if a.title == "Forget this house rule")
    assert forget.command is not None
    assert list(forget.command.arguments or []) == [{"id": rule["id"]}]
    await session.command(forget.command.command, forget.command.arguments[0])
    assert await session.wait_diagnostics("a.py", lambda d: len(d) == 0) == []


async def test_not_here_is_a_vote_against_the_rule_and_hides_that_place(session: Session) -> None:
    await learned_quotes(session)
    session.open("c.py", NEW_FILE)
    diagnostics = await session.wait_diagnostics("c.py", lambda d: len(d) == 3)
    target = next(d for d in diagnostics if d.range.start.line == 10)
    actions = await session.code_actions("c.py", [target])
    not_here = next(a for a in actions if a.title.startswith("Not here"))
    assert not_here.command is not None and not_here.command.arguments is not None
    result = await session.command(not_here.command.command, not_here.command.arguments[0])
    assert result["rule"]["against"] == 0.5 and result["rule"]["confident"]
    assert "1 exception" in result["rule"]["evidence"]
    remaining = await session.wait_diagnostics("c.py", lambda d: len(d) == 2)
    assert flagged_lines(remaining) == [6, 7]


@pytest.mark.every_client  # code actions and their edits depend on the client
async def test_a_fix_applied_to_an_agent_written_file_counts_as_one_correction(
    session: Session,
) -> None:
    await learned_quotes(session)
    agent_text = 'title = "report"\nformat = "csv"\n'
    (session.workspace / "d.py").write_text(agent_text)
    await session.command("comodor.agentEdit", {"uri": session.uri("d.py"), "text": agent_text})
    session.open("d.py", agent_text)
    await session.wait_diagnostics("d.py", lambda d: len(d) == 2)
    actions = await session.code_actions("d.py", [], only=["source.fixAll.comodor"])
    fixed = apply_edits(agent_text, edits_of(actions[0].edit))
    session.replace_all("d.py", fixed)
    session.save("d.py", fixed)
    await session.wait_memory("correction", count=3)
    await session.wait_diagnostics("d.py", lambda d: len(d) == 0)
    rules = (await session.command("comodor.rules"))["rules"]
    quotes = next(rule for rule in rules if rule["key"] == "quotes.style")
    assert (quotes["support"], quotes["against"]) == (3.0, 0.0)
    assert quotes["evidence"] == "3 corrections · 100% agree"
    assert (await session.command("comodor.stats"))["corrections"] == 3


async def test_a_client_without_the_memory_capability_is_told_in_words(session: Session) -> None:
    await learn_single_quotes(session)
    await session.settle()
    shown = [m.message for m in session.client.messages if m.type == types.MessageType.Info]
    assert any(
        "Comodor learned a house rule: Use single quotes for strings." in m for m in shown
    ), shown


# --- clients with other settings and capabilities ----------------------------------------


def _config() -> ClientServerConfig:
    return ClientServerConfig(server_command=SERVER, client_factory=make_client)


@pytest_lsp.fixture(config=_config())
async def quiet_client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    options = {"learning": {"prefetchDelayMs": 50}, "diagnostics": {"severity": "off"}}
    await lsp_client.initialize_session(initialize_params("neovim", workspace, options))
    yield
    await lsp_client.shutdown_session()


async def test_severity_off_publishes_nothing(
    quiet_client: LanguageClient, workspace: Path
) -> None:
    session = Session(quiet_client, workspace)
    await session.command("comodor.teachRule", {"statement": "Use single quotes for strings."})
    session.open("a.py", 'x = "no"\n')
    session.replace_all("a.py", 'x = "no"\ny = "again"\n')
    await session.settle()
    await session.hover("a.py")  # a round trip after the change's delay has passed
    await session.command("comodor.teachRule", {"statement": "Indent with tabs."})
    await session.settle()
    assert session.uri("a.py") not in quiet_client.diagnostics


@pytest_lsp.fixture(config=_config())
async def vscode_like_client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    params = initialize_params("vscode", workspace)
    params.capabilities.experimental = {"comodorMemory": True}
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


async def test_a_client_that_shows_memory_itself_gets_no_extra_message(
    vscode_like_client: LanguageClient, workspace: Path
) -> None:
    session = Session(vscode_like_client, workspace)
    await learn_single_quotes(session)
    await session.settle()
    assert not [m for m in vscode_like_client.messages if "house rule" in m.message]


@pytest.mark.every_client  # code actions and their edits depend on the client
async def test_a_fix_all_offered_in_a_menu_is_worked_out_when_chosen(session: Session) -> None:
    await learned_quotes(session)
    session.open("c.py", NEW_FILE)
    diagnostics = await session.wait_diagnostics("c.py", lambda d: len(d) == 3)
    actions = await session.code_actions("c.py", [diagnostics[0]])  # a menu: no `only`
    offered = next(a for a in actions if a.title == "Fix all Comodor issues in this file")
    if offered.edit is None:  # this client resolves code actions: the edit comes when chosen
        offered = await session.client.code_action_resolve_async(offered)
    fixed = apply_edits(NEW_FILE, edits_of(offered.edit))
    assert '"folder"' not in fixed and "GREETING = 'hello'" in fixed
