"""Each query's column list is the one its row mapper reads by name (store/rows.py).

A column added to a SELECT but not to its mapper (or the other way round) used to shift
every value after it into the wrong field without an error; now both come from one tuple
of names, which must be real columns of the table, and a row of the wrong width is refused.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from comodor_lsp.brain.store import BrainStore, rows

COLUMN_LISTS = {
    "lessons": [rows.LESSON_FIELDS, rows.INDEX_ROW_COLUMNS.split(", ")],
    "episodes": [rows.EPISODE_FIELDS],
    "rules": [rows.RULE_FIELDS],
    "rule_votes": [rows.VOTE_FIELDS],
    "agent_writes": [rows.AGENT_WRITE_FIELDS],
}


def test_every_column_list_names_real_columns_of_its_table(brain_path: Path) -> None:
    BrainStore(brain_path).close()
    with sqlite3.connect(brain_path) as conn:
        for table, lists in COLUMN_LISTS.items():
            present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            for fields in lists:
                assert set(fields) <= present, (table, set(fields) - present)
                assert len(set(fields)) == len(fields), (table, fields)


def test_a_row_of_the_wrong_width_is_refused_naming_the_columns() -> None:
    with pytest.raises(ValueError, match=r"a row of 3 values for the 15 columns \('id', 'kind'"):
        rows.lesson_from_row((1, "workflow", "project:x"))
