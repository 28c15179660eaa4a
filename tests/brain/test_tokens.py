"""Words in any script, and a brain from before them migrated to find them."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.recall.text import terms, trigger_prefix, words
from comodor_lsp.brain.store.database import split_sql
from comodor_lsp.brain.store.sqlite_schema import MIGRATIONS
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("می‌خواهم بخوانم", ["می\u200cخواهم", "میخواهم", "بخوانم"]),
        ("मैं फ़ाइल पढ़ता हूँ", ["मैं", "फ़ाइल", "पढ़ता", "हूँ"]),
        ("Запуск ТЕСТОВ", ["запуск", "тестов"]),
        ("ΟΔΟΣ οδός", ["οδοσ", "οδόσ"]),
        ("读取文件", ["读取", "取文", "文件"]),
        ("字", ["字"]),
        ("read_file readFile", ["read", "file", "read_file", "read", "file", "readfile"]),
        ("Straße", ["strasse"]),
    ],
)
def test_words_follow_unicode_word_rules(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_vowel_marks_and_arabic_letter_forms_do_not_change_a_word() -> None:
    assert terms("مَدْرَسَة") == terms("مدرسة")
    assert terms("كتاب يكتب") == terms("کتاب یکتب")  # Arabic and Persian kaf and yeh
    assert terms("שָׁלוֹם") == terms("שלום")


def test_english_is_still_stemmed_and_other_scripts_are_not() -> None:
    assert terms("running the tests") == ["run", "test"]
    assert terms("тесты тестов") == ["тесты", "тестов"]


def test_a_brain_from_before_is_migrated_to_terms_in_any_script(tmp_path: Path) -> None:
    path = tmp_path / "brain.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for index in range(2):
        for statement in split_sql(MIGRATIONS[index]):
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 2")
    now = time.time()
    conn.execute(
        "INSERT INTO lessons (kind, scope, trigger, guidance, terms, confidence, created_at,"
        " updated_at) VALUES ('fact', 'project:p', 'Развёртывание', 'проверь миграции', '',"
        " 0.8, ?, ?)",
        (now, now),
    )
    conn.close()
    engine = LearningEngine.open(path, "project:p")
    try:
        assert engine.store.get_meta("brain_id")
        [lesson] = engine.search("миграции")
        assert lesson.trigger == "Развёртывание"
        assert [found.id for found in engine.recall("развёртывание")] == [lesson.id]
    finally:
        engine.close()


_WORDS = st.text(alphabet=st.characters(categories=("L", "N", "Pc", "Pd", "Zs", "Po")), max_size=60)


@settings(max_examples=300, deadline=None)
@given(trigger=_WORDS, guidance=_WORDS)
def test_a_lessons_stored_terms_start_with_all_of_its_triggers(trigger: str, guidance: str) -> None:
    """Recall weighs trigger terms by counting the stored terms' leading trigger ones."""
    stored = terms(f"{trigger}: {guidance}")
    count = trigger_prefix(trigger, stored)
    if count:
        assert stored[:count] == terms(trigger)[:count]
        assert count == min(len(terms(trigger)), len(stored))
