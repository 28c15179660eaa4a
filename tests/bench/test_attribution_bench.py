"""bench.attribution's scoring on a hand-made record, so the figures cannot rot unnoticed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import attribution

URI = "file:///ws/t.py"


def _action(n: int, actor: str, kind: str, seen: int, **kw: object) -> dict[str, object]:
    base = {"n": n, "actor": actor, "kind": kind, "file": "t.py", "source": "user"}
    base.update({"uri": "", "version": None, "seen": seen, "secs": 0.1})
    return {**base, **kw}


RECORD = {
    "name": "mixed",
    "host": "test",
    "proposal": False,
    "stats": {"agentWritesBySource": {"extension": 2}},
    "actions": [
        _action(0, "user", "typing", 0),
        _action(1, "assistant", "hidden-tab, saved", 1, source="extension", uri=URI, version=3),
        _action(2, "user", "paste", 2),  # a wrong notice appeared during the paste
        _action(3, "assistant", "visible editor", 2, source="extension", uri=URI, version=9),
        _action(
            4, "assistant", "inline-completion", 3, source="inline-completion", uri=URI, version=12
        ),
    ],
    "observed": [
        {"source": "extension", "why": "hidden", "uri": URI, "version": 3},
        {"source": "extension", "why": "hidden", "uri": URI, "version": 5},
        {"source": "extension", "why": "wrong source", "uri": URI, "version": 12},
    ],
}


def test_a_notice_for_the_assistants_version_is_found_and_any_other_is_charged_to_the_user() -> (
    None
):
    rows = {(r.who, r.condition): r for r in attribution.score(RECORD)}
    hidden = rows[("extension", "hidden-tab, saved")]
    assert (hidden.edits, hidden.attributed, hidden.right, hidden.recall) == (1, 1, 1, 1.0)
    paste = rows[("user", "paste")]
    assert (paste.attributed, paste.right, paste.precision) == (1, 0, 0.0)
    assert rows[("user", "typing")].attributed == 0
    visible = rows[("extension", "visible editor")]
    assert (visible.attributed, visible.recall) == (0, 0.0)
    # Found by version, but named with the wrong source: called, not right.
    completion = rows[("inline-completion", "inline-completion")]
    assert (completion.attributed, completion.right, completion.recall) == (1, 0, 0.0)


def test_the_table_prints_each_condition_and_the_totals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "attribution-mixed.json").write_text(json.dumps(RECORD))
    assert attribution.main(["--records", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "hidden-tab, saved" in out and "visible editor" in out
    total = next(line for line in out.splitlines() if "= total" in line)
    # 3 assistant edits, 1 found right, 3 notices: precision 0.33, recall 0.33.
    assert total.split()[-2:] == ["0.33", "0.33"], total


def test_no_records_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert attribution.main(["--records", str(tmp_path)]) == 2
    assert "no attribution-*.json records" in capsys.readouterr().err
