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
    assert elapsed < 2.0, f"shutdown and exit took {elapsed:.2f} s"  # a hang would be 5 s


def test_a_request_after_shutdown_is_refused_not_run(workspace: Path) -> None:
    server = RawServer(workspace)
    server.initialize()
    server.request("shutdown", None, timeout=5)
    server.send_raw(
        b'{"jsonrpc": "2.0", "id": 99, "method": "workspace/executeCommand",'
        b' "params": {"command": "comodor.teach", "arguments": [{"text": "a: b"}]}}'
    )
    error = server.wait_for({99}, timeout=5)[99]["error"]
    assert error["code"] == -32600  # InvalidRequest, as LSP asks; pygls alone never answers
    assert "shutting down" in error["message"]
    second = server.request("shutdown", None, timeout=5)
    assert second["error"]["code"] == -32600
    server.notify("exit")
    assert server.process.wait(5) == 0
    again = RawServer(workspace)
    try:
        again.initialize()
        assert again.command("comodor.lessons", {})["result"]["lessons"] == []
    finally:
        again.close()


def test_a_request_before_initialize_is_server_not_initialized(workspace: Path) -> None:
    server = RawServer(workspace)
    try:
        server.notify("comodor/draft", {"text": "dropped: too early"})
        early = server.command("comodor.stats", {}, timeout=5)
        assert early["error"]["code"] == -32002
        assert "initialize" in early["error"]["message"]
        assert "result" in server.initialize()
        assert "result" in server.command("comodor.stats", {})
    finally:
        server.close()


def test_an_initialize_with_bad_params_can_be_retried(workspace: Path) -> None:
    server = RawServer(workspace)
    try:
        bad = server.request("initialize", {"processId": "me", "capabilities": {}}, timeout=5)
        assert bad["error"]["code"] == -32602
        assert "processId" in bad["error"]["message"]
        assert "result" in server.initialize()
    finally:
        server.close()


def test_a_second_initialize_is_refused_and_the_first_session_goes_on(workspace: Path) -> None:
    server = RawServer(workspace)
    try:
        server.initialize()
        server.command("comodor.teach", {"text": "first: session"})
        again = server.request("initialize", {"processId": None, "capabilities": {}}, timeout=5)
        assert again["error"]["code"] == -32600
        lessons = server.command("comodor.lessons", {})["result"]["lessons"]
        assert [lesson["guidance"] for lesson in lessons] == ["session"]
    finally:
        server.close()


def test_exit_without_shutdown_exits_at_once_with_code_1(workspace: Path) -> None:
    server = RawServer(workspace)
    server.initialize()
    server.command("comodor.teach", {"text": "kept: even on a rude exit"})
    server.notify("exit")
    assert server.process.wait(5) == 1
    again = RawServer(workspace)
    try:
        again.initialize()
        lessons = again.command("comodor.lessons", {})["result"]["lessons"]
        assert [lesson["guidance"] for lesson in lessons] == ["even on a rude exit"]
    finally:
        again.close()


def test_exit_before_initialize_exits_with_code_1(workspace: Path) -> None:
    server = RawServer(workspace)
    server.notify("exit")
    assert server.process.wait(5) == 1


def test_the_server_stops_when_the_client_closes_stdin(workspace: Path) -> None:
    server = RawServer(workspace)
    server.initialize()
    assert server.process.stdin is not None
    server.process.stdin.close()
    assert server.process.wait(5) == 1  # no shutdown came: not a clean stop


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


def test_a_shutdown_while_requests_are_pending_answers_them_all_and_exits_cleanly(
    workspace: Path,
) -> None:
    server = RawServer(workspace)
    server.initialize()
    for number in range(100):
        server.command("comodor.teach", {"text": f"topic {number}: guidance {number}"})
    pending = set(range(5000, 5040))
    for message_id in sorted(pending):  # keeps the brain thread busy for a while
        server.send_raw(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": message_id,
                    "method": "workspace/executeCommand",
                    "params": {"command": "comodor.lessons", "arguments": [{"limit": 1000}]},
                }
            )
        )
    server.send_raw(json.dumps({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"}))
    replies = server.wait_for({*pending, "bye"}, timeout=10)
    assert replies["bye"].get("result", "an error") is None, replies["bye"]
    for message_id in pending:  # each one either ran or was cancelled, none left hanging
        reply = replies[message_id]
        assert "result" in reply or reply["error"]["code"] == -32800, reply
    server.notify("exit")
    assert server.process.wait(5) == 0


def test_a_shutdown_before_initialize_has_answered_still_shuts_down_cleanly(
    workspace: Path,
) -> None:
    # an editor closed while the server was still starting
    server = RawServer(workspace)
    initialize = {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {}}
    server.send_raw(
        json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": initialize})
    )
    server.send_raw(json.dumps({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"}))
    replies = server.wait_for({"init", "bye"}, timeout=10)
    assert replies["bye"].get("result", "an error") is None, replies["bye"]
    server.notify("exit")
    assert server.process.wait(5) == 0
