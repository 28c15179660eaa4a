"""The recall walk this project used before issue 13, kept only to be measured against.

A verbatim copy of ``server/comodor/brain/recall/index.py`` at 5a6c7ce (the trust-ordered
walk of at most 1,200 postings in pure Python). Nothing in the server imports it:
``bench/recall_compare.py`` builds it from the same rows as the new index and sends
both the same queries in one run.
"""

from __future__ import annotations

import gc
import heapq
import math
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import attrs

FIRST_CHUNK = 32
"""Postings advanced per list in the first round of the walk; each round doubles it.

Small first steps let a query stop after a few dozen trusted lessons when they
already answer it; doubling keeps the number of rounds logarithmic otherwise."""
SCAN_BUDGET = 1_200
"""At most this many postings of common terms are walked per query."""
RARE_LIST = 256
"""Terms in at most this many lessons are read whole: cheap, and the most telling."""
MIN_RELEVANCE = 0.2
"""A lesson must cover at least this share of the query's weight to be recalled."""
RELEVANCE_POWER = 4.0
CONFIDENCE_POWER = 0.5
"""Score = relevance ** 4 × confidence ** 0.5: relevance first, trust to break near-ties.

With a plain product, a fresh lesson matching two of three specifics (0.9 trust)
outranked the exact match that had decayed to 0.45, so trusted planted lessons
were found only 69% of the time among 20,000 near misses; with these powers, 95%
(``bench/recall_quality.py``). Untrusted lessons still never surface: the
``min_confidence`` floor and the trust-ordered walk come before any scoring."""


class IndexedLesson(NamedTuple):
    """What the index needs to know about a lesson (a tuple: 50k of them must be cheap)."""

    id: int
    scope: str
    terms: tuple[str, ...]
    trust: float
    anchor: float
    """Epoch seconds from which decay runs (the last success, or creation)."""
    pinned: bool = False


@attrs.frozen
class Hit:
    """One recalled lesson with its score parts."""

    id: int
    score: float
    relevance: float
    confidence: float
    pinned: bool = False


class _Postings:
    """One term's lessons, sorted by descending trust key (stored negated, ascending)."""

    __slots__ = ("ids", "keys")

    def __init__(self, keys: Iterable[float] = (), ids: Iterable[int] = ()) -> None:
        self.keys: array[float] = array("d", keys)
        self.ids: array[int] = array("q", ids)

    def add(self, neg_key: float, lesson_id: int) -> None:
        position = bisect_right(self.keys, neg_key)
        self.keys.insert(position, neg_key)
        self.ids.insert(position, lesson_id)

    def remove(self, neg_key: float, lesson_id: int) -> None:
        position = bisect_right(self.keys, neg_key) - 1
        while position >= 0 and self.keys[position] == neg_key:
            if self.ids[position] == lesson_id:
                del self.keys[position]
                del self.ids[position]
                return
            position -= 1
        # Fall back to a scan: a rounding surprise must not leave a stale posting.
        for index, existing in enumerate(self.ids):
            if existing == lesson_id:
                del self.keys[index]
                del self.ids[index]
                return

    def __len__(self) -> int:
        return len(self.ids)


