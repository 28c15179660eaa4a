"""Words: tokenising for recall, and telling a restatement from a contradiction.

Recall, near-duplicate detection and full-text search all work on *terms*: the
words of :func:`comodor.brain.recall.tokens.words` (any script, case-folded, identifiers
whole and split, CJK as bigrams), English stop words removed and common English
suffixes stripped ("running tests" and "run the test" share ``run`` and ``test``;
other scripts are not stemmed: a wrong stem is worse than none).

Similarity respects meaning where bag-of-words would not: "Do not use unittest"
and "Use unittest" share every content word, yet merging them would turn a
prohibition into its opposite. :func:`same_meaning` therefore also compares
polarity (negation) and, for "prefer X over Y" statements, which side each
word is on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .tokens import words

__all__ = [
    "negations",
    "overlap",
    "same_meaning",
    "stem",
    "terms",
    "trigger_prefix",
    "words",
]

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "being",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "for",
        "from",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "my",
        "of",
        "on",
        "once",
        "or",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "also",
        "any",
        "each",
        "few",
        "more",
        "most",
        "other",
        "only",
        "both",
        "again",
        "further",
        "about",
        "against",
        "between",
        "during",
        "before",
        "after",
        "above",
        "below",
        "off",
        "all",
        "s",
        "t",
    ]
)
"""Words that carry no topic. Negations are *not* here: they matter for meaning."""

NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "don't",
        "dont",
        "doesn't",
        "doesnt",
        "isn't",
        "isnt",
        "shouldn't",
        "shouldnt",
        "mustn't",
        "mustnt",
        "can't",
        "cant",
        "cannot",
        "won't",
        "wont",
        "avoid",
        "without",
        "stop",
        "nor",
        "neither",
        "forbid",
        "forbidden",
        "prohibit",
        "disallow",
    ]
)
_PIVOTS = frozenset({"over", "instead", "rather", "than"})

MAX_TERMS = 64
"""A lesson contributes at most this many distinct terms to the index."""


def stem(word: str) -> str:
    """Strip the commonest English suffixes; crude on purpose, cheap and predictable."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, replacement in (
        ("ies", "y"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: len(word) - len(suffix)] + replacement
            if suffix in ("ing", "ed") and len(base) >= 4 and base[-1] == base[-2]:
                base = base[:-1]  # running -> run, stopped -> stop
            if suffix == "s" and word.endswith("ss"):
                return word  # class, pass
            return base
    return word


def terms(text: str) -> list[str]:
    """Distinct index terms of ``text``, in first-seen order, at most :data:`MAX_TERMS`."""
    seen: dict[str, None] = {}
    for word in words(text):
        if word in STOP_WORDS or word in NEGATIONS:
            continue
        term = word.removesuffix("'s").replace("'", "") if "'" in word else word
        if term.isascii():
            if len(term) < 2:
                continue
            term = stem(term)
        seen.setdefault(term, None)
        if len(seen) >= MAX_TERMS:
            break
    return list(seen)


_UNSPECIFIC_TRIGGER = frozenset(terms("generally in general always everywhere anything everything"))
"""Terms of a trigger that says nothing about when (taught lessons without one say
"generally")."""


def trigger_prefix(trigger: str, lesson_terms: Sequence[str]) -> int:
    """How many of a lesson's terms, from the first, are its trigger's.

    Recall weighs a query word found in a lesson's trigger ("running the billing
    tests") above the same word found only in its guidance ("use ``npm run``"): the
    trigger says when the lesson applies, the guidance what to do then. A lesson's
    terms are those of ``trigger: guidance`` in first-seen order, so the trigger's
    come first and this count is all the store keeps (``lessons.trigger_terms``).
    Counted against the stored terms, not assumed, so it is right however they
    were computed. 0 means "weigh every term alike": no trigger, or an unspecific
    one.
    """
    head = set(terms(trigger))
    if head <= _UNSPECIFIC_TRIGGER:
        return 0  # "generally: …" says nothing about when: every term is the lesson's own
    count = 0
    for term in lesson_terms:
        if term not in head:
            break
        count += 1
    return count


_FLAG_NEGATION = re.compile(r"(?i)(?:--?no-|\bno:)")


def negations(text: str) -> int:
    """How many negating words the statement has ("do not…", "never…", "avoid…").

    Flags such as ``--no-cache`` or ``-p no:cacheprovider`` are names, not negations.
    """
    return sum(1 for word in words(_FLAG_NEGATION.sub(" ", text)) if word in NEGATIONS)


