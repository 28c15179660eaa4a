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

**The user's own words.** What helped is not the only evidence: a user whose every
"spec" request also says "pytest" is telling us the two go together, even before a
lesson about pytest helped such a request. So every ended task (cancelled ones
aside; success does not change how someone talks) is also an observation of which
terms came together in its goal and in the user's messages (redacted, at most
:data:`MAX_TASK_WORDS` terms, the goal's first). A pair of those terms is scored by
the same NPMI over those tasks, symmetric, with the same prior, and counts only
after :data:`MIN_WORD_PAIR_TASKS` tasks with NPMI ≥ :data:`MIN_WORD_NPMI` (a
stricter bar than what helped: words said together are weaker evidence than a
lesson that worked); a term in more than :data:`UBIQUITOUS_SHARE` of the tasks is
ignored the same way. The user's messages also join the goal's terms in the first
vocabulary, against the terms of the lessons that helped. House rules do not: a
playbook's rules are every confident rule of the document's language, whatever the
request, so their words come with every task and say nothing about it. Both
vocabularies feed the same capped expansion, the stronger association of a term
winning, and the few places go to associated terms some lesson holds. (The part of
the original engine's specification kept in this project, its memory and progress
modules, learns no vocabulary: its recall ranks the store's search hits by
relevance and trust.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..models import Lesson, Message
from ..redaction.redactor import redact
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
MIN_WORD_PAIR_TASKS = 5
"""Tasks in which two of the user's words must have come together before they count."""
MIN_WORD_NPMI = 0.5
FORGET_WORDS_AFTER = 200
"""Tasks after which a pair said together fewer than MIN_WORD_PAIR_TASKS times is forgotten."""
PRUNE_WORDS_EVERY = 50
"""Ended tasks between two prunings (``comodor.consolidate`` prunes too)."""
MAX_TASK_WORDS = 24
"""Terms of one task's goal and messages that are counted (pairs grow as its square)."""
MAX_MESSAGE_CHARS = 2000
"""Of each user message, the part read for words (the redactor's cost grows with it)."""
WORD_ROLES = frozenset({"user"})
"""Whose messages are the user's words: not the assistant's prose, not tool output."""


class Vocabulary:
    """Learns associations from successful tasks and expands queries with them."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self._generation = -1
        self._version: tuple[int, int] = (-1, -1)
        self._associations: dict[str, list[tuple[str, float]]] = {}

    def learn(self, goal: str, lessons: Sequence[Lesson], messages: Sequence[Message] = ()) -> None:
        """A task with this goal (and the user's messages) succeeded with these lessons."""
        asked = task_words(goal, messages)[:MAX_QUERY_TERMS]
        seen: dict[str, None] = {}
        for lesson in lessons:
            seen.update(dict.fromkeys(terms(lesson.text)))
        answered = list(seen)[:MAX_LESSON_TERMS]
        if asked and answered:
            self.shared.store.observe_vocabulary(self.shared.project_scope, asked, answered)

    def observe(self, goal: str, messages: Sequence[Message] = ()) -> None:
        """A task ended: the terms of its goal and the user's messages came together."""
        words = task_words(goal, messages)
        if words:
            seen = self.shared.store.observe_words(self.shared.project_scope, words)
            if seen % PRUNE_WORDS_EVERY == 0:
                self.prune()

    def prune(self) -> int:
        """Forget pairs of the user's words too rare and too old to become associations.

        Every task adds up to :data:`MAX_TASK_WORDS` squared over two pairs, most of them
        never seen again; without this the brain would keep them all.
        """
        return self.shared.store.prune_words(
            self.shared.project_scope, MIN_WORD_PAIR_TASKS, FORGET_WORDS_AFTER
        )

    def associations(self) -> dict[str, list[tuple[str, float]]]:
        """Request term -> [(lesson term, NPMI)], strongest first; reloaded when it changed.

        Asks SQLite only after something changed the brain (the shared generation),
        and reloads only when the number of tasks either vocabulary has seen moved.
        """
        shared = self.shared
        if self._generation == shared.generation:
            return self._associations
        self._generation = shared.generation
        store, scope = shared.store, shared.project_scope
        version = (store.vocabulary_tasks(scope), store.word_tasks(scope))
        if version == self._version:
            return self._associations
        tasks, counts, pairs = store.vocabulary(scope, MIN_PAIR_TASKS)
        helped = _associate(tasks, counts, pairs)
        word_tasks, word_counts, word_pairs = store.word_vocabulary(scope, MIN_WORD_PAIR_TASKS)
        said = _associate_words(word_tasks, word_counts, word_pairs)
        self._version = version
        self._associations = _strongest(helped, said)
        return self._associations

    def expand(
        self,
        query_terms: Sequence[str],
        known: Callable[[Sequence[str]], set[str]] | None = None,
    ) -> list[tuple[str, float]]:
        """At most :data:`MAX_EXPANSION` (term, strength) the query's terms are associated with.

        ``known`` (the recall index's) keeps only terms some lesson holds, so the few
        places go to associations that can find something: words a user says with
        "spec" ("cover", "edge") would otherwise crowd out the "pytest" a lesson has.
        """
        associations = self.associations()
        if not associations:
            return []
        asked = set(query_terms)
        best: dict[str, float] = {}
        for term in asked:
            for associated, strength in associations.get(term, ()):
                if associated not in asked and strength > best.get(associated, 0.0):
                    best[associated] = strength
        if known is not None and best:
            held = known(list(best))
            best = {term: strength for term, strength in best.items() if term in held}
        ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))
        return ranked[:MAX_EXPANSION]


