"""README's first command: the demo runs the whole loop through a real server."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.slow
def test_demo_learns_a_rule_from_two_corrections_and_shows_it_everywhere() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "comodor_lsp", "demo"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "-> Learned: Use single quotes for strings. — from 2 corrections · 100% agree" in out
    assert "[quotes.style=single, python, 2 corrections · 100% agree, confident]" in out
    assert "When running the tests: use pytest -q -p no:cacheprovider" in out
    assert "**House rules**" in out
    assert "1 task recorded" in out
