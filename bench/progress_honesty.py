"""Progress honesty benchmark: how often the dashboard claims a change that is not there,
and how often it finds one that is.

Histories are generated task by task as ``comodor.endTask`` would record them —
steps, corrections, undos, approvals, tool errors, tokens, success — and fed to
the same analysis ``comodor.progress`` runs (:func:`comodor.brain.progress.evidence.analyse`).

* **No change** (the false-claim rate): every measure stays at its own level for
  the whole history, drawn fresh per history (steps 3–20 a task with a spread of
  30–60%, corrections 0–1.5, undos 0–0.3, approvals 0–2, tool errors 0–1, tokens
  lognormal, success 50–95%). Any significant series is a false claim; the rate
  is over whole results (one claim anywhere counts), the number the contract
  bounds at 5%. Printed next to it: what the same tests would claim without the
  Holm correction. A run with a 20% memory-off holdout and no memory effect
  checks the holdout comparison too.
* **A real 30% improvement over 30 tasks** (power): one measure improves by 30%
  from the first task to the last (a linear drift, or a step half-way) while the
  others stay level; "detected" means that series is significant and ``better``.
  Claims on the unchanged series, or in the wrong direction, are counted as
  false claims.

* **A steady 4× change: the smallest history that reports it.** Steps per task
  fall from 20 to 5 in a straight line over the history, each task's count drawn
  around its line with no more than counting (Poisson) noise (the other measures
  level and random as above); for each
  history length, how often the dashboard reports steps as ``better``, and the
  shortest history that does so in ≥ 95% (and ≥ 50%) of the histories. The
  issue's exact example (20 → 18 → 15 → 13 → 10 → 8 → 6 → 5) is printed beside it.

Run: ``python -m bench.progress_honesty`` (``--histories 1000`` by default;
``--seeds K`` repeats the no-change table on K seeds and prints each seed's rate
beside the pooled one; ``--json FILE`` writes the figures). Targets are reported,
not asserted. A row's rate over 200 histories is ±3 points by sampling alone
(the printed Wilson interval): a procedure whose true rate is 4% prints more than
5% on about one seed in seven, so the table is only a check of the ≤ 5% contract
over thousands of histories.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from comodor_lsp.brain.models import Episode
from comodor_lsp.brain.progress.evidence import analyse
from comodor_lsp.brain.progress.holdout import withhold_memory

TARGET_FALSE_CLAIMS = 0.05
AFFECTS: dict[str, tuple[str, set[str]]] = {
    "steps": ("steps", {"steps"}),
    # Fewer corrections also mean more tasks right the first time.
    "corrections": ("corrections", {"corrections", "success"}),
    "success": ("succeeded", {"succeeded", "success"}),
}
"""The series that should detect a drifting measure, and every series it truly moves."""
Drift = Callable[[float], float]
"""Multiplier of a measure's level at a point of the history (0 = first task, 1 = last)."""


def _level(_: float) -> float:
    return 1.0


def linear(total: float) -> Drift:
    return lambda t: 1.0 + total * t


def step(total: float) -> Drift:
    return lambda t: 1.0 if t < 0.5 else 1.0 + total


def poisson(rng: random.Random, mean: float) -> int:
    """Knuth's method for small means, a rounded normal above 30 (plenty for counts a task)."""
    if mean <= 0:
        return 0
    if mean > 30:
        return max(0, round(rng.gauss(mean, math.sqrt(mean))))
    limit, count, product = math.exp(-mean), 0, rng.random()
    while product > limit:
        count += 1
        product *= rng.random()
    return count


def overdispersed(rng: random.Random, mean: float, spread: float) -> int:
    """A count whose task-to-task spread is about ``spread`` × its mean (gamma–Poisson)."""
    if mean <= 0:
        return 0
    shape = 1.0 / max(spread**2 - 1.0 / mean, 1e-3)
    return poisson(rng, rng.gammavariate(shape, mean / shape))


