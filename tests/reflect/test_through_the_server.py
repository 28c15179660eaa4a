"""Reflection end to end: a real server, a real HTTP model endpoint on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import initialize_params
from tests.lsp.session import SERVER, Session, make_client
from tests.support.fake_llm import FakeLLM, Reply
from tests.support.secrets import SECRET_SAMPLES, all_secret_strings

pytestmark = pytest.mark.slow

KEY_ENV = "COMODOR_TEST_MODEL_KEY"


def reply(*lessons: tuple[str, str, str]) -> Reply:
    return Reply.chat(
        json.dumps(
            {
                "lessons": [
                    {"kind": kind, "trigger": trigger, "guidance": guidance, "confidence": 0.7}
                    for kind, trigger, guidance in lessons
                ],
                "skill": None,
            }
        )
    )


@pytest.fixture(autouse=True)
def _model_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Set before the server process starts (autouse fixtures run first), so it inherits it."""
    monkeypatch.setenv(KEY_ENV, "sk-test-" + "k" * 30)


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        yield fake


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def reflecting_client(
    lsp_client: LanguageClient, workspace: Path, llm: FakeLLM
) -> AsyncIterator[None]:
    options = {
        "learning": {"prefetchDelayMs": 50},
        "reflect": {
            "enabled": True,
            "endpoint": llm.url,
            "model": "fake-model",
            "apiKeyEnv": KEY_ENV,
            "timeoutS": 30,
        },
    }
    await lsp_client.initialize_session(initialize_params("vscode", workspace, options))
    yield
    if not lsp_client.stopped:
        await lsp_client.shutdown_session()


@pytest.fixture
def session(reflecting_client: LanguageClient, workspace: Path) -> Session:
    return Session(reflecting_client, workspace)


async def failed_task(session: Session, goal: str, **extra: Any) -> int:
    task = await session.command("comodor.beginTask", {"goal": goal})
    await session.command(
        "comodor.endTask", {"taskId": task["taskId"], "success": False, "steps": 5, **extra}
    )
    return int(task["taskId"])


async def test_a_failed_task_teaches_a_lesson_the_next_related_task_recalls(
    session: Session, llm: FakeLLM
) -> None:
    llm.script(
        reply(
            (
                "pitfall",
                "running the integration tests",
                "start the database container first with make db",
            )
        )
    )
    await failed_task(
        session,
        "run the integration tests",
        messages=[
            {
                "role": "tool",
                "name": "pytest",
                "content": "connection refused :5432",
                "isError": True,
            }
        ],
    )
    learned = await session.wait_memory("learned")
    assert learned[0]["items"][0]["guidance"] == "start the database container first with make db"
    begun = await session.command("comodor.beginTask", {"goal": "run the integration tests again"})
    assert any("make db" in lesson["guidance"] for lesson in begun["lessons"])
    request = llm.requests[0]
    assert request.headers.get("authorization") == "Bearer sk-test-" + "k" * 30
    assert "run the integration tests" in json.dumps(request.json)


async def test_a_restatement_merges_and_an_opposite_does_not(
    session: Session, llm: FakeLLM
) -> None:
    llm.script(
        reply(("preference", "writing tests", "use pytest fixtures for the database")),
        reply(("preference", "writing tests", "use pytest fixtures for the database setup")),
        reply(("preference", "writing tests", "do not use pytest fixtures for the database")),
    )
    for number in range(3):
        await failed_task(session, f"write tests for module {number}")
        await session.wait_memory("learned", count=number + 1)
    lessons = (await session.command("comodor.lessons"))["lessons"]
    guidance = sorted(lesson["guidance"] for lesson in lessons)
    assert guidance == [
        "do not use pytest fixtures for the database",
        "use pytest fixtures for the database setup",
    ]


async def test_a_vague_reflected_lesson_is_not_stored(session: Session, llm: FakeLLM) -> None:
    llm.script(
        reply(
            ("heuristic", "writing code", "Write clean code."),
            ("heuristic", "generally", "be good"),
            ("pitfall", "running the migrations", "run alembic upgrade head before the tests"),
        )
    )
    await failed_task(session, "migrate the schema")
    learned = await session.wait_memory("learned")
    assert [item["guidance"] for item in learned[0]["items"]] == [
        "run alembic upgrade head before the tests"
    ]
    lessons = (await session.command("comodor.lessons"))["lessons"]
    assert [lesson["guidance"] for lesson in lessons] == [
        "run alembic upgrade head before the tests"
    ]


