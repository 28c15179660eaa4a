"""Brain benchmark: recall, merge lookup, credit and opening, at 1k / 10k / 50k lessons.

Run: ``python -m bench.brain`` (prints a Markdown table). Targets: recall p95 ≤ 1 ms
at 50k lessons in process; opening a 50k brain ≤ 300 ms; ready for recall from the
snapshot ≤ 50 ms. Recall is measured after the first start's snapshot was written.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.store import BrainStore

from bench.corpus import Corpus

SCOPE = "project:bench"


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples


def build_brain(path: Path, size: int, scope: str = SCOPE) -> None:
    corpus = Corpus(seed=size)
    store = BrainStore(path)
    now = time.time()
    store.add_lessons(corpus.lesson(scope, now) for _ in range(size))
    store.close()


def measure(size: int, queries: int, folder: Path) -> dict[str, float]:
    path = folder / f"brain-{size}.db"
    build_brain(path, size)
    start = time.perf_counter()
    engine = LearningEngine.open(path, SCOPE)
    open_ms = (time.perf_counter() - start) * 1000.0
    start = time.perf_counter()
    engine.warm()
    warm_ms = (time.perf_counter() - start) * 1000.0
    snapshots = engine.lessons.index.snapshots
    if snapshots is not None:
        snapshots.wait(60)  # the first start writes the snapshot on a thread; not measured
    engine.close()
    start = time.perf_counter()
    engine = LearningEngine.open(path, SCOPE)
    engine.warm()
    ready_ms = (time.perf_counter() - start) * 1000.0
    corpus = Corpus(seed=99)
    texts = [corpus.query() for _ in range(queries)]
    recall = [
        sample
        for text in texts
        for sample in timed(lambda text=text: engine.recall(text), 1)  # type: ignore[misc]
    ]
    lookup = [
        sample
        for text in texts[:200]
        for sample in timed(lambda text=text: engine.find_similar(text), 1)  # type: ignore[misc]
    ]
    ids = [lesson.id for lesson in engine.recall(texts[0])] or [1]
    credit = timed(lambda: engine.store.credit(ids[:3], won=True), 200)
    engine.close()
    return {
        "size": size,
        "open_ms": open_ms,
        "warm_ms": warm_ms,
        "ready_ms": ready_ms,
        "recall_p50": statistics.median(recall),
        "recall_p95": percentile(recall, 0.95),
        "lookup_p50": statistics.median(lookup),
        "lookup_p95": percentile(lookup, 0.95),
        "credit_p50": statistics.median(credit),
        "credit_p95": percentile(credit, 0.95),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    sizes = [int(part) for part in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            rows.append(measure(size, args.queries, Path(folder)))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"rows": rows, "peak_rss_mb": peak_mb}, indent=2))
    print(
        "| lessons | open ms | index build ms (first start) | open + ready from snapshot ms "
        "| recall p50 ms | recall p95 ms | merge lookup p50/p95 ms | credit p50/p95 ms |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row['size']:,} | {row['open_ms']:.1f} | {row['warm_ms']:.0f} "
            f"| {row['ready_ms']:.1f} "
            f"| {row['recall_p50']:.3f} | {row['recall_p95']:.3f} "
            f"| {row['lookup_p50']:.2f} / {row['lookup_p95']:.2f} "
            f"| {row['credit_p50']:.2f} / {row['credit_p95']:.2f} |"
        )
    print(
        f"\nPeak RSS of the benchmark process: {peak_mb:.0f} MB (Python {sys.version.split()[0]})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
