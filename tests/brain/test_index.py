"""The recall index: exact ranking (checked against the formula itself), snapshots, delta."""

from __future__ import annotations

import itertools
import math
import random
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Lesson
from comodor_lsp.brain.recall import snapshot_file as index_file
from comodor_lsp.brain.recall.index import (
    CONFIDENCE_POWER,
    GUIDANCE_WEIGHT,
    MIN_RELEVANCE,
    RELEVANCE_POWER,
    IndexedLesson,
    RecallIndex,
)
from comodor_lsp.brain.recall.text import terms

DAY = 86_400.0
HALF_LIFE = 45.0
WORDS = [f"w{number}" for number in range(40)]


def _lesson(rng: random.Random, lesson_id: int, now: float) -> IndexedLesson:
    chosen = tuple(rng.sample(WORDS[: rng.choice((8, 40))], rng.randint(1, 6)))
    return IndexedLesson(
        lesson_id,
        rng.choice(("global", "project:a", "project:b")),
        chosen,
        rng.uniform(0.05, 1.0),
        now - rng.uniform(0, 90) * DAY,
        rng.random() < 0.05,
        rng.randint(0, len(chosen)),  # the first this many are the trigger's (0: not told)
    )


def _expected(
    lessons: dict[int, IndexedLesson],
    query: list[str],
    scopes: list[str],
    limit: int,
    now: float,
    min_confidence: float,
) -> list[int]:
    """The ranking formula itself, lesson by lesson: what the index must reproduce exactly.

    A query term is worth its IDF in a lesson whose trigger holds it, and
    ``GUIDANCE_WEIGHT`` of it in one whose guidance only holds it.
    """
    ranked = [lesson for lesson in lessons.values() if not lesson.pinned]
    df: dict[str, int] = {}
    for lesson in ranked:
        for term in set(lesson.terms):
            df[term] = df.get(term, 0) + 1
    weights = {
        term: math.log(1.0 + max(1, len(ranked)) / (1.0 + df[term])) + 0.05
        for term in dict.fromkeys(query)
        if df.get(term)
    }
    total = sum(weights.values())
    scored = []
    for lesson in ranked:
        if lesson.scope not in scopes or not total:
            continue
        confidence = 2 ** (math.log2(lesson.trust) - (now - lesson.anchor) / (HALF_LIFE * DAY))
        relevance = (
            sum(
                weights.get(term, 0.0) * (1.0 if lesson.trigger_term(at) else GUIDANCE_WEIGHT)
                for at, term in enumerate(lesson.terms)
            )
            / total
        )
        if relevance < MIN_RELEVANCE or confidence < min_confidence:
            continue
        score = relevance**RELEVANCE_POWER * confidence**CONFIDENCE_POWER
        scored.append((score, lesson.id))
    scored.sort(reverse=True)
    return [lesson_id for _, lesson_id in scored[:limit]]


def _check(index: RecallIndex, lessons: dict[int, IndexedLesson], rng: random.Random) -> None:
    now = time.time()
    for _ in range(40):
        query = rng.sample(WORDS, rng.randint(1, 5))
        scopes = rng.choice((["global", "project:a"], ["project:b"], ["global"]))
        limit = rng.randint(1, 8)
        floor = rng.choice((0.0, 0.15, 0.4))
        got = [
            hit.id
            for hit in index.search(query, scopes, limit=limit, now=now, min_confidence=floor)
        ]
        assert got == _expected(lessons, query, scopes, limit, now, floor), query


