"""Learning-quality benchmark: replay a user's corrections through a real ``comodor-lsp serve``.

A simulated user holds a hidden profile of 10 conventions (see
:data:`bench.codegen.PROFILE`). A simulated agent writes small Python and
TypeScript files inside tasks (``comodor.beginTask``/``endTask``), in its own
habits unless the playbook's confident rules say otherwise; the user opens each
file, rewrites it to the profile and saves. Everything goes over LSP, so what is
measured is the capture layer, the vote store and the rule summariser together.

Three runs, each on a fresh brain:

1. **learn**: corrections interleaved with logic-only edits (a changed condition,
   a renamed local, a new statement, saved in the agent's own style). Per
   convention: corrections that touched it until its rule was confident with the
   right value; precision and recall of the confident rules; false rules.
   Then the user **flips** one convention and we count corrections until the rule
   turns, checking after every save that two values of one dimension never stand
   confident together.
2. **holdout**: the same 50 tasks twice, on two fresh brains: an agent that applies
   the playbook's rules, and one that ignores them (memory off). Corrections per
   task come from the server's own count (``comodor.stats``).

Run: ``python -m bench.learning`` (add ``--writes disk`` to let the watcher see the
agent's writes instead of ``comodor.agentEdit``). Targets are reported, not asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import attrs
from comodor_lsp.conventions.corrections import analyse_correction

from bench.codegen import PROFILE, Convention, FileSpec, Style, logic_edit, new_spec, render
from bench.lsp_client import BenchClient, running_server

TARGET_CORRECTIONS = 2
TARGET_PRECISION = 0.97
TARGET_RECALL = 0.95
TARGET_REDUCTION = 50.0
TARGET_FLIP = 3
"""A user who changes their mind: corrections until the new value is the confident rule."""
FLIP_FIELD = "py_quotes"
LANGUAGES = ("python", "typescript")


# -- the simulated people ------------------------------------------------------ #


@attrs.define
class User:
    """Hidden preferences, one value per Style field; may change their mind."""

    wants: dict[str, str] = attrs.field(factory=lambda: {c.field: c.value for c in PROFILE})

    def style(self) -> Style:
        return attrs.evolve(Style(), **self.wants)

    def wanted(self, convention: Convention) -> str:
        return self.wants[convention.field]


def rule_field(rule: dict[str, Any]) -> Convention | None:
    """The profile convention a server rule speaks about, if any."""
    for convention in PROFILE:
        if rule["key"] == convention.key and rule["language"] == convention.language:
            return convention
    return None


@attrs.define
class Agent:
    """Writes in its own habits unless a confident rule says otherwise.

    Its habit for each convention is ``Style()``'s value (the opposite of the
    user's profile); with probability ``1 - violation_rate`` per file it happens
    to write the other value, as a real model sometimes does.
    """

    violation_rate: float
    apply_rules: bool

    def style(self, rng: random.Random, rules: list[dict[str, Any]]) -> Style:
        habits = Style()
        chosen: dict[str, str] = {}
        for convention in PROFILE:
            habit = getattr(habits, convention.field)
            alternative = convention.value if habit == convention.other else convention.other
            chosen[convention.field] = habit if rng.random() < self.violation_rate else alternative
        if self.apply_rules:
            for rule in rules:
                convention = rule_field(rule)
                if convention is not None and rule["value"] in (convention.value, convention.other):
                    chosen[convention.field] = rule["value"]
        return attrs.evolve(habits, **chosen)


def violated(agent: Style, user: User, language: str) -> list[Convention]:
    """Conventions of ``language`` the agent's style got wrong for this user."""
    return [
        c for c in PROFILE if c.language == language and getattr(agent, c.field) != user.wanted(c)
    ]


# -- one step of the day ---------------------------------------------------------- #


@attrs.define
class Step:
    """What happened to one file: who wrote what, what the user fixed, what it taught."""

    index: int
    language: str
    kind: str
    """``correction``, ``logic`` (a logic-only edit) or ``clean`` (nothing to fix)."""
    fixed: list[str]
    saved: bool
    rule_keys: list[str]
    corrections: int


async def write(client: BenchClient, name: str, text: str, writes: str) -> None:
    if writes == "disk":
        await client.agent_write_to_disk(name, text)
    else:
        await client.agent_edit(name, text)