@attrs.frozen
class Profile:
    """One simulated project: each measure's level, and how it drifts over the history."""

    steps: float
    steps_spread: float
    corrections: float
    undos: float
    approvals: float
    retries: float
    tokens: float
    success: float
    drifts: dict[str, Drift] = attrs.field(factory=dict)

    @classmethod
    def random(
        cls, rng: random.Random, drifts: dict[str, Drift] | None = None, **levels: float
    ) -> Profile:
        """A random project; ``levels`` pin some measures (e.g. ``steps=10``)."""
        drawn = {
            "steps": rng.uniform(3, 20),
            "steps_spread": rng.uniform(0.3, 0.6),
            "corrections": rng.uniform(0, 1.5),
            "undos": rng.uniform(0, 0.3),
            "approvals": rng.uniform(0, 2),
            "retries": rng.uniform(0, 1),
            "tokens": rng.uniform(2_000, 20_000),
            "success": rng.uniform(0.5, 0.95),
        }
        return cls(**{**drawn, **levels}, drifts=drifts or {})

    def at(self, name: str, t: float) -> float:
        return float(getattr(self, name)) * self.drifts.get(name, _level)(t)


def history(
    rng: random.Random, profile: Profile, tasks: int, holdout_rate: float = 0.0
) -> list[Episode]:
    episodes = []
    for number in range(tasks):
        t = number / max(1, tasks - 1)
        success = rng.random() < min(1.0, profile.at("success", t))
        episodes.append(
            Episode(
                goal=f"task {number}",
                scope="project:bench",
                id=number + 1,
                success=success,
                stopped="done",
                steps=overdispersed(rng, profile.at("steps", t), profile.steps_spread),
                corrections=poisson(rng, profile.at("corrections", t)),
                undos=poisson(rng, profile.at("undos", t)),
                approvals=poisson(rng, profile.at("approvals", t)),
                retries=poisson(rng, profile.at("retries", t)),
                tokens=round(profile.at("tokens", t) * rng.lognormvariate(0, 0.4)),
                started_at=float(number),
                ended_at=float(number) + 0.5,
                holdout=withhold_memory(number + 1, holdout_rate),
            )
        )
    return episodes


@attrs.define
class Tally:
    runs: int = 0
    claims: int = 0
    """Results with at least one false claim."""
    uncorrected: int = 0
    """Results where some test had a raw p < 0.05 (what no correction would claim)."""
    detected: int = 0
    alone: int = 0
    """Histories where the changed series alone, tested without correction, finds it."""
    seconds: float = 0.0

    def rate(self, count: int) -> float:
        return count / self.runs if self.runs else 0.0


def run(
    rng: random.Random,
    runs: int,
    tasks: int,
    *,
    target: str | None = None,
    drift: Callable[[float], Drift] | None = None,
    effect: float = 0.0,
    holdout_rate: float = 0.0,
    levels: dict[str, float] | None = None,
) -> Tally:
    """``runs`` histories; with ``target``, that measure changes by ``effect`` (e.g. -0.3)."""
    tally = Tally()
    started = time.perf_counter()
    for _ in range(runs):
        drifts = {target: drift(effect)} if target and drift else {}
        profile = Profile.random(rng, drifts, **(levels or {}))
        progress = analyse(history(rng, profile, tasks, holdout_rate))
        contrasts = [(s.key, s.contrast) for s in progress.series]
        if progress.holdout is not None:
            contrasts += [(f"holdout.{c.key}", c.contrast) for c in progress.holdout.comparisons]
        wanted, affected = AFFECTS.get(target or "", ("", set()))
        false_claim = False
        for key, contrast in contrasts:
            if not contrast.significant:
                continue
            if key == wanted and contrast.direction == "better":
                tally.detected += 1
            elif not (key in affected and contrast.direction == "better"):
                false_claim = True
        tally.claims += false_claim
        tally.alone += any(
            key == wanted
            and contrast.raw is not None
            and contrast.raw.p_value < 0.05
            and contrast.better
            and not contrast.flat
            for key, contrast in contrasts
        )
        tally.uncorrected += any(
            contrast.raw is not None and contrast.raw.p_value < 0.05 for _, contrast in contrasts
        )
        tally.runs += 1
    tally.seconds = time.perf_counter() - started
    return tally


