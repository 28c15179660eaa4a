"""Nothing acknowledged is ever lost: not to kill -9, not to four writers at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from comodor_lsp.brain.store import BrainStore

from tests.support.rpc import RawServer

pytestmark = pytest.mark.slow


def test_kill_9_in_the_middle_of_1000_acknowledged_writes_loses_none(
    workspace: Path, brain_dir: Path
) -> None:
    server = RawServer(workspace)
    server.initialize()
    acknowledged: list[str] = []
    killer = threading.Timer(0, lambda: None)
    try:
        for number in range(1000):
            text = f"durability {number}: acknowledged write number {number}"
            if number == 600:  # kill while writes are in flight, not between them
                killer = threading.Timer(0.05, os.kill, (server.process.pid, signal.SIGKILL))
                killer.start()
            try:
                reply = server.command("comodor.teach", {"text": text}, timeout=10)
            except Exception:
                break
            if "result" in reply:
                acknowledged.append(text)
    finally:
        killer.cancel()
        server.process.kill()
        server.process.wait(10)
    assert 600 <= len(acknowledged) < 1000, "the server was not killed mid-stream"
    store = BrainStore(brain_dir / "brain.db")
    try:
        assert store.integrity_check() == "ok"
        rows = store._read("SELECT trigger, guidance FROM lessons")
        stored = {f"{trigger}: {guidance}" for trigger, guidance in rows}
    finally:
        store.close()
    missing = [text for text in acknowledged if text not in stored]
    assert missing == []
    restarted = RawServer(workspace)
    try:
        restarted.initialize()
        stats = restarted.command("comodor.stats", {})["result"]
        assert stats["lessons"] >= len(acknowledged)
    finally:
        restarted.close()


def _cli_writer(workspace: Path, count: int) -> subprocess.Popen[str]:
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from comodor_lsp.app import ComodorApp\n"
        f"app = ComodorApp(Path({str(workspace)!r}))\n"
        f"for n in range({count}):\n"
        "    app.execute('comodor.teach', {'text': f'cli {n}: written by the command line'})\n"
        "app.close()\n"
    )
    return subprocess.Popen([sys.executable, "-c", script], text=True)


def test_language_servers_mcp_and_cli_writing_at_once_lose_nothing(
    workspace: Path, brain_dir: Path
) -> None:
    count = 150
    servers = [RawServer(workspace), RawServer(workspace)]
    for server in servers:
        server.initialize()
    mcp_script = (
        "import anyio, os, sys\n"
        "from mcp import ClientSession, StdioServerParameters\n"
        "from mcp.client.stdio import stdio_client\n"
        "async def main():\n"
        "    params = StdioServerParameters(command=sys.executable,"
        f" args=['-m', 'comodor_lsp', 'mcp', '--workspace', {str(workspace)!r}],"
        " env=dict(os.environ))\n"
        "    async with stdio_client(params) as (read, write):\n"
        "        async with ClientSession(read, write) as session:\n"
        "            await session.initialize()\n"
        f"            for n in range({count}):\n"
        "                result = await session.call_tool('comodor_teach',"
        " {'text': f'mcp {n}: written through MCP'})\n"
        "                assert not result.is_error, result\n"
        "anyio.run(main)\n"
    )
    mcp = subprocess.Popen([sys.executable, "-c", mcp_script], text=True)
    cli = _cli_writer(workspace, count)
    errors: list[str] = []

    def lsp_writes(server: RawServer, name: str) -> None:
        for number in range(count):
            reply = server.command("comodor.teach", {"text": f"{name} {number}: written over LSP"})
            if "error" in reply:
                errors.append(json.dumps(reply["error"]))

    threads = [
        threading.Thread(target=lsp_writes, args=(server, f"lsp{index}"))
        for index, server in enumerate(servers)
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert mcp.wait(180) == 0
    assert cli.wait(180) == 0
    assert errors == []
    assert time.monotonic() - started < 180
    stats = servers[0].command("comodor.stats", {})["result"]
    for server in servers:
        server.close()
    store = BrainStore(brain_dir / "brain.db")
    try:
        by_writer = dict(
            store._read(
                "SELECT substr(trigger, 1, instr(trigger, ' ') - 1), count(*)"
                " FROM lessons GROUP BY 1"
            )
        )
        assert by_writer == {"lsp0": count, "lsp1": count, "mcp": count, "cli": count}
        assert stats["lessons"] == 4 * count
        assert store.integrity_check() == "ok"
    finally:
        store.close()
