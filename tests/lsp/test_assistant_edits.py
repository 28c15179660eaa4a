"""Edits an assistant makes inside the editor (``comodor/assistantEdit``, protocol v1.2).

A chat edit or an accepted completion changes the open document, not the disk; the
client says which lines were the assistant's. The user's fixes of those lines are
corrections, an editor undo of them is an undo, and the user's own lines stay theirs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.test_capture import wait_stats

pytestmark = pytest.mark.slow

MINE = "import os\n\n\ndef main():\n    return os.getcwd()\n"
"""The user's own file: no quotes to argue about."""
HELPER_DOUBLE = 'def greet(name):\n    message = "hello " + name\n    return message\n'
HELPER_SINGLE = "def greet(name):\n    message = 'hello ' + name\n    return message\n"


def appended(session: Session, name: str, text: str, source: str = "chat-edit") -> str:
    """The assistant appends ``HELPER_DOUBLE`` at the end of the open document ``text``."""
    end = len(text.split("\n")) - 1
    return session.assistant_edit_in_editor(name, text, [(end, end, HELPER_DOUBLE)], source)


async def counted(session: Session, key: str, value: int) -> dict[str, Any]:
    return await wait_stats(session, key, value)


async def test_fixing_a_chat_edits_quotes_in_two_files_learns_the_rule(session: Session) -> None:
    for count, name in enumerate(("a.py", "b.py"), start=1):
        (session.workspace / name).write_text(MINE)
        session.open(name, MINE)
        edited = appended(session, name, MINE)
        await counted(session, "agentWrites", count)
        session.save(name, edited.replace(HELPER_DOUBLE, HELPER_SINGLE))
        await counted(session, "corrections", count)
    announced = await session.wait_memory("rule")
    assert announced[0]["items"][0]["statement"] == "Use single quotes for strings."
    hover = await session.hover("a.py")
    assert hover is not None and "2 corrections" in hover.contents.value  # type: ignore[union-attr]
    stats = await session.command("comodor.stats")
    assert stats["agentWritesBySource"]["chat-edit"] == 2
    assert stats["agentWritesBySource"]["disk"] == 0
    corrections = await session.wait_memory("correction", count=2)
    assert {event["source"] for event in corrections} == {"chat-edit"}


async def test_the_users_own_lines_outside_the_assistants_are_never_a_correction(
    session: Session,
) -> None:
    mine = 'NAME = "x"\n' + MINE
    (session.workspace / "a.py").write_text(mine)
    session.open("a.py", mine)
    edited = appended(session, "a.py", mine)
    await counted(session, "agentWrites", 1)
    # the user changes the quotes of their own line only; the assistant's stay as written
    session.save("a.py", edited.replace('NAME = "x"', "NAME = 'x'"))
    await session.settle()
    stats = await session.command("comodor.stats")
    assert (stats["corrections"], stats["undos"]) == (0, 0)
    assert not [rule for rule in await session.rules() if rule["key"].startswith("quotes")]


async def test_lines_the_user_types_above_move_the_assistants_lines_with_them(
    session: Session,
) -> None:
    (session.workspace / "a.py").write_text(MINE)
    session.open("a.py", MINE)
    edited = appended(session, "a.py", MINE)
    await counted(session, "agentWrites", 1)
    session.type_at("a.py", 0, 'TITLE = "mine"\n\n')  # the user's own double quotes, above
    saved = 'TITLE = "mine"\n\n' + edited.replace(HELPER_DOUBLE, HELPER_SINGLE)
    session.save("a.py", saved)
    stats = await counted(session, "corrections", 1)
    assert stats["undos"] == 0
    quotes = [rule for rule in await session.rules() if rule["key"].startswith("quotes")]
    assert [rule["value"] for rule in quotes] == ["single"]


async def test_a_notice_that_comes_after_the_user_typed_on_still_counts_where_it_stood(
    session: Session,
) -> None:
    """Real VS Code: the user presses Enter right after accepting a completion, and that
    change reaches the server before the client's notice for the acceptance does."""
    (session.workspace / "a.py").write_text(MINE)
    uri = session.open("a.py", MINE)
    end = len(MINE.split("\n")) - 1
    edited, ranges = session.replace_lines("a.py", MINE, [(end, end, HELPER_DOUBLE)])
    accepted = session.versions[uri]
    session.type_at("a.py", 0, 'TITLE = "mine"\n\n')  # typed on: the lines move down
    session.client.protocol.notify(
        "comodor/assistantEdit",
        {"uri": uri, "version": accepted, "source": "inline-completion", "ranges": ranges},
    )
    stats = await counted(session, "agentWrites", 1)
    assert stats["agentWritesBySource"]["inline-completion"] == 1
    session.save("a.py", 'TITLE = "mine"\n\n' + edited.replace(HELPER_DOUBLE, HELPER_SINGLE))
    stats = await counted(session, "corrections", 1)
    assert stats["undos"] == 0
    quotes = [rule for rule in await session.rules() if rule["key"].startswith("quotes")]
    assert [rule["value"] for rule in quotes] == ["single"]  # the user's own "mine" is theirs


