"""Team brain benchmark: what a PostgreSQL database costs and what it does not.

Run: ``python -m bench.team`` (starts a throwaway PostgreSQL cluster on 127.0.0.1, as
the tests do; needs Debian's ``postgresql``). Prints three Markdown tables:

1. **writes** through the engine, local file vs team database over loopback: teaching
   a lesson, counting a correction (votes), crediting a task's lessons. A team write
   is an outbox entry made durable in the local file, then one PostgreSQL transaction
   with its receipt, then the entry deleted: p50/p95 ms;
2. **recall** on the same lessons from both (the index is in memory either way; the
   texts of the winners come from where they live): p50/p95 ms;
3. **propagation**: a rule taught through one real ``comodor-lsp serve`` until it is
   in another server's hover (a client polling hover every 5 ms): p50/p95/max ms.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Vote
from comodor_lsp.brain.store import BrainStore, Store
from comodor_lsp.teamdb.connect import open_team_store

from bench.corpus import Corpus
from tests.support.postgres import PASSWORD, Cluster, server_bin
from tests.support.rpc import RawServer

SCOPE = "project:bench"


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def timed(action: Callable[[int], object], repeat: int) -> list[float]:
    samples = []
    for number in range(repeat):
        start = time.perf_counter()
        action(number)
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples


def vote(number: int) -> Vote:
    return Vote(
        key=f"bench.dimension{number % 50}",
        value="a" if number % 3 else "b",
        statement="Do the benchmark thing.",
        category="style",
        language="python",
        kind="correction",
    )


def writes(store: Store, repeat: int) -> dict[str, list[float]]:
    engine = LearningEngine(store, SCOPE)
    corpus = Corpus(seed=7)
    taught = timed(lambda n: engine.teach(f"{corpus.phrase(3, 6)}: {corpus.phrase(6, 12)}"), repeat)
    votes = timed(lambda n: engine.record_votes([vote(n)], origin=f"save:{n}"), repeat)
    ids = [lesson.id for lesson in engine.search("", 3)]
    credit = timed(lambda n: engine.store.credit(ids, won=bool(n % 2)), repeat)
    engine.close()
    return {"teach a lesson": taught, "count a correction": votes, "credit 3 lessons": credit}


def recall(store: Store, size: int, queries: int) -> list[float]:
    corpus = Corpus(seed=size)
    now = time.time()
    store.add_lessons(corpus.lesson(SCOPE, now) for _ in range(size))
    engine = LearningEngine(store, SCOPE)
    engine.warm()
    asked = Corpus(seed=99)
    texts = [asked.query() for _ in range(queries)]
    samples = timed(lambda n: engine.recall(texts[n]), queries)
    engine.close()
    return samples


def git(folder: Path, *argv: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid", *argv],
        cwd=folder, check=True, capture_output=True, timeout=30,
    )  # fmt: skip


def server(workspace: Path, user: str, url: str, home: Path) -> RawServer:
    env = dict(os.environ, COMODOR_HOME=str(home), COMODOR_USER=user, COMODOR_BRAIN_URL=url)
    started = RawServer(workspace, env=env)
    started.initialize({"watch": {"enabled": False}})
    uri = (workspace / "app.py").as_uri()
    started.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"}},
    )
    return started


def hover(client: RawServer) -> str:
    uri = (client.workspace / "app.py").as_uri()
    reply = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
    )
    result = reply.get("result")
    return str(result["contents"]["value"]) if result else ""


def propagation(url: str, folder: Path, repeat: int) -> list[float]:
    origin = folder / "origin"
    origin.mkdir()
    git(origin, "init", "-q")
    (origin / "app.py").write_text("x = 1\n")
    git(origin, "add", ".")
    git(origin, "commit", "-q", "-m", "first")
    for name in ("alice", "bob"):
        git(folder, "clone", "-q", str(origin), name)
    alice = server(folder / "alice", "alice", url, folder / "alice-home")
    bob = server(folder / "bob", "bob", url, folder / "bob-home")
    samples = []
    try:
        for number in range(repeat):
            statement = f"Benchmark rule number {number}."
            start = time.perf_counter()
            alice.command("comodor.teachRule", {"statement": statement})
            while statement not in hover(bob):
                if time.perf_counter() - start > 10:
                    raise RuntimeError("a taught rule did not arrive within 10 s")
                time.sleep(0.005)
            samples.append((time.perf_counter() - start) * 1000.0)
    finally:
        alice.close()
        bob.close()
    return samples


def row(name: str, local: list[float] | None, team: list[float]) -> str:
    def cell(samples: list[float]) -> str:
        return f"{statistics.median(samples):.2f} / {percentile(samples, 0.95):.2f}"

    ratio = statistics.median(team) / statistics.median(local) if local else 0.0
    left = cell(local) if local else "—"
    return (
        f"| {name} | {left} | {cell(team)} | {ratio:.1f}× |"
        if local
        else f"| {name} | {cell(team)} |"
    )


@contextlib.contextmanager
def throwaway_cluster(max_connections: int | None = None) -> Iterator[tuple[Cluster, Path]]:
    """A PostgreSQL cluster of Debian's binaries and a scratch folder, both gone after."""
    bin_dir = server_bin()
    if bin_dir is None:
        raise SystemExit("PostgreSQL is not installed (apt-get install postgresql)")
    cluster = Cluster(bin_dir, max_connections).init()
    os.environ["PGPASSWORD"] = PASSWORD
    try:
        with tempfile.TemporaryDirectory() as raw:
            yield cluster, Path(raw)
    finally:
        cluster.destroy()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--lessons", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--hops", type=int, default=30)
    args = parser.parse_args(argv)
    with throwaway_cluster() as (cluster, folder):
        local = writes(BrainStore(folder / "w-local.db"), args.writes)
        team = writes(open_team_store(folder / "w-team.db", cluster.new_database()), args.writes)
        recall_local = recall(BrainStore(folder / "r-local.db"), args.lessons, args.queries)
        recall_team = recall(
            open_team_store(folder / "r-team.db", cluster.new_database()),
            args.lessons,
            args.queries,
        )
        hops = propagation(cluster.new_database(), folder, args.hops)
    print(f"Writes through the engine ({args.writes} each; p50 / p95 ms):\n")
    print("| write | local file | team database (loopback) | ratio (p50) |")
    print("|---|---:|---:|---:|")
    for name in local:
        print(row(name, local[name], team[name]))
    print(f"\nRecall over {args.lessons:,} lessons ({args.queries} queries; p50 / p95 ms):\n")
    print("| brain | recall |")
    print("|---|---:|")
    print(row("local file", None, recall_local))
    print(row("team database", None, recall_team))
    print(f"\nA rule taught on one server until it is in another's hover ({args.hops} times):\n")
    print("| p50 ms | p95 ms | max ms | contract |")
    print("|---:|---:|---:|---|")
    print(
        f"| {statistics.median(hops):.0f} | {percentile(hops, 0.95):.0f} "
        f"| {max(hops):.0f} | ≤ 2000 |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
