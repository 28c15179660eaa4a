"""The new recall index against the old walk: same lessons, same queries, one run, one table.

What is compared, at ``--size`` lessons (default 50,000):

* **latency** of one recall at the index (``search``: the ranking itself, same
  query terms, scopes, limit and floor for both), p50/p95/p99 over ``--queries``
  word-salad queries from a skewed vocabulary (``bench.corpus``: the walk's worst
  case, common words that match thousands of lessons; the two alternate in blocks of
  50 queries), and of the new full path
  (``LearningEngine.recall``: sync, rank, fetch the winners' texts from SQLite);
* **recall@6** of planted lessons among near misses that share their words
  (``bench.recall_quality``: 200 planted, the rest of ``--size`` near misses,
  paraphrased queries), planted lessons trusted (0.95, 3 wins) and ordinary (0.6);
* **ready**: the old walk must build its index from SQLite at every start; the new
  index maps its snapshot file and replays the lesson log since (measured with a
  delta of ``--delta`` changed lessons), and, without a snapshot, rebuilds;
* **RSS** of each index in a fresh process (resident memory after it is ready,
  minus the same process before), so one index's garbage cannot bill the other.

The old walk is ``bench/old_recall.py``, a verbatim copy of the index before this
change. Run: ``python -m bench.recall_compare`` (``--json PATH`` also writes rows).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.recall.entries import indexed as _indexed
from comodor_lsp.brain.recall.index import IndexedLesson, RecallIndex
from comodor_lsp.brain.recall.text import terms
from comodor_lsp.brain.store import BrainStore
from comodor_lsp.settings import LearningSettings

from bench import old_recall
from bench import recall_quality as rq
from bench.brain import SCOPE, build_brain, percentile
from bench.corpus import Corpus

MIN_CONFIDENCE = LearningSettings().min_confidence
HALF_LIFE = LearningSettings().half_life_days
TOP_K = 6
BLOCK = 50


def rows_of(path: Path) -> list[IndexedLesson]:
    store = BrainStore(path)
    try:
        return [_indexed(row) for row in store.iter_index_rows()]
    finally:
        store.close()


def old_index(lessons: Sequence[IndexedLesson]) -> old_recall.RecallIndex:
    index = old_recall.RecallIndex(HALF_LIFE)
    index.rebuild(old_recall.IndexedLesson(*lesson[:6]) for lesson in lessons)
    return index


def new_index(lessons: Sequence[IndexedLesson]) -> RecallIndex:
    index = RecallIndex(HALF_LIFE)
    index.rebuild(lessons)
    return index


Search = Callable[[list[str]], list[int]]


def searcher(index: Any, now: float, limit: int = TOP_K) -> Search:
    def search(query_terms: list[str]) -> list[int]:
        hits = index.search(
            query_terms, [SCOPE], limit=limit, now=now, min_confidence=MIN_CONFIDENCE
        )
        return [hit.id for hit in hits]

    return search


def latencies(search: Search, queries: list[list[str]]) -> list[float]:
    samples = []
    for query in queries:
        start = time.perf_counter()
        search(query)
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples


def summary(samples: list[float]) -> dict[str, float]:
    return {
        "p50": statistics.median(samples),
        "p95": percentile(samples, 0.95),
        "p99": percentile(samples, 0.99),
    }


def measure_latency(folder: Path, size: int, count: int) -> dict[str, Any]:
    path = folder / "latency.db"
    build_brain(path, size)
    lessons = rows_of(path)
    corpus = Corpus(seed=99)
    queries = [corpus.query() for _ in range(count)]
    query_terms = [terms(query) for query in queries]
    now = time.time()
    old, new = old_index(lessons), new_index(lessons)
    old_search, new_search = searcher(old, now), searcher(new, now)
    for query in query_terms[:50]:  # warm both (caches, first-touch pages)
        old_search(query)
        new_search(query)
    # Alternating blocks of queries: both see the same machine load, and neither's
    # caches are flushed by the other before every single query.
    old_samples: list[float] = []
    new_samples: list[float] = []
    for start in range(0, len(query_terms), BLOCK):
        block = query_terms[start : start + BLOCK]
        old_samples.extend(latencies(old_search, block))
        new_samples.extend(latencies(new_search, block))
    agree = sum(old_search(q) == new_search(q) for q in query_terms[:200]) / min(200, count)
    truncated = sum(_walk_is_cut(old, q, now) for q in query_terms) / count
    engine = LearningEngine.open(path, SCOPE)
    engine.warm()
    full = latencies(lambda q: [lesson.id for lesson in engine.recall(q)], queries)  # type: ignore[arg-type, misc]
    engine.lessons.index.snapshots.wait(30)
    engine.close()
    return {
        "old": summary(old_samples),
        "new": summary(new_samples),
        "new_full": summary(full),
        "same_top6_share": agree,
        "old_walk_cut_share": truncated,
    }


def _walk_is_cut(index: old_recall.RecallIndex, query: list[str], now: float) -> bool:
    """Whether the old walk's budget changed its answer (a walk without budget differs)."""
    limited = index.search(query, [SCOPE], limit=TOP_K, now=now, min_confidence=MIN_CONFIDENCE)
    full = index.search(
        query, [SCOPE], limit=TOP_K, now=now, min_confidence=MIN_CONFIDENCE, budget=10**9
    )
    return [h.id for h in limited] != [h.id for h in full]


