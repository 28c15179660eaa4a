"""Learning-judgement benchmark: ties, near-ties and a vocabulary from the user's words.

Both arms drive a real ``comodor-lsp serve`` over LSP, each history on a fresh brain,
so what is measured is capture, the vote store, the verdict on a dimension and recall
together (the same path as ``bench.learning``).

1. **Ties and near-ties.** On quotes (Python), semicolons (TypeScript) and
   indentation (Python), the user corrects the agent's files one way and then the
   other: 2–2 (two each), 3–2 (three, then two the other way) and 3-after-2 (two,
   then three the other way). Expected: 2–2 and 3–2 contested (no value enforced,
   the rule not in the playbook), 3-after-2 confident for the newer value and in the
   playbook.
2. **Vocabulary from co-occurrence.** Four topics, each a lesson worded with one
   word ("pytest fixtures: …") and a request worded with another ("write a spec for
   the parser"). The user's tasks say both words together (the first in the goal,
   the second in a message of theirs) in N tasks per topic, alternating with
   unrelated work, and the lessons are never recalled into those tasks (no word of
   a goal is in them). After each N: recall@k (the request's lesson is among the
   playbook's lessons, k = ``learning.topK``) over the four requests; N = 0 is
   recall without any learned vocabulary. Unrelated requests (each with a lesson
   of its own) are asked too: a topic lesson they recall is counted, and how many
   of those came above the request's own lesson (an expansion must never).

Run: ``python -m bench.learning_judgement`` (``--quick`` stops the vocabulary arm at
N = 8). Targets are reported, not asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from comodor_lsp.settings import LearningSettings

from bench.lsp_client import BenchClient, running_server
from tests.support.corrections import CORRECTION

OPTIONS: dict[str, Any] = {"learning": {"prefetch": False}, "watch": {"enabled": False}}

# -- ties and near-ties ------------------------------------------------------------ #

DIMENSIONS = (
    ("quotes", "quotes.style", "single", "double", ".py"),
    ("semicolons", "js.semicolons", "always", "never", ".ts"),
    ("indent", "indent.style", "spaces", "tabs", ".py"),
)
HISTORIES = (
    ("2–2", 2, 2, "contested"),
    ("3–2", 3, 2, "contested"),
    ("3-after-2", 2, 3, "confident"),
)
"""Label, corrections to the first value, then to the second, and the expected verdict."""


async def _correct(client: BenchClient, key: str, values: list[str], suffix: str) -> None:
    for number, value in enumerate(values, start=1):
        name = f"f{number}{suffix}"
        agent, user = CORRECTION[(key, value)]
        await client.agent_edit(name, agent)
        client.open(name, agent)
        client.save(name, user)
        await client.wait_memory("correction", count=number)


async def tie(folder: Path, dimension: tuple[str, str, str, str, str], history: Any) -> dict:  # type: ignore[type-arg]
    """One history on a fresh brain: the rule's verdict, and whether the playbook carries it."""
    name, key, first, second, suffix = dimension
    label, firsts, seconds, expected = history
    workspace, home = folder / f"{name}-{label}-ws", folder / f"{name}-{label}-home"
    workspace.mkdir()
    async with running_server(workspace, home, OPTIONS) as client:
        await _correct(client, key, [first] * firsts + [second] * seconds, suffix)
        rule = next((rule for rule in await client.rules() if rule["key"] == key), None)
        playbook = await client.command("comodor.playbook", {"query": "write a function"})
    in_playbook = any(entry["key"] == key for entry in playbook["rules"])
    if rule is None:
        verdict, value = "no rule", ""
    else:
        verdict = "confident" if rule["confident"] else "contested" if rule["contested"] else "—"
        value = rule["value"]
    ok = verdict == expected and (in_playbook == (expected == "confident"))
    if expected == "confident":
        ok = ok and value == second
    return {
        "dimension": name,
        "history": f"{label} ({first}×{firsts}, then {second}×{seconds})",
        "verdict": verdict,
        "value": value,
        "opposition": (rule or {}).get("opposition") or "",
        "in_playbook": in_playbook,
        "expected": expected,
        "ok": ok,
    }


# -- vocabulary from co-occurrence ----------------------------------------------- #

TOPICS = (
    {
        "lesson": "pytest fixtures: share setup through conftest.py",
        "request": "write a spec for the parser",
        "goal": "write the spec for the {}",
        "message": "cover the {} edge cases and run them with pytest",
        "subjects": ("lexer", "tokenizer", "cache", "router", "config", "scheduler"),
    },
    {
        "lesson": "helm upgrades: always pass --atomic and --wait",
        "request": "ship the billing service",
        "goal": "ship the {} service",
        "message": "roll it out with helm, the {} chart",
        "subjects": ("checkout", "search", "mailer", "gateway", "ledger", "auth"),
    },
    {
        "lesson": "alembic revisions: autogenerate, then read the upgrade by hand",
        "request": "add a migration for the orders table",
        "goal": "write a migration for the {} table",
        "message": "make the {} change an alembic revision",
        "subjects": ("users", "invoices", "carts", "sessions", "payments", "refunds"),
    },
    {
        "lesson": "gettext catalogs: regenerate the .po files after changing strings",
        "request": "update the french translation",
        "goal": "fix the {} translation",
        "message": "the {} strings go through gettext",
        "subjects": ("german", "spanish", "italian", "dutch", "polish", "swedish"),
    },
)
UNRELATED = (
    ("changelog entries: past tense, one line each", "update the changelog"),
    ("css spacing: use rem units, never px", "fix the css of the header"),
    ("screenshots: take them at 2x in the light theme", "refresh the screenshots"),
)
"""Unrelated lessons and a request each: the user's other work, and a check for false recalls."""
OTHER_WORK = (
    "update the changelog for the release",
    "bump the version number",
    "fix the css of the header",
    "refresh the screenshots",
    "tidy the docs index",
    "profile the startup time",
    "review the license headers",
    "clean the build folder",
)


