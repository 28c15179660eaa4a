"""The LSP frame decoder on its own: every framing mistake is named and the next message found.

In-process and sans-IO, so hypothesis can try thousands of hostile streams in
seconds; ``test_framing.py`` checks the same through a real server process.
"""

from __future__ import annotations

import json

import pytest
from comodor_lsp.lsp.framing import (
    MAX_BODY_BYTES,
    MAX_NESTING_DEPTH,
    FrameDecoder,
    Malformed,
    Message,
    nesting_depth,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.framing_fuzz import (
    MARKER,
    chunked,
    framed,
    garbage,
    request_body,
    valid_frame,
)

REQUEST = request_body(7)
VALUE = json.loads(REQUEST)


def decode(*chunks: bytes) -> list[Message | Malformed]:
    decoder = FrameDecoder()
    events: list[Message | Malformed] = []
    for chunk in chunks:
        events += decoder.feed(chunk)
    return events


def messages(events: list[Message | Malformed]) -> list[object]:
    return [event.value for event in events if isinstance(event, Message)]


def problems(events: list[Message | Malformed]) -> list[str]:
    return [event.reason for event in events if isinstance(event, Malformed)]


GOOD_SPELLINGS = [
    pytest.param(b"Content-Length: %d\r\n\r\n", id="canonical"),
    pytest.param(b"content-length: %d\r\n\r\n", id="lower-case-name"),
    pytest.param(b"CONTENT-LENGTH:%d\r\n\r\n", id="upper-case-no-space"),
    pytest.param(b"Content-Length: %d\n\n", id="lf-only"),
    pytest.param(b"Content-Length: %d\r\n\n", id="mixed-line-ends"),
    pytest.param(b"Content-Length : %d \r\n\r\n", id="blanks-around-colon"),
    pytest.param(
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n",
        id="extra-header-first",
    ),
    pytest.param(b"Content-Length: %d\r\nX-Trace: on\r\n\r\n", id="extra-header-after"),
    pytest.param(b"\r\n\r\nContent-Length: %d\r\n\r\n", id="stray-blank-lines-before"),
]


@pytest.mark.parametrize("header", GOOD_SPELLINGS)
def test_every_legal_spelling_of_the_header_decodes_without_complaint(header: bytes) -> None:
    events = decode(header % len(REQUEST) + REQUEST)
    assert events == [Message(VALUE)]


BAD_FRAMES = [
    pytest.param(b"Content-Length: abc\r\n\r\n" + REQUEST, "not a number", id="non-numeric"),
    pytest.param(b"Content-Length: -5\r\n\r\n" + REQUEST, "negative", id="negative"),
    pytest.param(b"Content-Length: \r\n\r\n" + REQUEST, "not a number", id="empty-length"),
    pytest.param(
        b"Content-Length: 1000000000000\r\n\r\n" + REQUEST, "over the limit", id="huge-length"
    ),
    pytest.param(b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n", "limit", id="5000-digits"),
    pytest.param(b"Content-Length: 10\r\n\r\n" + REQUEST, "not valid JSON", id="length-too-short"),
    pytest.param(
        b"Content-Length: %d\r\n\r\n" % (len(REQUEST) + 30) + REQUEST,
        "cut short",
        id="length-too-long",
    ),
    pytest.param(
        b"Content-Length: 5000\r\n\r\n" + REQUEST[:20] + b"\r\n", "cut short", id="truncated-body"
    ),
    pytest.param(b"\x00\xff\xfegarbage", "unexpected bytes", id="binary-garbage"),
    pytest.param(b"hello\r\nworld\r\n", "unexpected bytes", id="garbage-lines"),
    pytest.param(b"x" * 20_000, "longer than", id="endless-header-line"),
    pytest.param(b"Content-Type: x\r\n\r\n" + REQUEST, "without Content-Length", id="no-length"),
    pytest.param(framed(b'{"text": "\xff"}'), "not valid UTF-8", id="invalid-utf8"),
    pytest.param(framed(b'{"text": "\xed\xa0\x80"}'), "not valid UTF-8", id="utf8-surrogate"),
    pytest.param(framed(b'{"jsonrpc": "2.0", "id": '), "not valid JSON", id="malformed-json"),
    pytest.param(framed(b""), "empty", id="empty-body"),
    pytest.param(framed(b"[" * 100_000 + b"]" * 100_000), "nested deeper", id="deep-nesting"),
    pytest.param(
        framed(b"[" * (MAX_NESTING_DEPTH + 1) + b"]" * (MAX_NESTING_DEPTH + 1)),
        "nested deeper",
        id="just-too-deep",
    ),
]


@pytest.mark.parametrize(("stream", "problem"), BAD_FRAMES)
def test_a_framing_mistake_is_named_once_and_the_next_message_is_found(
    stream: bytes, problem: str
) -> None:
    events = decode(stream + MARKER + framed(REQUEST))
    assert len(problems(events)) == 1, problems(events)
    assert problem in problems(events)[0]
    assert messages(events)[-1] == VALUE


SHORT_BAD_FRAMES = [case for case in BAD_FRAMES if len(case.values[0]) < 30_000]  # type: ignore[arg-type]


@pytest.mark.parametrize(("stream", "problem"), SHORT_BAD_FRAMES)
def test_a_framing_mistake_fed_byte_by_byte_decodes_the_same(stream: bytes, problem: str) -> None:
    data = stream + MARKER + framed(REQUEST)
    whole = decode(data)
    assert decode(*[data[i : i + 1] for i in range(len(data))]) == whole
    assert problem in problems(whole)[0]


def test_a_header_glued_to_the_end_of_a_body_that_was_too_short_is_found() -> None:
    # VS Code writes messages back to back: no line break to help
    events = decode(b"Content-Length: 10\r\n\r\n" + REQUEST + framed(REQUEST))
    assert messages(events) == [VALUE]
    assert len(problems(events)) == 1


def test_a_length_too_long_that_swallowed_the_next_header_gives_it_back() -> None:
    events = decode(b"Content-Length: %d\r\n\r\n" % (len(REQUEST) + 30) + REQUEST + framed(REQUEST))
    assert messages(events) == [VALUE]
    assert "not valid JSON" in problems(events)[0]


def test_nested_headers_that_each_hide_the_next_cost_linear_work_not_quadratic() -> None:
    parts, size = [b"x"], 1
    while size < 2_000_000:  # every body fails, and holds the next header mid-line
        parts.append(b"xContent-Length: %d\r\n\r\n" % size)
        size += len(parts[-1])
    stream = b"".join(reversed(parts))
    decoder = FrameDecoder()
    decoder.feed(stream)
    assert decoder.rescanned <= len(stream)  # without a budget: about len² / 40 bytes
    assert decoder.feed(MARKER + framed(REQUEST)) == [Message(VALUE)]


def test_a_length_over_the_cap_is_refused_at_once_not_after_its_body() -> None:
    decoder = FrameDecoder()
    events = decoder.feed(b"Content-Length: %d\r\n\r\n" % (MAX_BODY_BYTES + 1))
    assert "over the limit" in problems(events)[0]
    assert decoder.feed(framed(REQUEST)) == [Message(VALUE)]


def test_a_body_of_exactly_the_cap_is_accepted() -> None:
    decoder = FrameDecoder(max_body_bytes=len(REQUEST))
    assert decoder.feed(framed(REQUEST)) == [Message(VALUE)]
    assert "over the limit" in problems(decoder.feed(framed(REQUEST + b" ")))[0]


def test_text_that_looks_like_a_header_inside_a_valid_body_is_left_alone() -> None:
    body = json.dumps(
        {"jsonrpc": "2.0", "method": "x", "params": {"text": "Content-Length: 5\r\n\r\n{}"}}
    ).encode()
    body = body.replace(b', "params"', b',\n"params"')  # JSON may break lines between tokens
    data = framed(body) + framed(REQUEST)
    events = decode(*[data[i : i + 7] for i in range(0, len(data), 7)])
    assert problems(events) == []
    assert messages(events) == [json.loads(body), VALUE]


def test_nan_and_infinity_are_left_for_the_receiver_to_name() -> None:
    events = decode(framed(b'{"a": NaN, "b": -Infinity}'))
    (message,) = messages(events)
    assert isinstance(message, dict) and message["a"] != message["a"]


def test_the_end_of_the_stream_inside_a_body_is_reported() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"Content-Length: 100\r\n\r\n{")
    assert "ended" in problems(decoder.finish())[0]


def test_nesting_depth_is_measured_without_recursion() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert nesting_depth(deep) == MAX_NESTING_DEPTH + 1  # stops counting past the limit
    assert nesting_depth({"a": [1, {"b": []}]}) == 4
    assert nesting_depth(5) == 0


def decodes_after_garbage(junk: bytes, frame: bytes, cuts: list[int]) -> None:
    decoder = FrameDecoder()
    events: list[Message | Malformed] = []
    for chunk in chunked(junk + MARKER + frame, cuts):
        events += decoder.feed(chunk)
    assert messages(events) and messages(events)[-1] == VALUE
    assert decoder.feed(framed(REQUEST)) == [Message(VALUE)], "the decoder lost its place"


GARBAGE_THEN_REQUEST = {
    "junk": garbage,
    "frame": valid_frame(REQUEST),
    "cuts": st.lists(st.integers(0, 40_000), max_size=8),
}


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**GARBAGE_THEN_REQUEST)
def test_after_any_garbage_a_request_framed_after_a_line_break_is_decoded(
    junk: bytes, frame: bytes, cuts: list[int]
) -> None:
    decodes_after_garbage(junk, frame, cuts)


@pytest.mark.slow
@settings(max_examples=5_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**GARBAGE_THEN_REQUEST)
def test_5000_garbage_streams_never_lose_the_decoders_place(
    junk: bytes, frame: bytes, cuts: list[int]
) -> None:
    decodes_after_garbage(junk, frame, cuts)


@settings(max_examples=300, deadline=None)
@given(
    frames=st.lists(valid_frame(REQUEST), min_size=1, max_size=6),
    cuts=st.lists(st.integers(0, 3000), max_size=10),
)
def test_well_formed_streams_decode_exactly_whatever_the_spelling_and_chunking(
    frames: list[bytes], cuts: list[int]
) -> None:
    events = decode(*chunked(b"".join(frames), cuts))
    assert events == [Message(VALUE)] * len(frames)
