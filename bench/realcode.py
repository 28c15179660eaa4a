"""Real-code benchmark: the human edits between two releases, replayed as corrections.

The simulated user of :mod:`bench.learning` corrects code its authors wrote; its logic
edits are the ones they thought of. Here the negatives come from people who never
heard of Comodor: for each package in :data:`bench.releases.RELEASES`, every source
file of the old release is written by the "agent" (``comodor.agentEdit``) and saved
by the "user" as the new release, through a real ``comodor-lsp serve``, one brain per
package. Formatting-only hunks are reverted first (:mod:`bench.formatting`), so every
edit that is left changed what the code does or says: any confident rule learned
from them is a **false rule** (goal: 0).

Then a **changed mind** on real files: the user first corrects strings of a real
package to double quotes, file after file, then wants single quotes; we count
corrections until the old rule stops being confident and until the new one is
(goal: within 3), and print the evidence the user sees.

Finally the simulated profile of :mod:`bench.learning` (``--simulated-seeds``) runs
for the figures next to these: precision, recall, corrections per convention.

Run: ``python -m bench.realcode`` (downloads once into ``bench/out/releases/``, then
offline). Targets are reported, not asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import shutil
import sys
import tempfile
import time
import tokenize
from collections import Counter
from pathlib import Path
from typing import Any

import attrs
from comodor_lsp.conventions.languages import language_of

from bench import learning
from bench.formatting import Kept, keep_human_edits
from bench.lsp_client import BenchClient, running_server
from bench.releases import CACHE, RELEASES, FetchError, Release, fetch, source_files

TARGET_FALSE_RULES = 0
TARGET_FLIP = learning.TARGET_FLIP
FLIP_PACKAGE = "click"
FLIP_VERSION = "8.1.8"
FLIP_HISTORY = 4
"""Corrections to double quotes before the user changes their mind."""
FLIP_LIMIT = 8
MIN_SWAPPED = 5
"""A file takes part in the changed-mind run when it has this many plain strings."""


# -- one package ------------------------------------------------------------------- #


@attrs.define
class Replay:
    """What replaying one package's release-to-release edits taught the server."""

    release: Release
    files: int = 0
    human_hunks: int = 0
    formatting_hunks: int = 0
    formatting_lines: int = 0
    """Lines inside human hunks whose spelling (quotes, spacing, commas) was reverted."""
    corrections: int = 0
    votes: Counter[str] = attrs.field(factory=Counter)
    """``key=value (language)`` → corrections that voted for it."""
    false_rules: list[dict[str, Any]] = attrs.field(factory=list)
    """Confident rules at the end."""
    ever_confident: set[str] = attrs.field(factory=set)
    seconds: float = 0.0


def edits(old: dict[str, str], new: dict[str, str]) -> list[tuple[str, str, Kept]]:
    """``(path, agent text, the human edits kept)`` per changed file, in path order."""
    return [
        (path, old[path], keep_human_edits(old[path], new[path], language_of(path)))
        for path in sorted(set(old) & set(new))
        if old[path] != new[path]
    ]


def rule_name(rule: dict[str, Any]) -> str:
    return f"{rule['key']}={rule['value']} ({rule['language'] or 'any'})"


async def replay_package(
    release: Release, old: dict[str, str], new: dict[str, str], folder: Path
) -> Replay:
    """Agent writes the old release's files; the user saves the new release's human edits."""
    result = Replay(release)
    started = time.perf_counter()
    workspace, home = folder / "ws", folder / "home"
    workspace.mkdir(parents=True)
    async with running_server(workspace, home, learning.server_options("agent-edit")) as client:
        for path, agent_text, kept in edits(old, new):
            result.human_hunks += kept.human
            result.formatting_hunks += kept.formatting
            result.formatting_lines += kept.formatting_lines
            user_text = kept.text
            if user_text == agent_text:
                continue  # only formatting changed in this file
            result.files += 1
            name = f"{release.name}/{path}"
            seen = len(client.memory)
            await client.agent_edit(name, agent_text)
            client.open(name, agent_text)
            client.save(name, user_text)
            client.close(name)
            stats = await client.settle()
            result.corrections = stats["corrections"]
            for event in client.memory[seen:]:
                if event.get("action") == "correction":
                    for key in event.get("ruleKeys", []):
                        result.votes[key] += 1
            for rule in await client.rules():
                if rule["confident"] and rule["source"] != "observation":
                    result.ever_confident.add(rule_name(rule))
        rules = await client.rules()
    result.false_rules = [r for r in rules if r["confident"] and r["source"] != "observation"]
    result.seconds = time.perf_counter() - started
    return result


# -- a changed mind on real files ------------------------------------------------------ #


