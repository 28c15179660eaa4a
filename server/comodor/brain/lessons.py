"""Lessons: recall, prefetch, teaching, merging what reflection proposes, decay.

Recall never asks SQLite to rank: the in-memory :class:`RecallIndex` answers and
SQLite only hands back the texts of the winners. The index follows every change
(ours or another process's) through ``lesson_log``, so :meth:`LessonBook.sync`
is cheap and is called before every recall.

A recall computed while the user is still typing (``prefetch``) is kept for the
exact (whitespace-trimmed) query and stamped with the brain's generation; any
change that could alter recall bumps the generation, and a stale answer is
never served.
"""

from __future__ import annotations

import sys
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import attrs

from .context import Shared
from .events import LessonForgotten, LessonTaught
from .index import IndexedLesson, RecallIndex
from .models import (
    LESSON_KINDS,
    MAX_GUIDANCE_CHARS,
    MAX_TEACH_CHARS,
    MAX_TRIGGER_CHARS,
    Lesson,
    ProposedLesson,
    Skill,
)
from .redact import redact
from .store.interface import LogPosition
from .text import same_meaning, terms, words

MERGE_THRESHOLD = 0.55
MERGE_BOOST = 0.08
MERGE_CEILING = 0.98
PREFETCH_SLOTS = 16
MAX_SEARCH_RESULTS = 1000


@attrs.frozen
class Recall:
    """What recall found for one query."""

    query: str
    lessons: tuple[Lesson, ...]
    skills: tuple[Skill, ...]


def search_words(text: str) -> list[str]:
    """The content words of ``text`` a full-text search looks for (any of them matches).

    Letters and digits only, so nothing in them is query syntax in either backend.
    """
    return [w for w in dict.fromkeys(words(text)) if len(w) > 2 and w.isalnum()][:24]


def _indexed(row: Sequence[Any]) -> IndexedLesson:
    lesson_id, scope, term_text, confidence, wins, losses, created, last_success, pinned = row
    trust = (confidence * 2.0 + wins) / (2.0 + wins + losses)
    return IndexedLesson(
        lesson_id,
        sys.intern(scope),
        tuple(sys.intern(term) for term in term_text.split()),  # shared, not 750k copies
        trust,
        max(created, last_success),
        bool(pinned),
    )


