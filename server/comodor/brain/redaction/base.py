"""What a detection rule is, and the small helpers every family of rules shares.

A rule is a compiled pattern plus a classifier that looks at each match (and the text around
it) and names the kind of secret, or says it is not one. The engine in
:mod:`comodor.brain.redaction.redactor` runs every rule, merges what they find and writes
the markers; the
families in this package only describe what a secret looks like.

Rules must stay linear on hostile input: a pattern either starts with a literal (so the regex
engine skips ahead with a substring search) or consists of character classes whose
repetitions the next token cannot match; classifiers look a bounded distance around a match.
"""

from __future__ import annotations

import importlib
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, Final

import attrs

MARKER_PREFIX: Final = "[REDACTED:"
MARKER_RE: Final = re.compile(r"\[REDACTED:[a-z0-9-]+\]")

# A classifier looks at a regex match (and the whole text, for context) and returns the kind to
# report, or ``None`` when the match turns out not to be a secret.
Classifier = Callable[[re.Match[str], str], "str | None"]
# Where, inside a match, the secret parts are. Most rules replace the group ``secret``; a few
# (a cookie header, a Kubernetes ``data:`` block) replace several values and keep the names.
SpanFinder = Callable[[re.Match[str], str], "list[tuple[int, int]]"]
# Whether a run ``text[start:end]`` may hold a match the rule keeps (see ``Rule.run_check``).
RunCheck = Callable[[str, int, int], bool]

# When matches from several rules overlap they are merged into one redaction, named after the
# most specific rule involved: a GitHub token inside a git remote URL is reported as
# ``github-token`` rather than ``url-credentials``.
PROVIDER: Final = 100
PRIVATE_KEY: Final = 90
JWT: Final = 80
CONTEXTUAL: Final = 70
STRUCTURAL: Final = 60
ASSIGNMENT: Final = 50
ENTROPY: Final = 40

ALNUM: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
WORD: Final = ALNUM + "_"
TOKEN_CHARS: Final = WORD + "-"
BASE64_CHARS: Final = TOKEN_CHARS + "+/"


# The regex parser of the standard library (private, but stable since Python 3.11): it tells
# what a pattern must start with.
_SRE_PARSE: Any = importlib.import_module("re._parser")


# How many prefixes a character class may multiply a pattern's into (``:[0-9]`` makes 10,
# ``SK[0-9a-f]`` 16): a longer prefix lets the engine try far fewer places.
_MOST_PREFIXES: Final = 16
_REPEATS: Final = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})


def _class_chars(items: Any) -> list[str] | None:
    r"""The characters of a class (``[opr]``, ``[0-9]``), if it has few enough to list.

    ``None`` if it is negated, holds a category (``\d``, ``\s``) or has more than
    :data:`_MOST_PREFIXES` characters.
    """
    chars: list[str] = []
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            chars.append(chr(av))
        elif name == "RANGE" and av[1] - av[0] < _MOST_PREFIXES:
            chars += [chr(c) for c in range(av[0], av[1] + 1)]
        else:
            return None
    return chars if len(chars) <= _MOST_PREFIXES else None


def _prefixes(items: Any) -> list[str] | None:
    """The literal strings one of which every match of *items* starts with, if there are any."""
    out = [""]
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            out = [o + chr(av) for o in out]
            continue
        if name in {"AT", "ASSERT_NOT", "ASSERT"} and out == [""]:
            continue  # zero-width: anchors and look-arounds before anything
        chars = _class_chars(av) if name == "IN" else None
        if chars is not None and len(chars) * len(out) <= _MOST_PREFIXES:
            out = [o + c for o in out for c in chars]  # do[opr]_ -> doo_, dop_, dor_
            continue
        if name == "SUBPATTERN" and av[1] & re.IGNORECASE:
            pass  # (?i:...): its literals match either case
        elif name == "SUBPATTERN":
            inner = _prefixes(av[-1])
            if inner is not None:
                out = [o + i for o in out for i in inner]
        elif name in _REPEATS and av[0] >= 1:
            # At least once, so a match starts as the repeated part does (``:[0-9]{1,5}``).
            inner = _prefixes(av[2])
            if inner is not None:
                out = [o + i for o in out for i in inner]
        elif name == "BRANCH":
            branches = [_prefixes(b) for b in av[1]]
            if all(b is not None for b in branches):
                out = [o + i for o in out for b in branches for i in b or ()]
        break
    return None if any(not o for o in out) else out


