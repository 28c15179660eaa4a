"""A long session keeps nothing it has finished: memory stays flat however long the editor stays.

An editor keeps one server for a whole working day: thousands of commands
(every prefetch is a playbook) and notifications (every keystroke is a
``didChange``). The server here is real and speaks over its own stdio framing,
but runs on a thread of the test, so the test can look at what it still holds
once everything it was sent has been answered.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.support.rpc import RawServer, ServerThread


def test_a_long_session_keeps_no_answered_command_or_handled_notification(
    workspace: Path,
) -> None:
    source = workspace / "app.py"
    source.write_text("def main():\n    return 1\n")
    uri = source.as_uri()
    thread = ServerThread()
    client = RawServer(workspace, process=thread)
    try:
        client.initialize()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": ""}},
        )
        for n in range(40):
            text = f"def main():\n    return {n}\n"
            client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": n + 2},
                    "contentChanges": [{"text": text}],
                },
            )
            assert "result" in client.command("comodor.playbook", {"query": f"return {n}"})
            assert "result" in client.command("comodor.stats", {})
        hover = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 4}}
        assert "result" in client.request("textDocument/hover", hover)

        kept = thread.server.protocol._request_futures
        deadline = time.monotonic() + 10
        while kept and time.monotonic() < deadline:
            time.sleep(0.05)
        finished = [future for future in list(kept.values()) if future.done()]
        assert not kept, f"{len(kept)} handlers still held ({len(finished)} of them finished)"
    finally:
        client.close()
