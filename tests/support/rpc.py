"""A raw JSON-RPC-over-stdio client, for tests that must send what no LSP library would.

Fuzzing needs malformed frames and bodies; durability tests need to kill the
server mid-stream. This client frames messages itself (``Content-Length``) and
reads replies on a thread, so a test can send anything and still collect every
answer.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

SERVER = [sys.executable, "-m", "comodor_lsp", "serve"]


class RawServer:
    """``comodor-lsp serve`` as a subprocess with a hand-framed JSON-RPC connection."""

    def __init__(
        self, workspace: Path, env: dict[str, str] | None = None, stderr: Any = subprocess.DEVNULL
    ) -> None:
        self.process = subprocess.Popen(
            SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env or dict(os.environ),
            cwd=workspace,
        )
        self.workspace = workspace
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                continue
            body = json.loads(stream.read(length))
            if "id" in body and ("result" in body or "error" in body):
                self.replies.put(body)
            elif "id" in body and "method" in body:  # a request from the server: answer it
                self.send_raw(json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": None}))
            else:
                self.notifications.append(body)

    def send_raw(self, body: str | bytes) -> None:
        data = body.encode() if isinstance(body, str) else body
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.process.stdin.flush()

    def request(self, method: str, params: Any = None, timeout: float = 30.0) -> dict[str, Any]:
        message_id = next(self._ids)
        self.send_raw(
            json.dumps({"jsonrpc": "2.0", "id": message_id, "method": method, "params": params})
        )
        reply = self.replies.get(timeout=timeout)
        assert reply.get("id") == message_id, reply
        return reply

    def notify(self, method: str, params: Any = None) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}))

    def initialize(self, options: dict[str, Any] | None = None) -> dict[str, Any]:
        reply = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": self.workspace.as_uri(),
                "capabilities": {},
                "workspaceFolders": [{"uri": self.workspace.as_uri(), "name": "ws"}],
                "initializationOptions": options or {"watch": {"enabled": False}},
            },
        )
        self.notify("initialized", {})
        return reply

    def command(self, name: str, argument: Any, timeout: float = 30.0) -> dict[str, Any]:
        return self.request(
            "workspace/executeCommand", {"command": name, "arguments": [argument]}, timeout
        )

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.request("shutdown", None, timeout=5)
                self.notify("exit")
                self.process.wait(5)
            except Exception:
                self.process.kill()
                self.process.wait(5)