async def test_consolidate_merges_a_taught_lesson_with_its_reflected_restatement(
    session: Session, llm: FakeLLM
) -> None:
    llm.script(
        reply(("pitfall", "deploying the gateway", "always run helm upgrade with --atomic")),
        reply(("pitfall", "deploying the gateway", "never run helm upgrade with --atomic")),
    )
    await failed_task(session, "deploy the gateway")
    await session.wait_memory("learned", count=1)
    taught = (
        await session.command(
            "comodor.teach",
            {"text": "deploying the gateway: run helm upgrade with --atomic, always"},
        )
    )["lesson"]
    await failed_task(session, "deploy the gateway again")
    await session.wait_memory("learned", count=2)
    assert len((await session.command("comodor.lessons"))["lessons"]) == 3
    done = await session.command("comodor.consolidate")
    assert done["merged"] == 1 and done["merges"][0]["kept"] == taught["id"]
    lessons = (await session.command("comodor.lessons"))["lessons"]
    assert sorted(lesson["guidance"] for lesson in lessons) == [
        "never run helm upgrade with --atomic",  # the negation is never merged
        "run helm upgrade with --atomic, always",  # the user's wording
    ]
    kept = next(lesson for lesson in lessons if lesson["id"] == taught["id"])
    assert kept["losses"] == 2  # its own loss in the second task, and the merged one's


async def test_a_secret_in_the_transcript_never_reaches_the_model(
    session: Session, llm: FakeLLM
) -> None:
    llm.script(reply())
    leaky = "\n".join(sample.context for sample in SECRET_SAMPLES)
    await failed_task(
        session,
        "deploy with the prod credentials",
        messages=[
            {"role": "user", "content": leaky},
            {"role": "tool", "name": "deploy", "content": leaky, "isError": True},
        ],
    )
    deadline = time.monotonic() + 15
    while not llm.requests and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    body = llm.requests[0].body
    assert "deploy with the prod credentials" in body
    for secret in all_secret_strings():
        assert secret not in body and json.dumps(secret)[1:-1] not in body, secret


async def test_the_server_keeps_answering_while_a_slow_model_thinks(
    session: Session, llm: FakeLLM
) -> None:
    llm.script(Reply.slow(8.0))
    await failed_task(session, "something slow")
    deadline = time.monotonic() + 10
    while llm.in_flight == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert llm.in_flight == 1
    started = time.monotonic()
    for _ in range(20):
        await session.command("comodor.playbook", {"query": "anything"})
    assert time.monotonic() - started < 5.0  # not blocked behind the 8 s model call


async def test_shutdown_does_not_wait_for_a_hung_model(
    reflecting_client: LanguageClient, workspace: Path, llm: FakeLLM
) -> None:
    session = Session(reflecting_client, workspace)
    llm.script(Reply.hung())
    await failed_task(session, "hang the model")
    deadline = time.monotonic() + 10
    while llm.in_flight == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert llm.in_flight == 1
    started = time.monotonic()
    await reflecting_client.shutdown_session()
    assert time.monotonic() - started < 2.0


def test_with_reflection_off_nothing_is_sent_anywhere(workspace: Path, llm: FakeLLM) -> None:
    from comodor_lsp.app import ComodorApp
    from comodor_lsp.settings import ReflectSettings, Settings

    off = Settings(reflect=ReflectSettings(enabled=False, endpoint=llm.url, model="fake-model"))
    app = ComodorApp(workspace, off)
    try:
        assert app.reflection is None
        task = app.execute("comodor.beginTask", {"goal": "fail on purpose"})
        app.execute("comodor.endTask", {"taskId": task["taskId"], "success": False, "steps": 9})
        no_model = Settings(reflect=ReflectSettings(enabled=True, endpoint="", model=""))
        app.configure(no_model)
        assert app.reflection is None
        app.configure(
            Settings(reflect=ReflectSettings(enabled=True, endpoint=llm.url, model="fake-model"))
        )
        assert app.reflection is not None
    finally:
        app.close()
    assert llm.requests == []
