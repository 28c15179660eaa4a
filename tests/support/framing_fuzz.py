"""Hypothesis strategies for hostile LSP byte streams: headers, lengths, bodies, garbage.

Shared by the decoder's own property test (in-process, thousands of examples)
and the real-server fuzz (a ``comodor serve`` process, raw bytes on its stdin).
The property both check: whatever garbage came before, a request framed after a
line break (the resynchronisation point, see :mod:`comodor.lsp.framing`) is
decoded and answered.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import strategies as st

NAME = "content-length"

case_of_name = st.lists(st.booleans(), min_size=len(NAME), max_size=len(NAME)).map(
    lambda upper: "".join(c.upper() if u else c for c, u in zip(NAME, upper, strict=True))
)
separator = st.sampled_from([":", ": ", " : ", ":\t", ":  "])
line_end = st.sampled_from([b"\r\n", b"\n"])
extra_header = st.sampled_from(
    [
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8",
        b"content-type: application/json",
        b"X-Anything: at all",
    ]
)


@st.composite
def header_block(draw: st.DrawFn, length: int) -> bytes:
    """A header block for a body of ``length`` bytes, in any legal spelling."""
    end = draw(line_end)
    name = draw(case_of_name).encode()
    lines = [name + draw(separator).encode() + str(length).encode()]
    for _ in range(draw(st.integers(0, 2))):
        lines.insert(draw(st.integers(0, len(lines))), draw(extra_header))
    return b"".join(line + end for line in lines) + end


def framed(body: bytes, header: bytes | None = None) -> bytes:
    return (header or b"Content-Length: %d\r\n\r\n" % len(body)) + body


def valid_frame(body: bytes) -> st.SearchStrategy[bytes]:
    return header_block(len(body)).map(lambda header: header + body)


bad_length = st.one_of(
    st.sampled_from([b"abc", b"-5", b"", b"12abc", b"0x10", b"+7", b"1e3", b"\xff\xfe", b"  "]),
    st.integers(64 * 1024 * 1024 + 1, 10**30).map(lambda n: str(n).encode()),
    st.just(b"9" * 5000),
)

json_value: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)

bad_body = st.one_of(
    st.binary(max_size=80),
    st.just(b'{"jsonrpc": "2.0", "id": -1, "method": "x", "params": {"a": "\xff\xfe"}}'),
    st.integers(65, 3000).map(lambda depth: b"[" * depth + b"]" * depth),
    st.integers(1, 3000).map(lambda depth: b"[" * depth),
    st.sampled_from([b"{", b'{"a":', b"nul", b"[1,2", b"\xc3\x28", b"\xed\xa0\x80", b"{}}"]),
    json_value.map(lambda value: json.dumps(value).encode()),  # valid JSON, not a request
)

garbage_piece = st.one_of(
    st.binary(max_size=60),
    st.text(max_size=40).map(str.encode),
    line_end,
    extra_header,
    bad_length.map(lambda value: b"Content-Length: " + value + b"\r\n"),
    st.tuples(case_of_name, separator, bad_length, line_end).map(
        lambda t: t[0].encode() + t[1].encode() + t[2] + t[3]
    ),
    st.tuples(bad_body, st.integers(-20, 20)).map(  # a frame whose length is off
        lambda t: b"Content-Length: %d\r\n\r\n" % max(0, len(t[0]) + t[1]) + t[0]
    ),
    bad_body.map(framed),  # a correctly framed bad body
    st.integers(0, 5000).map(
        lambda n: b"Content-Length: %d\r\n\r\n" % n
    ),  # a body that never comes
    st.integers(0, 300).map(lambda n: b"Content-Length: %d\r\n" % n),  # headers without their end
    st.integers(9000, 20000).map(lambda n: b"x" * n),  # a header line with no end
)

garbage = st.lists(garbage_piece, max_size=6).map(b"".join)

MARKER = b"\r\n"
"""What a client sends after garbage to resynchronise: a line break, then a frame."""


def request_body(message_id: int, method: str = "workspace/executeCommand") -> bytes:
    params: Any = {"command": "comodor.stats", "arguments": [{}]}
    return json.dumps(
        {"jsonrpc": "2.0", "id": message_id, "method": method, "params": params}
    ).encode()


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` split at the given offsets (clamped, sorted), as a client's writes."""
    points = sorted({min(max(cut, 0), len(data)) for cut in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]
