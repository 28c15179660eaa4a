"""Shared fixtures: every test gets its own real brain file in a temporary folder."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.events import Event, MemoryEvent


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test may touch the user's real brain."""
    home = tmp_path_factory.mktemp("comodor-home")
    monkeypatch.setenv("COMODOR_HOME", str(home))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace folder (the project a server or app works on)."""
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder.resolve()


@pytest.fixture
def brain_dir() -> Path:
    """Where a server started by this test keeps its brain ($COMODOR_HOME)."""
    return Path(os.environ["COMODOR_HOME"])


@pytest.fixture
def brain_path(tmp_path: Path) -> Path:
    return tmp_path / "brain" / "brain.db"


@pytest.fixture
def engine(brain_path: Path) -> Iterator[LearningEngine]:
    engine = LearningEngine.open(brain_path, "project:test")
    yield engine
    engine.close()


@pytest.fixture
def events(engine: LearningEngine) -> list[str]:
    """The actions of the memory events the engine emits (what a user would be told)."""
    collected: list[str] = []

    def collect(event: Event) -> None:
        if isinstance(event, MemoryEvent):
            collected.append(event.action)

    engine.bus.subscribe(collect)
    return collected


def pytest_configure(config: pytest.Config) -> None:
    """Draw this run's fake-secret seed once, before any xdist worker starts.

    Each worker imports ``tests.support.secrets`` itself; without the seed in the
    environment (which the workers inherit) each drew its own, and the seed printed in
    the header was not the one a failing worker had used.
    """
    del config
    if not os.environ.get("COMODOR_SECRETS_SEED"):
        os.environ["COMODOR_SECRETS_SEED"] = str(random.SystemRandom().randrange(2**32))


def pytest_report_header() -> str:
    """The seed of this run's fake-secret corpus, so a failure can be replayed."""
    from tests.support.secrets import SEED

    return f"fake secrets: COMODOR_SECRETS_SEED={SEED}"


XDIST_GROUPS = {"editor": "editors", "distribution": "distribution"}
"""Tests sharing one costly setup (by marker or fixture) and the xdist group they share."""


@pytest.hookimpl(trylast=True)  # after xdist's own grouping, to see whether it took
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the slow tiers on request; keep tests that share one costly setup on one worker.

    Under ``pytest-xdist --dist loadgroup`` (``scripts/test-tiers``) every test driving a
    real editor runs on one worker: each worker is its own session, so two would each
    install code-server and start Chromium, and two VS Code windows on a loaded 2-core
    machine make the timing-sensitive ones flaky. The tests of the built wheel share one
    build likewise. xdist groups a test by adding ``@group`` to its id; xdist 3.8 writes
    that to ``item._nodeid``, which pytest 9 no longer reads (it keeps ``item._id``), so
    where the id did not change this does it.
    """
    if os.environ.get("COMODOR_SKIP_SLOW") == "1":
        skip = pytest.mark.skip(reason="COMODOR_SKIP_SLOW=1")
        for item in items:
            if "slow" in item.keywords:
                item.add_marker(skip)
    grouping = bool(getattr(config.option, "loadgroup", False))
    for item in items:
        marks = [m.args[0] for m in item.iter_markers("xdist_group") if m.args]
        if not grouping or not marks or item.nodeid.endswith(f"@{marks[0]}"):
            continue
        from _pytest.nodeid import coerce_node_id

        item._id = coerce_node_id(f"{item.nodeid}@{marks[0]}")  # type: ignore[attr-defined]


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark each test that shares a costly setup with its xdist group (before xdist reads it)."""
    if "editor" in item.keywords:
        item.add_marker(pytest.mark.xdist_group(XDIST_GROUPS["editor"]))
    elif "distribution" in getattr(item, "fixturenames", ()):
        item.add_marker(pytest.mark.xdist_group(XDIST_GROUPS["distribution"]))


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[object]:
    """A throwaway PostgreSQL cluster for the whole session (see tests/support/postgres.py).

    Missing PostgreSQL fails the test in CI (scripts/test installs it) and skips it
    elsewhere, saying how to get it.
    """
    from tests.support.postgres import PASSWORD, Cluster, server_bin

    bin_dir = server_bin()
    if bin_dir is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is not installed (scripts/test installs it)")
        pytest.skip("PostgreSQL is not installed: apt-get install postgresql")
    cluster = Cluster(bin_dir).init()
    previous = os.environ.get("PGPASSWORD")
    os.environ["PGPASSWORD"] = PASSWORD
    try:
        yield cluster
    finally:
        if previous is None:
            os.environ.pop("PGPASSWORD", None)
        else:
            os.environ["PGPASSWORD"] = previous
        cluster.destroy()


@pytest.fixture
def team_url(pg_cluster: object) -> str:
    """A fresh, empty team database on the session's cluster (its URL, no password)."""
    from tests.support.postgres import Cluster

    assert isinstance(pg_cluster, Cluster)
    return pg_cluster.new_database()


@pytest.fixture(scope="session")
def distribution(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout built by ``python -m build``: the folder with the wheel and the sdist."""
    from tests.support.builds import built_distribution

    return built_distribution(tmp_path_factory.mktemp("dist"), tmp_path_factory)
