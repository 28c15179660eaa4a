"""10,000 hostile messages: malformed JSON-RPC, wrong types, huge strings, unknown methods.

The server must answer every request (a result or an error), never crash, and
still work afterwards.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from comodor_lsp.commands import COMMANDS

from tests.support.rpc import RawServer

pytestmark = pytest.mark.slow

METHODS = [
    "workspace/executeCommand",
    "textDocument/hover",
    "comodor/draft",
    "textDocument/didSave",
    "textDocument/didOpen",
    "textDocument/didChange",
    "no/suchMethod",
    "$/cancelRequest",
    "workspace/didChangeConfiguration",
    "",
    "initialize",
]


def junk(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(9 if depth < 3 else 6)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.randint(-(2**63), 2**63)
    if choice == 3:
        return rng.random() * 10 ** rng.randint(-5, 300)
    if choice == 4:
        return "".join(chr(rng.randint(0, 0x2FFF)) for _ in range(rng.randint(0, 40)))
    if choice == 5:
        return "A" * rng.choice([0, 1, 1000, 200_000])
    if choice == 6:
        return [junk(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = [
        "text",
        "uri",
        "query",
        "id",
        "taskId",
        "success",
        "command",
        "arguments",
        "textDocument",
        "position",
        "version",
        "contentChanges",
        "goal",
        "uris",
    ]
    return {rng.choice(keys): junk(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def message(rng: random.Random, message_id: int) -> tuple[bytes, bool]:
    """One hostile frame body, and whether it is a request that deserves an answer."""
    kind = rng.randrange(10)
    if kind == 0:
        return b"{not json at all" + bytes(rng.randrange(256) for _ in range(20)), False
    if kind == 1:
        return json.dumps([1, 2, 3]).encode(), False
    if kind == 2:  # a notification with junk params
        body = {"jsonrpc": "2.0", "method": rng.choice(METHODS), "params": junk(rng)}
        return json.dumps(body).encode(), False
    if kind == 3:  # a request with a junk id type is not answerable by id
        return json.dumps({"jsonrpc": "2.0", "id": {"x": 1}, "method": "x"}).encode(), False
    method = rng.choice(METHODS[:3] + METHODS[6:7])
    if method == "workspace/executeCommand":
        params: Any = {
            "command": rng.choice([*COMMANDS, "comodor.nope", "", 5]),
            "arguments": [junk(rng)] if rng.random() < 0.8 else junk(rng),
        }
    else:
        params = junk(rng)
    body = {"jsonrpc": "2.0", "id": message_id, "method": method, "params": params}
    return json.dumps(body).encode(), method != "comodor/draft"


def test_10000_hostile_messages_each_get_an_answer_and_the_server_survives(
    workspace: Path,
) -> None:
    rng = random.Random(20261130)
    server = RawServer(workspace)
    try:
        server.initialize()
        expected: set[int] = set()
        for number in range(10_000):
            body, answerable = message(rng, 100_000 + number)
            server.send_raw(body)
            if answerable:
                expected.add(100_000 + number)
        answered: set[int] = set()
        deadline = time.monotonic() + 240
        while not expected <= answered and time.monotonic() < deadline:
            try:
                reply = server.replies.get(timeout=1)
            except Exception:
                if server.process.poll() is not None:
                    break
                continue
            if isinstance(reply.get("id"), int):
                answered.add(reply["id"])
        assert server.process.poll() is None, "the server died"
        assert expected - answered == set(), f"{len(expected - answered)} requests unanswered"
        # A straggler the storm did not promise an answer to may still arrive: wait for ours.
        healthy_id = 900_001
        arguments = [{"text": "after the storm: still learning"}]
        server.send_raw(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": healthy_id,
                    "method": "workspace/executeCommand",
                    "params": {"command": "comodor.teach", "arguments": arguments},
                }
            )
        )
        healthy = server.wait_for({healthy_id})[healthy_id]
        assert healthy["result"]["lesson"]["guidance"] == "still learning"
    finally:
        server.close()
