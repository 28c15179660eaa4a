"""ReflectionWorker: gating, drop-oldest queue, one call at a time, prompt stop."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from comodor_lsp.reflect import (
    ChatGateway,
    EpisodeSummary,
    Message,
    ProposedLesson,
    ReflectError,
    Reflection,
    ReflectionWorker,
    Reflector,
    should_reflect,
)

from tests.support.fake_llm import FakeLLM, Reply

LOG = logging.getLogger("test.reflect.worker")
ONE = Reflection(lessons=(ProposedLesson("fact", "generally", "x", 0.6),))


def failed(goal: str = "task") -> EpisodeSummary:
    return EpisodeSummary(goal=goal, success=False, steps=2)


class Recorder:
    def __init__(self) -> None:
        self.results: list[tuple[int, Reflection]] = []
        self.lock = threading.Lock()

    def __call__(self, episode_id: int, reflection: Reflection) -> None:
        with self.lock:
            self.results.append((episode_id, reflection))

    @property
    def ids(self) -> list[int]:
        return [i for i, _ in self.results]


# -- gating ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("summary", "expected"),
    [
        (EpisodeSummary("g", success=True, steps=1), False),
        (EpisodeSummary("g", success=True, steps=3), False),
        (EpisodeSummary("g", success=True, steps=4), True),
        (EpisodeSummary("g", success=False, steps=1), True),
        (EpisodeSummary("g", success=True, steps=1, corrections=["no, use tabs"]), True),
        (
            EpisodeSummary("g", success=True, steps=2, messages=[Message("tool", "t", "e", True)]),
            True,
        ),
        (
            EpisodeSummary("g", success=True, steps=2, messages=[Message("tool", "t", "ok")]),
            False,
        ),
    ],
)
def test_should_reflect(summary: EpisodeSummary, expected: bool) -> None:
    assert should_reflect(summary) is expected


def test_trivial_success_costs_nothing() -> None:
    calls: list[EpisodeSummary] = []
    rec = Recorder()
    worker = ReflectionWorker(lambda s: calls.append(s) or ONE, rec, log=LOG)
    try:
        assert worker.submit(1, EpisodeSummary("g", success=True, steps=1)) is False
        assert worker.submit(2, failed()) is True
        assert worker.submit(3, EpisodeSummary("g", success=True, steps=1), force=True) is True
        assert worker.wait_idle(2)
        assert rec.ids == [2, 3]
        assert len(calls) == 2
    finally:
        assert worker.stop()


# -- queue -------------------------------------------------------------------------


def test_queue_drops_oldest_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    gate = threading.Event()
    started = threading.Event()

    def reflect(summary: EpisodeSummary) -> Reflection:
        started.set()
        gate.wait(5)
        return ONE

    rec = Recorder()
    worker = ReflectionWorker(reflect, rec, max_queue=2, log=LOG)
    try:
        with caplog.at_level(logging.INFO, logger=LOG.name):
            worker.submit(1, failed())
            assert started.wait(2)  # job 1 is now running, the queue is empty
            for episode in (2, 3, 4, 5):
                worker.submit(episode, failed())
            assert worker.pending == 2
            gate.set()
            assert worker.wait_idle(2)
        assert rec.ids == [1, 4, 5]
        drops = [r.getMessage() for r in caplog.records if "dropped the oldest" in r.getMessage()]
        assert drops == [
            "reflection queue full (2); dropped the oldest episode 2",
            "reflection queue full (2); dropped the oldest episode 3",
        ]
    finally:
        gate.set()
        worker.stop()


def test_exceptions_are_logged_on_one_line_and_worker_continues(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def reflect(summary: EpisodeSummary) -> Reflection:
        if summary.goal == "boom":
            raise ValueError("bad\nthing")
        if summary.goal == "gateway":
            raise ReflectError("cannot reach http://127.0.0.1:9/v1: connection refused")
        return ONE

    def on_result(episode_id: int, reflection: Reflection) -> None:
        if episode_id == 3:
            raise RuntimeError("db is locked")
        rec(episode_id, reflection)

    rec = Recorder()
    worker = ReflectionWorker(reflect, on_result, log=LOG)
    try:
        with caplog.at_level(logging.WARNING, logger=LOG.name):
            for i, goal in enumerate(["boom", "gateway", "ok", "ok"], start=1):
                worker.submit(i, failed(goal))
            assert worker.wait_idle(2)
        assert rec.ids == [4]
        lines = [r.getMessage() for r in caplog.records]
        assert lines == [
            "reflection for episode 1 failed: ValueError: bad thing",
            "reflection for episode 2 failed: cannot reach http://127.0.0.1:9/v1: "
            "connection refused",
            "storing the reflection for episode 3 failed: RuntimeError: db is locked",
        ]
        assert all(r.exc_info is None for r in caplog.records)
    finally:
        worker.stop()


def test_wait_idle_times_out_while_busy() -> None:
    gate = threading.Event()
    worker = ReflectionWorker(lambda s: gate.wait(5) and ONE, Recorder(), log=LOG)
    try:
        worker.submit(1, failed())
        assert worker.wait_idle(0.1) is False
        gate.set()
        assert worker.wait_idle(2) is True
    finally:
        gate.set()
        worker.stop()


# -- stop ---------------------------------------------------------------------------


def test_stop_cancels_a_hung_model_call(fake_llm: FakeLLM) -> None:
    fake_llm.set_default(Reply.hung())
    gateway = ChatGateway(fake_llm.url, "fake-model", timeout_s=60)
    reflector = Reflector(gateway, lambda s: s)
    rec = Recorder()
    worker = ReflectionWorker(reflector.reflect, rec, log=LOG, on_stop=gateway.close)
    worker.submit(1, failed())
    worker.submit(2, failed())
    deadline = time.monotonic() + 2
    while fake_llm.in_flight == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    start = time.monotonic()
    assert worker.stop(timeout=0.5) is True
    assert time.monotonic() - start < 0.5
    assert rec.results == []
    assert len(fake_llm.requests) == 1  # the queued job was dropped, not sent
    assert worker.submit(3, failed()) is False  # stopped workers accept nothing


def test_stop_returns_even_if_the_call_cannot_be_cancelled() -> None:
    gate = threading.Event()
    worker = ReflectionWorker(lambda s: gate.wait(10) and ONE, Recorder(), log=LOG)
    worker.submit(1, failed())
    time.sleep(0.05)
    start = time.monotonic()
    assert worker.stop(timeout=0.2) is False  # thread still stuck, but we did not wait
    assert time.monotonic() - start < 0.4
    gate.set()


def test_stop_is_idempotent_and_on_stop_errors_are_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def on_stop() -> None:
        raise OSError("already closed")

    worker = ReflectionWorker(lambda s: ONE, Recorder(), log=LOG, on_stop=on_stop)
    with caplog.at_level(logging.WARNING, logger=LOG.name):
        assert worker.stop()
        assert worker.stop()
    assert [r.getMessage() for r in caplog.records] == [
        "cancelling the reflection call failed: OSError: already closed"
    ]


# -- one call at a time against the real server ---------------------------------------


def test_one_model_call_at_a_time(fake_llm: FakeLLM) -> None:
    reply = '{"lessons": [{"kind": "fact", "guidance": "Use make test."}]}'
    fake_llm.set_default(Reply.chat(reply, delay_s=0.03))
    gateway = ChatGateway(fake_llm.url, "fake-model", timeout_s=5)
    reflector = Reflector(gateway, lambda s: s)
    rec = Recorder()
    worker = ReflectionWorker(reflector.reflect, rec, max_queue=50, log=LOG, on_stop=gateway.close)
    try:
        submitters = [
            threading.Thread(
                target=lambda k=k: [worker.submit(k * 10 + j, failed()) for j in range(3)]
            )
            for k in range(4)
        ]
        for t in submitters:
            t.start()
        for t in submitters:
            t.join()
        assert worker.wait_idle(5)
    finally:
        worker.stop()
    assert len(rec.results) == 12
    assert len(fake_llm.requests) == 12
    assert fake_llm.max_in_flight == 1
    assert all(r.lessons[0].guidance == "Use make test." for _, r in rec.results)
