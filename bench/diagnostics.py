"""Diagnostics benchmark: house rules checked in a 5,000-line file, and what it costs others.

Measures, for a 5,000-line Python file and a 5,000-line TypeScript file written in the
simulated agent's style (``bench.codegen``: double quotes, ``str.format``, no return
annotations, camelCase, whole-module imports; semicolons, no trailing commas), with
rules taught in words so every line the agent wrote can break one:

1. **In process**, ``ComodorApp.document_diagnostics`` after a change (each run on a
   text with one more line edited): the work the server does off its event loop, per
   rule set. Target: p95 ≤ 30 ms.
2. **Over LSP**, a real ``comodor-lsp serve``: ``didChange`` sent → the
   ``publishDiagnostics`` for that version received, minus the server's debounce
   (``CHANGE_DELAY_S``), which a user waits anyway while typing.
3. **Hover and playbook latency while diagnostics run**: the same requests with the
   document idle, then while an editor sends a change every 100 ms (diagnostics
   running back to back on their own thread). Target: unchanged.
4. ``source.fixAll.comodor`` for the whole file (fixes are worked out on request).

0. **By size**, in process, every rule of the language: a 200-, 2,000- and 10,000-line
   file checked *in full* (the document just opened: nothing read before) and *after a
   one-line edit* (only the top-level blocks the edit touched are read again).

Run: ``python -m bench.diagnostics`` (``--quick`` for a smaller run).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from comodor_lsp.app import ComodorApp
from comodor_lsp.lsp.diagnostics import CHANGE_DELAY_S
from comodor_lsp.settings import Settings, WatchSettings
from lsprotocol import types

from bench.brain import percentile
from bench.codegen import Style, new_spec, render
from bench.corpus import Corpus
from bench.lsp_client import BenchClient

LINES = 5000
PYTHON_RULES = {
    "quotes": ["Use single quotes for strings."],
    "every Python rule (9)": [
        "Use single quotes for strings.",
        "Format strings with f-strings, not str.format() or %.",
        "Annotate the return type of every function (`-> T`).",
        "Name functions in snake_case.",
        "Name variables in snake_case.",
        "Name classes in PascalCase.",
        "Import names from modules (`from module import name`), not whole modules.",
        "Put a trailing comma after the last item of multi-line literals and calls.",
        "Indent by 4 spaces per level.",
    ],
}
TYPESCRIPT_RULES = {
    "every TypeScript rule (6)": [
        "Use single quotes for strings.",
        "Do not end statements with semicolons.",
        "Put a trailing comma after the last item of multi-line literals and calls.",
        "Name functions in camelCase.",
        "Name variables in camelCase.",
        "Indent by 2 spaces per level.",
    ],
}
AGENT = Style(py_imports="module", ts_semicolons="always", ts_trailing="never")


def agent_file(language: str, lines: int = LINES, seed: int = 3) -> str:
    """``lines`` lines of realistic agent code in ``language`` (whole files, concatenated)."""
    rng = random.Random(seed)
    parts: list[str] = []
    count = 0
    index = 0
    while count < lines:
        text = render(new_spec(rng, language, index), AGENT)
        parts.append(text)
        count += text.count("\n") + 1
        index += 1
    return "\n".join("\n".join(parts).split("\n")[:lines]) + "\n"


def edited(text: str, number: int) -> str:
    """The text after the user's ``number``-th keystroke-sized edit (one line grows)."""
    lines = text.split("\n")
    at = (number * 37) % (len(lines) - 1)
    lines[at] = lines[at] + (" " if lines[at].strip() else "")
    return "\n".join(lines)


def summary(samples: list[float]) -> tuple[float, float]:
    return statistics.median(samples), percentile(samples, 0.95)


# -- 0. by size, full and after a one-line edit -------------------------------------------- #

SIZES = (200, 2000, 10000)


def by_size(
    folder: Path, language: str, statements: list[str], sizes: tuple[int, ...], repeat: int
) -> list[dict[str, Any]]:
    """For each size: a full check (fresh document) and a check after a one-line edit."""
    workspace = folder / f"ws-sizes-{language}"
    workspace.mkdir()
    app = ComodorApp(workspace, Settings(watch=WatchSettings(enabled=False)))
    rows: list[dict[str, Any]] = []
    try:
        for statement in statements:
            app.execute("comodor.teachRule", {"statement": statement})
        for lines in sizes:
            name = f"size{lines}.py" if language == "python" else f"size{lines}.ts"
            uri = (workspace / name).as_uri()
            text = agent_file(language, lines)
            full: list[float] = []
            for _ in range(repeat):
                app.document_closed(uri)  # no earlier reading: the whole text is read
                start = time.perf_counter()
                report = app.document_diagnostics(uri, text, language)
                full.append((time.perf_counter() - start) * 1000)
            after_edit: list[float] = []
            changed = text
            for number in range(repeat):
                changed = edited(changed, number)  # one line more than the last check
                start = time.perf_counter()
                app.document_diagnostics(uri, changed, language)
                after_edit.append((time.perf_counter() - start) * 1000)
            rows.append(
                {
                    "lines": lines,
                    "places": len(report.diagnostics),
                    "full": summary(full),
                    "edit": summary(after_edit),
                }
            )
    finally:
        app.close()
    return rows


