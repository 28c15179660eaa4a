"""``comodor-lsp doctor`` tells the user what works and what does not, in one line each."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.fake_llm import FakeLLM


def doctor(workspace: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "comodor_lsp", "doctor", "--workspace", str(workspace), *extra],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_doctor_reports_a_healthy_brain_a_watcher_and_reflection_off(workspace: Path) -> None:
    completed = doctor(workspace)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0].startswith("ok  brain") and "integrity ok" in lines[0]
    assert lines[1].startswith("ok  watcher") and ("native" in lines[1] or "polling" in lines[1])
    assert lines[2] == "ok  model    reflection is off; nothing is sent anywhere"


def test_doctor_says_when_the_model_endpoint_answers(workspace: Path) -> None:
    with FakeLLM() as llm:
        completed = doctor(workspace, "--endpoint", llm.url, "--model", "fake-model")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.splitlines()[2].startswith("ok  model    ok")


def test_doctor_names_an_unreachable_endpoint_and_fails(workspace: Path) -> None:
    completed = doctor(workspace, "--endpoint", "http://127.0.0.1:9/v1", "--model", "x")
    assert completed.returncode == 1
    assert (
        "FAIL model    cannot reach http://127.0.0.1:9/v1: connection refused" in completed.stdout
    )
