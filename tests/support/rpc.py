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
import time
from pathlib import Path
from typing import Any

SERVER = [sys.executable, "-m", "comodor_lsp", "serve"]


class RawServer:
    """``comodor-lsp serve`` as a subprocess with a hand-framed JSON-RPC connection."""

    def __init__(
        self,
        workspace: Path,
        env: dict[str, str] | None = None,
        stderr: Any = subprocess.DEVNULL,
        command: list[str] | None = None,
        process: Any = None,
    ) -> None:
        self.process = process or subprocess.Popen(
            command or SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env or dict(os.environ),
            cwd=workspace,
        )
        self.workspace = workspace
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.unaddressed: queue.Queue[dict[str, Any]] = queue.Queue()
        """Error responses with ``"id": null``: answers to bytes that were no usable request."""
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
            if "id" in body and body["id"] is None and "error" in body:
                self.unaddressed.put(body)
            elif "id" in body and ("result" in body or "error" in body):
                self.replies.put(body)
            elif "id" in body and "method" in body:  # a request from the server: answer it
                self.send_raw(json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": None}))
            else:
                self.notifications.append(body)

    def send_raw(self, body: str | bytes) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(data) + data)

    def send_bytes(self, data: bytes) -> None:
        """Write bytes exactly as given: no framing, for tests of the framing itself."""
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def next_unaddressed(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next ``"id": null`` error (a parse error, an unusable request)."""
        return self.unaddressed.get(timeout=timeout)

    def drain_unaddressed(self) -> list[dict[str, Any]]:
        drained = []
        while not self.unaddressed.empty():
            drained.append(self.unaddressed.get_nowait())
        return drained

    def request(self, method: str, params: Any = None, timeout: float = 30.0) -> dict[str, Any]:
        message_id = next(self._ids)
        self.send_raw(
            json.dumps({"jsonrpc": "2.0", "id": message_id, "method": method, "params": params})
        )
        reply = self.replies.get(timeout=timeout)
        assert reply.get("id") == message_id, reply
        return reply

    def wait_for(self, ids: set[Any], timeout: float = 30.0) -> dict[Any, dict[str, Any]]:
        """Collect the replies to ``ids`` (in any order, others kept for later)."""
        found: dict[Any, dict[str, Any]] = {}
        others: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        try:
            while not ids <= found.keys():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"no reply to {sorted(map(str, ids - found.keys()))}")
                try:
                    reply = self.replies.get(timeout=min(remaining, 1.0))
                except queue.Empty:
                    if self.process.poll() is not None:
                        raise AssertionError("the server died") from None
                    continue
                if reply.get("id") in ids:
                    found[reply["id"]] = reply
                else:
                    others.append(reply)
        finally:
            for reply in others:
                self.replies.put(reply)
        return found

    def wait_notification(
        self, method: str, matches: Any = lambda params: True, timeout: float = 10.0
    ) -> dict[str, Any]:
        """The first notification ``method`` whose params satisfy ``matches`` (it may come late:
        the server sends some from its worker threads, after the reply that caused them)."""
        deadline = time.monotonic() + timeout
        while True:
            for note in list(self.notifications):
                if note.get("method") == method and matches(note.get("params")):
                    return note
            if time.monotonic() > deadline:
                seen = [note.get("method") for note in self.notifications]
                raise AssertionError(f"no matching {method} within {timeout}s; saw {seen}")
            time.sleep(0.02)

    def notify(self, method: str, params: Any = None) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}))

    def initialize(
        self, options: dict[str, Any] | None = None, *, timeout: float = 30.0
    ) -> dict[str, Any]:
        """``initialize`` then ``initialized``; ``timeout`` leaves room for a crowded start."""
        reply = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": self.workspace.as_uri(),
                "capabilities": {},
                "workspaceFolders": [{"uri": self.workspace.as_uri(), "name": "ws"}],
                "initializationOptions": options or {"watch": {"enabled": False}},
            },
            timeout,
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


class ServerThread:
    """A real server in this process, on a thread, behind the part of ``Popen`` RawServer uses.

    For tests that must look inside the running server (what it keeps in memory)
    after talking to it exactly as an editor does, over its stdio framing.
    """

    def __init__(self) -> None:
        from comodor_lsp.lsp.main import create_server

        self.server = create_server()
        to_server, self._server_in = os.pipe()
        self._server_out, from_server = os.pipe()
        # Pipes live as long as the session: closed by the end of input, not by a with block.
        self.stdin = os.fdopen(self._server_in, "wb", buffering=0)
        self.stdout = os.fdopen(self._server_out, "rb")
        self._streams = (
            os.fdopen(to_server, "rb", buffering=0),
            os.fdopen(from_server, "wb", buffering=0),
        )
        self.returncode: int | None = None
        self._thread = threading.Thread(target=self._serve, name="server-under-test", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        from comodor_lsp.lsp.stdio import serve_stdio

        server_in, server_out = self._streams
        try:
            self.returncode = serve_stdio(self.server, server_in, server_out)
        finally:
            server_in.close()
            server_out.close()

    def poll(self) -> int | None:
        return None if self._thread.is_alive() else self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError("the server thread did not stop")
        return self.returncode

    def kill(self) -> None:
        self.stdin.close()  # the end of input stops the server
