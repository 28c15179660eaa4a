"""Lessons in any script are found by a query in the same language, through a real server."""

from __future__ import annotations

import pytest

from tests.lsp.session import Session

# (language, lesson taught, a query in other words of the same language, a word it must find)
LESSONS = [
    (
        "Persian (with ZWNJ)",
        "اجرای آزمون‌ها: همیشه پیش از ادغام آزمون‌های یکپارچه را اجرا کن",
        "چگونه آزمون‌ها را اجرا کنم",
        "آزمون‌ها",
    ),
    (
        "Arabic",
        "نشر الخادم: استخدم الأمر مع خيار التراجع عند الفشل",
        "كيف أنشر الخادم",
        "الخادم",
    ),
    (
        "Hebrew",
        "הרצת בדיקות: תמיד להריץ את בדיקות האינטגרציה לפני מיזוג",
        "איך להריץ בדיקות",
        "בדיקות",
    ),
    (
        "Russian",
        "Развёртывание сервера: сначала проверь миграции базы данных",
        "развёртывание сервера завтра",
        "миграции",
    ),
    (
        "Greek",
        "Εκτέλεση δοκιμών: τρέξε πρώτα τις δοκιμές ενοποίησης",
        "πώς κάνω εκτέλεση δοκιμών",
        "δοκιμών",
    ),
    (
        "Chinese",
        "部署服务器：先检查数据库迁移",
        "怎么部署服务器",
        "数据库",
    ),
    (
        "Japanese",
        "テストの実行：マージの前に結合テストを実行する",
        "テストを実行したい",
        "テスト",
    ),
]


@pytest.mark.parametrize(
    ("language", "text", "query", "word"), LESSONS, ids=[row[0] for row in LESSONS]
)
async def test_a_lesson_in_any_script_is_found_by_a_query_in_its_language(
    session: Session, language: str, text: str, query: str, word: str
) -> None:
    taught = (await session.command("comodor.teach", {"text": text, "pinned": False}))["lesson"]
    await session.command(
        "comodor.teach", {"text": "writing release notes: keep them short", "pinned": False}
    )
    playbook = await session.command("comodor.playbook", {"query": query})
    assert [lesson["id"] for lesson in playbook["lessons"]] == [taught["id"]], language
    assert taught["guidance"] in playbook["text"]
    found = await session.command("comodor.lessons", {"query": query})
    assert [lesson["id"] for lesson in found["lessons"]] == [taught["id"]], language
    by_word = await session.command("comodor.lessons", {"query": word})
    assert [lesson["id"] for lesson in by_word["lessons"]] == [taught["id"]], language


async def test_identifiers_are_found_whole_and_by_their_parts(session: Session) -> None:
    taught = (
        await session.command(
            "comodor.teach",
            {"text": "reading files: call read_file with a timeout", "pinned": False},
        )
    )["lesson"]
    for query in ("read_file", "readFile", "read file"):
        playbook = await session.command("comodor.playbook", {"query": query})
        assert [lesson["id"] for lesson in playbook["lessons"]] == [taught["id"]], query
        listed = await session.command("comodor.lessons", {"query": query})
        assert [lesson["id"] for lesson in listed["lessons"]] == [taught["id"]], query


async def test_persian_with_and_without_the_zero_width_non_joiner_is_one_word(
    session: Session,
) -> None:
    taught = (
        await session.command(
            "comodor.teach", {"text": "پیکربندی: می‌خواهم فایل تنظیمات را بخوانم", "pinned": False}
        )
    )["lesson"]
    for spelling in ("می‌خواهم", "میخواهم"):
        playbook = await session.command("comodor.playbook", {"query": spelling})
        assert [lesson["id"] for lesson in playbook["lessons"]] == [taught["id"]], spelling
