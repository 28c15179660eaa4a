"""Start and stop: a clean shutdown and exit well within a second, threads and all."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.support.rpc import RawServer


def test_shutdown_and_exit_take_well_under_a_second(workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    server = RawServer(workspace)
    server.initialize({"learning": {"prefetchDelayMs": 50}})  # the watcher runs too
    server.command("comodor.teach", {"text": "testing: run pytest"})
    server.notify("comodor/draft", {"text": "still typing when the editor quits"})
    started = time.monotonic()
    assert server.request("shutdown", None, timeout=5)["result"] is None
    server.notify("exit")
    code = server.process.wait(5)
    elapsed = time.monotonic() - started
    assert code == 0
    assert elapsed < 1.0, f"shutdown and exit took {elapsed:.2f} s"


def test_a_request_after_shutdown_is_refused_not_run(workspace: Path) -> None:
    server = RawServer(workspace)
    server.initialize()
    server.request("shutdown", None, timeout=5)
    server.send_raw(
        b'{"jsonrpc": "2.0", "id": 99, "method": "workspace/executeCommand",'
        b' "params": {"command": "comodor.teach", "arguments": [{"text": "a: b"}]}}'
    )
    server.notify("exit")
    assert server.process.wait(5) == 0


def test_cancelled_requests_are_answered_and_skipped_when_not_started(workspace: Path) -> None:
    server = RawServer(workspace)
    try:
        server.initialize()
        for number in range(200):  # enough that listing them keeps the brain thread busy
            server.command("comodor.teach", {"text": f"topic {number}: guidance {number}"})
        first = 1000
        for offset in range(60):
            request = {
                "jsonrpc": "2.0",
                "id": first + offset,
                "method": "workspace/executeCommand",
                "params": {"command": "comodor.lessons", "arguments": [{"limit": 1000}]},
            }
            server.send_raw(json.dumps(request))
            if offset % 2:
                server.notify("$/cancelRequest", {"id": first + offset})
        replies = {}
        while len(replies) < 60:
            reply = server.replies.get(timeout=30)
            replies[reply["id"]] = reply
        cancelled = [r for r in replies.values() if r.get("error", {}).get("code") == -32800]
        assert cancelled, "no request was still waiting when its cancel arrived"
        assert all((r["id"] - first) % 2 == 1 for r in cancelled)  # only the cancelled ones
        assert all("result" in replies[first + even] for even in range(0, 60, 2))
        assert "result" in server.command("comodor.stats", {})
    finally:
        server.close()