async def _recalled(client: BenchClient, query: str) -> list[int]:
    playbook = await client.command("comodor.playbook", {"query": query})
    return [lesson["id"] for lesson in playbook["lessons"]]


async def _task(client: BenchClient, goal: str, message: str = "") -> None:
    task = await client.command("comodor.beginTask", {"goal": goal})
    messages = [{"role": "user", "content": message}] if message else []
    await client.command(
        "comodor.endTask", {"taskId": task["taskId"], "success": True, "messages": messages}
    )


async def vocabulary(folder: Path, rounds: int) -> dict[str, Any]:
    """Recall@k of differently worded requests after N tasks of co-occurrence per topic."""
    workspace, home = folder / "vocabulary-ws", folder / "vocabulary-home"
    workspace.mkdir()
    rows: list[dict[str, Any]] = []
    async with running_server(workspace, home, OPTIONS) as client:
        taught = {}
        for text in [topic["lesson"] for topic in TOPICS] + [text for text, _ in UNRELATED]:
            lesson = await client.command("comodor.teach", {"text": text, "pinned": False})
            taught[text] = lesson["lesson"]["id"]
        topic_ids = {taught[str(topic["lesson"])] for topic in TOPICS}

        async def measure(n: int) -> None:
            found = 0
            for topic in TOPICS:
                found += taught[str(topic["lesson"])] in await _recalled(
                    client, str(topic["request"])
                )
            false = above = 0
            for text, request in UNRELATED:
                ids = await _recalled(client, request)
                strays = [position for position, id_ in enumerate(ids) if id_ in topic_ids]
                own = ids.index(taught[text]) if taught[text] in ids else len(ids)
                false += len(strays)
                above += sum(position < own for position in strays)
            rows.append(
                {
                    "n": n,
                    "found": found,
                    "recall_at_k": found / len(TOPICS),
                    "false_recalls": false,
                    "false_above_own": above,
                }
            )

        await measure(0)
        for n in range(1, rounds + 1):
            for index, topic in enumerate(TOPICS):
                subject = topic["subjects"][(n - 1) % len(topic["subjects"])]
                await _task(
                    client,
                    str(topic["goal"]).format(subject),
                    str(topic["message"]).format(subject),
                )
                await _task(client, OTHER_WORK[(n * len(TOPICS) + index) % len(OTHER_WORK)])
            await measure(n)
    first = next((row["n"] for row in rows if row["recall_at_k"] == 1.0), None)
    return {"rows": rows, "top_k": LearningSettings().top_k, "first_full_recall": first}


# -- report ------------------------------------------------------------------------ #


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def print_ties(rows: list[dict[str, Any]]) -> None:
    print("### Ties and near-ties (each history on a fresh brain, through LSP)\n")
    print("| dimension | history | verdict | value | against | in playbook | expected | |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['dimension']} | {row['history']} | {row['verdict']} | {row['value']} "
            f"| {row['opposition'] or '—'} | {'yes' if row['in_playbook'] else 'no'} "
            f"| {row['expected']} | {_mark(row['ok'])} |"
        )
    good = sum(row["ok"] for row in rows)
    print(f"\n{good} of {len(rows)} histories judged as expected.")


def print_vocabulary(result: dict[str, Any]) -> None:
    k = result["top_k"]
    print(
        f"\n### Vocabulary from the user's words: {len(TOPICS)} requests worded differently "
        f"from their lessons\n"
    )
    print(
        f"| N tasks of co-occurrence per topic | recall@{k} | topic lessons recalled for "
        "unrelated requests | of them above the request's own lesson |"
    )
    print("|---:|---:|---:|---:|")
    for row in result["rows"]:
        label = f"{row['n']} (no vocabulary)" if row["n"] == 0 else str(row["n"])
        print(
            f"| {label} | {row['recall_at_k']:.0%} ({row['found']}/{len(TOPICS)}) "
            f"| {row['false_recalls']} | {row['false_above_own']} |"
        )
    first = result["first_full_recall"]
    print(
        f"\nEvery request finds its lesson from N = {first} tasks of co-occurrence per topic"
        if first is not None
        else "\nNot every request found its lesson within the rounds run."
    )


async def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    ties = [
        await tie(folder, dimension, history) for dimension in DIMENSIONS for history in HISTORIES
    ]
    words = await vocabulary(folder, args.rounds)
    return {"ties": ties, "vocabulary": words}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=12, help="largest N in the vocabulary arm")
    parser.add_argument("--quick", action="store_true", help="the vocabulary arm up to N = 8")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds = min(args.rounds, 8)
    folder = Path(tempfile.mkdtemp(prefix="comodor-judgebench-"))
    started = time.perf_counter()
    try:
        result = asyncio.run(run(args, folder))
    finally:
        if args.keep:
            print(f"kept {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print_ties(result["ties"])
    print_vocabulary(result["vocabulary"])
    print(f"\nWall time {time.perf_counter() - started:.0f} s (shared machine, orientation only).")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
