"""Team brain at an organisation's size: N real servers on one PostgreSQL, measured.

Run: ``python -m bench.team_scale --lessons 200000 --servers 10,25,50`` (starts a
throwaway PostgreSQL cluster on 127.0.0.1, as the tests do; needs Debian's
``postgresql``). Seeds ``--lessons`` lessons and one rule per hundred lessons across
five scopes (one of them the workspace's), then, for each N, starts N real
``comodor-lsp serve`` processes on one workspace (each its own user and home, as N
editors are) pointed at the database, and prints one Markdown row per N:

* **ready**: process start → first ``comodor.playbook`` answered, the servers
  started one after another (p50/p95/max ms);
* **playbook**: ``comodor.playbook`` over LSP at steady state, round-robin over the
  servers (p50/p95 ms);
* **visible**: a rule taught through server 0 until it is in each other server's
  hover (p50/p95/max ms over every server and hop);
* **visible** also says how many (server, rule) arrivals came at all (a server
  whose listener never got a connection slot never hears);
* **connections**: Comodor's sessions in ``pg_stat_activity`` for the database
  (listeners ``comodor-listen`` plus pooled ``comodor``), per server (total / N) and
  in total, the highest total sampled every 50 ms while the row ran, and the
  connections PostgreSQL refused meanwhile (``too many clients`` / ``reserved``
  lines in its log);
* **RSS**: the servers' resident memory (p50/max MB);
* **restart**: the same N servers closed and started again one after another, each
  with its home as it left it (so with its recall snapshot, ``brain.db.team-recall``),
  ready p50/p95/max ms and RSS p50 MB: an editor reopened, the common start;
* **morning**: all N started together with their snapshots, each one's ready
  (p50/p95/max ms).

*ready* is a first start (a fresh home, no snapshot: the index is built from the
database and its snapshot written). Each ready cell also gives the server's own CPU
seconds until then (p50): on a machine shared with other work the wall time mostly
measures the queue for the cores, the CPU time what a start costs.

PostgreSQL's CPU is not measured yet. ``--max-connections`` sets the cluster's
``max_connections`` (each server needs two, plus the bench's one).
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.paths import project_key
from comodor_lsp.teamdb.connect import open_team_store

from bench.corpus import Corpus
from bench.team import git, hover, percentile, throwaway_cluster
from tests.support.rpc import RawServer

SCOPES = 5
COLUMNS = (
    "servers",
    "ready p50 / p95 / max ms (CPU p50 s)",
    "playbook p50 / p95 ms",
    "visible p50 / p95 / max ms",
    "connections per server / total",
    "RSS p50 / max MB",
    "restart ready p50 / p95 / max ms (CPU p50 s), RSS p50 MB",
    "morning start p50 / p95 / max ms",
)
BATCH = 5000
SPARE_MB = 3000
"""Memory left for the rest of the machine (it has no swap, and other work runs on it):
a run that would go below it stops and says so instead of waking the OOM killer."""


class Stopped(RuntimeError):
    """A size this machine cannot hold: the row says why, and the run ends there."""


def available_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024.0
    return float("inf")


def make_workspace(folder: Path) -> Path:
    """One git repository every server opens (its root commit keys the project scope)."""
    workspace = folder / "repo"
    workspace.mkdir()
    git(workspace, "init", "-q")
    (workspace / "app.py").write_text("x = 1\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "first")
    return workspace


def scopes(workspace: Path) -> list[str]:
    return [f"project:{project_key(workspace)}"] + [
        f"project:other{number}" for number in range(1, SCOPES)
    ]


def seed(url: str, folder: Path, workspace: Path, lessons: int, rules: int) -> None:
    """``lessons`` lessons and ``rules`` rules, spread evenly over the five scopes."""
    store = open_team_store(folder / "seed.db", url, voter="seeder", strict=True)
    corpus = Corpus(seed=lessons)
    now = time.time()
    names = scopes(workspace)
    done = 0
    while done < lessons:
        size = min(BATCH, lessons - done)
        store.add_lessons(corpus.lesson(names[(done + i) % SCOPES], now) for i in range(size))
        done += size
    for number in range(rules):
        engine = LearningEngine(store, names[number % SCOPES])
        engine.teach_rule(f"Seeded house rule {number}: {corpus.phrase(4, 8)}.")
    store.close()


class Server:
    """One editor's server: started, opened ``app.py``, answered its first playbook."""

    def __init__(self, workspace: Path, url: str, home: Path, user: str, query: str) -> None:
        env = dict(os.environ, COMODOR_HOME=str(home), COMODOR_USER=user, COMODOR_BRAIN_URL=url)
        start = time.perf_counter()
        self.rpc = RawServer(workspace, env=env)
        self.rpc.initialize(timeout=600)  # room for a crowded morning
        uri = (workspace / "app.py").as_uri()
        self.rpc.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"}},
        )
        self.playbook(query, timeout=600)
        self.ready_ms = (time.perf_counter() - start) * 1000.0
        self.ready_cpu_s = self.cpu_s()

    def cpu_s(self) -> float:
        """The server's own CPU time so far (user + system): what it costs, whatever the load."""
        fields = Path(f"/proc/{self.rpc.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def playbook(self, query: str, timeout: float = 30.0) -> dict[str, Any]:
        reply = self.rpc.command("comodor.playbook", {"query": query}, timeout=timeout)
        if "error" in reply:
            raise RuntimeError(f"comodor.playbook failed: {reply['error']}")
        return reply

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.rpc.process.pid}/status").read_text()
        kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
        return kb / 1024.0

    def close(self) -> None:
        self.rpc.close()


