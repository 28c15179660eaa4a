"""A damaged brain is salvaged: what can still be read survives into the fresh brain."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Vote

PAGE = 4096


def filled_brain(path: Path, lessons: int = 600) -> tuple[set[str], str]:
    engine = LearningEngine.open(path, "project:a")
    taught = set()
    for number in range(lessons):
        text = f"topic {number}: guidance number {number} " + "x" * 300
        engine.teach(text)
        taught.add(f"guidance number {number} " + "x" * 300)
    rule = engine.teach_rule("Never push to main on a Friday.")
    engine.record_votes(
        [Vote("quotes.style", "single", "Use single quotes.", "style", "python", "correction")],
        origin="save:1",
    )
    engine.close()
    return taught, rule.statement


def damage_a_middle_page(path: Path) -> int:
    """Scramble one page in the middle of the lessons table (not the schema, not the header)."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'lessons'").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    target = max(root + 5, pages // 3)  # a leaf well inside the lessons' pages
    start = (target - 1) * PAGE
    for offset in range(start, start + PAGE):
        data[offset] = (data[offset] * 7 + 13) % 256
    path.write_bytes(bytes(data))
    for companion in path.parent.glob(path.name + "-*"):
        companion.unlink()
    return target


def test_a_damaged_middle_page_loses_only_its_own_rows(brain_path: Path) -> None:
    taught, rule = filled_brain(brain_path)
    damage_a_middle_page(brain_path)
    engine = LearningEngine.open(brain_path, "project:a")
    notice = engine.recover_if_damaged()
    assert notice is not None and "recovered" in notice and "moved to" in notice
    kept = {lesson.guidance for lesson in engine.search("", 1000)}
    assert 0.8 * len(taught) < len(kept) < len(taught)  # one page lost, the rest kept
    assert kept <= taught
    statements = {r.statement for r in engine.all_rules()}
    assert rule in statements and "Use single quotes." in statements
    assert engine.recall("topic 599 guidance") or engine.recall("topic 5 guidance")
    engine.teach("after the damage: learning goes on")
    assert engine.store.integrity_check() == "ok"
    engine.close()
    aside = [
        p for p in brain_path.parent.iterdir() if ".corrupt-" in p.name and p.suffix != ".db-wal"
    ]
    assert [p for p in aside if not p.name.endswith(("-wal", "-shm"))]  # set aside, not deleted


def test_a_healthy_brain_is_left_alone(brain_path: Path) -> None:
    filled_brain(brain_path, lessons=20)
    engine = LearningEngine.open(brain_path, "project:a")
    assert engine.recover_if_damaged() is None
    assert len(engine.search("", 100)) == 20
    engine.close()
    assert not [p for p in brain_path.parent.iterdir() if ".corrupt-" in p.name]


def test_damage_found_at_open_is_salvaged_too(brain_path: Path) -> None:
    filled_brain(brain_path, lessons=50)
    conn = sqlite3.connect(brain_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(brain_path.read_bytes())
    data[100:108] = b"\xff" * 8  # the first page's b-tree header: open itself fails
    brain_path.write_bytes(bytes(data))
    engine = LearningEngine.open(brain_path, "project:a")
    assert engine.notices and "moved to" in engine.notices[0]
    assert "recovered from it" in engine.notices[0] or "nothing could be read" in engine.notices[0]
    engine.teach("a fresh start: it still works")
    engine.close()


def test_ids_used_before_the_damage_are_never_given_again(brain_path: Path) -> None:
    """Protocol v1.2: a stale ``forget`` of an id from before the damage must still miss."""
    filled_brain(brain_path)
    engine = LearningEngine.open(brain_path, "project:a")
    newest = max(lesson.id for lesson in engine.search("", 1000))
    assert engine.forget(newest)
    rule = engine.teach_rule("Tabs, never spaces.")
    assert engine.forget_rule(rule.id)
    engine.close()
    damage_a_middle_page(brain_path)
    engine = LearningEngine.open(brain_path, "project:a")
    try:
        assert engine.recover_if_damaged() is not None
        assert engine.teach("after the damage: a new lesson").id > newest
        assert engine.teach_rule("Use uv for environments.").id > rule.id
    finally:
        engine.close()
