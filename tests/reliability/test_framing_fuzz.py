"""Hypothesis at the byte level against a real ``comodor serve``: garbage never makes it deaf.

Property: whatever bytes came before (random header casing and separators,
wrong, huge and non-numeric lengths, truncated bodies, invalid UTF-8, deep
nesting, endless lines, valid JSON that is no request), a request framed after
a line break is answered, and the process is alive. The writes are cut at
random points, so frames also arrive in pieces. One server process serves all
examples; the default run is bounded (well under a minute), the long run is
marked slow.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.framing_fuzz import MARKER, chunked, garbage, request_body, valid_frame
from tests.support.rpc import RawServer

_ids = itertools.count(1)
TALLY = {"garbage runs": 0, "garbage bytes": 0, "requests answered": 0, "errors sent": 0}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    workspace = tmp_path_factory.mktemp("fuzz-ws").resolve()
    home = tmp_path_factory.mktemp("fuzz-home")
    running = RawServer(workspace, env={**os.environ, "COMODOR_HOME": str(home)})
    running.initialize()
    yield running
    alive = running.process.poll() is None
    running.close()
    print(  # the README's reliability table quotes this line
        "\nframing fuzz: {garbage runs} garbage runs ({garbage bytes} bytes), "
        "{requests answered} requests after them answered, {errors sent} errors sent, "
        "crashes 0, deaf 0".format(**TALLY)
        if alive
        else "\nframing fuzz: the server died"
    )


def garbage_then_requests(server: RawServer, data: st.DataObject) -> None:
    segments = data.draw(st.integers(1, 3), label="requests")
    stream = b""
    ids = set()
    junk_bytes = 0
    for _ in range(segments):
        message_id = 1_000_000 + next(_ids)
        ids.add(message_id)
        junk = data.draw(garbage, label="garbage")
        junk_bytes += len(junk)
        stream += junk + MARKER
        stream += data.draw(valid_frame(request_body(message_id)), label="request")
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=6), label="write cuts")
    for chunk in chunked(stream, cuts):
        server.send_bytes(chunk)
    replies = server.wait_for(ids, timeout=30)
    assert all("result" in reply for reply in replies.values()), replies
    assert server.process.poll() is None, "the server died"
    TALLY["garbage runs"] += segments  # counted once sent: hypothesis may abandon a draw
    TALLY["garbage bytes"] += junk_bytes
    TALLY["requests answered"] += len(replies)
    TALLY["errors sent"] += len(server.drain_unaddressed())


@settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_after_any_garbage_a_request_after_a_line_break_is_answered(
    server: RawServer, data: st.DataObject
) -> None:
    garbage_then_requests(server, data)


@pytest.mark.slow
@settings(
    max_examples=3000,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_3000_garbage_streams_never_make_the_server_deaf(
    server: RawServer, data: st.DataObject
) -> None:
    garbage_then_requests(server, data)
