"""The learned vocabulary through real servers: found after two successes, kept across restarts."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from pytest_lsp import ClientServerConfig

from tests.lsp.conftest import initialize_params
from tests.lsp.session import SERVER, Session, make_client

HELM = "deploying the gateway: run helm upgrade with --atomic"
REQUEST = "ship the release to production"


@contextlib.asynccontextmanager
async def server(workspace: Path) -> AsyncIterator[Session]:
    """A server process on the brain of this test ($COMODOR_HOME), stopped afterwards."""
    client = await ClientServerConfig(server_command=SERVER, client_factory=make_client).start()
    try:
        client.init_result = await client.initialize_session(  # type: ignore[attr-defined]
            initialize_params("vscode", workspace)
        )
        client.kind = "vscode"  # type: ignore[attr-defined]
        yield Session(client, workspace)
    finally:
        await client.shutdown_session()


async def recalled(session: Session, query: str) -> list[int]:
    playbook = await session.command("comodor.playbook", {"query": query})
    return [lesson["id"] for lesson in playbook["lessons"]]


async def succeed(session: Session, goal: str) -> list[int]:
    task = await session.command("comodor.beginTask", {"goal": goal})
    await session.command("comodor.endTask", {"taskId": task["taskId"], "success": True})
    return [lesson["id"] for lesson in task["lessons"]]


async def test_a_differently_worded_request_finds_the_lesson_that_helped_twice(
    workspace: Path,
) -> None:
    async with server(workspace) as session:
        helm = (await session.command("comodor.teach", {"text": HELM, "pinned": False}))["lesson"]
        await session.command(
            "comodor.teach", {"text": "formatting: run ruff format", "pinned": False}
        )
        assert await recalled(session, REQUEST) == []  # no word in common
        assert helm["id"] in await succeed(session, f"{REQUEST} for the gateway")
        assert await recalled(session, REQUEST) == []  # one observation is not enough
        assert helm["id"] in await succeed(session, "ship the gateway release to production")
        assert await recalled(session, REQUEST) == [helm["id"]]

        real = (
            await session.command(
                "comodor.teach",
                {"text": "shipping a release to production: tag the commit first", "pinned": False},
            )
        )["lesson"]
        assert await recalled(session, REQUEST) == [real["id"], helm["id"]]  # never above it

    async with server(workspace) as again:  # a new process on the same brain
        assert await recalled(again, REQUEST) == [real["id"], helm["id"]]
        assert await recalled(again, "ship it to production") == [real["id"], helm["id"]]


async def test_a_failed_task_teaches_no_association(workspace: Path) -> None:
    async with server(workspace) as session:
        helm = (await session.command("comodor.teach", {"text": HELM, "pinned": False}))["lesson"]
        for goal in (f"{REQUEST} for the gateway", "ship the gateway release to production"):
            task = await session.command("comodor.beginTask", {"goal": goal})
            assert helm["id"] in [lesson["id"] for lesson in task["lessons"]]
            await session.command("comodor.endTask", {"taskId": task["taskId"], "success": False})
        assert await recalled(session, REQUEST) == []


FIXTURES = "pytest fixtures: share setup through conftest.py"
SPEC_REQUEST = "write a spec for the parser"
MODULES = ("lexer", "tokenizer", "cache", "router", "config")
OTHER_WORK = (
    "update the changelog for the release",
    "bump the version number",
    "fix the css of the header",
    "rename the deploy script",
    "tidy the docs index",
)


async def spec_then_other_work(session: Session, round_: int) -> None:
    """A spec task whose user says pytest in a message, then a task about something else."""
    module = MODULES[round_ % len(MODULES)]
    task = await session.command("comodor.beginTask", {"goal": f"write the spec for the {module}"})
    messages = [
        {"role": "user", "content": f"cover the {module} edge cases, run them with pytest"},
        {"role": "assistant", "content": "Added four cases."},
    ]
    await session.command(
        "comodor.endTask", {"taskId": task["taskId"], "success": True, "messages": messages}
    )
    await succeed(session, OTHER_WORK[round_ % len(OTHER_WORK)])


async def test_words_the_user_says_together_find_a_lesson_worded_differently(
    workspace: Path,
) -> None:
    async with server(workspace) as session:
        fixtures = (await session.command("comodor.teach", {"text": FIXTURES, "pinned": False}))[
            "lesson"
        ]
        unrelated = [
            (await session.command("comodor.teach", {"text": text, "pinned": False}))["lesson"]
            for text in (
                "changelog entries: past tense, one line each",
                "css: use rem units for spacing",
            )
        ]
        for round_ in range(4):
            await spec_then_other_work(session, round_)
        assert await recalled(session, SPEC_REQUEST) == []  # four tasks are not yet enough
        for round_ in range(4, 10):
            await spec_then_other_work(session, round_)
        assert await recalled(session, SPEC_REQUEST) == [fixtures["id"]]
        assert await recalled(session, "update the changelog") == [unrelated[0]["id"]]

    async with server(workspace) as again:  # a new process on the same brain
        assert await recalled(again, SPEC_REQUEST) == [fixtures["id"]]
        assert await recalled(again, "fix the css") == [unrelated[1]["id"]]
