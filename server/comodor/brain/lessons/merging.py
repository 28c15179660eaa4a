"""Merge, don't accumulate: restatements of one lesson become one lesson with all its evidence.

"Run pytest with -x" taught by the user and "Always run pytest -x" proposed by
reflection are one piece of advice; kept apart they split its wins and losses and
take two places in every playbook. Consolidation finds such pairs and keeps one:

* **Candidates, exactly.** Two lessons can only say the same thing if their terms
  overlap by Dice ≥ :data:`MERGE_THRESHOLD`. Ordering every lesson's terms rarest
  first, such a pair must share a term within the first ``|A| - ⌈t·|A| / (2 - t)⌉
  + 1`` of each ("prefix filtering", from similarity joins), so only lessons
  sharing a rare term are ever compared: seconds at 50,000 lessons, not hours.
* **Meaning, not words.** A pair merges only when
  :func:`comodor.brain.recall.text.same_meaning` says so: never a lesson and its negation,
  never "X over Y" and "Y over X".
* **The better wording, all the evidence.** What the user taught beats what a
  model proposed; then the wording with more specific terms; then the more trusted.
  The survivor gets the summed wins, losses and uses, the higher confidence, the
  latest success and use, the earliest creation, and stays pinned if either was.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence

import attrs

from ..models import Lesson
from ..recall.text import same_meaning

MERGE_THRESHOLD = 0.55
MAX_CANDIDATES = 200
"""Lessons compared with one lesson at most (a pathological brain stays bounded)."""


@attrs.frozen
class Consolidation:
    """What ``consolidate`` did: lessons forgotten for decay, and restatements merged."""

    removed: int
    merges: tuple[Merge, ...] = ()

    @property
    def merged(self) -> int:
        return len(self.merges)


@attrs.frozen
class Merge:
    """``merged`` was folded into ``kept`` (which kept its own id and wording)."""

    kept: int
    merged: int


def _prefix_length(size: int, threshold: float) -> int:
    least_overlap = math.ceil(threshold * size / (2.0 - threshold))
    return max(1, size - least_overlap + 1)


def _better(first: Lesson, first_terms: int, second: Lesson, second_terms: int) -> bool:
    """Whether ``first``'s wording should be kept over ``second``'s."""

    def rank(lesson: Lesson, specific: int) -> tuple[bool, bool, int, float, int]:
        return (lesson.source == "user", lesson.pinned, specific, lesson.trust(), -lesson.id)

    return rank(first, first_terms) >= rank(second, second_terms)


def find_merges(
    lessons: Sequence[Lesson],
    terms_of: dict[int, tuple[str, ...]],
    threshold: float = MERGE_THRESHOLD,
) -> list[Merge]:
    """Which lessons to fold into which, in the order they must be applied.

    A lesson that absorbed one may absorb more, and may later be folded into a
    better one itself: applied in order, the last survivor holds all the evidence.
    """
    frequency: Counter[str] = Counter()
    for lesson in lessons:
        frequency.update(set(terms_of.get(lesson.id, ())))
    ordered: dict[int, list[str]] = {}
    holders: defaultdict[str, list[int]] = defaultdict(list)
    by_id = {lesson.id: lesson for lesson in lessons}
    for lesson in lessons:
        unique = sorted(set(terms_of.get(lesson.id, ())), key=lambda t: (frequency[t], t))
        if not unique:
            continue
        ordered[lesson.id] = unique
        for term in unique[: _prefix_length(len(unique), threshold)]:
            holders[term].append(lesson.id)
    taken: set[int] = set()
    merges: list[Merge] = []
    for lesson in lessons:
        mine = ordered.get(lesson.id)
        if mine is None or lesson.id in taken:
            continue
        seen: set[int] = set()
        for term in mine[: _prefix_length(len(mine), threshold)]:
            for other_id in holders[term]:
                if other_id == lesson.id or other_id in taken or other_id in seen:
                    continue
                seen.add(other_id)
                if len(seen) > MAX_CANDIDATES:
                    break
                other = by_id[other_id]
                if other.scope != lesson.scope:
                    continue
                theirs = ordered[other_id]
                size = len(mine) + len(theirs)
                if 2.0 * len(set(mine) & set(theirs)) < threshold * size:
                    continue
                if not same_meaning(other.text, lesson.text, threshold):
                    continue
                if _better(lesson, len(mine), other, len(theirs)):
                    merges.append(Merge(lesson.id, other_id))
                    taken.add(other_id)
                else:
                    merges.append(Merge(other_id, lesson.id))
                    taken.add(lesson.id)
                    break
            if lesson.id in taken or len(seen) > MAX_CANDIDATES:
                break
    return merges
