"""Language-server benchmark: round trips against a real ``comodor-lsp serve`` with a big brain.

Measures, in one run and against one server process:

* time from sending ``initialize`` to its response, with a 50k-lesson brain;
* time until the recall index is warm (the first playbook answer);
* round-trip latency of ``comodor.playbook``, ``textDocument/hover`` and
  ``comodor.stats`` (p50/p95 over ``--requests`` each, interleaved), and the
  playbook/stats ratio: what recall costs on top of a trivial command;
* the playbook for a request that was prefetched while the user typed it (a
  ``comodor/draft``): what an agent waits for when the editor sent the draft;
* typing: a keystroke (an incremental ``didChange``) into a 5,000-line document and the
  hover right behind it, against the same hover with no keystroke before it — what
  following every change (pygls's copy, the text history kept for assistant edits, the
  diagnostics and prefetch timers) costs the event loop per keystroke;
* the server's resident memory once idle.

Targets (issues 3 and 13): playbook and hover p95 ≤ 5 ms, ratio ≤ 2, process start →
``initialize`` answered ≤ 400 ms, idle RSS ≤ 80 MB. The server is started twice on the
same brain: the first start builds the recall index and writes its snapshot, the
second (the one measured) maps it, as every start after the first does.
Run: ``python -m bench.server``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
from comodor_lsp.paths import project_key
from comodor_lsp.testing import Editor
from lsprotocol import types

from bench.brain import build_brain, percentile
from bench.corpus import Corpus


def _scope_for(workspace: Path) -> str:
    return f"project:{project_key(workspace)}"


async def _prefetched_playbooks(editor: Editor, queries: list[str]) -> list[float]:
    """The playbook an agent gets for a request the user was typing: recalled beforehand.

    Each query is sent as a ``comodor/draft`` (what the extension sends while the
    user types); once ``stats`` reports it prefetched, the playbook request is timed.
    """
    samples: list[float] = []
    for query in queries:
        editor.client.protocol.notify("comodor/draft", {"text": query})
        for _ in range(200):
            await asyncio.sleep(0.05)
            if (await editor.command("comodor.stats", {}))["prefetchReady"] > 0:
                break
        start = time.perf_counter()
        playbook = await editor.command("comodor.playbook", {"query": query})
        samples.append((time.perf_counter() - start) * 1000)
        if not playbook["prefetched"]:
            raise AssertionError(f"the draft {query!r} was not prefetched")
    return samples


TYPED_LINES = 5_000
"""The size of the document typed into: long enough that a per-keystroke copy would show."""


async def _typing(editor: Editor, keystrokes: int) -> dict[str, list[float]]:
    """Hover round trips right after a keystroke, and with none before them, interleaved."""
    text = "".join(f"value_{n} = compute({n})  # line {n}\n" for n in range(TYPED_LINES))
    editor.open("typed.py", text)
    samples: dict[str, list[float]] = {"keystroke + hover": [], "hover alone": []}
    for n in range(keystrokes):
        line = TYPED_LINES // 2 + n % 100
        start = time.perf_counter()
        editor.type_at("typed.py", line, "x")
        await editor.hover("typed.py", line=line)
        samples["keystroke + hover"].append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        await editor.hover("typed.py", line=line)
        samples["hover alone"].append((time.perf_counter() - start) * 1000)
    return samples


async def _run(size: int, requests: int, folder: Path) -> dict[str, Any]:
    workspace = folder / "ws"
    home = folder / "home"
    if not workspace.exists():  # the first start builds the brain (and the recall snapshot)
        workspace.mkdir()
        (workspace / "app.py").write_text("def main():\n    return 1\n")
        home.mkdir()
        build_brain(home / "brain.db", size, scope=_scope_for(workspace))
    os.environ["COMODOR_HOME"] = str(home)

    editor = Editor(workspace, name="comodor-bench")
    client = editor.client
    spawned = time.perf_counter()
    await client.start_io(sys.executable, "-m", "comodor_lsp", "serve")
    server = psutil.Process(client._server.pid)  # type: ignore[attr-defined]
    # Any request before initialize is refused, but only once the process is reading:
    # the refusal marks the end of interpreter start-up and imports.
    with contextlib.suppress(Exception):
        await client.protocol.send_request_async("comodor/ready", None)
    ready_ms = (time.perf_counter() - spawned) * 1000
    started = time.perf_counter()
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"watch": {"enabled": False}},
        )
    )
    initialize_ms = (time.perf_counter() - started) * 1000
    spawn_to_initialized_ms = (time.perf_counter() - spawned) * 1000
    client.initialized(types.InitializedParams())
    editor.open("app.py")
    command = editor.command

    started = time.perf_counter()
    await command("comodor.playbook", {"query": "warm up the index"})
    warm_ms = (time.perf_counter() - started) * 1000
    await command("comodor.teachRule", {"statement": "Use single quotes for strings."})
    await asyncio.sleep(3.0)  # let the first start's snapshot be written before measuring

    corpus = Corpus(seed=7)
    queries = [corpus.query() for _ in range(requests)]
    timings: dict[str, list[float]] = {"playbook": [], "hover": [], "stats": []}
    for query in queries:
        for name in ("playbook", "hover", "stats"):
            start = time.perf_counter()
            if name == "playbook":
                await command("comodor.playbook", {"query": query})
            elif name == "hover":
                await editor.hover("app.py")
            else:
                await command("comodor.stats", {})
            timings[name].append((time.perf_counter() - start) * 1000)
    timings["prefetched"] = await _prefetched_playbooks(editor, queries[: max(1, requests // 3)])
    timings.update(await _typing(editor, requests))
    await asyncio.sleep(1.0)
    idle_rss_mb = server.memory_info().rss / 2**20
    await editor.stop()
    row: dict[str, Any] = {
        "size": size,
        "initialize_ms": initialize_ms,
        "ready_ms": ready_ms,
        "spawn_to_initialized_ms": spawn_to_initialized_ms,
        "warm_ms": warm_ms,
        "idle_rss_mb": idle_rss_mb,
    }
    for name, samples in timings.items():
        row[f"{name}_p50"] = statistics.median(samples)
        row[f"{name}_p95"] = percentile(samples, 0.95)
    row["ratio"] = row["playbook_p95"] / row["stats_p95"]
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=50_000)
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        first = asyncio.run(_run(args.size, 30, Path(folder)))
        row = asyncio.run(_run(args.size, args.requests, Path(folder)))
    print(
        f"Server with a {row['size']:,}-lesson brain (second start: the recall index is mapped "
        f"from its snapshot), {args.requests} requests of each kind:\n"
    )
    print("| measure | p50 ms | p95 ms | target |")
    print("|---|---:|---:|---|")
    print(f"| comodor.playbook | {row['playbook_p50']:.2f} | {row['playbook_p95']:.2f} | p95 ≤ 5 |")
    print(
        f"| comodor.playbook, prefetched while typing | {row['prefetched_p50']:.2f} "
        f"| {row['prefetched_p95']:.2f} | |"
    )
    print(f"| hover | {row['hover_p50']:.2f} | {row['hover_p95']:.2f} | p95 ≤ 5 |")
    print(f"| comodor.stats | {row['stats_p50']:.2f} | {row['stats_p95']:.2f} | |")
    for name in ("keystroke + hover", "hover alone"):
        print(
            f"| {name}, {TYPED_LINES:,}-line document | {row[f'{name}_p50']:.2f} "
            f"| {row[f'{name}_p95']:.2f} | |"
        )
    print(f"| playbook / stats (p95) | | {row['ratio']:.2f} | ≤ 2 |")
    print(f"| initialize → response (process already up) | | {row['initialize_ms']:.0f} | |")
    print(f"| process start → ready to read (Python, imports) | | {row['ready_ms']:.0f} | |")
    print(
        f"| process start → initialize answered | | {row['spawn_to_initialized_ms']:.0f} | ≤ 400 |"
    )
    print(f"| first playbook after initialized (index ready) | | {row['warm_ms']:.0f} | |")
    print(f"| idle RSS | | {row['idle_rss_mb']:.0f} MB | ≤ 80 MB |")
    print(
        f"\nFirst start (no snapshot yet: the index is built from SQLite, then written): "
        f"process start → initialize answered {first['spawn_to_initialized_ms']:.0f} ms, "
        f"first playbook {first['warm_ms']:.0f} ms, idle RSS {first['idle_rss_mb']:.0f} MB."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
