"""Scrub secrets out of text before Comodor stores, logs, sends or writes it.

Comodor remembers what happens in a workspace: lesson text, rule details, task goals, diffs,
chat messages, the subjects of denied actions, checkpoints of files. All of that is copied out
of editors, terminals and config files, which is exactly where credentials live. The invariant
this module exists to uphold is:

    **No secret reaches the brain file** (nor any other file the product writes, nor a model).

So every string is passed through :func:`redact` on its way out, *before* anything else
touches it (lower-casing or cutting a text first would leave fragments no rule recognises).
A leaked lesson file is then an embarrassment, not an incident.

What a secret looks like is the catalogue in :mod:`comodor.brain.redaction`: known provider
prefixes, key material, values *named* like a secret (assignments, config lines, flags, URL
user-info, headers) and random-looking tokens. This module is the engine: it runs the rules,
merges overlapping findings and writes the markers.

* Replacements look like ``[REDACTED:<kind>]``. Assignments keep their name and operator
  (``password = [REDACTED:password]``), URLs their scheme and host, headers their name and
  scheme, so redacted text stays readable.
* A secret found once is redacted wherever the text repeats it, and a secret that ends a
  terminal-wide line takes the wrapped rest of it on the lines after.
* Markers are never matched again, and the redacted text is re-scanned until nothing new turns
  up, so :func:`redact` is idempotent: ``redact(redact(x)) == redact(x)``.
* Speed and safety on hostile input (a pasted log can be megabytes): patterns start with a
  literal where they can, so the regex engine skips ahead with a substring search;
  case-insensitive rules run on a position-preserving lowercase copy of the text;
  repetitions are possessive or over classes the next token cannot match, and classifiers
  look a bounded distance around a match. Time is linear in the input (``bench/redaction.py``
  measures it on 10 MB).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from . import RULES
from .base import MARKER_PREFIX, Rule, line_end, line_start
from .matching import Candidate, SecretMatch, candidates, merge, read
from .rules.net import PICKED, shape
from .views import gutter_view, percent_view

__all__ = ["MARKER_PREFIX", "SecretMatch", "contains_secret", "cut", "find_secrets", "redact"]


def _require_str(text: object, function: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{function}() argument 'text' must be str, not {type(text).__name__}")
    return text


def _replace(text: str, matches: list[SecretMatch]) -> str:
    parts: list[str] = []
    position = 0
    for match in matches:
        parts.append(text[position : match.start])
        parts.append(f"{MARKER_PREFIX}{match.kind}]")
        position = match.end
    parts.append(text[position:])
    return "".join(parts)


def _to_original(found: list[SecretMatch], applied: list[SecretMatch]) -> list[SecretMatch]:
    """Map matches found in the redacted text back to positions in the original text.

    *found* never overlaps a marker, so each match sits between two of *applied*'s markers and
    moves by the length difference accumulated up to there.
    """
    marker_ends: list[int] = []
    shifts: list[int] = []
    shift = 0
    for match in applied:
        marker_length = len(MARKER_PREFIX) + len(match.kind) + 1
        marker_ends.append(match.start + shift + marker_length)
        shift += marker_length - (match.end - match.start)
        shifts.append(shift)
    mapped: list[SecretMatch] = []
    for match in found:
        i = bisect.bisect_right(marker_ends, match.start)
        offset = shifts[i - 1] if i else 0
        mapped.append(SecretMatch(match.kind, match.start - offset, match.end - offset))
    return mapped


def _found(text: str, rules: Sequence[Rule]) -> list[SecretMatch]:
    """Every secret in *text*, read as it is, behind its lines' gutters, and URL-decoded.

    A credential file shown as a diff, quoted in a chat, numbered in a code view or logged
    keeps its secret where no rule that reads a line from its start would look, and one
    escaped into a URL where no rule sees its name; the second readings (:mod:`.views`) find
    them, and add to what the first found. Then what was found
    is looked for again where the text repeats it or a terminal wrapped it.
    """
    found, lines = read(text, rules)
    for view in (gutter_view(text, lines), percent_view(text)):
        if view is not None:
            found += [
                (view.to_text(start), view.to_text(end), priority, kind)
                for start, end, priority, kind in candidates(view.text, rules)
            ]
    found += _echoes(text, found)
    return merge(found + _wrapped(text, found))


# A terminal wraps a line at its width (80 columns and up, mostly); a line this wide that a
# secret ends may go on on the next.
_LEAST_WRAP = 64
# A draw's characters (base64 and base64url, ``=`` only as its padding): ``DEBUG=false`` on the
# line after is a setting.
_WRAPPED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/")


def _wrapped(text: str, found: list[Candidate]) -> list[Candidate]:
    """The rest of a secret a terminal wrapped onto the lines after it.

    A found secret that ends a line as wide as a terminal (64 columns or more) goes on on the
    next line when that line is one token of a secret's characters, no wider, drawn (letters
    with digits, or both cases): ``printenv`` pasted from an 80-column window, the key's last
    19 characters alone on a line. And on again while each line fills the width.
    """
    wrapped: list[Candidate] = []
    for start, found_end, _, kind in found:
        end = found_end
        width = end - line_start(text, start, 4096)
        if width < _LEAST_WRAP or not text.startswith("\n", end):
            continue
        while True:
            stop = line_end(text, end + 1, width + 1)
            piece = text[end + 1 : stop].rstrip("\r")
            if not _continues(piece, width):
                break  # a longer line, a blank one, code: the secret ended with its line
            wrapped.append((end + 1, end + 1 + len(piece), 0, kind))
            if len(piece) < width:
                break
            end = stop
    return wrapped


def _continues(piece: str, width: int) -> bool:
    """Whether a line may be a wrapped secret's rest: one token, no wider, drawn characters."""
    return (
        4 <= len(piece) <= width
        and all(c in _WRAPPED for c in piece.rstrip("="))
        and any(c.isalpha() for c in piece)
        and (any(c.isdigit() for c in piece) or (not piece.islower() and not piece.isupper()))
        and MARKER_PREFIX not in piece
    )