def swap_quotes(text: str, quote: str) -> tuple[str, int]:
    """``text`` with its plain one-line strings in ``quote``; and how many were swapped.

    Plain means no prefix but ``r``/``b``/``u`` (never an f-string), no quote of either
    kind and no backslash inside: a swap that cannot change what the string says.
    """
    lines = text.splitlines(keepends=True)
    edits_by_line: dict[int, list[tuple[int, int, str]]] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text, 0
    for token in tokens:
        if token.type != tokenize.STRING or token.start[0] != token.end[0]:
            continue
        raw = token.string
        prefix = raw[: len(raw) - len(raw.lstrip("rRbBuU"))]
        body = raw[len(prefix) :]
        if len(body) < 2 or body[0] not in "'\"" or body[:3] in ("'''", '"""'):
            continue
        inner = body[1:-1]
        if "'" in inner or '"' in inner or "\\" in inner or body[0] == quote:
            continue
        row, col = token.start[0] - 1, token.start[1]
        edits_by_line.setdefault(row, []).append(
            (col, token.end[1], prefix + quote + inner + quote)
        )
    swapped = 0
    for row, changes in edits_by_line.items():
        line = lines[row]
        for start, end, replacement in sorted(changes, reverse=True):
            line = line[:start] + replacement + line[end:]
            swapped += 1
        lines[row] = line
    return "".join(lines), swapped


async def changed_mind(files: dict[str, str], folder: Path) -> dict[str, Any]:
    """Double quotes for :data:`FLIP_HISTORY` real files, then single quotes."""
    chosen: list[tuple[str, str, str]] = []
    for path, text in sorted(files.items()):
        if language_of(path) != "python":
            continue
        single, count = swap_quotes(text, "'")
        if count >= MIN_SWAPPED and swap_quotes(single, '"')[0] == text:
            chosen.append((path, text, single))
    needed = FLIP_HISTORY + FLIP_LIMIT
    if len(chosen) < needed:
        raise RuntimeError(f"only {len(chosen)} files usable for the changed-mind run")
    workspace, home = folder / "ws", folder / "home"
    workspace.mkdir(parents=True)
    result: dict[str, Any] = {"history": FLIP_HISTORY, "steps": []}

    async def correct(client: BenchClient, index: int, agent: str, user: str) -> dict[str, Any]:
        path = f"flip/{index}/{chosen[index][0]}"
        await client.agent_edit(path, agent)
        client.open(path, agent)
        client.save(path, user)
        client.close(path)
        await client.settle()
        rules = [r for r in await client.rules() if r["key"] == "quotes.style"]
        return rules[0] if rules else {}

    async with running_server(workspace, home, learning.server_options("agent-edit")) as client:
        for index in range(FLIP_HISTORY):  # the agent writes single quotes, the user fixes them
            _, original, single = chosen[index]
            held = await correct(client, index, single, original)
        result["held"] = {k: held.get(k) for k in ("value", "confident", "evidence")}
        for step in range(1, FLIP_LIMIT + 1):  # now the user wants single quotes
            _, original, single = chosen[FLIP_HISTORY + step - 1]
            rule = await correct(client, FLIP_HISTORY + step - 1, original, single)
            result["steps"].append({k: rule.get(k) for k in ("value", "confident", "evidence")})
            if rule.get("value") == "single" and rule.get("confident"):
                break
    steps = result["steps"]
    result["old_dropped_after"] = next(
        (n for n, s in enumerate(steps, 1) if not (s["value"] == "double" and s["confident"])),
        None,
    )
    result["turned_after"] = next(
        (n for n, s in enumerate(steps, 1) if s["value"] == "single" and s["confident"]), None
    )
    result["evidence"] = steps[-1]["evidence"] if steps else ""
    return result


# -- report ----------------------------------------------------------------------------- #


def _mark(ok: bool) -> str:
    return "yes" if ok else "**MISS**"


def _counts(values: list[int | None]) -> str:
    return ", ".join("never" if value is None else str(value) for value in values)


def print_replays(replays: list[Replay]) -> None:
    print("### Real release-to-release edits replayed as corrections (formatting reverted)\n")
    print(
        "| package | files corrected | human hunks | formatting reverted (hunks / lines) "
        "| votes cast (corrections) | confident false rules |"
    )
    print("|---|---:|---:|---:|---|---:|")
    for replay in replays:
        votes = ", ".join(f"{key} ×{n}" for key, n in sorted(replay.votes.items())) or "none"
        false = ", ".join(rule_name(r) for r in replay.false_rules)
        print(
            f"| {replay.release.label} ({replay.release.registry}) | {replay.files} "
            f"| {replay.human_hunks} | {replay.formatting_hunks} / {replay.formatting_lines} "
            f"| {votes} "
            f"| {len(replay.false_rules)}{f' ({false})' if false else ''} |"
        )


