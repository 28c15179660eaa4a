"""Every brain test that takes ``engine`` (or ``open_engine``) runs on both backends.

``sqlite``: the local brain file, as in v1. ``postgres``: a team brain — a fresh
database on the session's real PostgreSQL cluster for what is shared, the local
file for the personal scope, tasks and the outbox.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from comodor_lsp.brain.engine import LearningEngine

BACKENDS = ["sqlite", "postgres"]

OpenEngine = Callable[..., LearningEngine]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def open_engine(
    backend: str, brain_path: Path, request: pytest.FixtureRequest
) -> Iterator[OpenEngine]:
    """Open engines on this test's backend: ``open_engine(scope, path=…, user=…)``."""
    opened: list[LearningEngine] = []
    url = request.getfixturevalue("team_url") if backend == "postgres" else ""

    def make(
        scope: str = "project:test", path: Path | None = None, user: str = ""
    ) -> LearningEngine:
        where = path or brain_path
        if backend == "sqlite":
            from comodor_lsp.brain.store import BrainStore

            store = BrainStore(where, voter=user)
        else:
            from comodor_lsp.teamdb.connect import open_team_store

            store = open_team_store(where, url, voter=user, strict=True)  # type: ignore[assignment]
        engine = LearningEngine(store, scope)
        opened.append(engine)
        return engine

    yield make
    for engine in opened:
        engine.close()


@pytest.fixture
def engine(open_engine: OpenEngine) -> LearningEngine:
    return open_engine()