def task_words(goal: str, messages: Sequence[Message] = ()) -> list[str]:
    """The user's terms in one task, the goal's first, each once, redacted, capped."""
    seen: dict[str, None] = dict.fromkeys(terms(redact(goal)))
    for message in messages:
        if message.role in WORD_ROLES and message.content:
            if len(seen) >= MAX_TASK_WORDS:
                break
            seen.update(dict.fromkeys(terms(redact(message.content[:MAX_MESSAGE_CHARS]))))
    return list(seen)[:MAX_TASK_WORDS]


def _npmi(together: int, first: int, second: int, total: float) -> float | None:
    """NPMI of two events over ``total`` (prior included) tasks; None when undefined."""
    p_pair = together / total
    if p_pair >= 1.0:
        return None
    return math.log(p_pair / ((first / total) * (second / total))) / -math.log(p_pair)


def _associate_words(
    tasks: int, counts: dict[str, int], pairs: list[tuple[str, str, int]]
) -> dict[str, list[tuple[str, float]]]:
    """Term -> [(term said with it, NPMI)], both ways, from the user's own words."""
    if tasks <= 0:
        return {}
    total = float(tasks + PRIOR_TASKS)

    def ubiquitous(term: str) -> bool:
        return tasks >= UBIQUITY_AFTER and counts.get(term, 0) > UBIQUITOUS_SHARE * tasks

    found: dict[str, list[tuple[str, float]]] = {}
    for first, second, together in pairs:
        if ubiquitous(first) or ubiquitous(second):
            continue
        npmi = _npmi(together, counts.get(first, together), counts.get(second, together), total)
        if npmi is not None and npmi >= MIN_WORD_NPMI:
            strength = min(1.0, npmi)
            found.setdefault(first, []).append((second, strength))
            found.setdefault(second, []).append((first, strength))
    for associated in found.values():
        associated.sort(key=lambda item: (-item[1], item[0]))
    return found


def _strongest(
    *vocabularies: dict[str, list[tuple[str, float]]],
) -> dict[str, list[tuple[str, float]]]:
    """One term -> [(term, strength)] map, the stronger association of a pair kept."""
    merged: dict[str, dict[str, float]] = {}
    for vocabulary in vocabularies:
        for term, associated in vocabulary.items():
            best = merged.setdefault(term, {})
            for other, strength in associated:
                best[other] = max(best.get(other, 0.0), strength)
    return {
        term: sorted(best.items(), key=lambda item: (-item[1], item[0]))
        for term, best in merged.items()
    }


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
        npmi = _npmi(
            together,
            counts.get(("q", query_term), together),
            counts.get(("l", lesson_term), together),
            total,
        )
        if npmi is not None and npmi >= MIN_NPMI:
            found.setdefault(query_term, []).append((lesson_term, min(1.0, npmi)))
    for associated in found.values():
        associated.sort(key=lambda item: (-item[1], item[0]))
    return found