async def play_file(
    client: BenchClient,
    *,
    index: int,
    spec: FileSpec,
    agent_style: Style,
    user: User,
    writes: str,
    logic_only: bool,
    rng: random.Random,
    mixed: bool = False,
) -> Step:
    """The agent writes one file, the user opens it, fixes it (or not) and saves.

    ``mixed``: when the user fixes conventions, they also change some logic in the
    same save, as people do; the convention votes must survive it.
    """
    agent_text = render(spec, agent_style)
    before = (await client.settle())["corrections"]
    await write(client, spec.name, agent_text, writes)
    client.open(spec.name, agent_text)
    if logic_only:
        changed, _ = logic_edit(spec, rng, agent_style)
        user_text, kind, fixed = render(changed, agent_style), "logic", []
    else:
        user_text = render(spec, user.style())
        fixed = [c.name for c in violated(agent_style, user, spec.language)]
        kind = "correction" if user_text != agent_text else "clean"
        if mixed and fixed:
            changed, _ = logic_edit(spec, rng, user.style())
            user_text, kind = render(changed, user.style()), "correction+logic"
    saved = user_text != agent_text
    seen = len(client.memory)
    if saved:
        client.save(spec.name, user_text)
    client.close(spec.name)
    after = (await client.settle())["corrections"]
    keys = [
        key
        for event in client.memory[seen:]
        if event.get("action") == "correction"
        for key in event.get("ruleKeys", [])
    ]
    return Step(index, spec.language, kind, fixed, saved, keys, after - before)


# -- run 1: learn, then flip ---------------------------------------------------- #


@attrs.define
class Tracking:
    """Per-convention counters while rules are being learned."""

    touched: dict[str, int] = attrs.field(factory=dict)
    """convention name -> corrections so far that fixed it"""
    learned_at: dict[str, int] = attrs.field(factory=dict)
    """convention name -> ``touched`` when its rule first stood confident and right"""
    wrong_confident: set[tuple[str, str | None, str]] = attrs.field(factory=set)
    """(key, language, value) of every confident rule that contradicted the profile"""
    false_rules: set[tuple[str, str | None, str]] = attrs.field(factory=set)
    """confident rules about dimensions the profile does not hold"""
    double_confident: int = 0
    """checks at which two values of one dimension were confident together"""


