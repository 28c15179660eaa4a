"""bench.team_scale at a tiny size against the session's cluster, so the benchmark cannot rot."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import team_scale
from tests.support.postgres import Cluster


@pytest.mark.slow  # a whole benchmark run: two real servers on a real PostgreSQL
def test_every_column_is_measured_for_two_real_servers(
    tmp_path: Path, pg_cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    assert team_scale.run(pg_cluster.new_database(), tmp_path, [2], 200, 10, 1) == 0
    out = capsys.readouterr().out
    assert "200 lessons and 2 rules over 5 scopes" in out
    header, _rule, row = out.strip().splitlines()[-3:]
    assert header == "| " + " | ".join(team_scale.COLUMNS) + " |"
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert len(cells) == len(team_scale.COLUMNS) and cells[0] == "2"
    assert all(cell and cell != "—" for cell in cells), row


def test_a_server_count_that_is_not_a_number_is_refused_by_name() -> None:
    with pytest.raises(team_scale.argparse.ArgumentTypeError, match="--servers"):
        team_scale.counts_of("10,many")