def literal_prefixes(pattern: re.Pattern[str]) -> tuple[str, ...]:
    """Strings one of which every match of *pattern* starts with; empty if none is known.

    A rule whose prefixes are all absent from a text cannot match it, and ``str.__contains__``
    says so far faster than the regex engine: a 5,000-line correction is mostly code no
    provider prefix appears in.
    """
    if pattern.flags & re.IGNORECASE:
        return ()
    try:
        found = _prefixes(_SRE_PARSE.parse(pattern.pattern, pattern.flags))
    except (re.error, TypeError, ValueError, IndexError):
        return ()
    if not found:
        return ()
    # A needle that starts with a shorter one adds nothing: wherever it occurs, so does the
    # shorter one (authenticate / auth, getconnection / connect is not such a pair).
    unique = sorted(set(found), key=len)
    kept: list[str] = []
    for needle in unique:
        if not any(needle.startswith(shorter) for shorter in kept):
            kept.append(needle)
    return tuple(sorted(kept))


@attrs.frozen
class Rule:
    """One way a secret can look."""

    kind: str  # what to report, unless the classifier names a more precise kind
    priority: int
    # Every pattern names the part to replace ``secret`` (unless ``spans`` says otherwise).
    pattern: re.Pattern[str]
    classify: Classifier | None = None
    # Characters that may not come right before a match (see :func:`blocked`). A post-check
    # rather than a look-behind: a leading look-behind would disable the fast literal search.
    not_after: str = ""
    # Match against the ASCII-lowercased text (for case-insensitive names and headers).
    on_lowercase: bool = False
    # What to replace, when it is not the ``secret`` group: no span, no finding. A rule whose
    # spans decide alone needs no classifier (one that only asks whether there are spans
    # would compute them twice for every secret found).
    spans: SpanFinder | None = None
    # Skip matches that lie inside what an earlier rule already found (the entropy net runs
    # last and need not weigh every line of a PEM block the key rules took whole).
    skip_covered: bool = False
    # Every match lies inside a run of at least ``min_run`` characters from ``run_chars``
    # (the entropy net, Discord tokens): the engine then only searches such runs, found with
    # byte-level translation, which is many times faster than a regex over the whole text.
    run_chars: str = ""
    min_run: int = 0
    # How many characters before its run a match may start (``("`` before a quoted token),
    # and the characters one of which must stand right before the run ("" for any).
    run_lead: int = 0
    run_after: str = ""
    # A cheap necessary condition on a run, ``(text, start, end)``, for a match inside it to be
    # kept: the engine skips the run's regex and classifier when it fails. The same test the
    # classifier opens with, asked once a run and without a match object: in a correction of
    # code most long runs are identifiers the classifier rejects at once.
    run_check: RunCheck | None = None
    # The literal every match starts with is too common for the engine's index to pay (the
    # "[" of every subscript): the regex engine's own scan of the text is faster.
    scan_whole: bool = False
    # Literal prefixes one of which every match starts with (computed from the pattern).
    needles: tuple[str, ...] = attrs.field(init=False)

    # The needles lower-cased, when every one can be looked up in the engine's prefix index
    # (two ASCII characters or more); else empty.
    index_keys: tuple[str, ...] = attrs.field(init=False)

    @needles.default
    def _needles(self) -> tuple[str, ...]:
        return literal_prefixes(self.pattern)

    @index_keys.default
    def _index_keys(self) -> tuple[str, ...]:
        if not self.needles or not all(indexable(n) for n in self.needles):
            return ()
        return tuple(sorted({n.lower() for n in self.needles}))


def indexable(needle: str) -> bool:
    """Whether the engine's prefix index can hold *needle* (two ASCII characters or more)."""
    return len(needle) >= 2 and needle.isascii()


def blocked(subject: str, start: int, not_after: str) -> bool:
    r"""Whether the character before *start* is one of *not_after*, so a match there is not one.

    An escaped line break or tab counts as the break it stands for, not as the letter it ends
    with: in a logged ``b'...\r\nAuthorization: Token ...'`` or a JSON string holding
    ``"...\nghp_..."`` the name starts a line.
    """
    if not not_after or start == 0 or subject[start - 1] not in not_after:
        return False
    return not (start >= 2 and subject[start - 2] == "\\" and subject[start - 1] in "nrt")