def print_summary(
    replays: list[Replay], flip: dict[str, Any] | None, simulated: dict[str, Any] | None
) -> None:
    false_total = sum(len(r.false_rules) for r in replays)
    ever = sum(len(r.ever_confident) for r in replays)
    rows: list[tuple[str, str, str, bool]] = [
        (
            f"confident false rules from real edits ({len(replays)} packages, "
            f"{sum(r.files for r in replays)} files)",
            f"{false_total} (ever confident during the replay: {ever})",
            "0",
            false_total == TARGET_FALSE_RULES and ever == 0,
        )
    ]
    if flip is not None:
        dropped, turned = flip["old_dropped_after"], flip["turned_after"]
        rows += [
            (
                f"changed mind on real files ({FLIP_PACKAGE} {FLIP_VERSION}, "
                f"{flip['history']} corrections to double first): corrections until the old "
                "rule stops being confident",
                str(dropped),
                "1",
                dropped == 1,
            ),
            (
                "… until single quotes are the confident rule",
                f"{turned} (evidence: “{flip['evidence']}”)",
                f"≤ {TARGET_FLIP}",
                turned is not None and turned <= TARGET_FLIP,
            ),
        ]
    if simulated is not None:
        per_convention = simulated["worst_corrections"]
        worst = None if None in per_convention else max(per_convention)
        rows += [
            (
                f"simulated profile ({simulated['seeds']} seeds): precision of confident rules "
                "(worst seed)",
                f"{simulated['precision_min']:.2f}",
                f"≥ {learning.TARGET_PRECISION}",
                simulated["precision_min"] >= learning.TARGET_PRECISION,
            ),
            (
                "… recall of the profile (worst seed)",
                f"{simulated['recall_min']:.2f}",
                f"≥ {learning.TARGET_RECALL}",
                simulated["recall_min"] >= learning.TARGET_RECALL,
            ),
            (
                "… corrections until each convention is confident and right (worst)",
                "never" if worst is None else str(worst),
                str(learning.TARGET_CORRECTIONS),
                worst is not None and worst <= learning.TARGET_CORRECTIONS,
            ),
            (
                "… changed mind: corrections until the old rule stops / the new one is confident",
                f"{_counts(simulated['flip_dropped'])} / {_counts(simulated['flip_turned'])}",
                f"1 / ≤ {TARGET_FLIP}",
                all(d == 1 for d in simulated["flip_dropped"])
                and all(t is not None and t <= TARGET_FLIP for t in simulated["flip_turned"]),
            ),
        ]
    print("\n| summary | measured | target | met |")
    print("|---|---:|---:|:-:|")
    for label, measured, target, ok in rows:
        print(f"| {label} | {measured} | {target} | {_mark(ok)} |")


async def run_simulated(seeds: int, folder: Path) -> dict[str, Any]:
    args = learning.build_parser().parse_args(["--seeds", str(seeds)])
    folder.mkdir(parents=True)
    results = await learning.run(args, folder)
    summaries = [result["summary"] for result in results]
    total = learning.aggregate(summaries)
    worst: list[int | None] = []
    for convention in learning.PROFILE:
        until = [
            s["per_convention"][convention.name]["corrections_until_confident"] for s in summaries
        ]
        worst.append(None if None in until else max(u for u in until if u is not None))
    return {
        "seeds": seeds,
        "precision_min": total["precision_min"],
        "recall_min": total["recall_min"],
        "worst_corrections": worst,
        "flip_dropped": total["flip_dropped"],
        "flip_turned": total["flip_turned"],
    }


async def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    replays: list[Replay] = []
    skipped: list[str] = []
    flip_files: dict[str, str] | None = None
    for release in RELEASES:
        if args.packages and release.name not in args.packages:
            continue
        try:
            old = source_files(fetch(release.registry, release.name, release.old, args.cache))
            new = source_files(fetch(release.registry, release.name, release.new, args.cache))
        except FetchError as error:
            skipped.append(str(error))
            continue
        replays.append(await replay_package(release, old, new, folder / release.name))
        if release.name == FLIP_PACKAGE and release.new == FLIP_VERSION:
            flip_files = new
    flip = await changed_mind(flip_files, folder / "flip") if flip_files is not None else None
    simulated = None
    if args.simulated_seeds > 0:
        simulated = await run_simulated(args.simulated_seeds, folder / "simulated")
    return {"replays": replays, "flip": flip, "simulated": simulated, "skipped": skipped}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=CACHE, help="downloaded releases")
    parser.add_argument(
        "--packages", nargs="*", default=[], help="only these packages (default: all)"
    )
    parser.add_argument(
        "--simulated-seeds",
        type=int,
        default=5,
        help="seeds of the simulated profile to run alongside (0: skip)",
    )
    parser.add_argument("--json", type=Path, help="write the full result here")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="comodor-realcode-"))
    started = time.perf_counter()
    try:
        result = asyncio.run(run(args, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    elapsed = time.perf_counter() - started
    for problem in result["skipped"]:
        print(f"skipped: {problem}", file=sys.stderr)
    print_replays(result["replays"])
    print_summary(result["replays"], result["flip"], result["simulated"])
    print(f"\nWall time {elapsed:.0f} s (shared machine, orientation only).")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "replays": [attrs.asdict(r, value_serializer=_plain) for r in result["replays"]],
            "flip": result["flip"],
            "simulated": result["simulated"],
            "skipped": result["skipped"],
        }
        args.json.write_text(json.dumps(payload, indent=2, default=str))
    return 0


def _plain(_instance: object, _field: object, value: object) -> object:
    if isinstance(value, set):
        return sorted(value)
    return value


if __name__ == "__main__":
    raise SystemExit(main())