STEPS_STEADY = {"steps": 10.0, "steps_spread": 0.3}
STEPS_NOISY = {"steps": 10.0, "steps_spread": 0.6}
SCENARIOS: list[tuple[str, str, str, Callable[[float], Drift], float, int, dict[str, float]]] = [
    ("steps (10, ±30%)", "steps", "−30%, step half-way", step, -0.3, 30, STEPS_STEADY),
    ("steps (10, ±30%)", "steps", "−30%, linear drift", linear, -0.3, 30, STEPS_STEADY),
    ("steps (10, ±60%)", "steps", "−30%, step half-way", step, -0.3, 30, STEPS_NOISY),
    (
        "corrections (2 a task)",
        "corrections",
        "−30%, step half-way",
        step,
        -0.3,
        30,
        {"corrections": 2.0},
    ),
    ("task success (60%)", "success", "+30 points, step half-way", step, 0.5, 30, {"success": 0.6}),
    ("steps (10, ±30%)", "steps", "−30%, step half-way", step, -0.3, 60, STEPS_STEADY),
    ("steps (10, ±60%)", "steps", "−30%, step half-way", step, -0.3, 100, STEPS_NOISY),
    (
        "corrections (2 a task)",
        "corrections",
        "−30%, step half-way",
        step,
        -0.3,
        100,
        {"corrections": 2.0},
    ),
]
"""Power scenarios: label, measure, shape, drift, total change, tasks, pinned levels."""


FOURFOLD_LENGTHS = (*range(4, 17), 20, 24, 30)
FOURFOLD_STEADY = {"steps": 20.0, "steps_spread": 0.1}
ISSUE_EXAMPLE = (20, 18, 15, 13, 10, 8, 6, 5)


def _reports_better(progress_steps: Any) -> bool:
    return progress_steps is not None and progress_steps.direction == "better"


def fourfold(rng: random.Random, runs: int) -> dict[str, Any]:
    """Detection of a steady 4× fall in steps by history length; the smallest that reports it."""
    print(
        f"\n### A steady 4× fall in steps (20 → 5, Poisson noise): reported, in {runs} histories\n"
    )
    print("| tasks | reported better | tested alone, uncorrected | false claims elsewhere |")
    print("|---:|---:|---:|---:|")
    rows = []
    for tasks in FOURFOLD_LENGTHS:
        tally = run(
            rng, runs, tasks, target="steps", drift=linear, effect=-0.75, levels=FOURFOLD_STEADY
        )
        row = {
            "tasks": tasks,
            "detected": tally.rate(tally.detected),
            "alone_uncorrected": tally.rate(tally.alone),
            "false_claim_rate": tally.rate(tally.claims),
        }
        rows.append(row)
        print(
            f"| {tasks} | {row['detected']:.1%} | {row['alone_uncorrected']:.1%} "
            f"| {row['false_claim_rate']:.1%} |"
        )

    def smallest(share: float) -> int | None:
        return next((row["tasks"] for row in rows if row["detected"] >= share), None)

    episodes = [
        Episode(
            goal=f"task {number}",
            scope="project:bench",
            id=number + 1,
            success=True,
            stopped="done",
            steps=steps,
            started_at=float(number),
            ended_at=float(number) + 0.5,
        )
        for number, steps in enumerate(ISSUE_EXAMPLE)
    ]
    example = analyse(episodes)
    found = {"95%": smallest(0.95), "50%": smallest(0.5)}
    print(
        f"\nSmallest history reporting it in ≥ 95% of histories: {found['95%']} tasks "
        f"(≥ 50%: {found['50%']}). The exact series {' → '.join(map(str, ISSUE_EXAMPLE))} "
        f"over {len(ISSUE_EXAMPLE)} tasks: {example.headline()}"
    )
    return {
        "rows": rows,
        "smallest_95": found["95%"],
        "smallest_50": found["50%"],
        "example_headline": example.headline(),
        "example_better": _reports_better(example.get("steps")),
    }


