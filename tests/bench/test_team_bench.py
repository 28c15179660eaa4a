"""bench.team on tiny inputs against the session's cluster, so the benchmark cannot rot."""

from __future__ import annotations

from pathlib import Path

import pytest
from comodor_lsp.brain.store import BrainStore
from comodor_lsp.teamdb.connect import open_team_store

from bench import team
from tests.support.postgres import Cluster


def test_writes_and_recall_are_measured_on_both_brains(tmp_path: Path, team_url: str) -> None:
    local = team.writes(BrainStore(tmp_path / "local.db"), 5)
    shared = team.writes(open_team_store(tmp_path / "team.db", team_url), 5)
    assert set(local) == set(shared) and all(len(v) == 5 for v in shared.values())
    assert len(team.recall(BrainStore(tmp_path / "r.db"), 50, 5)) == 5
    line = team.row("teach a lesson", local["teach a lesson"], shared["teach a lesson"])
    assert line.startswith("| teach a lesson |") and line.endswith("× |")


@pytest.mark.slow
def test_propagation_between_two_real_servers_is_measured(
    tmp_path: Path, pg_cluster: Cluster
) -> None:
    hops = team.propagation(pg_cluster.new_database(), tmp_path, 2)
    assert len(hops) == 2 and all(0 < hop < 10_000 for hop in hops)
