"""ARCHITECTURE.md names the test that checks each invariant: every one it names exists,
and every module path in its codemap is a real file or folder."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")


def test_every_test_file_the_invariants_name_exists() -> None:
    named = sorted(set(re.findall(r"`(tests/[\w/.-]+)`", TEXT)))
    assert named, "ARCHITECTURE.md names no tests"
    assert [path for path in named if not (ROOT / path).exists()] == []


def test_every_folder_of_the_codemap_exists() -> None:
    folders = sorted(set(re.findall(r"^\| `([\w/]+/)` \|", TEXT, flags=re.M)))
    assert folders, "the codemap lists no folders"
    missing = [
        folder
        for folder in folders
        if not (ROOT / "server" / "comodor" / folder).is_dir() and not (ROOT / folder).is_dir()
    ]
    assert missing == []