def wilson(hits: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a rate: how far sampling alone could move it."""
    if total == 0:
        return 0.0, 1.0
    rate = hits / total
    centre = (rate + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(rate * (1 - rate) / total + z * z / (4 * total * total))
    return max(0.0, centre - half / (1 + z * z / total)), min(
        1.0, centre + half / (1 + z * z / total)
    )


NULL_ROWS = (
    *((tasks, 0.0) for tasks in (12, 20, 30, 60, 100, 300)),
    *((tasks, 0.2) for tasks in (60, 200)),
)
"""The no-change table: tasks per history, and the share held out from memory."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--histories", type=int, default=1000, help="histories per row")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument(
        "--seeds",
        type=int,
        default=1,
        help="seeds for the no-change table (seed, seed + 1, …), each with --histories histories",
    )
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    runs = args.histories
    figures: dict[str, Any] = {"histories": runs, "null": [], "power": []}

    seeds = [args.seed + offset for offset in range(args.seeds)]
    figures["seeds"] = seeds
    print(
        f"### No change: false claims in {runs} random histories × {len(seeds)} "
        f"seed{'s' if len(seeds) != 1 else ''} ({', '.join(map(str, seeds))}) a row "
        f"(target ≤ 5%)\n"
    )
    print(
        "| tasks | holdout | histories | false-claim rate (whole result) | 95% interval "
        "| per seed | without correction | ms/history |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for tasks, holdout in NULL_ROWS:
        tallies = [run(random.Random(seed), runs, tasks, holdout_rate=holdout) for seed in seeds]
        histories = sum(tally.runs for tally in tallies)
        claims = sum(tally.claims for tally in tallies)
        per_seed = [tally.rate(tally.claims) for tally in tallies]
        row = {
            "tasks": tasks,
            "holdout_rate": holdout,
            "histories": histories,
            "seeds": seeds,
            "false_claim_rate": claims / histories,
            "per_seed": per_seed,
            "uncorrected_rate": sum(tally.uncorrected for tally in tallies) / histories,
            "ms_per_history": sum(tally.seconds for tally in tallies) / histories * 1000,
        }
        figures["null"].append(row)
        low, high = wilson(claims, histories)
        spread = f"{min(per_seed):.1%}–{max(per_seed):.1%}"
        print(
            f"| {tasks} | {holdout:.0%} | {histories} | {row['false_claim_rate']:.1%} "
            f"| {low:.1%}–{high:.1%} | {spread} | {row['uncorrected_rate']:.1%} "
            f"| {row['ms_per_history']:.1f} |"
        )

    print(f"\n### A real 30% improvement: detection rate (power) in {runs} histories\n")
    print(
        "| measure (level, task-to-task spread) | change | tasks | detected | "
        "tested alone, uncorrected | false claims |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for label, target, shape, drift, effect, tasks, levels in SCENARIOS:
        tally = run(rng, runs, tasks, target=target, drift=drift, effect=effect, levels=levels)
        row = {
            "measure": label,
            "shape": shape,
            "effect": effect,
            "tasks": tasks,
            "detected": tally.rate(tally.detected),
            "alone_uncorrected": tally.rate(tally.alone),
            "false_claim_rate": tally.rate(tally.claims),
        }
        figures["power"].append(row)
        print(
            f"| {label} | {shape} | {tasks} | {row['detected']:.1%} | "
            f"{row['alone_uncorrected']:.1%} | {row['false_claim_rate']:.1%} |"
        )
    figures["fourfold"] = fourfold(rng, runs)
    worst = max(row["false_claim_rate"] for row in figures["null"])
    verdict = "meets" if worst <= TARGET_FALSE_CLAIMS else "MISSES"
    print(f"\nWorst false-claim rate {worst:.1%}: {verdict} the ≤ 5% target.")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