# -- 1. in process -------------------------------------------------------------------------- #


def in_process(
    folder: Path, language: str, statements: list[str], repeat: int, lines: int
) -> dict[str, Any]:
    workspace = folder / f"ws-{language}-{len(statements)}"
    workspace.mkdir()
    settings = Settings(watch=WatchSettings(enabled=False))
    app = ComodorApp(workspace, settings)
    try:
        for statement in statements:
            app.execute("comodor.teachRule", {"statement": statement})
        name = "big.py" if language == "python" else "big.ts"
        uri = (workspace / name).as_uri()
        text = agent_file(language, lines)
        app.document_diagnostics(uri, text, language)  # imports and caches warm
        samples: list[float] = []
        places = 0
        for number in range(repeat):
            changed = edited(text, number)
            start = time.perf_counter()
            report = app.document_diagnostics(uri, changed, language)
            samples.append((time.perf_counter() - start) * 1000)
            places = len(report.diagnostics)
        fix_samples: list[float] = []
        for number in range(max(3, repeat // 10)):
            start = time.perf_counter()
            app.document_diagnostics(uri, edited(text, number), language, fix_all=True)
            fix_samples.append((time.perf_counter() - start) * 1000)
    finally:
        app.close()
    p50, p95 = summary(samples)
    fix50, fix95 = summary(fix_samples)
    return {"p50": p50, "p95": p95, "places": places, "fix_p50": fix50, "fix_p95": fix95}


# -- 2 and 3. over LSP -------------------------------------------------------------------------- #


class Published:
    """When each version's diagnostics arrived."""

    def __init__(self) -> None:
        self.arrived: dict[int, float] = {}
        self.event = asyncio.Event()

    def __call__(self, params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            self.arrived[params.version] = time.perf_counter()
            self.event.set()

    async def wait(self, version: int, timeout: float = 30.0) -> float:
        deadline = time.monotonic() + timeout
        while version not in self.arrived:
            self.event.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no diagnostics for version {version}")
            try:
                await asyncio.wait_for(self.event.wait(), remaining)
            except TimeoutError:
                continue
        return self.arrived[version]


def change(bench: BenchClient, name: str, version: int, text: str) -> None:
    bench.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(
                uri=bench.uri(name), version=version
            ),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def timed(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    await action()
    return (time.perf_counter() - start) * 1000


async def over_lsp(folder: Path, statements: list[str], repeat: int, lines: int) -> dict[str, Any]:
    workspace = folder / "ws-lsp"
    workspace.mkdir()
    home = folder / "home"
    home.mkdir()
    bench = await BenchClient.launch(workspace, home=home, options={"watch": {"enabled": False}})
    published = Published()
    bench.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(published)
    try:
        for statement in statements:
            await bench.command("comodor.teachRule", {"statement": statement})
        text = agent_file("python", lines)
        name = "big.py"
        (workspace / name).write_text(text)
        bench.open(name, text)
        await published.wait(1)
        latencies: list[float] = []
        version = 1
        for number in range(repeat):
            version += 1
            sent = time.perf_counter()
            change(bench, name, version, edited(text, number))
            arrived = await published.wait(version)
            latencies.append((arrived - sent) * 1000 - CHANGE_DELAY_S * 1000)

        corpus = Corpus(seed=11)
        queries = [corpus.query() for _ in range(repeat * 3)]
        hover = types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=bench.uri(name)),
            position=types.Position(line=3, character=4),
        )

        async def requests() -> tuple[list[float], list[float]]:
            hovers: list[float] = []
            playbooks: list[float] = []
            for query in queries:
                hovers.append(await timed(lambda: bench.client.text_document_hover_async(hover)))
                playbooks.append(
                    await timed(lambda q=query: bench.command("comodor.playbook", {"query": q}))
                )
            return hovers, playbooks

        idle = await requests()
        stop = asyncio.Event()

        async def typing() -> None:
            nonlocal version
            number = 0
            while not stop.is_set():
                version += 1
                number += 1
                change(bench, name, version, edited(text, number))
                await asyncio.sleep(0.1)

        typist = asyncio.create_task(typing())
        await asyncio.sleep(0.5)  # diagnostics are running back to back now
        busy = await requests()
        stop.set()
        await typist
        fix_all: list[float] = []
        await bench.settle()
        version += 1
        change(bench, name, version, text)
        await published.wait(version)
        for _ in range(max(3, repeat // 10)):
            fix_all.append(
                await timed(
                    lambda: bench.client.text_document_code_action_async(
                        types.CodeActionParams(
                            text_document=types.TextDocumentIdentifier(uri=bench.uri(name)),
                            range=types.Range(
                                start=types.Position(line=0, character=0),
                                end=types.Position(line=0, character=0),
                            ),
                            context=types.CodeActionContext(
                                diagnostics=[], only=["source.fixAll.comodor"]
                            ),
                        )
                    )
                )
            )
    finally:
        await bench.stop()
    return {
        "change": summary(latencies),
        "hover_idle": summary(idle[0]),
        "hover_busy": summary(busy[0]),
        "playbook_idle": summary(idle[1]),
        "playbook_busy": summary(busy[1]),
        "fix_all": summary(fix_all),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--lines", type=int, default=LINES)
    parser.add_argument("--quick", action="store_true", help="fewer runs, for a smoke test")
    args = parser.parse_args(argv)
    repeat = 5 if args.quick else args.repeat
    lines = 1000 if args.quick else args.lines
    sizes = (200, 1000) if args.quick else SIZES
    rows: list[tuple[str, str, dict[str, Any]]] = []
    sized: list[tuple[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for language, statements in (
            ("Python", PYTHON_RULES["every Python rule (9)"]),
            ("TypeScript", TYPESCRIPT_RULES["every TypeScript rule (6)"]),
        ):
            for row in by_size(folder, language.lower(), statements, sizes, repeat):
                sized.append((language, row))
        for label, statements in PYTHON_RULES.items():
            rows.append(("Python", label, in_process(folder, "python", statements, repeat, lines)))
        for label, statements in TYPESCRIPT_RULES.items():
            rows.append(
                ("TypeScript", label, in_process(folder, "typescript", statements, repeat, lines))
            )
        lsp = asyncio.run(over_lsp(folder, PYTHON_RULES["every Python rule (9)"], repeat, lines))
    print(f"Diagnostics by file size, every rule of the language ({repeat} runs each):\n")
    print("| file | lines | places | full p50 / p95 ms | after a one-line edit p50 / p95 ms |")
    print("|---|---:|---:|---:|---:|")
    for language, row in sized:
        (full50, full95), (edit50, edit95) = row["full"], row["edit"]
        print(
            f"| {language} | {row['lines']:,} | {row['places']} | {full50:.1f} / {full95:.1f} "
            f"| {edit50:.1f} / {edit95:.1f} |"
        )
    print()
    print(f"Diagnostics for a {lines:,}-line file after a change ({repeat} changes):\n")
    print("| file | rules | places | in process p50 / p95 ms | fix-all p50 / p95 ms | target |")
    print("|---|---|---:|---:|---:|---|")
    for language, label, row in rows:
        print(
            f"| {language} | {label} | {row['places']} | {row['p50']:.1f} / {row['p95']:.1f} "
            f"| {row['fix_p50']:.0f} / {row['fix_p95']:.0f} | p95 ≤ 30 |"
        )
    print()
    print("Over LSP (real server, every Python rule):\n")
    print("| measure | p50 ms | p95 ms |")
    print("|---|---:|---:|")
    change50, change95 = lsp["change"]
    print(
        f"| didChange → publishDiagnostics, minus the {CHANGE_DELAY_S * 1000:.0f} ms debounce "
        f"| {change50:.1f} | {change95:.1f} |"
    )
    for key, label in (
        ("hover_idle", "hover, document idle"),
        ("hover_busy", "hover, a change every 100 ms"),
        ("playbook_idle", "comodor.playbook, document idle"),
        ("playbook_busy", "comodor.playbook, a change every 100 ms"),
        ("fix_all", "codeAction source.fixAll.comodor (whole file)"),
    ):
        p50, p95 = lsp[key]
        print(f"| {label} | {p50:.1f} | {p95:.1f} |")
    hover_ratio = lsp["hover_busy"][1] / max(lsp["hover_idle"][1], 1e-6)
    playbook_ratio = lsp["playbook_busy"][1] / max(lsp["playbook_idle"][1], 1e-6)
    print(f"| hover p95, busy / idle | | {hover_ratio:.2f} |")
    print(f"| playbook p95, busy / idle | | {playbook_ratio:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