def confident(rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [rule for rule in rules if rule["confident"] and rule["active"]]


def observe(rules: list[dict[str, Any]], user: User, track: Tracking) -> None:
    """Score the rules the server holds now against what the user wants now."""
    seen: dict[tuple[str, str | None], set[str]] = {}
    for rule in confident(rules):
        seen.setdefault((rule["key"], rule["language"]), set()).add(rule["value"])
        convention = rule_field(rule)
        if convention is None:
            track.false_rules.add((rule["key"], rule["language"], rule["value"]))
        elif rule["value"] == user.wanted(convention):
            track.learned_at.setdefault(convention.name, track.touched.get(convention.name, 0))
        else:
            track.wrong_confident.add((rule["key"], rule["language"], rule["value"]))
    track.double_confident += sum(1 for values in seen.values() if len(values) > 1)


async def run_task(
    client: BenchClient,
    *,
    index: int,
    agent: Agent,
    user: User,
    writes: str,
    rng: random.Random,
    language: str,
    logic_only: bool = False,
    mixed: float = 0.0,
) -> Step:
    task = await client.command("comodor.beginTask", {"goal": f"add {language} helpers #{index}"})
    spec = new_spec(rng, language, index)
    style = agent.style(rng, task["rules"])
    step = await play_file(
        client,
        index=index,
        spec=spec,
        agent_style=style,
        user=user,
        writes=writes,
        logic_only=logic_only,
        rng=rng,
        mixed=rng.random() < mixed,
    )
    await client.command("comodor.endTask", {"taskId": task["taskId"], "success": True})
    return step


async def learn_and_flip(
    folder: Path,
    *,
    seed: int,
    files: int,
    logic_every: int,
    flip_files: int,
    writes: str,
    violation_rate: float = 0.8,
    mixed: float = 0.0,
) -> dict[str, Any]:
    rng = random.Random(seed)
    user = User()
    agent = Agent(violation_rate=violation_rate, apply_rules=True)
    track = Tracking()
    steps: list[Step] = []
    logic_steps: list[Step] = []
    workspace, home = folder / "learn-ws", folder / "learn-home"
    workspace.mkdir()
    started = time.perf_counter()
    async with running_server(workspace, home, server_options(writes)) as client:
        for index in range(files):
            logic_only = logic_every > 0 and index % logic_every == logic_every - 1
            language = LANGUAGES[index % 2]
            step = await run_task(
                client,
                index=index,
                agent=agent,
                user=user,
                writes=writes,
                rng=rng,
                language=language,
                logic_only=logic_only,
                mixed=mixed,
            )
            (logic_steps if logic_only else steps).append(step)
            for name in step.fixed:
                track.touched[name] = track.touched.get(name, 0) + 1
            observe(await client.rules(), user, track)
        rules_after_learning = await client.rules()
        learn_s = time.perf_counter() - started

        # The user changes their mind about one convention.
        flipped = next(c for c in PROFILE if c.field == FLIP_FIELD)
        user.wants[FLIP_FIELD] = flipped.other
        old_rule = next(
            (
                r
                for r in rules_after_learning
                if r["key"] == flipped.key and r["language"] == flipped.language
            ),
            None,
        )
        flip = {
            "convention": flipped.name,
            "from": flipped.value,
            "to": flipped.other,
            "old_support": round(old_rule["support"]) if old_rule else 0,
        }
        flip_track = Tracking()
        turned_after: int | None = None
        unconfident_after: int | None = None
        flip_corrections = 0
        old_stood = 0
        played = 0
        for offset in range(flip_files):
            played = offset + 1
            index = files + offset
            step = await run_task(
                client,
                index=index,
                agent=agent,
                user=user,
                writes=writes,
                rng=rng,
                language=flipped.language,
                mixed=mixed,
            )
            if flipped.name in step.fixed:
                flip_corrections += 1
            rules = await client.rules()
            observe(rules, user, flip_track)
            current = [
                r
                for r in confident(rules)
                if r["key"] == flipped.key and r["language"] == flipped.language
            ]
            if any(r["value"] == flipped.value for r in current):
                old_stood = flip_corrections
            elif unconfident_after is None:
                unconfident_after = flip_corrections
            if any(r["value"] == flipped.other for r in current):
                turned_after = flip_corrections
                break
        flip.update(
            {
                "corrections_until_turned": turned_after,
                "corrections_until_old_rule_dropped": unconfident_after,
                "old_rule_confident_through_corrections": old_stood,
                "files_played": played,
                "both_values_confident_at_once": flip_track.double_confident
                + track.double_confident,
            }
        )
        stats = await client.command("comodor.stats")
    return {
        "steps": [attrs.asdict(step) for step in steps],
        "logic_steps": [attrs.asdict(step) for step in logic_steps],
        "track": track,
        "rules": rules_after_learning,
        "flip": flip,
        "stats": stats,
        "seconds": time.perf_counter() - started,
        "learn_seconds": learn_s,
    }


# -- run 2: the holdout ---------------------------------------------------------- #


async def holdout_arm(
    folder: Path,
    *,
    apply_rules: bool,
    seed: int,
    tasks: int,
    writes: str,
    violation_rate: float = 0.8,
) -> dict[str, Any]:
    """50 tasks of 1-2 files; the agent applies the playbook's rules or ignores them."""
    name = "memory-on" if apply_rules else "memory-off"
    workspace, home = folder / f"{name}-ws", folder / f"{name}-home"
    workspace.mkdir()
    agent = Agent(violation_rate=violation_rate, apply_rules=apply_rules)
    user = User()
    corrections: list[int] = []
    violations: list[int] = []
    rules_in_playbook: list[int] = []
    started = time.perf_counter()
    async with running_server(workspace, home, server_options(writes)) as client:
        for index in range(tasks):
            # Both arms draw the same files and the same habits, task by task.
            rng = random.Random(seed * 100_003 + index)
            task = await client.command("comodor.beginTask", {"goal": f"task {index}"})
            rules_in_playbook.append(len(task["rules"]))
            fixed = saves = 0
            for part in range(rng.randint(1, 2)):
                language = rng.choice(LANGUAGES)
                spec = new_spec(rng, language, index * 10 + part)
                style = agent.style(rng, task["rules"])
                step = await play_file(
                    client,
                    index=index,
                    spec=spec,
                    agent_style=style,
                    user=user,
                    writes=writes,
                    logic_only=False,
                    rng=rng,
                )
                fixed += len(step.fixed)
                saves += step.corrections
            await client.command("comodor.endTask", {"taskId": task["taskId"], "success": True})
            corrections.append(saves)
            violations.append(fixed)
    return {
        "arm": name,
        "corrections": corrections,
        "violations_fixed": violations,
        "rules_in_playbook": rules_in_playbook,
        "seconds": time.perf_counter() - started,
    }


# -- isolation probe ---------------------------------------------------------------- #


def isolation_probe(seed: int, samples: int = 5) -> dict[str, dict[str, int]]:
    """Can the capture see each convention alone, and with all the others at once?

    In process (the same ``analyse_correction`` the server runs), so a convention
    the capture cannot see shows up here before it shows up as a slow rule.
    """
    user = User().style()
    everything = Style()
    found: dict[str, dict[str, int]] = {}
    for convention in PROFILE:
        alone = together = 0
        for sample in range(samples):
            spec = new_spec(random.Random(seed + sample), convention.language, sample)
            wrong = attrs.evolve(user, **{convention.field: convention.other})
            for agent_style, bump in ((wrong, "alone"), (everything, "together")):
                result = analyse_correction(
                    render(spec, agent_style), render(spec, user), convention.language
                )
                hit = any(
                    vote.key == convention.key and vote.value == convention.value
                    for vote in result.votes
                )
                if hit and bump == "alone":
                    alone += 1
                elif hit:
                    together += 1
        found[convention.name] = {"alone": alone, "together": together, "samples": samples}
    return found


# -- report ------------------------------------------------------------------------- #


def server_options(writes: str) -> dict[str, Any]:
    return {
        "learning": {"prefetch": False},
        "watch": {"enabled": writes == "disk"},
    }


def summarize(learn: dict[str, Any], on: dict[str, Any], off: dict[str, Any]) -> dict[str, Any]:
    track: Tracking = learn["track"]
    final = confident(learn["rules"])
    right = [r for r in final if (c := rule_field(r)) is not None and r["value"] == c.value]
    logic_votes = sum(len(step["rule_keys"]) for step in learn["logic_steps"])
    total_on, total_off = sum(on["corrections"]), sum(off["corrections"])
    reduction = 100.0 * (1 - total_on / total_off) if total_off else 0.0
    fixes_on, fixes_off = sum(on["violations_fixed"]), sum(off["violations_fixed"])
    return {
        "per_convention": {
            c.name: {
                "key": c.key,
                "language": c.language,
                "value": c.value,
                "corrections_touching": track.touched.get(c.name, 0),
                "corrections_until_confident": track.learned_at.get(c.name),
            }
            for c in PROFILE
        },
        "precision": len(right) / len(final) if final else 0.0,
        "confident_rules": len(final),
        "recall": len(right) / len(PROFILE),
        "wrong_confident_ever": sorted(map(list, track.wrong_confident)),
        "false_rules": sorted(map(list, track.false_rules)),
        "logic_edits": len(learn["logic_steps"]),
        "logic_edit_votes": logic_votes,
        "flip": learn["flip"],
        "holdout": {
            "tasks": len(on["corrections"]),
            "corrections_memory_on": total_on,
            "corrections_memory_off": total_off,
            "reduction_percent": reduction,
            "fixes_memory_on": fixes_on,
            "fixes_memory_off": fixes_off,
            "fix_reduction_percent": 100.0 * (1 - fixes_on / fixes_off) if fixes_off else 0.0,
        },
    }


def _mark(ok: bool) -> str:
    return "yes" if ok else "**MISS**"


def _counts(values: list[int | None]) -> str:
    return ", ".join("never" if value is None else str(value) for value in values)


def print_probe(probe: dict[str, dict[str, int]]) -> None:
    print("### Capture probe (in process): is each convention seen?\n")
    print(f"| convention | seen alone | seen with all {len(PROFILE)} wrong at once |")
    print("|---|---:|---:|")
    for name, row in probe.items():
        print(f"| {name} | {row['alone']}/{row['samples']} | {row['together']}/{row['samples']} |")


def print_conventions(summaries: list[dict[str, Any]]) -> None:
    print(f"\n### Learning through `comodor-lsp serve` ({len(summaries)} seeds)\n")
    print(
        "| convention | rule | corrections that fixed it | until confident & right (per seed) "
        "| worst | ≤ 2 |"
    )
    print("|---|---|---:|---:|---:|:-:|")
    for convention in PROFILE:
        rows = [summary["per_convention"][convention.name] for summary in summaries]
        until = [row["corrections_until_confident"] for row in rows]
        touched = sum(row["corrections_touching"] for row in rows)
        worst = None if None in until else max(u for u in until if u is not None)
        ok = worst is not None and worst <= TARGET_CORRECTIONS
        print(
            f"| {convention.name} | `{convention.key}={convention.value}` ({convention.language}) "
            f"| {touched} | {_counts(until)} | {'never' if worst is None else worst} "
            f"| {_mark(ok)} |"
        )


def aggregate(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """Worst cases where a target is a floor, totals where it is a count."""
    holds = [summary["holdout"] for summary in summaries]
    on = sum(hold["corrections_memory_on"] for hold in holds)
    off = sum(hold["corrections_memory_off"] for hold in holds)
    fixes_on = sum(hold["fixes_memory_on"] for hold in holds)
    fixes_off = sum(hold["fixes_memory_off"] for hold in holds)
    return {
        "precision_min": min(summary["precision"] for summary in summaries),
        "recall_min": min(summary["recall"] for summary in summaries),
        "false_rules": sum(len(summary["false_rules"]) for summary in summaries),
        "logic_edits": sum(summary["logic_edits"] for summary in summaries),
        "logic_edit_votes": sum(summary["logic_edit_votes"] for summary in summaries),
        "wrong_confident_ever": sum(len(summary["wrong_confident_ever"]) for summary in summaries),
        "flip_dropped": [s["flip"]["corrections_until_old_rule_dropped"] for s in summaries],
        "flip_turned": [s["flip"]["corrections_until_turned"] for s in summaries],
        "flip_old_support": [s["flip"]["old_support"] for s in summaries],
        "both_confident": sum(s["flip"]["both_values_confident_at_once"] for s in summaries),
        "tasks": sum(hold["tasks"] for hold in holds),
        "corrections_on": on,
        "corrections_off": off,
        "reduction_percent": 100.0 * (1 - on / off) if off else 0.0,
        "reduction_per_seed": [round(hold["reduction_percent"]) for hold in holds],
        "fixes_on": fixes_on,
        "fixes_off": fixes_off,
        "fix_reduction_percent": 100.0 * (1 - fixes_on / fixes_off) if fixes_off else 0.0,
    }


def print_summary(total: dict[str, Any], flipped: Convention, seeds: int) -> None:
    print("\n| summary | measured | target | met |")
    print("|---|---:|---:|:-:|")
    turned = total["flip_turned"]
    rows = [
        (
            "precision of confident rules (worst seed)",
            f"{total['precision_min']:.2f}",
            f"≥ {TARGET_PRECISION}",
            total["precision_min"] >= TARGET_PRECISION,
        ),
        (
            "recall of the profile (worst seed)",
            f"{total['recall_min']:.2f}",
            f"≥ {TARGET_RECALL}",
            total["recall_min"] >= TARGET_RECALL,
        ),
        (
            "confident rules that ever contradicted the profile (before the flip)",
            str(total["wrong_confident_ever"]),
            "0",
            total["wrong_confident_ever"] == 0,
        ),
        (
            f"false rules from {total['logic_edits']} logic-only edits",
            f"{total['false_rules']} (votes cast: {total['logic_edit_votes']})",
            "0",
            total["false_rules"] == 0 and total["logic_edit_votes"] == 0,
        ),
        (
            f"flip {flipped.name} {flipped.value}→{flipped.other}: old rule's support at the flip",
            _counts(total["flip_old_support"]),
            "—",
            True,
        ),
        (
            "… corrections until the old rule stops being confident",
            _counts(total["flip_dropped"]),
            "1",
            all(dropped == 1 for dropped in total["flip_dropped"]),
        ),
        (
            "… corrections until the new value is confident",
            _counts(turned),
            f"≤ {TARGET_FLIP}",
            all(n is not None and n <= TARGET_FLIP for n in turned),
        ),
        (
            "… checks with both values confident at once",
            str(total["both_confident"]),
            "0",
            total["both_confident"] == 0,
        ),
        (
            f"holdout, {total['tasks'] // seeds} tasks × {seeds} seeds: corrections "
            "memory on / off",
            f"{total['corrections_on']} / {total['corrections_off']}",
            "—",
            True,
        ),
        (
            "… reduction in corrections (saves), per seed",
            f"{total['reduction_percent']:.0f}% ({_counts(total['reduction_per_seed'])})",
            f"≥ {TARGET_REDUCTION:.0f}%",
            total["reduction_percent"] >= TARGET_REDUCTION,
        ),
        (
            "… reduction in convention fixes",
            f"{total['fix_reduction_percent']:.0f}% ({total['fixes_on']} / {total['fixes_off']})",
            "—",
            True,
        ),
    ]
    for label, measured, target, ok in rows:
        print(f"| {label} | {measured} | {target} | {_mark(ok)} |")


async def run_seed(args: argparse.Namespace, seed: int, folder: Path) -> dict[str, Any]:
    """Learn + flip, then both holdout arms, each on a fresh brain."""
    folder.mkdir()
    times: dict[str, float] = {}
    learn = await learn_and_flip(
        folder,
        seed=seed,
        files=args.files,
        logic_every=args.logic_every,
        flip_files=args.flip_files,
        writes=args.writes,
        violation_rate=args.violation_rate,
        mixed=args.mixed,
    )
    times["learn+flip"] = learn["seconds"]
    arms = []
    for apply_rules in (True, False):
        arm = await holdout_arm(
            folder,
            apply_rules=apply_rules,
            seed=seed,
            tasks=args.tasks,
            writes=args.writes,
            violation_rate=args.violation_rate,
        )
        times[arm["arm"]] = arm["seconds"]
        arms.append(arm)
    on, off = arms
    keys = ("corrections", "violations_fixed", "rules_in_playbook")
    return {
        "seed": seed,
        "summary": summarize(learn, on, off),
        "times": times,
        "series": {"memory_on": {k: on[k] for k in keys}, "memory_off": {k: off[k] for k in keys}},
        "learn_steps": learn["steps"],
        "logic_steps": learn["logic_steps"],
        "final_rules": learn["rules"],
    }


async def run(args: argparse.Namespace, folder: Path) -> list[dict[str, Any]]:
    return [
        await run_seed(args, seed, folder / f"seed-{seed}")
        for seed in range(args.seed, args.seed + args.seeds)
    ]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    parser.add_argument("--seeds", type=int, default=5, help="independent runs (fresh brains)")
    parser.add_argument("--files", type=int, default=36, help="files in the learning run")
    parser.add_argument("--logic-every", type=int, default=3, help="every Nth file: logic only")
    parser.add_argument("--flip-files", type=int, default=40, help="files allowed for the flip")
    parser.add_argument("--tasks", type=int, default=50, help="tasks per holdout arm")
    parser.add_argument(
        "--violation-rate",
        type=float,
        default=0.8,
        help="chance the agent follows its own habit for a convention it has no rule for",
    )
    parser.add_argument(
        "--mixed",
        type=float,
        default=0.25,
        help="chance a correction also changes logic in the same save (learning run)",
    )
    parser.add_argument("--writes", choices=("agent-edit", "disk"), default="agent-edit")
    parser.add_argument("--json", type=Path, help="write the full result here")
    parser.add_argument(
        "--out", type=Path, default=Path("bench/out/learning.json"), help="per-task series"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="comodor-learnbench-"))
    started = time.perf_counter()
    try:
        results = asyncio.run(run(args, folder))
    finally:
        if args.keep:
            print(f"kept {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)
    elapsed = time.perf_counter() - started
    probe = isolation_probe(args.seed)
    summaries = [result["summary"] for result in results]
    total = aggregate(summaries)
    print_probe(probe)
    print_conventions(summaries)
    print_summary(total, next(c for c in PROFILE if c.field == FLIP_FIELD), len(results))
    print(
        f"\nWall time {elapsed:.0f} s for {len(results)} seeds (shared machine, orientation "
        f"only); writes via {args.writes}."
    )
    payload = json.dumps(
        {"config": vars(args), "aggregate": total, "probe": probe, "seeds": results},
        indent=2,
        default=str,
    )
    for target in (args.out, args.json):
        if target is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(payload)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