def _sides(text: str) -> tuple[set[str], set[str]] | None:
    """For "prefer X over Y" statements, the terms before and after the pivot word."""
    raw = words(text)
    for index, word in enumerate(raw):
        if word in _PIVOTS and 0 < index < len(raw) - 1:
            left = set(terms(" ".join(raw[:index])))
            right = set(terms(" ".join(raw[index + 1 :])))
            if left and right:
                return left, right
    return None


def _compared(text: str) -> tuple[str, str] | None:
    """For "prefer X over Y" statements, the terms right before and after the pivot.

    Sides alone are not enough: in "prefer X over Y in the billing module" the
    shared context sits on one side and outvotes a swap of X and Y.
    """
    raw = words(text)
    for index, word in enumerate(raw):
        if word not in _PIVOTS or not 0 < index < len(raw) - 1:
            continue
        before = next((t for w in reversed(raw[:index]) for t in terms(w)), None)
        after = next(
            (t for w in raw[index + 1 :] if w not in _PIVOTS for t in terms(w)),
            None,
        )
        if before and after:
            return before, after
        return None
    return None


def overlap(first: Iterable[str], second: Iterable[str]) -> float:
    """Dice coefficient of two term sets (0..1)."""
    a, b = set(first), set(second)
    if not a or not b:
        return 0.0
    return 2.0 * len(a & b) / (len(a) + len(b))


def same_meaning(first: str, second: str, threshold: float = 0.55) -> bool:
    """True when ``second`` restates ``first`` closely enough to merge into it.

    Word overlap alone is not enough: opposite polarity, or the same words on
    opposite sides of "over"/"instead of", means the statements disagree.
    """
    if overlap(terms(first), terms(second)) < threshold:
        return False
    if negations(first) != negations(second):
        return False
    sides_a, sides_b = _sides(first), _sides(second)
    if sides_a and sides_b:
        left_a, right_a = sides_a
        left_b, right_b = sides_b
        crossed = len(left_a & right_b) + len(right_a & left_b)
        straight = len(left_a & left_b) + len(right_a & right_b)
        if crossed > straight:
            return False
    compared_a, compared_b = _compared(first), _compared(second)
    if compared_a and compared_b:
        (x_a, y_a), (x_b, y_b) = compared_a, compared_b
        if x_a == y_b or y_a == x_b:
            return False  # the compared things swapped: X over Y became Y over X
    return True


def estimate_tokens(text: str) -> int:
    """A model-agnostic token estimate (about four characters a token)."""
    return len(text) // 4 + 1


_GENERIC_WORDS = (
    "good",
    "bad",
    "better",
    "best",
    "clean",
    "cleaner",
    "code",
    "coding",
    "write",
    "writing",
    "written",
    "careful",
    "carefully",
    "always",
    "properly",
    "proper",
    "correct",
    "correctly",
    "make",
    "sure",
    "ensure",
    "quality",
    "nice",
    "well",
    "right",
    "thing",
    "things",
    "stuff",
    "work",
    "working",
    "job",
    "great",
    "readable",
    "maintainable",
    "efficient",
    "efficiently",
    "simple",
    "simply",
    "smart",
    "thorough",
    "thoroughly",
    "attention",
    "pay",
    "focus",
    "important",
    "consistent",
    "consistently",
    "follow",
    "practice",
    "practices",
    "standard",
    "standards",
    "mind",
    "keep",
    "try",
    "think",
    "use",
    "do",
    "get",
    "robust",
    "quick",
    "quickly",
    "fast",
    "hard",
    "effort",
    "detail",
    "details",
    "neat",
    "tidy",
    "elegant",
    "professional",
    "approach",
    "way",
    "ways",
    "general",
    "effective",
    "effectively",
    "appropriate",
    "appropriately",
    "remember",
    "everything",
    "something",
    "anything",
    "careful",
    "helpful",
    "useful",
    "reliable",
)
GENERIC_TERMS = frozenset(stem(word) for word in _GENERIC_WORDS)
"""Words that say nothing specific about *what* to do ("write clean code", "be good")."""


def is_vague(guidance: str) -> bool:
    """Whether ``guidance`` names nothing specific: only generic words, or none at all.

    A lesson without one specific term ("be good", "write clean code", "always be
    careful") cannot be acted on and matches every request equally badly, so the
    reflection path drops it. A command, flag, identifier, path or any other word
    outside :data:`GENERIC_TERMS` makes it specific.
    """
    return not any(term not in GENERIC_TERMS for term in terms(guidance))
