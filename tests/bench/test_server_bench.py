"""bench.server on a small brain, so the language-server table cannot rot unnoticed."""

from __future__ import annotations

import os
import re

import pytest

from bench import server


@pytest.mark.slow
def test_the_server_bench_prints_every_round_trip_and_the_prefetched_playbook(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The bench points COMODOR_HOME at a brain of its own; monkeypatch restores ours after.
    monkeypatch.setenv("COMODOR_HOME", os.environ["COMODOR_HOME"])
    assert server.main(["--size", "400", "--requests", "9"]) == 0
    table = capsys.readouterr().out
    for row in (
        "comodor.playbook",
        "comodor.playbook, prefetched while typing",
        "hover",
        "comodor.stats",
        "keystroke + hover, 5,000-line document",
        "hover alone, 5,000-line document",
        "playbook / stats (p95)",
        "process start → initialize answered",
        "idle RSS",
    ):
        assert re.search(rf"^\| {re.escape(row)} \|.*\d", table, re.MULTILINE), row