# A found secret this long is found wherever else the text repeats it; shorter ones (a PIN, a
# word a rule took after ``password:``) may be ordinary text elsewhere.
_LEAST_ECHOED = 12
_ALONE = "random-token"
_QUOTES = "\"'`"


def _echoes(text: str, found: list[Candidate]) -> list[Candidate]:
    """Every other place *text* repeats a secret found in it, with the same kind.

    A secret is often written twice -- a tool prints a new key and the next command uses it
    (``headscale preauthkeys create`` then ``--authkey <key>``), a log echoes the value a
    config line set -- and only one of the places may say what it is. Once one place has, the
    value itself is known to be a secret wherever it stands -- if it has a credential's shape
    alone (:func:`.rules.net.shape`): a word or an identifier some rule took near a secret's name is
    not echoed through the rest of the text.
    """
    echoes: list[Candidate] = []
    quoted = {text[start:end]: kind for start, end, _, kind in found}
    for secret, kind in {value.strip(_QUOTES): kind for value, kind in quoted.items()}.items():
        if kind == _ALONE:
            continue  # the entropy net judges a value by itself: it finds the repeats itself
        if len(secret) < _LEAST_ECHOED or MARKER_PREFIX in secret or shape(secret) < PICKED:
            continue  # short, or not a credential's shape alone (an identifier a rule took)
        at = text.find(secret)
        while at >= 0:
            echoes.append((at, at + len(secret), 0, kind))
            at = text.find(secret, at + len(secret))
    return echoes


def _scan(text: str, rules: Sequence[Rule] = RULES) -> tuple[list[SecretMatch], str]:
    """Find the secrets in *text* and redact them, until redacting again would change nothing.

    Redacting one secret can expose another: a key glued to the end of another token fails
    its word-boundary check until its neighbour has become a marker. So the redacted text is
    scanned again and whatever turns up is mapped back and added. This is what guarantees
    ``redact(redact(x)) == redact(x)``; for the usual text it costs one extra scan when a
    secret was found and nothing when none was.
    """
    matches = _found(text, rules)
    redacted = _replace(text, matches) if matches else text
    while matches:
        more = _found(redacted, rules)
        if not more:
            break
        matches = merge(
            [
                (m.start, m.end, 0, m.kind)
                for m in sorted([*matches, *_to_original(more, matches)], key=lambda m: m.start)
            ]
        )
        redacted = _replace(text, matches)
    return matches, redacted


def find_secrets(text: str) -> list[SecretMatch]:
    """Return the secrets in *text*, in order, without overlaps.

    Overlapping findings (a token inside a URL, a key inside a quoted assignment) are merged
    into one match covering all of them, named after the most specific kind involved.
    Replacing exactly these spans is what :func:`redact` does.
    """
    _require_str(text, "find_secrets")
    return _scan(text)[0]


def redact(text: str, *, rules: Sequence[Rule] = RULES) -> str:
    """Return *text* with every secret replaced by ``[REDACTED:<kind>]``.

    Assignments keep their name and operator (``password = [REDACTED:password]``) and URLs keep
    their scheme and host (``https://[REDACTED:url-credentials]@example.com/``), so redacted
    text stays readable. ``redact(redact(x)) == redact(x)``.

    *rules* is the whole catalogue; a part of it (:data:`comodor.brain.redaction.LAST_LINE`)
    is passed only to measure what that part catches alone.
    """
    _require_str(text, "redact")
    return _scan(text, rules)[1]


def contains_secret(text: str) -> bool:
    """Whether :func:`redact` would change *text*."""
    _require_str(text, "contains_secret")
    return bool(_found(text, RULES))


def cut(text: str, limit: int) -> str:
    """*text* cut to at most *limit* characters, never in the middle of a marker.

    Cutting redacted text through ``[REDACTED:aws-access-key]`` would leave a stump that no
    longer says what was there; the cut moves back to before the marker instead.
    """
    if len(text) <= limit:
        return text
    start = text.rfind(MARKER_PREFIX, max(0, limit - 64), limit + len(MARKER_PREFIX))
    if 0 <= start < limit and not 0 <= text.find("]", start) < limit:
        return text[:start]
    return text[:limit]
