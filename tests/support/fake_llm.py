"""A real HTTP server on 127.0.0.1 that imitates an OpenAI-compatible endpoint.

Tests talk to it over real sockets so the gateway's retry, timeout and cancel
paths are exercised the same way a local model server would exercise them.
Replies are scripted (a FIFO; when it runs dry the ``default`` reply is used),
and every request is recorded with its headers and body so tests can assert
what did and did not leave the process (API keys, secrets).

Usage::

    with FakeLLM() as llm:
        llm.script(Reply.chat('{"lessons": []}'), Reply.status(500))
        gateway = ChatGateway(llm.url, "fake-model")
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_MODEL = "fake-model"


@dataclass(frozen=True)
class Reply:
    """One scripted response."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    delay_s: float = 0.0
    hang: bool = False

    @staticmethod
    def chat(content: str | None, *, model: str = DEFAULT_MODEL, delay_s: float = 0.0) -> Reply:
        """A normal chat-completions reply whose assistant text is ``content``."""
        payload = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return Reply(body=json.dumps(payload).encode(), delay_s=delay_s)

    @staticmethod
    def json(payload: Any, status: int = 200, headers: tuple[tuple[str, str], ...] = ()) -> Reply:
        return Reply(status=status, body=json.dumps(payload).encode(), headers=headers)

    @staticmethod
    def error(status: int, message: str, headers: tuple[tuple[str, str], ...] = ()) -> Reply:
        """An OpenAI-style error body."""
        payload = {"error": {"message": message, "type": "error", "code": status}}
        return Reply.json(payload, status=status, headers=headers)

    @staticmethod
    def raw(body: str, content_type: str = "application/json", status: int = 200) -> Reply:
        return Reply(status=status, body=body.encode(), content_type=content_type)

    @staticmethod
    def html(status: int = 200) -> Reply:
        page = "<!doctype html><html><body><h1>Welcome</h1></body></html>"
        return Reply.raw(page, content_type="text/html; charset=utf-8", status=status)

    @staticmethod
    def slow(seconds: float = 5.0, content: str = '{"lessons": []}') -> Reply:
        return Reply.chat(content, delay_s=seconds)

    @staticmethod
    def hung() -> Reply:
        """Never answers (until the server shuts down)."""
        return Reply(hang=True)


@dataclass
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: str
    json: Any = None


@dataclass
class _State:
    script: deque[Reply] = field(default_factory=deque)
    default: Reply = field(default_factory=lambda: Reply.chat('{"lessons": [], "skill": null}'))
    requests: list[Recorded] = field(default_factory=list)
    models: list[str] = field(default_factory=lambda: [DEFAULT_MODEL])
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    release: threading.Event = field(default_factory=threading.Event)


class FakeLLM:
    """Owns the server thread; use as a context manager or call ``close()``."""

    def __init__(self) -> None:
        self._state = _State()
        handler = _make_handler(self._state)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        host, port = self._server.server_address[:2]
        self.root = f"http://{host!s}:{port}"
        self.url = f"{self.root}/v1"

    # scripting -------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        """Queue replies; each request consumes one, in order."""
        with self._state.lock:
            self._state.script.extend(replies)

    def set_default(self, reply: Reply) -> None:
        with self._state.lock:
            self._state.default = reply

    def set_models(self, models: list[str]) -> None:
        with self._state.lock:
            self._state.models = list(models)

    # inspection -------------------------------------------------------------

    @property
    def requests(self) -> list[Recorded]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def max_in_flight(self) -> int:
        return self._state.max_in_flight

    @property
    def in_flight(self) -> int:
        return self._state.in_flight

    def release(self) -> None:
        """Let hung and slow handlers finish now."""
        self._state.release.set()

    def close(self) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=2)

    def __enter__(self) -> FakeLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def running_fake_llm() -> Iterator[FakeLLM]:
    """Context manager for fixtures: ``yield from``-friendly."""
    llm = FakeLLM()
    try:
        yield llm
    finally:
        llm.close()


def _make_handler(state: _State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:
            return  # keep test output quiet

        def do_GET(self) -> None:
            self._handle()

        def do_POST(self) -> None:
            self._handle()

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
            try:
                parsed = json.loads(raw) if raw else None
            except ValueError:
                parsed = None
            record = Recorded(
                method=self.command,
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=raw,
                json=parsed,
            )
            with state.lock:
                state.requests.append(record)
                state.in_flight += 1
                state.max_in_flight = max(state.max_in_flight, state.in_flight)
                if self.command == "GET" and self.path.rstrip("/").endswith("/models"):
                    reply = (
                        state.script.popleft()
                        if state.script
                        else Reply.json(
                            {"object": "list", "data": [{"id": m} for m in state.models]}
                        )
                    )
                else:
                    reply = state.script.popleft() if state.script else state.default
            counted = True

            def leave() -> None:
                # Leave the in-flight count *before* writing the reply, so a client
                # that fires its next request right after reading this one is not
                # mistaken for a concurrent caller.
                nonlocal counted
                if counted:
                    counted = False
                    with state.lock:
                        state.in_flight -= 1

            try:
                if reply.hang:
                    state.release.wait()
                    return
                if reply.delay_s and state.release.wait(reply.delay_s):
                    return
                leave()
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                for name, value in reply.headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply.body)
            except OSError:
                pass  # the client gave up; that is often the point of the test
            finally:
                leave()

    return Handler
