"""Raw bytes on a real server's stdin: no framing mistake leaves it deaf, none kills it.

Each case writes a broken frame, checks the answer it deserves (ParseError or
InvalidRequest with ``"id": null`` where the id is unusable), and then that the
next well-formed request is answered normally. One server process serves the
whole module (a case that left it deaf would fail every case after it too, and
``test_the_server_is_alive_and_answering_after_all_of_it`` says so last).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import psutil
import pytest
from comodor_lsp.lsp.framing import MAX_BODY_BYTES

from tests.support.rpc import RawServer

PARSE_ERROR, INVALID_REQUEST = -32700, -32600


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    workspace = tmp_path_factory.mktemp("framing-ws").resolve()
    home = tmp_path_factory.mktemp("framing-home")
    running = RawServer(workspace, env={**os.environ, "COMODOR_HOME": str(home)})
    running.initialize()
    yield running
    running.close()


def body(message_id: Any, method: str = "workspace/executeCommand", **extra: Any) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": message_id, "method": method}
    if method == "workspace/executeCommand":
        message["params"] = {"command": "comodor.stats", "arguments": [{}]}
    message.update(extra)
    return json.dumps(message).encode()


def framed(data: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def assert_still_answering(server: RawServer) -> None:
    reply = server.command("comodor.stats", {})
    assert reply["result"]["scope"].startswith("project:"), reply
    assert server.process.poll() is None


# -- spellings a strict reader refuses, which must simply work ------------------- #

SPELLINGS = [
    pytest.param(b"content-length: %d\r\n\r\n", id="lower-case-name"),
    pytest.param(b"CONTENT-LENGTH: %d\r\n\r\n", id="upper-case-name"),
    pytest.param(b"Content-Length: %d\n\n", id="lf-only"),
    pytest.param(b"Content-Length:%d\r\n\r\n", id="no-space"),
    pytest.param(
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n",
        id="content-type-first",
    ),
    pytest.param(b"Content-Length: %d\r\nX-Anything: 1\r\n\r\n", id="unknown-header"),
]


@pytest.mark.parametrize("header", SPELLINGS)
def test_a_request_in_any_legal_header_spelling_is_answered(
    server: RawServer, header: bytes
) -> None:
    request = body(f"spelling-{header[:12]!r}")
    server.send_bytes(header % len(request) + request)
    (reply,) = server.wait_for({json.loads(request)["id"]}).values()
    assert "result" in reply, reply
    assert_still_answering(server)


# -- broken frames: a parse error, then business as usual -------------------------- #

REQUEST = body("swallowed")
BROKEN = [
    pytest.param(b"Content-Length: abc\r\n\r\n" + REQUEST, "not a number", id="non-numeric"),
    pytest.param(b"Content-Length: -12\r\n\r\n" + REQUEST, "negative", id="negative"),
    pytest.param(
        b"Content-Length: 1000000000000\r\n\r\n" + REQUEST, "over the limit", id="a-terabyte"
    ),
    pytest.param(
        b"Content-Length: %d\r\n\r\n" % (MAX_BODY_BYTES + 1) + REQUEST,
        "over the limit",
        id="one-byte-over-the-cap",
    ),
    pytest.param(b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n", "limit", id="5000-digits"),
    pytest.param(b"Content-Length: 10\r\n\r\n" + REQUEST, "not valid JSON", id="length-too-short"),
    pytest.param(
        b"Content-Length: %d\r\n\r\n" % (len(REQUEST) + 40) + REQUEST,
        "not valid JSON",
        id="length-too-long",  # it swallows the start of the next request, and gives it back
    ),
    pytest.param(
        b"Content-Length: 5000\r\n\r\n" + REQUEST[:30] + b"\r\n", "cut short", id="truncated-body"
    ),
    pytest.param(b"\x00\xff\xfe\x80 garbage", "unexpected bytes", id="binary-garbage"),
    pytest.param(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "unexpected bytes", id="an-http-request"),
    pytest.param(b"x" * 100_000, "longer than", id="a-100-kb-header-line"),
    pytest.param(b"Content-Type: x\r\n\r\n" + REQUEST, "without Content-Length", id="no-length"),
    pytest.param(framed(b'{"jsonrpc": "2.0", "id": 1, "method": "\xff"}'), "UTF-8", id="bad-utf8"),
    pytest.param(framed(b'{"text": "\xed\xa0\x80"}'), "UTF-8", id="utf8-encoded-surrogate"),
    pytest.param(framed(b'{"jsonrpc": "2.0", "id": 1, "method'), "not valid JSON", id="bad-json"),
    pytest.param(framed(b""), "empty", id="empty-body"),
    pytest.param(framed(b"[" * 100_000 + b"]" * 100_000), "nested deeper", id="100k-deep"),
    pytest.param(framed(b'{"a":' * 65 + b"1" + b"}" * 65), "nested deeper", id="65-deep"),
]


@pytest.mark.parametrize(("stream", "problem"), BROKEN)
def test_a_broken_frame_gets_a_parse_error_and_the_next_request_an_answer(
    server: RawServer, stream: bytes, problem: str
) -> None:
    server.drain_unaddressed()
    server.send_bytes(stream)
    assert_still_answering(server)  # a length too long is only known when more bytes come
    errors = server.drain_unaddressed()
    assert len(errors) == 1, f"one mistake, one error: {errors}"
    assert errors[0]["error"]["code"] == PARSE_ERROR
    assert problem in errors[0]["error"]["message"]


# -- JSON that is not a JSON-RPC request: InvalidRequest --------------------------- #

NOT_REQUESTS = [
    pytest.param(b"[1, 2, 3]", None, "LSP has no batches", id="a-batch"),
    pytest.param(b"[]", None, "an array", id="an-empty-batch"),
    pytest.param(b"5", None, "got a number", id="a-number"),
    pytest.param(b'"hello"', None, "got a string", id="a-string"),
    pytest.param(b"null", None, "got null", id="null"),
    pytest.param(b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "x"}', None, "id", id="id-object"),
    pytest.param(b'{"jsonrpc": "2.0", "id": 1e400, "method": "x"}', None, "id", id="id-1e400"),
    pytest.param(b'{"jsonrpc": "2.0", "id": true, "method": "x"}', None, "id", id="id-true"),
    pytest.param(b'{"jsonrpc": "2.0", "id": null, "method": "x"}', None, "id", id="id-null"),
    pytest.param(body("v1", jsonrpc="1.0"), "v1", "jsonrpc", id="jsonrpc-1.0"),
    pytest.param(b'{"jsonrpc": "2.0", "id": "m", "method": 5}', "m", "method", id="method-number"),
    pytest.param(body("p", params="text"), "p", "params", id="params-a-string"),
    pytest.param(b'{"jsonrpc": "2.0", "id": "n"}', "n", "method", id="neither-kind"),
]


@pytest.mark.parametrize(("data", "reply_to", "problem"), NOT_REQUESTS)
def test_json_that_is_no_request_gets_invalid_request_and_the_server_goes_on(
    server: RawServer, data: bytes, reply_to: str | None, problem: str
) -> None:
    server.drain_unaddressed()
    server.send_raw(data)
    if reply_to is None:
        error = server.next_unaddressed()["error"]
    else:
        error = server.wait_for({reply_to})[reply_to]["error"]
    assert error["code"] == INVALID_REQUEST
    assert problem in error["message"]
    assert_still_answering(server)


# -- values JSON can carry and nothing downstream can use: InvalidParams ------------- #


def test_a_lone_surrogate_in_a_document_request_is_invalid_params_naming_the_field(
    server: RawServer,
) -> None:
    server.send_raw(
        b'{"jsonrpc": "2.0", "id": "s", "method": "textDocument/hover", "params": '
        b'{"textDocument": {"uri": "file:///a\\ud800.py"}, '
        b'"position": {"line": 0, "character": 0}}}'
    )
    error = server.wait_for({"s"})["s"]["error"]
    assert error["code"] == -32602
    assert error["data"]["field"] == "params.textDocument.uri"
    assert "lone surrogate" in error["message"]


def test_an_out_of_range_position_is_invalid_params_naming_the_field(server: RawServer) -> None:
    server.send_raw(
        b'{"jsonrpc": "2.0", "id": "r", "method": "textDocument/hover", "params": '
        b'{"textDocument": {"uri": "file:///a.py"}, "position": {"line": %d, "character": 0}}}'
        % 10
        ** 40
    )
    error = server.wait_for({"r"})["r"]["error"]
    assert error["code"] == -32602
    assert "params.position" in error["message"]


@pytest.mark.parametrize(
    ("literal", "field"),
    [
        pytest.param(b'"\\ud800"', "text", id="lone-surrogate"),
        pytest.param(b'"a \\udfff b"', "text", id="lone-low-surrogate"),
        pytest.param(b"NaN", "text", id="nan"),
    ],
)
def test_a_bad_value_in_a_command_is_invalid_params_naming_the_field(
    server: RawServer, literal: bytes, field: str
) -> None:
    server.send_raw(
        b'{"jsonrpc": "2.0", "id": "c", "method": "workspace/executeCommand", "params": '
        b'{"command": "comodor.teach", "arguments": [{"text": ' + literal + b"}]}}"
    )
    error = server.wait_for({"c"})["c"]["error"]
    assert error["code"] == -32602
    assert error["data"]["field"] == field


@pytest.mark.parametrize(
    ("argument", "field"),
    [
        pytest.param(b'{"id": 1e400}', "id", id="id-1e400"),
        pytest.param(b'{"id": %d}' % 10**40, "id", id="id-10-to-the-40"),
        pytest.param(b'{"id": Infinity}', "id", id="id-infinity"),
    ],
)
def test_a_huge_number_as_an_id_is_invalid_params(
    server: RawServer, argument: bytes, field: str
) -> None:
    server.send_raw(
        b'{"jsonrpc": "2.0", "id": "h", "method": "workspace/executeCommand", "params": '
        b'{"command": "comodor.forget", "arguments": [' + argument + b"]}}"
    )
    error = server.wait_for({"h"})["h"]["error"]
    assert error["code"] == -32602, error
    assert error["data"]["field"] == field


def test_a_document_with_a_lone_surrogate_is_kept_in_step_not_dropped(server: RawServer) -> None:
    uri = (server.workspace / "s.py").as_uri()
    server.send_raw(
        b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": '
        b'{"uri": "%s", "languageId": "python", "version": 1, "text": "x = \'\\ud800\'\\n"}}}'
        % uri.encode()
    )
    server.send_raw(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": "after-open",
                "method": "textDocument/hover",
                "params": {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 5}},
            }
        )
    )
    assert "result" in server.wait_for({"after-open"})["after-open"]


def test_a_40_digit_request_id_is_echoed_back(server: RawServer) -> None:
    server.send_raw(body(10**40))
    assert "result" in server.wait_for({10**40})[10**40]


# -- delivery ------------------------------------------------------------------------ #


def test_a_request_written_one_byte_at_a_time_is_answered(server: RawServer) -> None:
    data = framed(body("slow"))
    for index in range(len(data)):
        server.send_bytes(data[index : index + 1])
    assert "result" in server.wait_for({"slow"})["slow"]


def test_many_requests_in_one_write_are_all_answered(server: RawServer) -> None:
    ids = {f"burst-{n}" for n in range(200)}
    server.send_bytes(b"".join(framed(body(message_id)) for message_id in sorted(ids)))
    assert server.wait_for(ids).keys() == ids


def test_a_5_mb_document_is_accepted(server: RawServer) -> None:
    uri = (server.workspace / "big.py").as_uri()
    text = "x = 1\n" * 900_000
    server.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    )
    server.send_raw(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": "big",
                "method": "textDocument/hover",
                "params": {
                    "textDocument": {"uri": uri},
                    "position": {"line": 899_999, "character": 0},
                },
            }
        )
    )
    assert "result" in server.wait_for({"big"})["big"]
    assert server.drain_unaddressed() == []


def test_the_server_is_alive_and_answering_after_all_of_it(server: RawServer) -> None:
    assert_still_answering(server)
    rss = psutil.Process(server.process.pid).memory_info().rss
    assert rss < 1024 * 1024 * 1024, f"{rss / 2**20:.0f} MiB: something was allocated from a length"