def measure_quality(folder: Path, size: int, planted_count: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    every = [rq.Triple(a, o, c) for a in rq.ACTIONS for o in rq.OBJECTS for c in rq.COMPONENTS]
    planted = rng.sample(every, k=planted_count)
    result: dict[str, Any] = {}
    for arm in rq.ARMS[:2]:
        path = folder / f"quality-{arm.planted_confidence}.db"
        ids = rq.build(path, arm, planted, size - planted_count, seed)
        lessons = rows_of(path)
        now = time.time()
        query_rng = random.Random(seed + 7)
        queries = [(terms(rq.paraphrase(query_rng, t)), ids[t.trigger()]) for t in planted]
        row = {}
        for name, index in (("old", old_index(lessons)), ("new", new_index(lessons))):
            search = searcher(index, now)
            row[name] = sum(wanted in search(query) for query, wanted in queries) / len(queries)
        result["trusted" if arm.planted_wins else "ordinary"] = row
    return result


def measure_ready(folder: Path, size: int, delta: int) -> dict[str, float]:
    """Old: build from SQLite. New: open and warm from the snapshot plus ``delta`` changes."""
    path = folder / "ready.db"
    build_brain(path, size)
    engine = LearningEngine.open(path, SCOPE)
    start = time.perf_counter()
    engine.warm()
    rebuild_ms = (time.perf_counter() - start) * 1000.0
    assert engine.lessons.index.snapshots.wait(60)
    compaction_ms = engine.lessons.index.snapshots.last_compaction_ms
    ids = [lesson.id for lesson in engine.store.lessons([SCOPE], limit=delta)]
    engine.store.credit(ids, won=True)  # a delta the next open must replay
    engine.close()
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        engine = LearningEngine.open(path, SCOPE)
        engine.warm()
        samples.append((time.perf_counter() - start) * 1000.0)
        assert engine.lessons.index.snapshots.reason == "", engine.lessons.index.snapshots.reason
        engine.lessons.index.snapshots.wait(60)
        engine.close()
    old_samples = []
    for _ in range(3):
        start = time.perf_counter()
        old_index(rows_of(path))
        old_samples.append((time.perf_counter() - start) * 1000.0)
    return {
        "old_ms": statistics.median(old_samples),
        "new_ms": statistics.median(samples),
        "new_rebuild_ms": rebuild_ms,
        "compaction_ms": compaction_ms,
    }


def _child(kind: str, path: str) -> None:
    """Print the RSS an index costs in this fresh process (run with ``--child``)."""
    import gc

    import psutil

    process = psutil.Process()
    if kind == "old":
        lessons = rows_of(Path(path))
        gc.collect()
        before = process.memory_info().rss
        index = old_index(lessons)
        del lessons
    else:
        store = BrainStore(Path(path))  # SQLite and numpy loaded before the baseline
        store.close()
        gc.collect()
        before = process.memory_info().rss
        index = LearningEngine.open(Path(path), SCOPE)
        index.warm()
    gc.collect()
    after = process.memory_info().rss
    print(json.dumps({"index_mb": (after - before) / 2**20, "rss_mb": after / 2**20}))
    del index


def measure_rss(path: Path) -> dict[str, dict[str, float]]:
    result = {}
    for kind in ("old", "new"):
        completed = subprocess.run(
            [sys.executable, "-m", "bench.recall_compare", "--child", kind, str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        result[kind] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--planted", type=int, default=200)
    parser.add_argument("--delta", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="comodor-recallcompare-") as name:
        folder = Path(name)
        results: dict[str, Any] = {"config": {k: v for k, v in vars(args).items() if k != "json"}}
        results["latency"] = measure_latency(folder, args.size, args.queries)
        results["quality"] = measure_quality(folder, args.size, args.planted, args.seed)
        results["ready"] = measure_ready(folder, args.size, args.delta)
        results["rss"] = measure_rss(folder / "ready.db")
    results["seconds"] = time.perf_counter() - started
    print_table(results)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 0


def print_table(results: dict[str, Any]) -> None:
    config = results["config"]
    latency, quality = results["latency"], results["quality"]
    ready, rss = results["ready"], results["rss"]
    print(
        f"### Recall at {config['size']:,} lessons: the old walk and the new index, "
        f"same lessons and queries, one run\n"
    )
    print("| measure | old walk | new index | old / new | target |")
    print("|---|---:|---:|---:|---|")
    for name in ("p50", "p95", "p99"):
        old, new = latency["old"][name], latency["new"][name]
        target = "≤ 1 ms and ≥ 5×" if name == "p95" else ""
        print(f"| recall {name} ms (index) | {old:.3f} | {new:.3f} | {old / new:.1f}× | {target} |")
    full = latency["new_full"]
    print(
        f"| recall p50 / p95 ms, whole path (`LearningEngine.recall`) | | "
        f"{full['p50']:.3f} / {full['p95']:.3f} | | |"
    )
    for arm, target in (("trusted", "≥ 0.98"), ("ordinary", "≥ 0.85")):
        row = quality[arm]
        print(
            f"| recall@6, {arm} planted lessons | {row['old']:.3f} | {row['new']:.3f} "
            f"| | {target} |"
        )
    print(
        f"| ready ms (old: build from SQLite; new: map snapshot + replay "
        f"{config['delta']} changes) | {ready['old_ms']:.0f} | {ready['new_ms']:.1f} "
        f"| {ready['old_ms'] / ready['new_ms']:.0f}× | new ≤ 50 |"
    )
    old_mb, new_mb = rss["old"]["index_mb"], rss["new"]["index_mb"]
    print(
        f"| index RSS MB (fresh process) | {old_mb:.1f} | {new_mb:.1f} "
        f"| {old_mb / max(new_mb, 0.1):.1f}× | |"
    )
    print(
        f"\nThe old walk's budget changed its answer on {latency['old_walk_cut_share']:.0%} of "
        f"the latency queries; both returned the same top {TOP_K} on "
        f"{latency['same_top6_share']:.0%} (they are not meant to agree: the new index weighs "
        "a word of a lesson's trigger above one of its guidance only). New index without a "
        "snapshot (first start): "
        f"{ready['new_rebuild_ms']:.0f} ms; writing the snapshot on its thread: "
        f"{ready['compaction_ms']:.0f} ms. Wall time {results['seconds']:.0f} s."
    )
    sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())
