"""Prefetch: recall is computed while the user types, and the next request is free."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.lsp.session import Session

DELAY_S = 0.05  # the session's prefetchDelayMs


async def wait_for_prefetch(session: Session, expected: bool = True) -> None:
    """Poll ``stats.prefetchReady`` until the debounced recall is ready (or surely not)."""
    for _ in range(200 if expected else 10):
        await asyncio.sleep(DELAY_S)
        if (await session.command("comodor.stats"))["prefetchReady"] > 0:
            return
    assert not expected, "nothing was prefetched"


async def test_a_draft_is_prefetched_and_the_matching_request_says_so(session: Session) -> None:
    await session.command("comodor.teach", {"text": "deploying: run make release", "pinned": False})
    session.client.protocol.notify("comodor/draft", {"text": "deploying the app  "})
    await wait_for_prefetch(session)
    begun = await session.command("comodor.beginTask", {"goal": "deploying the app"})
    assert begun["prefetched"] is True
    assert [lesson["trigger"] for lesson in begun["lessons"]] == ["deploying"]
    again = await session.command("comodor.playbook", {"query": "deploying the app"})
    assert again["prefetched"] is False


async def test_a_different_request_is_not_answered_from_the_draft(session: Session) -> None:
    session.client.protocol.notify("comodor/draft", {"text": "deploying the app"})
    await wait_for_prefetch(session, expected=False)
    playbook = await session.command("comodor.playbook", {"query": "something else"})
    assert playbook["prefetched"] is False


async def test_typing_in_a_document_prefetches_for_that_document(session: Session) -> None:
    await session.command(
        "comodor.teach", {"text": "parser grammar: regenerate the tables", "pinned": False}
    )
    session.open("parser.py", "import re\n\n")
    session.type_at("parser.py", 1, "def parse_grammar(tables):\n")
    await wait_for_prefetch(session)
    playbook = await session.command(
        "comodor.playbook", {"query": "", "uri": session.uri("parser.py")}
    )
    assert playbook["prefetched"] is True
    assert "regenerate the tables" in playbook["text"]


async def test_only_the_last_of_a_burst_of_keystrokes_is_prefetched(session: Session) -> None:
    await session.command(
        "comodor.teach", {"text": "tokens: keep the lexer table sorted", "pinned": False}
    )
    session.open("lexer.py", "\n")
    for word in ("tok", "token", "tokens lexer"):
        session.type_at("lexer.py", 0, word)
    await wait_for_prefetch(session)
    playbook = await session.command(
        "comodor.playbook", {"query": "", "uri": session.uri("lexer.py")}
    )
    assert playbook["prefetched"] is True and "lexer table" in playbook["text"]


async def test_prefetch_off_computes_nothing_ahead(session: Session) -> None:
    session.client.set_configuration({"learning": {"prefetch": False}}, section="comodor")
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    await session.settle()
    session.client.protocol.notify("comodor/draft", {"text": "deploying"})
    await wait_for_prefetch(session, expected=False)
    assert (await session.command("comodor.playbook", {"query": "deploying"}))[
        "prefetched"
    ] is False