async def test_an_editor_undo_of_a_chat_edit_is_an_undo_before_any_save(session: Session) -> None:
    (session.workspace / "a.py").write_text(MINE)
    session.open("a.py", MINE)
    appended(session, "a.py", MINE)
    await counted(session, "agentWrites", 1)
    session.replace_all("a.py", MINE)  # Ctrl+Z: the document is back to what it was
    await session.wait_memory("undo")
    stats = await counted(session, "undos", 1)
    assert stats["corrections"] == 0
    session.save("a.py", MINE)  # saving the restored text counts nothing more
    stats = await session.command("comodor.stats")
    assert (stats["undos"], stats["corrections"]) == (1, 0)


async def test_saving_the_text_from_before_the_edit_is_an_undo(session: Session) -> None:
    (session.workspace / "a.py").write_text(MINE)
    session.open("a.py", MINE)
    edited = appended(session, "a.py", MINE)
    await counted(session, "agentWrites", 1)
    lines = edited.split("\n")
    start = lines.index("def greet(name):")
    session.replace_lines("a.py", edited, [(start, start + 3, "")])  # the user deletes it
    session.save("a.py", MINE)
    await counted(session, "undos", 1)


async def test_several_assistant_edits_before_one_save_are_judged_together(
    session: Session,
) -> None:
    (session.workspace / "a.py").write_text(MINE)
    session.open("a.py", MINE)
    once = appended(session, "a.py", MINE, source="inline-completion")
    twice = session.assistant_edit_in_editor(
        "a.py", once, [(0, 0, 'GREETING = "hi"\n')], "chat-edit:acme.helper"
    )
    stats = await counted(session, "agentWrites", 2)
    assert stats["agentWritesBySource"]["inline-completion"] == 1
    assert stats["agentWritesBySource"]["chat-edit"] == 1
    fixed = twice.replace(HELPER_DOUBLE, HELPER_SINGLE).replace('"hi"', "'hi'")
    session.save("a.py", fixed)
    await counted(session, "corrections", 1)
    quotes = [rule for rule in await session.rules() if rule["key"].startswith("quotes")]
    assert [rule["value"] for rule in quotes] == ["single"]
    session.save("a.py", fixed)  # the same text again: counted once
    stats = await session.command("comodor.stats")
    assert stats["corrections"] == 1


async def test_a_notice_that_arrives_before_its_change_still_counts(session: Session) -> None:
    """Neovim and Emacs debounce ``didChange``: the notice may come first."""
    (session.workspace / "a.py").write_text(MINE)
    uri = session.open("a.py", MINE)
    whole = {"start": {"line": 5, "character": 0}, "end": {"line": 8, "character": 0}}
    session.client.protocol.notify(
        "comodor/assistantEdit",
        {
            "uri": uri,
            "version": session.versions[uri] + 1,
            "source": "chat-edit",
            "ranges": [whole],
        },
    )
    edited, ranges = session.replace_lines("a.py", MINE, [(5, 5, HELPER_DOUBLE)])
    assert ranges == [whole]
    await counted(session, "agentWrites", 1)
    session.save("a.py", edited.replace(HELPER_DOUBLE, HELPER_SINGLE))
    await counted(session, "corrections", 1)


@pytest.mark.parametrize(
    "bad",
    [
        {"uri": "file:///nowhere/else.py"},
        {"version": 99},
        {"version": 1},
        {"ranges": [{"start": {"line": 40, "character": 0}, "end": {"line": 41, "character": 0}}]},
        {"ranges": [{"start": {"line": 0, "character": 90}, "end": {"line": 0, "character": 95}}]},
        {"source": "user"},
        {"ranges": "everything"},
    ],
    ids=[
        "unknown uri",
        "future version",
        "stale version",
        "lines past the end",
        "columns past the end",
        "not a source",
        "not ranges",
    ],
)
async def test_a_notice_that_does_not_match_the_document_is_ignored(
    session: Session, bad: dict[str, Any]
) -> None:
    (session.workspace / "a.py").write_text(MINE)
    uri = session.open("a.py", MINE)
    edited, ranges = session.replace_lines("a.py", MINE, [(5, 5, HELPER_DOUBLE)])
    notice = {"uri": uri, "version": session.versions[uri], "source": "chat-edit"}
    notice["ranges"] = ranges
    notice.update(bad)
    session.client.protocol.notify("comodor/assistantEdit", notice)
    session.save("a.py", edited.replace(HELPER_DOUBLE, HELPER_SINGLE))
    await session.settle()
    stats = await session.command("comodor.stats")
    assert (stats["agentWrites"], stats["corrections"], stats["undos"]) == (0, 0, 0)
    assert await session.rules() == []


async def test_a_document_outside_the_workspace_is_never_an_assistants(
    session: Session, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text(MINE)
    uri = outside.resolve().as_uri()
    client = session.client
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=MINE
            )
        )
    )
    end = types.Position(line=5, character=0)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=end, end=end), text=HELPER_DOUBLE
                )
            ],
        )
    )
    whole = {"start": {"line": 5, "character": 0}, "end": {"line": 8, "character": 0}}
    client.protocol.notify(
        "comodor/assistantEdit",
        {"uri": uri, "version": 2, "source": "chat-edit", "ranges": [whole]},
    )
    await session.settle()
    stats = await session.command("comodor.stats")
    assert stats["agentWrites"] == 0