@pytest.mark.parametrize("seed", range(6))
def test_every_ranking_is_exactly_the_formula_through_changes_and_compaction(seed: int) -> None:
    rng = random.Random(seed)
    now = time.time()
    lessons = {number: _lesson(rng, number, now) for number in range(1, 400)}
    index = RecallIndex(HALF_LIFE)
    index.rebuild(lessons.values())
    _check(index, lessons, rng)
    for step in range(300):  # the delta: new lessons, edits, credits, pins, forgetting
        action = rng.random()
        lesson_id = rng.randint(1, 520)
        if action < 0.2 and lesson_id in lessons:
            del lessons[lesson_id]
            index.remove(lesson_id)
        elif action < 0.6 and lesson_id in lessons:
            lesson = lessons[lesson_id]._replace(trust=rng.uniform(0.05, 1.0), anchor=now)
            lessons[lesson_id] = lesson
            index.upsert(lesson)
        else:
            lessons[lesson_id] = _lesson(rng, lesson_id, now)
            index.upsert(lessons[lesson_id])
        if step % 100 == 99:
            _check(index, lessons, rng)
    _check(index, lessons, rng)
    index.load(index.compact(), rev=7)
    assert len(index) == len(lessons)
    assert index.delta_size == 0
    _check(index, lessons, rng)


def test_rankings_among_30000_lessons_of_common_words_are_exactly_the_formula() -> None:
    """Long posting lists: the pruned path (terms only looked up, never scattered)."""
    rng = random.Random(11)
    now = time.time()
    lessons = {number: _lesson(rng, number, now) for number in range(1, 30_001)}
    index = RecallIndex(HALF_LIFE)
    index.rebuild(lessons.values())
    for _ in range(15):
        query = rng.sample(WORDS[:12], rng.randint(2, 5)) + rng.sample(WORDS[12:], 1)
        got = [hit.id for hit in index.search(query, ["global"], limit=6, now=now)]
        assert got == _expected(lessons, query, ["global"], 6, now, 0.0), query


def test_crediting_a_lesson_moves_its_key_and_adds_no_slot() -> None:
    now = time.time()
    index = RecallIndex(HALF_LIFE)
    index.rebuild([IndexedLesson(1, "global", ("deploy", "helm"), 0.5, now)])
    index.upsert(IndexedLesson(1, "global", ("helm", "deploy"), 0.9, now))
    assert index.delta_size == 0
    [hit] = index.search(["helm"], ["global"], limit=3, now=now)
    assert hit.confidence == pytest.approx(0.9)


def test_a_lesson_found_only_through_associations_never_outranks_a_real_match() -> None:
    now = time.time()
    index = RecallIndex(HALF_LIFE)
    index.rebuild(
        [
            IndexedLesson(1, "global", ("ship", "release", "tag"), 0.3, now),
            IndexedLesson(2, "global", ("helm", "atomic"), 1.0, now),
            *(IndexedLesson(10 + n, "global", (f"filler{n}",), 0.5, now) for n in range(20)),
        ]
    )
    plain = index.search(["ship", "release", "production"], ["global"], limit=6, now=now)
    assert [hit.id for hit in plain] == [1]
    hits = index.search(
        ["ship", "release", "production"],
        ["global"],
        limit=6,
        now=now,
        expansion=[("helm", 1.0)],
    )
    assert [hit.id for hit in hits] == [1, 2]
    assert hits[1].expanded and not hits[0].expanded


def _engine_with_lessons(path: Path, count: int = 300) -> LearningEngine:
    engine = LearningEngine.open(path, "project:p")
    rng = random.Random(3)
    rows = []
    for number in range(count):
        lesson = Lesson(
            kind="fact",
            scope="project:p",
            trigger=" ".join(rng.sample(WORDS, 3)),
            guidance=f"lesson number {number}",
            confidence=rng.uniform(0.3, 0.9),
        )
        rows.append((lesson, " ".join(terms(lesson.text))))
    engine.store.add_lessons(rows)
    return engine


def _ranking(engine: LearningEngine) -> list[list[int]]:
    pairs = itertools.pairwise(WORDS)
    return [[lesson.id for lesson in engine.recall(f"{a} {b}")] for a, b in pairs]