def line_start(text: str, position: int, reach: int = 512) -> int:
    """Where the line holding *position* starts, looking back at most *reach* characters.

    Bounded, so that a rule asking this for every match on a megabyte-long line stays linear.
    """
    return max(text.rfind("\n", max(0, position - reach), position) + 1, position - reach, 0)


def line_end(text: str, position: int, reach: int = 512) -> int:
    """Where the line holding *position* ends, looking ahead at most *reach* characters."""
    end = text.find("\n", position, position + reach)
    return min(len(text), position + reach) if end < 0 else end


def lines_below(text: str, position: int, most: int) -> Iterator[tuple[int, str]]:
    """The lines from *position* on, at most *most* of them, each with where it starts.

    For rules that read the block under a match (a section's entries, a table's rows). Each
    line is looked for within 1,024 characters; a longer one, or the text's last, runs to the
    end of the text and ends the walk -- so a rule doing this for every match stays linear.
    """
    for _ in range(most):
        end = text.find("\n", position, position + 1024)
        yield position, text[position : len(text) if end < 0 else end]
        if end < 0:
            return
        position = end + 1


def first_value_span(entry: re.Match[str]) -> tuple[int, int] | None:
    """The span of the value an entry matched: its ``dq``, ``sq`` or ``bare`` group, first set."""
    for name in ("dq", "sq", "bare"):
        if entry.start(name) >= 0:
            return entry.span(name)
    return None


def group(m: re.Match[str], text: str, name: str) -> str | None:
    """Group *name* of *m*, read from *text* (the match may come from the lowercased copy)."""
    start, end = m.span(name)
    return None if start < 0 else text[start:end]


def has_entropy(value: str, *, need_upper: bool = True) -> bool:
    """Tell random-looking tokens from slugs such as ``sk-learn-compatible-wrapper``."""
    has_digit = any(c.isdigit() for c in value)
    has_lower = any(c.islower() for c in value)
    has_upper = any(c.isupper() for c in value)
    return has_digit and has_lower and (has_upper or not need_upper)


def check_entropy(kind: str, *, need_upper: bool = True) -> Classifier:
    """A classifier that accepts a provider-prefixed match only if its value looks random."""

    def classify(m: re.Match[str], text: str) -> str | None:
        value = text[m.start("secret") : m.end("secret")]
        return kind if has_entropy(value, need_upper=need_upper) else None

    return classify


def shannon_entropy(value: str) -> float:
    """Bits per character of *value*, as if each character were drawn independently."""
    if not value:
        return 0.0
    length = len(value)
    return -sum(n / length * math.log2(n / length) for n in Counter(value).values())


def provider(kind: str, pattern: str, not_after: str, classify: Classifier | None = None) -> Rule:
    """A rule for a token whose prefix names its provider (``ghp_``, ``xoxb-``, ``AKIA``)."""
    return Rule(kind, PROVIDER, re.compile(pattern), classify, not_after)


def _reach_back(text: str, start: int, chars: frozenset[str], most: int) -> int:
    limit = max(0, start - most)
    while start > limit and text[start - 1] in chars:
        start -= 1
    return start


def anchored(
    kind: str,
    pattern: str,
    *,
    back: str,
    least: int,
    most: int,
    priority: int = PROVIDER,
    on_lowercase: bool = False,
) -> Rule:
    """A rule for a token whose fixed literal sits in its middle (``...Q~...``, ``...:AA...``).

    The pattern starts at the literal, so the regex engine can search for it; the part
    before it -- *least* to *most* characters from *back* -- is read backwards afterwards, and
    must not continue past *most* (a longer run is some other token).
    """
    chars = frozenset(back)

    def start_of(m: re.Match[str], text: str) -> int | None:
        start = m.start("secret")
        begin = _reach_back(text, start, chars, most + 1)
        if not least <= start - begin <= most:
            return None
        return begin

    def classify(m: re.Match[str], text: str) -> str | None:
        return kind if start_of(m, text) is not None else None

    def spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
        begin = start_of(m, text)
        return [] if begin is None else [(begin, m.end("secret"))]

    return Rule(
        kind, priority, re.compile(pattern), classify, on_lowercase=on_lowercase, spans=spans
    )
