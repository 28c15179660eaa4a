"""Synthetic but realistic lesson corpora for benchmarks.

Lessons are built from a vocabulary of programming words with a Zipf-like skew,
so common words ("test", "build") hit thousands of lessons, as they do in a
real brain, and rare ones hit a few.
"""

from __future__ import annotations

import random
import time

from comodor_lsp.brain.models import Lesson
from comodor_lsp.brain.recall.text import terms

_BASE = """test tests build deploy migration schema database query index cache config env docker
compose kubernetes helm chart pipeline ci lint format ruff black mypy pytest fixture mock patch
import module package wheel release version tag branch merge rebase commit push pull review api
endpoint route handler middleware auth token session cookie header request response json yaml
toml parser lexer grammar ast node visitor tree walker compiler runtime memory leak thread async
await loop event queue worker retry timeout backoff logging logger metrics trace span profile
benchmark latency throughput sqlite postgres redis kafka s3 bucket upload download file path
directory glob watcher inotify editor vscode neovim server client protocol lsp hover completion
diagnostic rename refactor typing generic protocol dataclass attrs pydantic schema validation
error exception traceback warning deprecation upgrade dependency lockfile poetry pip venv node
npm yarn webpack esbuild vite typescript javascript react component hook state props css style
layout theme color font icon image asset bundle minify sourcemap debug breakpoint console shell
bash script makefile target rule recipe cron job schedule backup restore snapshot volume mount
network port socket proxy tls certificate secret vault permission role user group admin""".split()


def vocabulary(size: int = 600, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    words = list(dict.fromkeys(_BASE))
    while len(words) < size:
        words.append(f"{rng.choice(_BASE)}{rng.choice(_BASE)}")
    return words[:size]


class Corpus:
    """Deterministic lesson and query generator."""

    def __init__(self, seed: int = 1) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary(seed=seed)
        weights = [1.0 / (rank + 1) ** 0.9 for rank in range(len(self.words))]
        self.weights = weights

    def phrase(self, low: int, high: int) -> str:
        count = self.rng.randint(low, high)
        return " ".join(self.rng.choices(self.words, self.weights, k=count))

    def lesson(self, scope: str, now: float | None = None) -> tuple[Lesson, str]:
        now = time.time() if now is None else now
        age = self.rng.uniform(0, 120) * 86_400
        lesson = Lesson(
            kind=self.rng.choice(["fact", "heuristic", "pitfall", "preference", "env"]),
            scope=scope,
            trigger=self.phrase(3, 7),
            guidance=self.phrase(8, 16),
            confidence=self.rng.uniform(0.3, 0.9),
            wins=self.rng.randint(0, 5),
            losses=self.rng.randint(0, 3),
            created_at=now - age,
            updated_at=now - age,
            last_success=now - self.rng.uniform(0, age) if self.rng.random() < 0.5 else 0.0,
        )
        return lesson, " ".join(terms(lesson.text))

    def query(self) -> str:
        return self.phrase(4, 8)
