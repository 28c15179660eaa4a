"""One performance report: every benchmark of the project, one command.

``python -m bench.report`` runs the brain, server, capture, learning-quality (simulated
user and real release-to-release edits), recall-quality and progress-honesty
benchmarks, each in its own process, and writes ``bench/out/report.md`` (the machine it
ran on, then every table) and two plots:
``recall-latency.png`` (recall latency against brain size) and
``learning-curve.png`` (corrections per task, with and without memory).
README's figures come from this report.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

OUT = Path("bench/out")


def machine() -> list[str]:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        total_kb = next(
            int(line.split()[1])
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal")
        )
        memory = f", {total_kb / 2**20:.0f} GiB"
    except (OSError, StopIteration):
        pass
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return [
        f"- Date: {time.strftime('%Y-%m-%d %H:%M %Z')}",
        f"- Machine: {cpu}, {os.cpu_count()} cores{memory}; load average {load} at start",
        f"- {platform.system()} {platform.release()}, Python {platform.python_version()}",
    ]


def run(module: str, *args: str) -> str:
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", f"bench.{module}", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    lines = [
        line
        for line in completed.stdout.splitlines()
        if not line.startswith("Ignoring notification")
    ]
    if completed.returncode != 0:
        lines.append(f"\n**bench.{module} failed** (exit {completed.returncode}):\n")
        lines.append("```\n" + completed.stderr[-2000:] + "\n```")
    print(f"bench.{module}: {elapsed:.0f} s", file=sys.stderr)
    return "\n".join(lines) + f"\n\n*bench.{module} took {elapsed:.0f} s.*\n"


def plot_recall(data: dict[str, Any], target: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = data["rows"]
    sizes = [row["size"] for row in rows]
    figure, axis = plt.subplots(figsize=(6, 3.6))
    axis.plot(sizes, [row["recall_p50"] for row in rows], marker="o", label="p50")
    axis.plot(sizes, [row["recall_p95"] for row in rows], marker="o", label="p95")
    axis.axhline(1.0, color="grey", linestyle="--", linewidth=1, label="target p95")
    axis.set_xscale("log")
    axis.set_xlabel("lessons in the brain")
    axis.set_ylabel("recall latency (ms)")
    axis.set_title("Recall latency against brain size")
    axis.legend()
    figure.tight_layout()
    figure.savefig(target, dpi=120)
    plt.close(figure)


def plot_learning(data: dict[str, Any], target: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seeds = data["seeds"]

    def mean_series(arm: str) -> list[float]:
        series = [seed["series"][arm]["corrections"] for seed in seeds]
        return [sum(values) / len(values) for values in zip(*series, strict=True)]

    on, off = mean_series("memory_on"), mean_series("memory_off")
    tasks = list(range(1, len(on) + 1))
    figure, axis = plt.subplots(figsize=(6, 3.6))
    axis.plot(tasks, off, label="memory off (holdout)", color="tab:red")
    axis.plot(tasks, on, label="memory on (playbook rules applied)", color="tab:green")
    axis.set_xlabel("task")
    axis.set_ylabel("corrections per task (mean of seeds)")
    axis.set_title("Corrections per task, with and without memory")
    axis.legend()
    figure.tight_layout()
    figure.savefig(target, dpi=120)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs, for a smoke test")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write (bench/out)")
    args = parser.parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    quick = args.quick
    sections = ["# Comodor performance report", "", *machine(), ""]
    sections += [
        "## Brain (in process)",
        "",
        run(
            "brain",
            "--json",
            str(out / "brain.json"),
            *(["--sizes", "1000,5000", "--queries", "200"] if quick else []),
        ),
    ]
    sections += [
        "## Recall: new index against the old walk",
        "",
        run(
            "recall_compare",
            "--json",
            str(out / "recall_compare.json"),
            *(["--size", "3000", "--queries", "200", "--planted", "40"] if quick else []),
        ),
    ]
    sections += [
        "## Language server",
        "",
        run("server", *(["--size", "5000", "--requests", "100"] if quick else [])),
    ]
    sections += [
        "## Capture",
        "",
        run("capture", *(["--repeat", "5", "--files", "500"] if quick else [])),
    ]
    sections += [
        "## Learning quality",
        "",
        run(
            "learning",
            "--json",
            str(out / "learning.json"),
            *(["--seeds", "1", "--tasks", "12"] if quick else []),
        ),
    ]
    sections += [
        "## Learning judgement: ties, and a vocabulary from the user's words",
        "",
        run(
            "learning_judgement",
            "--json",
            str(out / "learning_judgement.json"),
            *(["--quick"] if quick else []),
        ),
    ]
    sections += [
        "## Learning on real code",
        "",
        run(
            "realcode",
            "--simulated-seeds",
            "0",
            "--json",
            str(out / "realcode.json"),
            *(["--packages", "click", "preact"] if quick else []),
        ),
    ]
    sections += [
        "## Recall quality",
        "",
        run(
            "recall_quality",
            "--json",
            str(out / "recall_quality.json"),
            *(["--distractors", "2000", "--planted", "40"] if quick else []),
        ),
    ]
    sections += [
        "## Progress honesty",
        "",
        run(
            "progress_honesty",
            "--json",
            str(out / "progress_honesty.json"),
            *(["--histories", "100"] if quick else []),
        ),
    ]
    plots = []
    if (out / "brain.json").exists():
        plot_recall(json.loads((out / "brain.json").read_text()), out / "recall-latency.png")
        plots.append("![Recall latency against brain size](recall-latency.png)")
    if (out / "learning.json").exists():
        plot_learning(json.loads((out / "learning.json").read_text()), out / "learning-curve.png")
        plots.append("![Corrections per task, with and without memory](learning-curve.png)")
    sections += ["## Plots", "", *plots, ""]
    report = out / "report.md"
    report.write_text("\n".join(sections))
    print(f"wrote {report}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
