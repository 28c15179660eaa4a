"""The brain worker: writes in order, reads that never wait long, failures that are seen."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from comodor_lsp.brain.worker import READ_PATIENCE_S, BrainWorker


@pytest.fixture
def worker() -> BrainWorker:
    worker = BrainWorker("test-brain")
    yield worker
    worker.stop(1.0)


def test_writes_run_in_the_order_they_were_submitted(worker: BrainWorker) -> None:
    seen: list[int] = []
    futures = [worker.submit(lambda n=n: seen.append(n)) for n in range(200)]
    for future in futures:
        future.result(5)
    assert seen == list(range(200))


def test_a_read_sees_the_writes_submitted_before_it(worker: BrainWorker) -> None:
    state = {"saved": False}

    def slow_save() -> None:
        time.sleep(0.05)
        state["saved"] = True

    worker.submit(slow_save)
    assert worker.submit_read(lambda: state["saved"]).result(5) is True


def test_a_read_does_not_wait_for_a_stuck_write(worker: BrainWorker) -> None:
    release = threading.Event()
    stuck = worker.submit(lambda: release.wait(10))  # a write waiting on another's lock
    started = time.monotonic()
    assert worker.submit_read(lambda: "answered").result(5) == "answered"
    waited = time.monotonic() - started
    release.set()
    stuck.result(5)
    assert READ_PATIENCE_S <= waited < 5


def test_fire_and_forget_failures_are_logged_with_their_traceback(
    worker: BrainWorker, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> None:
        raise RuntimeError("the disk said no")

    with caplog.at_level(logging.ERROR, logger="comodor_lsp.brain.worker"):
        worker.post(broken, "store the scan")
        assert worker.drain(5)
    record = next(r for r in caplog.records if "store the scan" in r.getMessage())
    assert record.exc_info is not None and "the disk said no" in str(record.exc_info[1])


def test_nothing_is_accepted_after_stop(worker: BrainWorker) -> None:
    worker.stop(1.0)
    with pytest.raises(RuntimeError, match="shutting down"):
        worker.submit(lambda: None).result(1)


def test_a_lane_that_goes_quiet_after_work_runs_the_idle_hook_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("comodor_lsp.brain.worker.QUIET_S", 0.05)
    calls: list[str] = []
    quiet = threading.Event()

    def on_idle() -> None:
        calls.append(threading.current_thread().name)
        quiet.set()

    worker = BrainWorker("idle-brain", on_idle=on_idle)
    try:
        time.sleep(0.2)
        assert calls == []  # a lane that never worked has nothing to give back
        worker.submit_read(lambda: None).result(5)
        assert quiet.wait(5)
        time.sleep(0.2)
        assert calls == ["idle-brain-read"]  # once, not on every quiet interval
        quiet.clear()
        worker.submit(lambda: None).result(5)
        assert quiet.wait(5)
        time.sleep(0.2)
        assert sorted(calls) == ["idle-brain", "idle-brain-read"]
    finally:
        worker.stop(1.0)


def test_a_failing_idle_hook_is_logged_and_the_lane_keeps_working(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("comodor_lsp.brain.worker.QUIET_S", 0.05)

    def on_idle() -> None:
        raise OSError("no such call")

    worker = BrainWorker("idle-brain", on_idle=on_idle)
    try:
        with caplog.at_level(logging.ERROR, logger="comodor_lsp.brain.worker"):
            worker.submit(lambda: None).result(5)
            time.sleep(0.3)
        assert worker.submit(lambda: 42).result(5) == 42
        assert "the idle hook of idle-brain failed" in caplog.text
    finally:
        worker.stop(1.0)