def start_all(
    count: int, workspace: Path, url: str, folder: Path, tag: str, *, together: bool
) -> list[Server]:
    """``count`` servers, one after another or all at once (threads, one per server)."""
    asked = Corpus(seed=count)
    args = [
        (workspace, url, folder / f"home-{tag}-{n}", f"user{n}", asked.query())
        for n in range(count)
    ]
    if not together:
        servers: list[Server] = []
        for arguments in args:
            if available_mb() < SPARE_MB:
                close_all(servers)
                raise Stopped(f"stopped after {len(servers)} servers: {available_mb():.0f} MB left")
            servers.append(Server(*arguments))
        return servers
    started: list[Server | BaseException] = [RuntimeError("not started")] * count

    def one(n: int) -> None:
        try:
            started[n] = Server(*args[n])
        except BaseException as error:  # reported below, after every thread is done
            started[n] = error

    threads = [threading.Thread(target=one, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    servers = [s for s in started if isinstance(s, Server)]
    failed = [s for s in started if not isinstance(s, Server)]
    if failed:
        close_all(servers)
        raise RuntimeError(f"{len(failed)} of {count} servers did not start: {failed[0]}")
    return servers


def close_all(servers: Sequence[Server]) -> None:
    threads = [threading.Thread(target=s.close) for s in servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def steady_playbooks(servers: Sequence[Server], queries: int) -> list[float]:
    asked = Corpus(seed=99)
    samples = []
    for number in range(queries):
        server = servers[number % len(servers)]
        text = asked.query()
        start = time.perf_counter()
        server.playbook(text)
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples


def visible(servers: Sequence[Server], hops: int, limit_s: float = 30.0) -> tuple[list[float], int]:
    """A rule taught through server 0 until each other server's hover shows it.

    The arrivals in ms, and how many (server, rule) pairs did not arrive within
    ``limit_s``: a server that never hears is a finding to print, not a crash.
    """
    samples = []
    missed = 0
    for number in range(hops):
        statement = f"Scale benchmark rule number {number} {time.time_ns()}."
        start = time.perf_counter()
        servers[0].rpc.command("comodor.teachRule", {"statement": statement})
        waiting = list(servers[1:])
        while waiting and time.perf_counter() - start <= limit_s:
            for server in list(waiting):
                if statement in hover(server.rpc):
                    samples.append((time.perf_counter() - start) * 1000.0)
                    waiting.remove(server)
            time.sleep(0.005)
        missed += len(waiting)
    return samples, missed


_COUNTERS: dict[str, Any] = {}
_COUNTING = threading.Lock()


def connections(url: str) -> dict[str, int]:
    """Comodor's sessions on the database by ``application_name``, over one kept connection.

    Opened before any server starts and kept: with N servers at the database's
    connection limit a new connection would be refused, and the count is wanted then.
    """
    import psycopg

    with _COUNTING:
        conn = _COUNTERS.get(url)
        if conn is None:
            conn = _COUNTERS[url] = psycopg.connect(url, autocommit=True)
        rows = conn.execute(
            "SELECT application_name, count(*) FROM pg_stat_activity"
            " WHERE datname = current_database()"
            " AND application_name IN ('comodor', 'comodor-listen')"
            " GROUP BY application_name"
        ).fetchall()
    return {str(name): int(count) for name, count in rows}


class PeakConnections:
    """The highest total of Comodor sessions, sampled every 50 ms on a thread."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.peak = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(0.05):
            self.peak = max(self.peak, sum(connections(self.url).values()))

    def stop(self) -> int:
        self._done.set()
        self._thread.join()
        return self.peak


REFUSED = ("too many clients", "remaining connection slots are reserved")


def refused(log: Path | None) -> int:
    """Connections PostgreSQL refused for want of a slot, as its log says (0 without one)."""
    if log is None or not log.exists():
        return 0
    text = log.read_text(errors="replace")
    return sum(text.count(phrase) for phrase in REFUSED)


def three(samples: list[float]) -> str:
    if not samples:
        return "—"
    return (
        f"{statistics.median(samples):.0f} / {percentile(samples, 0.95):.0f} / {max(samples):.0f}"
    )


def measure(
    count: int,
    url: str,
    folder: Path,
    workspace: Path,
    queries: int,
    hops: int,
    server_log: Path | None = None,
    morning: bool = True,
) -> dict[str, str]:
    """One row: every column of :data:`COLUMNS` for ``count`` servers."""
    connections(url)  # opens the counting connection while there is a slot for it
    refused_before = refused(server_log)
    sampler = PeakConnections(url)
    try:
        servers = start_all(count, workspace, url, folder, f"seq{count}", together=False)
    except BaseException:
        sampler.stop()
        raise
    try:
        ready = [s.ready_ms for s in servers]
        playbooks = steady_playbooks(servers, queries)
        seen, missed = visible(servers, hops) if count > 1 else ([], 0)
        held = connections(url)
        rss = [s.rss_mb() for s in servers]
    finally:
        peak = sampler.stop()
        close_all(servers)
    total = sum(held.values())
    turned_away = refused(server_log) - refused_before
    restarted = start_all(count, workspace, url, folder, f"seq{count}", together=False)
    try:
        restart = [s.ready_ms for s in restarted]
        restart_cpu = statistics.median(s.ready_cpu_s for s in restarted)
        restart_rss = [s.rss_mb() for s in restarted]
    finally:
        close_all(restarted)
    needed = sum(rss) * 1.5  # a server at its peak, while it builds, holds more
    if not morning:
        morning_cell = "skipped (--no-morning)"
    elif available_mb() - needed < SPARE_MB:
        morning_cell = f"skipped: needs ~{needed:.0f} MB, {available_mb():.0f} MB free"
    else:
        try:
            morning_servers = start_all(count, workspace, url, folder, f"seq{count}", together=True)
        except RuntimeError as error:  # a finding for the row, not the end of the run
            morning_cell = f"failed: {error}"
        else:
            morning_cell = three([s.ready_ms for s in morning_servers])
            close_all(morning_servers)
    cells = [
        str(count),
        f"{three(ready)} ({statistics.median(s.ready_cpu_s for s in servers):.1f})",
        f"{statistics.median(playbooks):.1f} / {percentile(playbooks, 0.95):.1f}",
        three(seen)
        + f"; {len(seen)} of {hops * (count - 1)} arrived"
        + (f", {missed} never (30 s)" if missed else ""),
        f"{total / count:.1f} / {total} ({held.get('comodor-listen', 0)} listen + "
        f"{held.get('comodor', 0)} pool); peak {peak}; {turned_away} refused",
        f"{statistics.median(rss):.0f} / {max(rss):.0f}",
        f"{three(restart)} ({restart_cpu:.1f}), {statistics.median(restart_rss):.0f}",
        morning_cell,
    ]
    return dict(zip(COLUMNS, cells, strict=True))


def header() -> str:
    return "| " + " | ".join(COLUMNS) + " |\n|" + "---:|" * len(COLUMNS)


def line(row: dict[str, str]) -> str:
    return "| " + " | ".join(row[column] for column in COLUMNS) + " |"


def run(
    url: str,
    folder: Path,
    counts: Sequence[int],
    lessons: int,
    queries: int,
    hops: int,
    server_log: Path | None = None,
    morning: bool = True,
) -> int:
    workspace = make_workspace(folder)
    rules = max(1, lessons // 100)
    started = time.perf_counter()
    seed(url, folder, workspace, lessons, rules)
    print(
        f"{lessons:,} lessons and {rules:,} rules over {SCOPES} scopes, seeded in "
        f"{time.perf_counter() - started:.0f} s; {os.cpu_count()} cores.\n",
        flush=True,
    )
    print(header(), flush=True)
    try:
        for count in counts:
            try:
                row = measure(count, url, folder, workspace, queries, hops, server_log, morning)
                print(line(row), flush=True)
            except Stopped as stop:
                print(f"| {count} | {stop} |", flush=True)
                break
    finally:
        for conn in _COUNTERS.values():
            conn.close()
        _COUNTERS.clear()
    return 0


def counts_of(raw: str) -> list[int]:
    try:
        counts = [int(part) for part in raw.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--servers wants numbers like 10,25,50, got {raw!r}"
        ) from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"--servers wants numbers ≥ 1 like 10,25,50, got {raw!r}")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lessons", type=int, default=200_000)
    parser.add_argument("--servers", type=counts_of, default=[10, 25, 50])
    parser.add_argument("--queries", type=int, default=200, help="steady-state playbooks per N")
    parser.add_argument("--hops", type=int, default=3, help="rules taught per N")
    parser.add_argument(
        "--max-connections",
        type=int,
        default=None,
        help="PostgreSQL's max_connections (default: its own, 100)",
    )
    parser.add_argument(
        "--no-morning", action="store_true", help="skip the all-at-once start (the slowest part)"
    )
    args = parser.parse_args(argv)
    with throwaway_cluster(args.max_connections) as (cluster, folder):
        limit = cluster.psql("SHOW max_connections")
        reserved = cluster.psql("SHOW superuser_reserved_connections")
        print(f"PostgreSQL max_connections {limit} ({reserved} kept for superusers).")
        return run(
            cluster.new_database(),
            folder,
            args.servers,
            args.lessons,
            args.queries,
            args.hops,
            cluster.log,
            morning=not args.no_morning,
        )


if __name__ == "__main__":
    raise SystemExit(main())
