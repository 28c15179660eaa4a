"""Recall-quality benchmark: planted lessons among 20,000 distractors that share their words.

Speed benchmarks (``bench.brain``) say nothing about *whether the right lesson comes
back*. Here every planted lesson is a trigger made of three specifics (an action,
an object, a component: "running integration tests for billing") and almost every
distractor is a near miss of one planted lesson: one or two of those three
changed, with guidance drawn from the same commands and flags. Queries are
paraphrases of a planted trigger (reordered, a word dropped, filler added), never
the trigger itself. We measure, through ``LearningEngine.recall`` (the path the
playbook uses):

* recall@6 (top_k = 6, the default playbook) and MRR over the top 20;
* three brains: planted lessons **trusted** (confidence 0.95 and 3 wins), at
  **ordinary** trust (0.6, like any other lesson), and **relevance only** (every
  lesson at 0.6, same age), to show what trust weighting buys and where relevance
  alone already finds the lesson.

Then the merge path (``LearningEngine.absorb``): a lesson followed by its negation
must never merge ("Use unittest…" / "Do not use unittest…", "prefer X over Y" /
"prefer Y over X"), while a restatement should, including lessons with flags such
as ``-p no:cacheprovider`` that look like negations and are not.

Run: ``python -m bench.recall_quality`` (Markdown table; ``--json PATH``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Lesson, ProposedLesson
from comodor_lsp.brain.recall.text import terms
from comodor_lsp.brain.store import BrainStore
from comodor_lsp.settings import LearningSettings

SCOPE = "project:bench"
TARGET_RECALL = 0.98
DAY = 86_400.0

ACTIONS = (
    "running",
    "building",
    "deploying",
    "migrating",
    "linting",
    "debugging",
    "releasing",
    "profiling",
    "seeding",
    "backing up",
    "restarting",
    "formatting",
    "benchmarking",
    "upgrading",
)
OBJECTS = (
    "integration tests",
    "unit tests",
    "database migrations",
    "docker image",
    "api client",
    "frontend bundle",
    "worker queue",
    "cache layer",
    "search index",
    "config files",
    "feature flags",
    "cron jobs",
    "log pipeline",
    "table schema",
    "test fixtures",
)
COMPONENTS = (
    "billing",
    "auth",
    "search",
    "payments",
    "notifications",
    "ingest",
    "reporting",
    "admin",
    "checkout",
    "inventory",
    "analytics",
    "gateway",
    "scheduler",
    "mailer",
    "exports",
    "onboarding",
    "ledger",
    "catalog",
    "pricing",
    "storage",
)
COMMANDS = (
    "pytest -x -q",
    "make check",
    "npm run build",
    "alembic upgrade head",
    "docker compose up -d",
    "kubectl rollout restart",
    "tox -e py311",
    "yarn lint --fix",
    "ruff check --fix",
    "cargo build --release",
    "go test ./...",
    "helm upgrade --install",
)
FLAGS = ("--dry-run", "--verbose", "-p no:cacheprovider", "--no-cache", "--retries 3", "-j 4")
FILLERS = (
    "how do I",
    "please",
    "again",
    "locally",
    "in ci",
    "quickly",
    "today",
    "the right way",
    "safely",
    "on my machine",
)


@attrs.frozen
class Triple:
    """The three specifics a trigger is made of."""

    action: str
    obj: str
    component: str

    def trigger(self) -> str:
        return f"{self.action} {self.obj} for {self.component}"


def guidance(rng: random.Random, component: str) -> str:
    env = f"{component.upper()}_{rng.choice(('DB_URL', 'TOKEN', 'REGION', 'PROFILE'))}"
    return (
        f"use `{rng.choice(COMMANDS)} {rng.choice(FLAGS)}` and set {env} first; "
        f"{rng.choice(('it fails otherwise', 'CI does the same', 'the default is wrong'))}"
    )


def _distinctive(word: str, obj: str) -> bool:
    """Whether ``word`` alone still names ``obj``: in no other object, command or flag."""
    others = [o for o in OBJECTS if o != obj] + list(COMMANDS) + list(FLAGS) + list(COMPONENTS)
    wanted = set(terms(word))
    return bool(wanted) and not any(wanted & set(terms(other)) for other in others)


def paraphrase(rng: random.Random, triple: Triple) -> str:
    """Say the trigger differently: reorder, maybe drop a word, add filler.

    A word is only dropped when the query still names the lesson (dropping
    "integration" from "integration tests" would make "unit tests" an equally good
    answer, and then no ranking could be right).
    """
    parts = [triple.action, triple.obj, f"for {triple.component}"]
    rng.shuffle(parts)
    words = " ".join(parts).split()
    if rng.random() < 0.5:
        obj_words = triple.obj.split()
        keep = [w for w in obj_words if _distinctive(w, triple.obj)]
        droppable = ["for"] + ([w for w in obj_words if w not in keep[:1]] if keep else [])
        drop = rng.choice(droppable)
        words.remove(drop)
    fillers = rng.sample(FILLERS, k=rng.randint(1, 2))
    words = [*fillers[0].split(), *words, *(fillers[1].split() if len(fillers) > 1 else [])]
    return " ".join(words)


def near_miss(rng: random.Random, triple: Triple, planted: set[Triple]) -> Triple:
    """A triple that shares one or two specifics with ``triple``, and is not planted."""
    while True:
        changed = rng.sample(("action", "obj", "component"), k=1 if rng.random() < 0.7 else 2)
        fields = attrs.asdict(triple)
        pools = {"action": ACTIONS, "obj": OBJECTS, "component": COMPONENTS}
        for name in changed:
            fields[name] = rng.choice([v for v in pools[name] if v != fields[name]])
        candidate = Triple(**fields)
        if candidate not in planted:
            return candidate


@attrs.frozen
class Arm:
    """How trusted the planted lessons (and the distractors) are in one brain."""

    name: str
    planted_confidence: float
    planted_wins: int
    distractors_vary: bool
    """Distractors with varied confidence, wins, losses and age (else all at 0.6, new)."""


ARMS = (
    Arm("trusted (0.95, 3 wins)", 0.95, 3, True),
    Arm("ordinary trust (0.6)", 0.6, 0, True),
    Arm("relevance only (all 0.6, same age)", 0.6, 0, False),
)


def _lesson(
    rng: random.Random, triple: Triple, now: float, confidence: float, wins: int, vary: bool
) -> tuple[Lesson, str]:
    age = rng.uniform(0, 60) * DAY if vary else 0.0
    lesson = Lesson(
        kind="heuristic",
        scope=SCOPE,
        trigger=triple.trigger(),
        guidance=guidance(rng, triple.component),
        confidence=confidence,
        wins=wins,
        losses=0,
        created_at=now - age,
        updated_at=now - age,
        last_success=now - rng.uniform(0, age) if vary and rng.random() < 0.5 else 0.0,
    )
    return lesson, " ".join(terms(lesson.text))


def build(
    path: Path, arm: Arm, planted: list[Triple], distractors: int, seed: int
) -> dict[str, int]:
    """Write the brain; return trigger -> lesson id of each planted lesson."""
    rng = random.Random(seed)
    now = time.time()
    planted_set = set(planted)
    rows: list[tuple[Lesson, str, Triple | None]] = []
    for triple in planted:
        lesson, text = _lesson(
            rng, triple, now, arm.planted_confidence, arm.planted_wins, arm.distractors_vary
        )
        rows.append((lesson, text, triple))
    for _ in range(distractors):
        triple = near_miss(rng, rng.choice(planted), planted_set)
        if arm.distractors_vary:
            confidence, wins = rng.uniform(0.3, 0.9), rng.randint(0, 5)
        else:
            confidence, wins = 0.6, 0
        lesson, text = _lesson(rng, triple, now, confidence, wins, arm.distractors_vary)
        if arm.distractors_vary:
            lesson = attrs.evolve(lesson, losses=rng.randint(0, 3))
        rows.append((lesson, text, None))
    random.Random(seed + 1).shuffle(rows)  # ids carry no hint of which lessons are planted
    store = BrainStore(path)
    try:
        store.add_lessons((lesson, text) for lesson, text, _ in rows)
        wanted = {triple.trigger() for triple in planted}
        found = {
            lesson.trigger: lesson.id
            for lesson in store.lessons([SCOPE], limit=len(rows) + 1)
            if lesson.trigger in wanted
        }
    finally:
        store.close()
    return found


AGE_BUCKETS = ((0, 15), (15, 30), (30, 45), (45, 61))
"""Days since a planted lesson was created or last succeeded (its decay anchor)."""


def measure_recall(
    path: Path, planted: list[Triple], ids: dict[str, int], seed: int
) -> dict[str, Any]:
    rng = random.Random(seed + 7)
    now = time.time()
    queries = [(paraphrase(rng, triple), ids[triple.trigger()]) for triple in planted]
    six = LearningEngine.open(path, SCOPE, LearningSettings(top_k=6))
    twenty = LearningEngine.open(path, SCOPE, LearningSettings(top_k=20))
    hits = top1 = 0
    reciprocal = 0.0
    misses: list[str] = []
    by_age = {f"{low}-{high - 1 if high == 61 else high} d": [0, 0] for low, high in AGE_BUCKETS}
    try:
        six.warm()
        twenty.warm()
        anchors = {
            lesson.id: max(lesson.created_at, lesson.last_success)
            for lesson in six.store.get_lessons([wanted for _, wanted in queries])
        }
        started = time.perf_counter()
        for query, wanted in queries:
            age = (now - anchors[wanted]) / DAY
            bucket = next(
                name
                for (low, high), name in zip(AGE_BUCKETS, by_age, strict=True)
                if low <= age < high
            )
            by_age[bucket][1] += 1
            if wanted in [lesson.id for lesson in six.recall(query)]:
                hits += 1
                by_age[bucket][0] += 1
            else:
                misses.append(query)
            ranked = [lesson.id for lesson in twenty.recall(query)]
            if wanted in ranked:
                rank = ranked.index(wanted) + 1
                reciprocal += 1.0 / rank
                top1 += rank == 1
        seconds = time.perf_counter() - started
    finally:
        six.close()
        twenty.close()
    return {
        "queries": len(queries),
        "recall_at_6": hits / len(queries),
        "mrr_at_20": reciprocal / len(queries),
        "top1": top1 / len(queries),
        "recall_at_6_by_age": {
            name: (found / total if total else None, total)
            for name, (found, total) in by_age.items()
        },
        "examples_missed": misses[:5],
        "example_queries": [query for query, _ in queries[:3]],
        "seconds": seconds,
    }


# -- negation and restatement through the merge path ------------------------------- #

TOOLS = (
    ("unittest", "pytest"),
    ("tabs", "spaces"),
    ("poetry", "pip"),
    ("yarn", "npm"),
    ("requests", "httpx"),
    ("dataclasses", "attrs"),
    ("asyncio", "threads"),
    ("sqlite", "postgres"),
)
CONTEXTS = ("billing", "auth", "ingest", "reporting", "checkout")


@attrs.frozen
class Pair:
    """A statement, its negation and a restatement (one trigger for all three)."""

    family: str
    trigger: str
    statement: str
    negation: str
    restatement: str


def pairs() -> Iterator[Pair]:
    for (a, b), ctx in ((tools, ctx) for tools in TOOLS for ctx in CONTEXTS):
        trigger = f"working on the {ctx} service"
        yield Pair(
            "do / do not",
            trigger,
            f"Use {a} for the {ctx} tests.",
            f"Do not use {a} for the {ctx} tests.",
            f"For the {ctx} tests, use {a}.",
        )
        yield Pair(
            "always / never",
            trigger,
            f"Always run the {ctx} checks with {a} before pushing.",
            f"Never run the {ctx} checks with {a} before pushing.",
            f"Before pushing, always run the {ctx} checks with {a}.",
        )
        yield Pair(
            "prefer X over Y / Y over X",
            trigger,
            f"Prefer {a} over {b} in the {ctx} module.",
            f"Prefer {b} over {a} in the {ctx} module.",
            f"In the {ctx} module prefer {a} over {b}.",
        )
        yield Pair(
            "X instead of Y / Y instead of X",
            trigger,
            f"Use {a} instead of {b} for {ctx} scripts.",
            f"Use {b} instead of {a} for {ctx} scripts.",
            f"For {ctx} scripts use {a} instead of {b}.",
        )
    for ctx in CONTEXTS:
        trigger = f"running the {ctx} test suite"
        yield Pair(
            "flag -p no:… (not a negation)",
            trigger,
            f"Run pytest -p no:cacheprovider in the {ctx} container.",
            f"Do not run pytest -p no:cacheprovider in the {ctx} container.",
            f"In the {ctx} container run pytest -p no:cacheprovider.",
        )
        yield Pair(
            "flag --no-… (not a negation)",
            trigger,
            f"Build the {ctx} image with docker build --no-cache.",
            f"Never build the {ctx} image with docker build --no-cache.",
            f"Use docker build --no-cache to build the {ctx} image.",
        )


def _text(trigger: str, statement: str) -> str:
    return f"{trigger}: {statement}"


def measure_merges(path: Path) -> dict[str, dict[str, int]]:
    """For each pair: absorb A, then not-A (must not merge into A); then A, then A'.

    ``find_similar`` (the lookup ``absorb`` itself uses) names the lesson a second
    statement would merge into, so a merge into a distractor is not mistaken for a
    merge into A. The pair's lessons are forgotten afterwards, so pairs stay apart.
    """
    families: dict[str, dict[str, int]] = {}
    engine = LearningEngine.open(path, SCOPE)
    try:
        for pair in pairs():
            row = families.setdefault(
                pair.family,
                {"pairs": 0, "negation_merged": 0, "restated_merged": 0, "merged_elsewhere": 0},
            )
            row["pairs"] += 1
            for second, counter in (
                (pair.negation, "negation_merged"),
                (pair.restatement, "restated_merged"),
            ):
                stored, _ = engine.absorb(
                    [ProposedLesson("heuristic", pair.trigger, pair.statement)], source="bench"
                )
                if not stored:  # the statement itself merged into an existing lesson
                    row["merged_elsewhere"] += 1
                    continue
                first = stored[0].id
                target = engine.find_similar(_text(pair.trigger, second))
                again, merged = engine.absorb(
                    [ProposedLesson("heuristic", pair.trigger, second)], source="bench"
                )
                if merged and target is not None and target.id == first:
                    row[counter] += 1
                elif merged:
                    row["merged_elsewhere"] += 1
                for lesson_id in [first, *(lesson.id for lesson in again)]:
                    engine.forget(lesson_id)
    finally:
        engine.close()
    return families


# -- report ----------------------------------------------------------------------- #


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--distractors", type=int, default=20_000)
    parser.add_argument("--planted", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rng = random.Random(args.seed)
    every = [Triple(a, o, c) for a in ACTIONS for o in OBJECTS for c in COMPONENTS]
    planted = rng.sample(every, k=args.planted)
    results: dict[str, Any] = {"config": vars(args), "recall": {}, "merges": {}}
    with tempfile.TemporaryDirectory(prefix="comodor-recallbench-") as name:
        folder = Path(name)
        for number, arm in enumerate(ARMS):
            path = folder / f"arm-{number}.db"
            ids = build(path, arm, planted, args.distractors, args.seed)
            results["recall"][arm.name] = measure_recall(path, planted, ids, args.seed)
        results["merges"]["empty brain"] = measure_merges(folder / "empty.db")
        results["merges"][f"{args.distractors:,} distractors"] = measure_merges(folder / "arm-1.db")
    results["seconds"] = time.perf_counter() - started
    print_report(results, args)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2, default=str))
    return 0


def print_report(results: dict[str, Any], args: argparse.Namespace) -> None:
    print(
        f"### Recall: {args.planted} planted lessons among {args.distractors:,} near-miss "
        "distractors, paraphrased queries\n"
    )
    print("| planted lessons | recall@6 | MRR@20 | top-1 | target recall@6 | met |")
    print("|---|---:|---:|---:|---:|:-:|")
    for name, row in results["recall"].items():
        trusted = name.startswith("trusted")
        target = f"≥ {TARGET_RECALL}" if trusted else "—"
        met = ("yes" if row["recall_at_6"] >= TARGET_RECALL else "**MISS**") if trusted else "—"
        print(
            f"| {name} | {row['recall_at_6']:.3f} | {row['mrr_at_20']:.3f} "
            f"| {row['top1']:.3f} | {target} | {met} |"
        )
    buckets = list(next(iter(results["recall"].values()))["recall_at_6_by_age"])
    print("\nrecall@6 by days since the planted lesson was created or last succeeded:\n")
    print("| planted lessons | " + " | ".join(buckets) + " |")
    print("|---|" + "---:|" * len(buckets))
    for name, row in results["recall"].items():
        cells = [
            "—" if share is None else f"{share:.2f} (n={count})"
            for share, count in row["recall_at_6_by_age"].values()
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")
    example = next(iter(results["recall"].values()))["example_queries"]
    print(f"\nExample queries: {'; '.join(repr(q) for q in example)}")
    for host, families in results["merges"].items():
        print(f"\n### Merges through `LearningEngine.absorb` ({host})\n")
        print(
            "| pair family | pairs | negation merged into its lesson (target 0) "
            "| restatement merged into its lesson | merged into another lesson |"
        )
        print("|---|---:|---:|---:|---:|")
        negated = restated = total = elsewhere = 0
        for family, row in families.items():
            negated += row["negation_merged"]
            restated += row["restated_merged"]
            elsewhere += row["merged_elsewhere"]
            total += row["pairs"]
            print(
                f"| {family} | {row['pairs']} | {row['negation_merged']} "
                f"| {row['restated_merged']}/{row['pairs']} | {row['merged_elsewhere']} |"
            )
        print(
            f"| **all** | {total} | {negated} | {restated}/{total} ({restated / total:.0%}) "
            f"| {elsewhere} |"
        )
    print(f"\nWall time {results['seconds']:.0f} s (shared machine, orientation only).")
    sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())
