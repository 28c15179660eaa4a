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

import time
from collections import OrderedDict
from collections.abc import Sequence

import attrs

from ..events import LessonForgotten, LessonTaught, Notice
from ..models import (
    LESSON_KINDS,
    MAX_GUIDANCE_CHARS,
    MAX_TEACH_CHARS,
    MAX_TRIGGER_CHARS,
    Lesson,
    ProposedLesson,
    Skill,
)
from ..recall.keeper import IndexKeeper
from ..recall.text import is_vague, same_meaning, terms
from ..recall.vocabulary import Vocabulary
from ..redaction.redactor import redact
from ..shared import Shared
from .markdown import GENERAL_TRIGGER, plain_trigger
from .merging import MERGE_THRESHOLD, Consolidation, find_merges

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
    """The terms of ``text`` a full-text search looks for (any of them matches).

    The SQLite full-text index holds the same terms (``lessons.terms``), so a query
    in any script matches what recall would match; the backend quotes each one, so
    nothing in them is query syntax.
    """
    return [term for term in terms(text) if '"' not in term][:24]


class LessonBook:
    """The lessons of one project (and the global scope): recall, teaching, merging."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.index = IndexKeeper(shared)
        self.vocabulary = Vocabulary(shared)
        self._prefetched: OrderedDict[str, tuple[int, Recall]] = OrderedDict()

    # -- the index ------------------------------------------------------------ #

    def warm(self) -> None:
        """Make the recall index ready now (hosts call this off their event loop at start).

        Then, with ``learning.archiveAfterDays`` set, archive what nobody recalled.
        """
        with self.shared.lock:
            self.sync()
        self.archive_unrecalled()

    def archive_unrecalled(self, now: float | None = None) -> int:
        """Team retention (:mod:`comodor.teamdb.retention`): archive, say so, return how many.

        Only a team brain archives (its store has ``archive_unrecalled``); the local
        file keeps every lesson. Never silent: the user is told how many and how to
        get them back.
        """
        shared = self.shared
        days = shared.settings.archive_after_days
        archive = getattr(shared.store, "archive_unrecalled", None)
        if days <= 0 or archive is None:
            return 0
        moved = int(archive(shared.scopes, days, now))
        if moved:
            self.changed()
            plural = "lesson" if moved == 1 else "lessons"
            shared.bus.emit(
                Notice(
                    f"Archived {moved} team {plural} nobody recalled for {days} days "
                    "(learning.archiveAfterDays). Nothing is deleted: `comodor-lsp team "
                    "status` counts them and `comodor-lsp team restore --all` brings them back."
                )
            )
        return moved

    def sync(self) -> bool:
        """Catch the index up with every lesson change, whoever made it; True if any."""
        with self.shared.lock:
            if self.index.sync():
                self.shared.invalidate()
                return True
            return False

    def close(self) -> None:
        self.index.close()

    def rebuild(self) -> None:
        """Forget the index and build it again (after the brain file was replaced)."""
        with self.shared.lock:
            self.index.reset()
            self.index.sync()
            self.shared.invalidate()

    def changed(self) -> None:
        """After a write that touched lessons: fold it in and drop stale prefetches."""
        with self.shared.lock:
            if self.index.built:
                self.index.sync()
            self.shared.invalidate()

    def set_half_life(self, half_life_days: float) -> None:
        with self.shared.lock:
            self.index.set_half_life(half_life_days)
            self.shared.invalidate()

    def count(self) -> int:
        """Lessons in this project's scopes: from the warm index, else from SQLite."""
        shared = self.shared
        with shared.lock:
            if self.index.built:
                return self.index.current().count(shared.scopes)
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
            if self.index.sync():
                shared.invalidate()
            index = self.index.current()
            pinned = index.pinned(shared.scopes, query_terms, max(1, settings.top_k // 2))
            ranked = index.search(
                query_terms,
                shared.scopes,
                limit=settings.top_k - len(pinned),
                now=time.time(),
                min_confidence=settings.min_confidence,
                expansion=self.vocabulary.expand(query_terms, index.known),
            )
        ids = [hit.id for hit in pinned] + [hit.id for hit in ranked]
        lessons = tuple(shared.store.get_lessons(ids))
        return Recall(query, lessons, tuple(self.recall_skills(query, query_terms=query_terms)))

    def recall_skills(
        self, query: str, limit: int = 2, *, query_terms: Sequence[str] | None = None
    ) -> list[Skill]:
        """Learned procedures that fit the query and have mostly worked."""
        shared = self.shared
        if not shared.settings.enabled or not query.strip():
            return []
        wanted = set(terms(query) if query_terms is None else query_terms)
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
        ``"trigger: guidance"``; without a colon the trigger is ``generally``. A
        leading "When" is the user's phrasing, not part of the trigger. Teaching the
        same lesson again (the same words, whatever their case and spacing) is
        evidence, not a second lesson: the known one is reinforced (and pinned if asked)
        and returned. Restatements in other words are left to :meth:`consolidate`,
        which merges them with all their evidence; a lesson that differs in a number
        ("port 8080" and "port 9090") is never folded into another at teach time.
        """
        shared = self.shared
        clean = redact(text)
        trigger, colon, guidance = clean.partition(":")
        trigger = plain_trigger(trigger) if colon else ""
        if not colon or not guidance.strip() or not trigger:
            trigger, guidance = GENERAL_TRIGGER, clean
        lesson = Lesson(
            kind=kind,
            scope=shared.write_scope,
            trigger=trigger[:MAX_TRIGGER_CHARS],
            guidance=guidance.strip()[:MAX_TEACH_CHARS],
            confidence=0.9,
            pinned=pinned,
            source="user",
        )
        existing = self._taught_before(lesson)
        if existing is not None:
            shared.store.reinforce(existing.id, MERGE_BOOST, MERGE_CEILING)
            if pinned and not existing.pinned:
                shared.store.set_pinned(existing.id, True)
            self.changed()
            return shared.store.get_lesson(existing.id) or existing
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
        polarity never merges (see :func:`comodor.brain.recall.text.same_meaning`).
        """
        shared = self.shared
        stored: list[Lesson] = []
        merged = 0
        for proposal in proposals:
            if proposal.kind not in LESSON_KINDS:
                continue
            trigger = redact(proposal.trigger.strip() or "generally")[:MAX_TRIGGER_CHARS]
            guidance = redact(proposal.guidance.strip())[:MAX_GUIDANCE_CHARS]
            if not guidance or is_vague(guidance):
                continue  # nothing specific to act on ("be good", "write clean code")
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

    def _taught_before(self, lesson: Lesson) -> Lesson | None:
        """A lesson in scope with the same trigger and guidance, up to case and spacing."""
        wanted = _same_words(lesson.trigger), _same_words(lesson.guidance)
        shared = self.shared
        with shared.lock:
            ids = self.index.current().similar(terms(lesson.text), shared.scopes, MERGE_THRESHOLD)
        for known in shared.store.get_lessons(ids):
            if (_same_words(known.trigger), _same_words(known.guidance)) == wanted:
                return known
        return None

    def find_similar(self, text: str) -> Lesson | None:
        """An existing lesson in scope that says the same thing, if any.

        Candidates come from the recall index (every lesson whose terms overlap by
        Dice ≥ the threshold, closest first); :func:`same_meaning` has the last word.
        """
        shared = self.shared
        wanted = terms(text)
        if not wanted:
            return None
        with shared.lock:
            ids = self.index.current().similar(wanted, shared.scopes, MERGE_THRESHOLD)
        for lesson in shared.store.get_lessons(ids):
            if same_meaning(lesson.text, text, MERGE_THRESHOLD):
                return lesson
        return None

    # -- upkeep -------------------------------------------------------------------- #

    def consolidate(self) -> Consolidation:
        """Forget decayed lessons, then merge restatements into one with all their evidence.

        Decayed: trust below ``learning.minConfidence`` (never a pinned lesson).
        Restatements: see :mod:`comodor.brain.lessons.merging`.
        """
        shared = self.shared
        settings = shared.settings
        now = time.time()
        lessons = shared.store.lessons(shared.scopes)
        doomed = {
            lesson.id
            for lesson in lessons
            if not lesson.pinned
            and lesson.effective_confidence(settings.half_life_days, now) < settings.min_confidence
        }
        removed = shared.store.delete_lessons(sorted(doomed))
        kept = [lesson for lesson in lessons if lesson.id not in doomed]
        merges = find_merges(kept, shared.store.lesson_terms(shared.scopes), MERGE_THRESHOLD)
        shared.store.merge_lessons([(merge.kept, merge.merged) for merge in merges])
        shared.store.prune_lesson_log()
        self.vocabulary.prune()
        if removed or merges:
            self.changed()
        return Consolidation(removed, tuple(merges))


def _same_words(text: str) -> str:
    """Text as "the same lesson" compares it: case, spacing and end punctuation aside."""
    return " ".join(text.casefold().split()).rstrip(".!;:, ")
