"""The learned vocabulary: which request words go with which lesson words, from what worked.

A user who asks to "ship the release to production" and a lesson written as
"deploying: run helm upgrade --atomic" share no word, yet after that lesson
helped twice with such requests, they are plainly about the same thing. So every
successful task is an observation: the request's terms went with the terms of
the lessons recalled into it. Over those observations, a pair's association is
its **normalised pointwise mutual information**,

    NPMI(q, l) = log(p(q, l) / (p(q) p(l))) / -log p(q, l),

1 when the two always come together, 0 when independent. The probabilities are
taken over the tasks seen plus :data:`PRIOR_TASKS` imagined tasks that had
neither (without them two tasks would make every pair "always together"). A pair
counts only after :data:`MIN_PAIR_TASKS` tasks, with NPMI ≥ :data:`MIN_NPMI`;
terms in more than :data:`UBIQUITOUS_SHARE` of the tasks say nothing and are
ignored once there are enough tasks to tell.

Recall expands a query with at most :data:`MAX_EXPANSION` associated terms, at
reduced weight, and the index ranks a lesson found only through them after every
lesson that really matches (``RecallIndex.search``). The counts live in the brain
(``vocab_*`` tables), so every process shares them and they survive restarts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..models import Lesson
from ..shared import Shared
from .text import terms

MIN_PAIR_TASKS = 2
MIN_NPMI = 0.3
PRIOR_TASKS = 8
UBIQUITOUS_SHARE = 0.5
UBIQUITY_AFTER = 8
"""Tasks seen before a term can be judged ubiquitous."""
MAX_EXPANSION = 3
MAX_QUERY_TERMS = 16
MAX_LESSON_TERMS = 48


class Vocabulary:
    """Learns associations from successful tasks and expands queries with them."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self._generation = -1
        self._version = -1
        self._associations: dict[str, list[tuple[str, float]]] = {}

    def learn(self, goal: str, lessons: Sequence[Lesson]) -> None:
        """A task with this goal succeeded with these lessons recalled into it."""
        asked = terms(goal)[:MAX_QUERY_TERMS]
        seen: dict[str, None] = {}
        for lesson in lessons:
            seen.update(dict.fromkeys(terms(lesson.text)))
        answered = list(seen)[:MAX_LESSON_TERMS]
        if asked and answered:
            self.shared.store.observe_vocabulary(self.shared.project_scope, asked, answered)

    def associations(self) -> dict[str, list[tuple[str, float]]]:
        """Request term -> [(lesson term, NPMI)], strongest first; reloaded when it changed.

        Asks SQLite only after something changed the brain (the shared generation),
        and reloads only when the number of tasks seen moved.
        """
        shared = self.shared
        if self._generation == shared.generation:
            return self._associations
        self._generation = shared.generation
        store, scope = shared.store, shared.project_scope
        if store.vocabulary_tasks(scope) == self._version:
            return self._associations
        tasks, counts, pairs = store.vocabulary(scope, MIN_PAIR_TASKS)
        self._version = tasks
        self._associations = _associate(tasks, counts, pairs)
        return self._associations

    def expand(self, query_terms: Sequence[str]) -> list[tuple[str, float]]:
        """At most :data:`MAX_EXPANSION` (term, strength) the query's terms are associated with."""
        associations = self.associations()
        if not associations:
            return []
        asked = set(query_terms)
        best: dict[str, float] = {}
        for term in asked:
            for associated, strength in associations.get(term, ()):
                if associated not in asked and strength > best.get(associated, 0.0):
                    best[associated] = strength
        ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))
        return ranked[:MAX_EXPANSION]


def _associate(
    tasks: int, counts: dict[tuple[str, str], int], pairs: list[tuple[str, str, int]]
) -> dict[str, list[tuple[str, float]]]:
    if tasks <= 0:
        return {}
    total = float(tasks + PRIOR_TASKS)

    def ubiquitous(side: str, term: str) -> bool:
        return tasks >= UBIQUITY_AFTER and counts.get((side, term), 0) > UBIQUITOUS_SHARE * tasks

    found: dict[str, list[tuple[str, float]]] = {}
    for query_term, lesson_term, together in pairs:
        if ubiquitous("q", query_term) or ubiquitous("l", lesson_term):
            continue
        p_pair = together / total
        p_query = counts.get(("q", query_term), together) / total
        p_lesson = counts.get(("l", lesson_term), together) / total
        if p_pair >= 1.0:
            continue
        npmi = math.log(p_pair / (p_query * p_lesson)) / -math.log(p_pair)
        if npmi >= MIN_NPMI:
            found.setdefault(query_term, []).append((lesson_term, min(1.0, npmi)))
    for associated in found.values():
        associated.sort(key=lambda item: (-item[1], item[0]))
    return found
