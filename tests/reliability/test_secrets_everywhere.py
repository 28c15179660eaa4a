"""The whole corpus of fake credentials pushed through every door that stores text.

None of them may appear in the bytes of any file the product writes: the brain,
its WAL, its checkpoints, exports, synced instruction files -- nor in any request
sent to the reflection model. Reflection is on and the model echoes secrets back
in its proposed lessons, and a tool fails twice with a secret in its error (a
pitfall rule, synced into AGENTS.md), so those paths are covered too.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import initialize_params
from tests.lsp.session import SERVER, Session, make_client
from tests.mcp.conftest import mcp_session
from tests.support.fake_llm import FakeLLM, Reply
from tests.support.secrets import SECRET_SAMPLES, all_secret_strings

pytestmark = pytest.mark.slow

SAMPLES = SECRET_SAMPLES
# The teach door takes "credentials: " and a context, at most 2000 characters in all.
assert max(len(sample.context) for sample in SAMPLES) < 1980
assert len({sample.name for sample in SAMPLES}) >= 60


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        echo = [
            {"kind": "env", "trigger": f"deploying {index}", "guidance": sample.context}
            for index, sample in enumerate(SAMPLES[::10])
        ]
        fake.set_default(Reply.chat(json.dumps({"lessons": echo, "skill": None})))
        yield fake


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def leaky_client(
    lsp_client: LanguageClient, workspace: Path, llm: FakeLLM
) -> AsyncIterator[None]:
    options = {
        "learning": {"prefetchDelayMs": 50},
        "reflect": {"enabled": True, "endpoint": llm.url, "model": "fake-model"},
        "sync": {"targets": ["AGENTS.md"]},
    }
    await lsp_client.initialize_session(initialize_params("vscode", workspace, options))
    yield
    await lsp_client.shutdown_session()


async def test_no_secret_reaches_any_file_comodor_writes(
    leaky_client: LanguageClient, workspace: Path, brain_dir: Path, llm: FakeLLM
) -> None:
    session = Session(leaky_client, workspace)
    for sample in SAMPLES:
        await session.command("comodor.teach", {"text": f"credentials: {sample.context}"})
        if len(sample.context) <= 290:
            await session.command("comodor.teachRule", {"statement": f"Keep {sample.context}"})
        await session.command("comodor.denied", {"tool": "run_shell", "subject": sample.context})
    leak = "\n".join(sample.context for sample in SAMPLES)
    one_liners = [s.context for s in SAMPLES if "\n" not in s.context and len(s.context) < 200]
    failure = "deploy failed: " + " ".join(one_liners[:3])
    task = await session.command("comodor.beginTask", {"goal": f"deploy with {SAMPLES[0].secret}"})
    agent_text = 'TOKEN_NAME = "x"\n' + leak + "\n"
    (workspace / "settings.py").write_text(agent_text)
    await session.command("comodor.agentEdit", {"uri": session.uri("settings.py")})
    session.open("settings.py", agent_text)
    session.save("settings.py", agent_text.replace('"x"', "'x'") + "# " + SAMPLES[1].context)
    await session.wait_memory("correction")
    await session.command(
        "comodor.endTask",
        {
            "taskId": task["taskId"],
            "success": False,
            "steps": 6,
            "messages": [
                {"role": "user", "content": leak},
                {"role": "tool", "name": "deploy", "content": leak, "isError": True},
                # The same failure twice: a pitfall rule that quotes the error.
                {"role": "tool", "name": "deploy", "content": failure, "isError": True},
                {"role": "tool", "name": "deploy", "content": failure, "isError": True},
            ],
        },
    )
    await session.wait_memory("learned", timeout=30)
    await session.command("comodor.feedback", {"good": False, "note": leak[:1900]})
    await session.command("comodor.exportRules")
    async with mcp_session(workspace) as mcp:
        for sample in SAMPLES[:6]:
            await mcp.call_tool("comodor_teach", {"text": f"mcp: {sample.context}"})
    await session.command("comodor.rules")  # the language server catches up, sync runs
    await session.settle()

    assert llm.requests, "reflection ran"
    assert (workspace / ".comodor" / "house-rules.md").exists()
    written = [
        path
        for root in (brain_dir, workspace / ".comodor")
        for path in root.rglob("*")
        if path.is_file()
    ]
    written += [path for path in (workspace / "AGENTS.md",) if path.exists()]
    contents = {path: path.read_bytes() for path in written}
    assert len(contents) > 3
    # The doors were really used: the pitfall and the redacted secrets reached the files.
    assert b"keeps failing" in contents[workspace / "AGENTS.md"]
    assert b"[REDACTED:" in contents[workspace / "AGENTS.md"]
    assert any(path.parent.parent.name == "blobs" for path in contents), sorted(contents)
    lowered = {path: data.lower() for path, data in contents.items()}
    for secret in all_secret_strings():
        for path, data in contents.items():
            assert secret.encode() not in data, (secret, path)
            # Nor lower-cased, as a normaliser would have left it.
            assert secret.lower().encode() not in lowered[path], (secret, path)
        for request in llm.requests:
            assert secret not in request.body, secret