class RecallIndex:
    """Trust-ordered inverted index over lessons. Not thread-safe: the caller locks."""

    def __init__(self, half_life_days: float) -> None:
        self._half_life_s = half_life_days * 86_400.0
        self._postings: dict[str, _Postings] = {}
        self._keys: dict[int, float] = {}
        """id -> negated trust key, for unpinned lessons"""
        self._lessons: dict[int, IndexedLesson] = {}
        self._pinned: dict[int, IndexedLesson] = {}
        self._per_scope: Counter[str] = Counter()

    # -- maintenance ------------------------------------------------------ #

    @property
    def half_life_days(self) -> float:
        return self._half_life_s / 86_400.0

    def __len__(self) -> int:
        return len(self._lessons)

    def __contains__(self, lesson_id: object) -> bool:
        return lesson_id in self._lessons

    def _neg_key(self, lesson: IndexedLesson) -> float:
        trust = max(lesson.trust, 1e-9)
        return -(math.log2(trust) + lesson.anchor / self._half_life_s)

    def upsert(self, lesson: IndexedLesson) -> None:
        """Add a lesson, or move it to where its new trust puts it."""
        self.remove(lesson.id)
        self._lessons[lesson.id] = lesson
        self._per_scope[lesson.scope] += 1
        if lesson.pinned:
            self._pinned[lesson.id] = lesson
            return
        neg_key = self._neg_key(lesson)
        self._keys[lesson.id] = neg_key
        for term in lesson.terms:
            postings = self._postings.get(term)
            if postings is None:
                postings = self._postings[term] = _Postings()
            postings.add(neg_key, lesson.id)

    def remove(self, lesson_id: int) -> None:
        lesson = self._lessons.pop(lesson_id, None)
        self._pinned.pop(lesson_id, None)
        if lesson is not None:
            self._per_scope[lesson.scope] -= 1
        neg_key = self._keys.pop(lesson_id, None)
        if lesson is None or neg_key is None:
            return
        for term in lesson.terms:
            postings = self._postings.get(term)
            if postings is not None:
                postings.remove(neg_key, lesson_id)
                if not postings:
                    del self._postings[term]

    def rebuild(
        self, lessons: Iterable[IndexedLesson], half_life_days: float | None = None
    ) -> None:
        """Replace the whole index (startup, or a new half-life changes every key)."""
        if half_life_days is not None:
            self._half_life_s = half_life_days * 86_400.0
        gc_was_enabled = gc.isenabled()
        gc.disable()  # hundreds of thousands of small allocations, none of them cyclic
        try:
            self._lessons = {lesson.id: lesson for lesson in lessons}
            self._pinned = {key: item for key, item in self._lessons.items() if item.pinned}
            self._per_scope = Counter(item.scope for item in self._lessons.values())
            ranked = sorted(
                (self._neg_key(lesson), lesson.id, lesson.terms)
                for lesson in self._lessons.values()
                if not lesson.pinned
            )
            self._keys = {lesson_id: neg_key for neg_key, lesson_id, _ in ranked}
            # Arrays, not lists: 750k boxed floats and ints would cost ~45 MB at peak.
            staged: dict[str, _Postings] = {}
            for neg_key, lesson_id, terms in ranked:
                for term in terms:
                    postings = staged.get(term)
                    if postings is None:
                        postings = staged[term] = _Postings()
                    postings.keys.append(neg_key)
                    postings.ids.append(lesson_id)
            self._postings = staged
        finally:
            if gc_was_enabled:
                gc.enable()

    def set_half_life(self, half_life_days: float) -> None:
        if abs(half_life_days * 86_400.0 - self._half_life_s) > 1e-6:
            self.rebuild(list(self._lessons.values()), half_life_days)

    def count(self, scopes: Sequence[str]) -> int:
        """How many lessons the scopes hold (kept as counters: no scan)."""
        return sum(self._per_scope[scope] for scope in scopes)

    def get(self, lesson_id: int) -> IndexedLesson | None:
        return self._lessons.get(lesson_id)

    # -- queries ---------------------------------------------------------- #

    def _idf(self, postings_count: int) -> float:
        total = max(1, len(self._keys))
        return math.log(1.0 + total / (1.0 + postings_count)) + 0.05

    def pinned(self, scopes: Sequence[str], query_terms: Sequence[str], limit: int) -> list[Hit]:
        """Pinned lessons in scope: the ones the query touches first, then the newest."""
        wanted = set(query_terms)
        ranked: list[tuple[int, int]] = []
        for lesson in self._pinned.values():
            if lesson.scope not in scopes:
                continue
            ranked.append((len(wanted.intersection(lesson.terms)), lesson.id))
        ranked.sort(reverse=True)
        return [Hit(lesson_id, 1.0, 0.0, 1.0, pinned=True) for _, lesson_id in ranked[:limit]]

    def search(
        self,
        query_terms: Sequence[str],
        scopes: Sequence[str],
        *,
        limit: int,
        now: float,
        min_confidence: float = 0.0,
        budget: int | None = None,
    ) -> list[Hit]:
        """The ``limit`` best unpinned lessons for the query, by relevance times confidence."""
        if limit <= 0:
            return []
        budget = SCAN_BUDGET if budget is None else budget
        weights: dict[str, float] = {}
        for term in query_terms:
            postings = self._postings.get(term)
            if postings is not None and term not in weights:
                weights[term] = self._idf(len(postings))
        if not weights:
            return []
        total = sum(weights.values())
        allowed = set(scopes)
        lessons = self._lessons
        keys = self._keys
        now_term = now / self._half_life_s
        floor = math.log2(min_confidence) if min_confidence > 0 else -math.inf
        seen: set[int] = set()
        best: list[tuple[float, int, float, float]] = []  # min-heap (score, id, rel, conf)
        wanted = frozenset(weights)
        weight_of = weights.__getitem__

        def consider(lesson_ids: Iterable[int], cap: float = 1.0) -> None:
            """Score unseen lessons; ``cap`` bounds the relevance part any of them can reach."""
            for lesson_id in lesson_ids:
                if lesson_id in seen:
                    continue
                seen.add(lesson_id)
                log_conf = -keys[lesson_id] - now_term
                if log_conf < floor:
                    continue
                confidence = math.pow(2.0, log_conf)
                trust_part = confidence**CONFIDENCE_POWER
                if len(best) >= limit and trust_part * cap <= best[0][0]:
                    continue  # even the best match still possible could not beat the k-th
                lesson = lessons[lesson_id]
                if lesson.scope not in allowed:
                    continue
                relevance = sum(map(weight_of, wanted.intersection(lesson.terms))) / total
                if relevance < MIN_RELEVANCE:
                    continue
                score = relevance**RELEVANCE_POWER * trust_part
                item = (score, lesson_id, relevance, confidence)
                if len(best) < limit:
                    heapq.heappush(best, item)
                elif item > best[0]:
                    heapq.heapreplace(best, item)

        # Rare terms: read their short lists whole. Every lesson holding one is then
        # scored, so an unseen lesson can only hold common terms, which bounds it.
        common: list[tuple[float, _Postings]] = []
        for term, weight in weights.items():
            postings = self._postings[term]
            if len(postings) <= RARE_LIST:
                consider(postings.ids)
            else:
                common.append((weight, postings))
        # Common terms first: they are the ones that stop mattering first.
        lists = sorted(common, key=lambda pair: pair[0])
        reach = []  # reach[i]: the most relevance an unseen lesson in lists[:i+1] can have
        running = 0.0
        for weight, _ in lists:
            running += weight
            reach.append(running / total)
        # Every lesson holding a rare term has been scored: the rest hold common terms
        # only, which caps their relevance.
        common_cap = (reach[-1] if reach else 0.0) ** RELEVANCE_POWER
        essential = 0
        while essential < len(lists) and reach[essential] < MIN_RELEVANCE:
            essential += 1
        positions = [0] * len(lists)
        scanned = 0
        chunk = FIRST_CHUNK

        while essential < len(lists) and scanned < budget:
            boundary = math.inf
            for index in range(essential, len(lists)):
                ahead = positions[index] + chunk
                postings = lists[index][1]
                if ahead < len(postings):
                    boundary = min(boundary, postings.keys[ahead])
            exhausted = True
            for index in range(essential, len(lists)):
                postings = lists[index][1]
                start = positions[index]
                end = bisect_right(postings.keys, boundary, lo=start)
                positions[index] = end
                if end < len(postings):
                    exhausted = False
                if end == start:
                    continue
                scanned += end - start
                consider(postings.ids[start:end], common_cap)
            if exhausted or boundary == math.inf:
                break
            chunk *= 2
            frontier_log_conf = -boundary - now_term
            if frontier_log_conf < floor:
                break  # everything further down is below the minimum confidence
            if len(best) >= limit:
                frontier = math.pow(2.0, frontier_log_conf) ** CONFIDENCE_POWER
                worst = best[0][0]
                # Drop lists that can no longer lift an unseen lesson past the k-th best.
                while (
                    essential < len(lists)
                    and frontier * reach[essential] ** RELEVANCE_POWER <= worst
                ):
                    essential += 1

        best.sort(reverse=True)
        return [Hit(lesson_id, score, rel, conf) for score, lesson_id, rel, conf in best]