class LessonBook:
    """The lessons of one project (and the global scope): recall, teaching, merging."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self._index = RecallIndex(shared.settings.half_life_days)
        self._index_rev: LogPosition | None = None
        """The lesson log position the index reflects; None until it is built."""
        self._prefetched: OrderedDict[str, tuple[int, Recall]] = OrderedDict()

    # -- the index ------------------------------------------------------------ #

    def warm(self) -> None:
        """Build the recall index now (hosts call this off their event loop at start)."""
        with self.shared.lock:
            self.sync()

    def sync(self) -> bool:
        """Catch the index up with every lesson change, whoever made it; True if any."""
        store = self.shared.store
        with self.shared.lock:
            if self._index_rev is None:
                head = store.lesson_log_head()
                self._index.rebuild(
                    (_indexed(row) for row in store.iter_index_rows()),
                    self.shared.settings.half_life_days,
                )
                self._index_rev = head
                return True
            head, changed = store.lesson_log_since(self._index_rev)
            if not changed:
                return False
            present = {row[0]: row for row in store.index_rows(changed)}
            for lesson_id in changed:
                row = present.get(lesson_id)
                if row is None:
                    self._index.remove(lesson_id)
                else:
                    self._index.upsert(_indexed(row))
            self._index_rev = head
            self.shared.invalidate()
            return True

    def rebuild(self) -> None:
        """Forget the index and build it again (after the brain file was replaced)."""
        with self.shared.lock:
            self._index_rev = -1
            self.sync()
            self.shared.invalidate()

    def changed(self) -> None:
        """After a write that touched lessons: fold it in and drop stale prefetches."""
        with self.shared.lock:
            if self._index_rev is not None:
                self.sync()
            self.shared.invalidate()

    def set_half_life(self, half_life_days: float) -> None:
        with self.shared.lock:
            if self._index_rev is not None:
                self._index.set_half_life(half_life_days)
            self.shared.invalidate()

    def count(self) -> int:
        """Lessons in this project's scopes: from the warm index, else from SQLite."""
        shared = self.shared
        with shared.lock:
            if self._index_rev is not None:
                self.sync()
                return self._index.count(shared.scopes)
        return shared.store.count_lessons(shared.scopes)

    # -- recall ---------------------------------------------------------------- #

    def recall(self, query: str) -> Recall:
        """Pinned lessons first (capped), then the best by relevance × trust."""
        shared = self.shared
        settings = shared.settings
        if not settings.enabled or not query.strip():
            return Recall(query, (), ())
        query_terms = terms(query)
        with shared.lock:
            self.sync()
            pinned = self._index.pinned(shared.scopes, query_terms, max(1, settings.top_k // 2))
            ranked = self._index.search(
                query_terms,
                shared.scopes,
                limit=settings.top_k - len(pinned),
                now=time.time(),
                min_confidence=settings.min_confidence,
            )
        ids = [hit.id for hit in pinned] + [hit.id for hit in ranked]
        lessons = tuple(shared.store.get_lessons(ids))
        return Recall(query, lessons, tuple(self.recall_skills(query)))

    def recall_skills(self, query: str, limit: int = 2) -> list[Skill]:
        """Learned procedures that fit the query and have mostly worked."""
        shared = self.shared
        if not shared.settings.enabled or not query.strip():
            return []
        wanted = set(terms(query))
        scored: list[tuple[float, Skill]] = []
        for skill in shared.store.skills(shared.scopes):
            if skill.success_rate < 0.4:
                continue
            have = set(terms(f"{skill.name} {skill.description}"))
            if not have:
                continue
            shared_terms = len(wanted & have) / max(1, min(len(wanted), len(have)))
            if shared_terms >= 0.34:
                scored.append((shared_terms * skill.success_rate, skill))
        scored.sort(key=lambda pair: pair[0], reverse=True)
        return [skill for _, skill in scored[:limit]]

    def search(self, query: str = "", limit: int = 20) -> list[Lesson]:
        """Lessons for the user to browse: full-text search, or the newest when empty."""
        shared = self.shared
        limit = min(limit, MAX_SEARCH_RESULTS)
        if not query.strip():
            return shared.store.lessons(shared.scopes, limit=limit)
        wanted = search_words(query)
        if not wanted:
            return []
        return [lesson for lesson, _ in shared.store.search_lessons(wanted, shared.scopes, limit)]

    # -- prefetch --------------------------------------------------------------- #

    def prefetch(self, query: str) -> None:
        """Recall ahead of time for a request the user is still typing."""
        settings = self.shared.settings
        if not settings.enabled or not settings.prefetch or not query.strip():
            return
        generation = self.shared.generation
        result = self.recall(query)
        with self.shared.lock:
            if generation != self.shared.generation:
                return  # the brain changed while we computed; the result may be stale
            key = query.strip()
            self._prefetched[key] = (generation, result)
            self._prefetched.move_to_end(key)
            while len(self._prefetched) > PREFETCH_SLOTS:
                self._prefetched.popitem(last=False)

    def take_prefetched(self, query: str) -> Recall | None:
        """The prefetched recall for this exact (whitespace-trimmed) query, if still fresh."""
        with self.shared.lock:
            entry = self._prefetched.pop(query.strip(), None)
            if entry is None or entry[0] != self.shared.generation:
                return None
            return entry[1]

    @property
    def prefetch_ready(self) -> int:
        """Prefetched recalls that are still fresh (for ``comodor.stats``)."""
        with self.shared.lock:
            current = self.shared.generation
            return sum(1 for generation, _ in self._prefetched.values() if generation == current)

    # -- teaching, forgetting, pinning -------------------------------------------- #

    def teach(self, text: str, kind: str = "preference", pinned: bool = True) -> Lesson:
        """Record something the user said directly: pinned and trusted by default.

        An explicit instruction is far better evidence than anything inferred.
        ``"trigger: guidance"``; without a colon the trigger is ``generally``.
        """
        shared = self.shared
        clean = redact(text)
        trigger, colon, guidance = clean.partition(":")
        if not colon or not guidance.strip() or not trigger.strip():
            trigger, guidance = "generally", clean
        lesson = Lesson(
            kind=kind,
            scope=shared.write_scope,
            trigger=" ".join(trigger.split())[:MAX_TRIGGER_CHARS],
            guidance=guidance.strip()[:MAX_TEACH_CHARS],
            confidence=0.9,
            pinned=pinned,
            source="user",
        )
        stored = shared.store.add_lesson(lesson, " ".join(terms(lesson.text)))
        self.changed()
        shared.bus.emit(LessonTaught((stored,)))
        return stored

    def forget(self, lesson_id: int) -> bool:
        removed = self.shared.store.delete_lesson(lesson_id)
        if removed:
            self.changed()
            self.shared.bus.emit(LessonForgotten(lesson_id))
        return removed

    def pin(self, lesson_id: int, pinned: bool = True) -> bool:
        changed = self.shared.store.set_pinned(lesson_id, pinned)
        if changed:
            self.changed()
        return changed

    # -- reflection ------------------------------------------------------------ #

    def absorb(self, proposals: Sequence[ProposedLesson], source: str) -> tuple[list[Lesson], int]:
        """Store proposed lessons, merging restatements into what is already known.

        Seeing the same thing twice is evidence, not a duplicate: a restatement
        raises the existing lesson's confidence, and when it says more (a superset
        of the words) its wording replaces the old. A statement with the opposite
        polarity never merges (see :func:`comodor.brain.text.same_meaning`).
        """
        shared = self.shared
        stored: list[Lesson] = []
        merged = 0
        for proposal in proposals:
            if proposal.kind not in LESSON_KINDS:
                continue
            trigger = redact(proposal.trigger.strip() or "generally")[:MAX_TRIGGER_CHARS]
            guidance = redact(proposal.guidance.strip())[:MAX_GUIDANCE_CHARS]
            if not guidance:
                continue
            text = f"{trigger}: {guidance}"
            existing = self.find_similar(text)
            if existing is not None:
                shared.store.reinforce(existing.id, MERGE_BOOST, MERGE_CEILING)
                if set(terms(text)) > set(terms(existing.text)):
                    shared.store.update_lesson_text(
                        existing.id, trigger, guidance, " ".join(terms(text))
                    )
                merged += 1
                continue
            lesson = Lesson(
                kind=proposal.kind,
                scope=shared.write_scope,
                trigger=trigger,
                guidance=guidance,
                confidence=min(0.95, max(0.05, float(proposal.confidence))),
                source=source,
            )
            stored.append(shared.store.add_lesson(lesson, " ".join(terms(text))))
        if stored or merged:
            self.changed()
        return stored, merged

    def find_similar(self, text: str) -> Lesson | None:
        """An existing lesson in scope that says the same thing, if any."""
        wanted = search_words(text)
        if not wanted:
            return None
        for lesson, _ in self.shared.store.search_lessons(wanted, self.shared.scopes, limit=20):
            if same_meaning(lesson.text, text, MERGE_THRESHOLD):
                return lesson
        return None

    # -- upkeep -------------------------------------------------------------------- #

    def consolidate(self) -> int:
        """Forget lessons whose trust has decayed below the minimum (never pinned ones)."""
        shared = self.shared
        settings = shared.settings
        now = time.time()
        doomed = [
            lesson.id
            for lesson in shared.store.lessons(shared.scopes)
            if not lesson.pinned
            and lesson.effective_confidence(settings.half_life_days, now) < settings.min_confidence
        ]
        removed = shared.store.delete_lessons(doomed)
        shared.store.prune_lesson_log()
        if removed:
            self.changed()
        return removed