def test_a_reopened_brain_maps_its_snapshot_and_replays_what_changed_since(
    tmp_path: Path,
) -> None:
    path = tmp_path / "brain.db"
    engine = _engine_with_lessons(path)
    engine.warm()
    assert engine.lessons.index.snapshots.wait(10)
    assert index_file.snapshot_path(path).exists()
    later = engine.teach("w1 w2: a lesson taught after the snapshot", pinned=False)
    expected = _ranking(engine)
    engine.close()

    again = LearningEngine.open(path, "project:p")
    again.warm()
    assert again.lessons.index.snapshots.reason == ""  # the file was used, not rebuilt
    assert _ranking(again) == expected
    assert later.id in [lesson.id for lesson in again.recall("w1 w2 taught")]
    again.close()


@pytest.mark.parametrize(
    "damage",
    ["garbage", "truncated", "flipped byte", "other brain", "empty"],
)
def test_a_damaged_or_foreign_snapshot_is_rebuilt_never_trusted(
    tmp_path: Path, damage: str
) -> None:
    path = tmp_path / "brain.db"
    engine = _engine_with_lessons(path)
    engine.warm()
    assert engine.lessons.index.snapshots.wait(10)
    expected = _ranking(engine)
    engine.close()
    snapshot = index_file.snapshot_path(path)
    data = bytearray(snapshot.read_bytes())
    if damage == "garbage":
        data = bytearray(b"not a snapshot at all" * 100)
    elif damage == "truncated":
        data = data[: len(data) * 2 // 3]
    elif damage == "flipped byte":
        data[-100] ^= 0xFF  # inside the postings: only the checksum can tell
    elif damage == "empty":
        data = bytearray()
    snapshot.write_bytes(bytes(data))
    if damage == "other brain":
        other = _engine_with_lessons(tmp_path / "other.db", count=20)
        other.warm()
        assert other.lessons.index.snapshots.wait(10)
        other.close()
        snapshot.write_bytes(index_file.snapshot_path(tmp_path / "other.db").read_bytes())

    again = LearningEngine.open(path, "project:p")
    again.warm()
    assert again.lessons.index.snapshots.reason != ""
    assert _ranking(again) == expected
    assert again.lessons.index.snapshots.wait(10)
    again.close()
    loaded, reason = index_file.read(snapshot, brain=_brain_id(path), schema=_schema())
    assert loaded is not None, reason  # rewritten whole


def _brain_id(path: Path) -> str:
    engine = LearningEngine.open(path, "project:p")
    try:
        return str(engine.store.get_meta("brain_id"))
    finally:
        engine.close()


def _schema() -> int:
    from comodor_lsp.brain.store.sqlite_schema import SCHEMA_VERSION

    return SCHEMA_VERSION


def test_a_snapshot_whose_revision_the_log_no_longer_covers_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "brain.db"
    engine = _engine_with_lessons(path)
    engine.warm()
    assert engine.lessons.index.snapshots.wait(10)
    engine.close()
    with sqlite3.connect(path) as conn:  # a brain restored from an older copy
        conn.execute("DELETE FROM lessons WHERE id % 2 = 0")
        conn.execute("DELETE FROM lesson_log")
    again = LearningEngine.open(path, "project:p")
    again.warm()
    assert again.lessons.index.snapshots.reason != ""
    assert again.lessons.count() == 150
    again.close()


def test_the_snapshot_holds_no_lesson_text(tmp_path: Path) -> None:
    path = tmp_path / "brain.db"
    engine = LearningEngine.open(path, "project:p")
    engine.teach("deploying: run helm upgrade --atomic on the staging cluster", pinned=False)
    engine.warm()
    assert engine.lessons.index.snapshots.wait(10)
    engine.close()
    data = index_file.snapshot_path(path).read_bytes()
    for word in (b"helm", b"atomic", b"staging", b"deploy"):
        assert word not in data
    assert np.frombuffer(data[:16], np.uint8).tobytes() == index_file.MAGIC
