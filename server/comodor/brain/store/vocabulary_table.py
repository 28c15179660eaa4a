"""The learned vocabulary in the brain file: counts of terms and term pairs over tasks.

Two vocabularies: what helped (``vocab_*``: request terms against the terms of the
lessons and rules of a successful task) and the user's own words (``vocab_word_*``:
the terms of one ended task's goal and messages, each unordered pair once).
Counts only, incremented in SQL (two processes learning at once both count);
what they mean (NPMI, which associations are strong) is computed by
:mod:`comodor.brain.recall.vocabulary` from :meth:`VocabularyRows.vocabulary`.
"""

from __future__ import annotations

from collections.abc import Sequence

from .backend import StoreBase

_UPSERT_TERM = (
    "INSERT INTO vocab_terms (scope, side, term, tasks) VALUES (?, ?, ?, 1)"
    " ON CONFLICT (scope, side, term) DO UPDATE SET tasks = tasks + 1"
)
_UPSERT_PAIR = (
    "INSERT INTO vocab_pairs (scope, query_term, lesson_term, tasks) VALUES (?, ?, ?, 1)"
    " ON CONFLICT (scope, query_term, lesson_term) DO UPDATE SET tasks = tasks + 1"
)

_UPSERT_WORD = (
    "INSERT INTO vocab_word_terms (scope, term, tasks) VALUES (?, ?, 1)"
    " ON CONFLICT (scope, term) DO UPDATE SET tasks = tasks + 1"
)
_UPSERT_WORD_PAIR = (
    "INSERT INTO vocab_word_pairs (scope, first_term, second_term, tasks, last_task)"
    " VALUES (?, ?, ?, 1, ?) ON CONFLICT (scope, first_term, second_term)"
    " DO UPDATE SET tasks = tasks + 1, last_task = excluded.last_task"
)


class VocabularyRows(StoreBase):
    """The vocabulary part of :class:`comodor.brain.store.BrainStore`."""

    def observe_vocabulary(
        self, scope: str, query_terms: Sequence[str], lesson_terms: Sequence[str]
    ) -> None:
        """One successful task: its request's terms went with its lessons' terms."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO vocab_tasks (scope, tasks) VALUES (?, 1)"
                " ON CONFLICT (scope) DO UPDATE SET tasks = tasks + 1",
                (scope,),
            )
            conn.executemany(_UPSERT_TERM, [(scope, "q", term) for term in query_terms])
            conn.executemany(_UPSERT_TERM, [(scope, "l", term) for term in lesson_terms])
            conn.executemany(
                _UPSERT_PAIR,
                [(scope, q, lesson) for q in query_terms for lesson in lesson_terms if q != lesson],
            )

    def vocabulary_tasks(self, scope: str) -> int:
        """How many successful tasks the vocabulary of ``scope`` has seen (its version)."""
        rows = self._read("SELECT tasks FROM vocab_tasks WHERE scope = ?", (scope,))
        return int(rows[0][0]) if rows else 0

    def vocabulary(
        self, scope: str, min_pair_tasks: int
    ) -> tuple[int, dict[tuple[str, str], int], list[tuple[str, str, int]]]:
        """Tasks seen, per-side term counts, and pairs seen in ``min_pair_tasks`` tasks or more."""
        with self._snapshot() as conn:
            row = conn.execute("SELECT tasks FROM vocab_tasks WHERE scope = ?", (scope,)).fetchone()
            counts = {
                (side, term): int(tasks)
                for side, term, tasks in conn.execute(
                    "SELECT side, term, tasks FROM vocab_terms WHERE scope = ?", (scope,)
                ).fetchall()
            }
            pairs = [
                (query_term, lesson_term, int(tasks))
                for query_term, lesson_term, tasks in conn.execute(
                    "SELECT query_term, lesson_term, tasks FROM vocab_pairs"
                    " WHERE scope = ? AND tasks >= ?",
                    (scope, min_pair_tasks),
                ).fetchall()
            ]
        return (int(row[0]) if row else 0), counts, pairs

    def observe_words(self, scope: str, words: Sequence[str]) -> int:
        """One ended task: these terms (of its goal and messages) came together.

        Returns how many tasks the scope's own-words vocabulary has now seen.
        """
        unique = sorted(set(words))
        with self._write() as conn:
            conn.execute(
                "INSERT INTO vocab_word_tasks (scope, tasks) VALUES (?, 1)"
                " ON CONFLICT (scope) DO UPDATE SET tasks = tasks + 1",
                (scope,),
            )
            seen = int(
                conn.execute(
                    "SELECT tasks FROM vocab_word_tasks WHERE scope = ?", (scope,)
                ).fetchone()[0]
            )
            conn.executemany(_UPSERT_WORD, [(scope, term) for term in unique])
            conn.executemany(
                _UPSERT_WORD_PAIR,
                [
                    (scope, first, second, seen)
                    for i, first in enumerate(unique)
                    for second in unique[i + 1 :]
                ],
            )
        return seen

    def prune_words(self, scope: str, below: int, unseen_for: int) -> int:
        """Forget pairs seen in fewer than ``below`` tasks and in none of the last ``unseen_for``.

        Only ever lowers a count (a pair said again starts over), so it can delay an
        association, never invent one; the terms' own counts stay whole.
        """
        with self._write() as conn:
            row = conn.execute(
                "SELECT tasks FROM vocab_word_tasks WHERE scope = ?", (scope,)
            ).fetchone()
            if row is None:
                return 0
            cursor = conn.execute(
                "DELETE FROM vocab_word_pairs WHERE scope = ? AND tasks < ? AND last_task <= ?",
                (scope, below, int(row[0]) - unseen_for),
            )
            return int(cursor.rowcount)

    def word_tasks(self, scope: str) -> int:
        """How many ended tasks the own-words vocabulary of ``scope`` has seen (its version)."""
        rows = self._read("SELECT tasks FROM vocab_word_tasks WHERE scope = ?", (scope,))
        return int(rows[0][0]) if rows else 0

    def word_vocabulary(
        self, scope: str, min_pair_tasks: int
    ) -> tuple[int, dict[str, int], list[tuple[str, str, int]]]:
        """Tasks seen, pairs seen together in ``min_pair_tasks`` or more, their terms' counts."""
        with self._snapshot() as conn:
            row = conn.execute(
                "SELECT tasks FROM vocab_word_tasks WHERE scope = ?", (scope,)
            ).fetchone()
            counts = {
                term: int(tasks)
                # A term of a pair seen in K tasks was itself seen in K or more.
                for term, tasks in conn.execute(
                    "SELECT term, tasks FROM vocab_word_terms WHERE scope = ? AND tasks >= ?",
                    (scope, min_pair_tasks),
                ).fetchall()
            }
            pairs = [
                (first, second, int(tasks))
                for first, second, tasks in conn.execute(
                    "SELECT first_term, second_term, tasks FROM vocab_word_pairs"
                    " WHERE scope = ? AND tasks >= ?",
                    (scope, min_pair_tasks),
                ).fetchall()
            ]
        return (int(row[0]) if row else 0), counts, pairs
