"""``bench/report`` writes one Markdown report with every benchmark and both plots."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_the_report_has_every_benchmark_the_machine_and_both_plots(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "bench.report", "--quick", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    report = (tmp_path / "report.md").read_text()
    assert "- Machine:" in report
    for section in (
        "## Brain",
        "## Recall: new index against the old walk",
        "## Language server",
        "## Capture",
        "## Learning quality",
        "## Recall quality",
        "## Progress honesty",
        "## Plots",
    ):
        assert section in report
    assert "failed" not in report
    for plot in ("recall-latency.png", "learning-curve.png"):
        assert (tmp_path / plot).read_bytes().startswith(b"\x89PNG")
