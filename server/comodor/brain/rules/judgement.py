"""House rules: deciding a dimension's winning value, and writing rules down.

A rule is a *dimension* (``quotes.style``) with competing *values* (``single``,
``double``). Every piece of evidence is a vote for one value: a correction, a
fact from a config file, a count from the project's code, a denial, or the user
saying so. The winner is the value with the most weight; votes for any other
value count ``against`` it, so a user who changes their mind sees the rule turn
rather than two contradictory rules side by side.

Confidence is earned, not assumed: a rule learned from corrections needs two
agreeing corrections from two different saves and at least 70% agreement. One
correction might be a whim; two in different files is a habit.

**Confidence respects disagreement** (the one statement of the rule; ARCHITECTURE.md
points here). A value is confident only when its recency-weighted support exceeds
everything against it by more than one fresh correction (:data:`CONTESTED_MARGIN`).
When the user's own corrections (or "not here" exceptions) disagree and no value
clears that bar, the rule is *contested*: a tie (2 single then 2 double) or a lead
of one correction (3 then 2) shapes nothing, it is never a diagnostic and never in
a playbook, and hover and ``comodor.rules`` show it as contested with both sides'
evidence (``evidence`` for the leading value, ``opposition`` for the rest). Three
consistent corrections after a change of mind still turn the rule whatever came
before (2 single then 3 double: double is confident), because the older side is
then worth at most 0.65³/(1 − 0.65) ≈ 0.78 of a correction against 2.07. A rule the
user taught or pinned is never contested: they said so.

Recent corrections weigh more (:data:`RECENCY`): people change their minds, and a
rule that needed as many new corrections as it once had old ones would go on
telling the agent the wrong thing for weeks. ``support`` and ``against`` stay plain
totals and the evidence names both the recent run and the totals ("3 of the last 3
corrections · 3 of 8 in all"), so nothing is hidden by the weighing. A denial is the
exception: a user who refused a command once has said "ask me first".

On a team database several people vote on one rule. A correction is then an *event*
of one person (``voter`` and ``origin`` together: two people's ``save:12`` are two
corrections), the evidence says how many people stand behind the value when more
than one does ("3 corrections from 2 people · 100% agree"), and a fact about the
repository (a config file, a count over the code, a team file) read by several
people counts once.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import attrs

from ..models import Rule
from ..recall.text import estimate_tokens
from ..store import RuleRow, VoteRow

CONFIDENT_STRENGTH = 0.7
"""Minimum agreement for a rule to shape the assistant's behaviour."""
CONFIDENT_REPEATS = 2
"""Corrections (or denials) from distinct saves needed before a learned rule is confident."""
RECENCY = 0.65
"""What a correction's vote is worth for each later correction of the same dimension.

Counted in corrections, not in days: people correct in bursts and pauses, and a habit
is replaced by doing the other thing, not by waiting. With 0.65, whatever the history:

- one contrary correction leaves the old value at most 65% agreement, below
  :data:`CONFIDENT_STRENGTH`, so it stops being confident at once;
- three consistent corrections give the new value at least 1 - 0.65³ ≈ 72.5%, so a
  changed mind is confident within three corrections;
- one stray correction after two agreeing ones does not turn the rule's value
  (0.65 + 0.65² > 1).
"""
CONTESTED_MARGIN = 1.0
"""How far the winner's recency-weighted support must exceed the opposition's to be confident.

More than one fresh correction: with :data:`RECENCY`, two agreeing corrections after
two contrary ones lead by 1.65 − 0.70 = 0.95 (contested), three after two lead by
2.07 − 0.45 = 1.62 (confident), two agreeing ones with one "not here" by 1.15
(still confident, as :data:`EXCEPTION_WEIGHT` promises)."""
RECENT_WINDOW = 3
"""How many of the latest corrections the evidence speaks of when they disagree."""

REPEATS_PER_DENIAL = CONFIDENT_REPEATS
"""A denial counts as enough repeats on its own: a user who refused once said "ask first"."""

CONSENSUS = "consensus"
"""Votes of an overwhelming observation of the code: confident on their own, like a
config file, and their counts are the rule's evidence (see ``capture.observe``)."""
_STAND_ALONE = frozenset({"evidence", CONSENSUS})

_CORRECTIVE = ("correction", "denial")
EXCEPTION = "exception"
"""The kind of a "not here" vote: the user said a rule does not apply at one place.

It counts against the rule (in ``against`` and in the weighing, at
:data:`EXCEPTION_WEIGHT`) but is never a value of its own: a rule stops being
confident when exceptions rival its evidence, it never turns into "not X"."""
EXCEPTION_WEIGHT = 0.5
"""Half a correction: after two agreeing corrections, one exception leaves a rule
confident (77% agree) and a second one stops it (62%)."""
EXCEPTION_ORIGIN = "not-here:"
"""Exception votes carry origins ``not-here:<place>``, one vote per place."""
_FACTS = frozenset({"evidence", "observation", CONSENSUS})
TEAM_ORIGIN = "team:"
"""Votes read from a teammate's committed ``house-rules.md`` carry origins ``team:<file>``."""


def _event(vote: VoteRow) -> tuple[str, str]:
    """What one piece of evidence is: whose, and from where."""
    return (vote.voter, vote.origin)


def _one_per_fact(votes: Sequence[VoteRow]) -> tuple[VoteRow, ...]:
    """The votes, with a repository fact several people read counted once (the latest)."""
    latest: dict[tuple[str, str], int] = {}
    for position, vote in enumerate(votes):
        if vote.kind in _FACTS:
            seen = latest.get((vote.origin, vote.value))
            if seen is None or vote.created_at >= votes[seen].created_at:
                latest[(vote.origin, vote.value)] = position
    kept = set(latest.values())
    return tuple(
        vote for position, vote in enumerate(votes) if vote.kind not in _FACTS or position in kept
    )


def _people(votes: Sequence[VoteRow]) -> str:
    """`` from 2 people`` when more than one named person cast ``votes``; else nothing."""
    count = len({vote.voter for vote in votes if vote.voter})
    return f" from {count} people" if count > 1 else ""


def _timeline(votes: Sequence[VoteRow]) -> list[VoteRow]:
    """The corrective votes, oldest first (stored order breaks ties of the clock)."""
    order = sorted(range(len(votes)), key=lambda k: (votes[k].created_at, k))
    return [votes[k] for k in order if votes[k].kind in _CORRECTIVE]


def _weighed(votes: Sequence[VoteRow], timeline: Sequence[VoteRow]) -> dict[str, float]:
    """Each value's weight, corrections discounted by how many corrections came after.

    Without corrections every vote counts at its own weight. With them, a count over
    the code stops counting for the weighing: it describes the code as it was, often
    as the agent wrote it, while a correction is the user saying what they want (it
    still counts in ``support``/``against``). Config files and words from the user
    keep their full weight: they are statements, not history.
    """
    weights: dict[str, float] = {}
    if not timeline:
        for vote in votes:
            weights[vote.value] = weights.get(vote.value, 0.0) + vote.weight
        return weights
    newest_first = list(dict.fromkeys(_event(vote) for vote in reversed(timeline)))
    later = {event: rank for rank, event in enumerate(newest_first)}
    for vote in votes:
        if vote.kind in _CORRECTIVE:
            weight = vote.weight * RECENCY ** later[_event(vote)]
        elif vote.kind == "observation":
            continue
        else:
            weight = vote.weight
        weights[vote.value] = weights.get(vote.value, 0.0) + weight
    return weights


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _corrective_evidence(timeline: Sequence[VoteRow], value: str, agree: str, noun: str) -> str:
    """``2 corrections · 100% agree``, or the recent run next to the totals when they differ.

    A rule that turned after a change of mind says so in counts a user can check:
    ``3 of the last 3 corrections · 3 of 8 in all``.
    """
    by_event = {_event(vote): vote.value for vote in timeline}
    newest_first = list(dict.fromkeys(_event(vote) for vote in reversed(timeline)))
    total = len(newest_first)
    agreeing = sum(1 for event in newest_first if by_event[event] == value)
    people = _people([vote for vote in timeline if vote.value == value])
    if agreeing == total:
        return f"{_plural(agreeing, noun)}{people} · {agree}"
    if total <= RECENT_WINDOW:
        return f"{agreeing} of {_plural(total, noun)}{people}"
    recent = sum(1 for event in newest_first[:RECENT_WINDOW] if by_event[event] == value)
    return f"{recent} of the last {RECENT_WINDOW} {noun}s · {agreeing} of {total} in all{people}"


def summarize(row: RuleRow, me: str = "") -> Rule:
    """Fold a dimension's votes into the rule a user sees (``me``: whose "you" it is)."""
    row = attrs.evolve(row, votes=_one_per_fact(row.votes))
    totals: dict[str, float] = {}
    latest: dict[str, VoteRow] = {}
    exceptions = [vote for vote in row.votes if vote.kind == EXCEPTION]
    for vote in row.votes:
        if vote.kind == EXCEPTION:
            continue
        totals[vote.value] = totals.get(vote.value, 0.0) + vote.weight
        previous = latest.get(vote.value)
        if previous is None or vote.created_at >= previous.created_at:
            latest[vote.value] = vote
    if not totals:
        return Rule(
            key=row.key,
            scope=row.scope,
            value="",
            category=row.category,
            statement="",
            language=row.language,
            id=row.id,
            pinned=row.pinned,
            active=row.active,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )
    voting = [vote for vote in row.votes if vote.kind != EXCEPTION]
    timeline = _timeline(voting)
    weights = _weighed(voting, timeline)
    value = max(weights, key=lambda candidate: (weights[candidate], latest[candidate].created_at))
    dissent = sum(vote.weight for vote in exceptions)
    support = totals[value]
    against = sum(totals.values()) - support + dissent
    weighed_total = sum(weights.values()) + dissent
    strength = weights[value] / weighed_total if weighed_total else 0.0
    winning = [vote for vote in row.votes if vote.value == value]
    kinds = {vote.kind for vote in winning}
    corrections = len({_event(vote) for vote in winning if vote.kind == "correction"})
    denials = len({_event(vote) for vote in winning if vote.kind == "denial"})

    if "user" in kinds:
        source = "user"
    elif corrections or denials:
        source = "correction"
    elif "evidence" in kinds:
        source = "evidence"
    else:
        source = "observation"

    repeats = corrections + denials * REPEATS_PER_DENIAL
    opposed = weighed_total - weights[value]
    clear_lead = opposed <= 0 or weights[value] - opposed > CONTESTED_MARGIN
    confident = (
        row.pinned
        or source == "user"
        or (
            strength >= CONFIDENT_STRENGTH
            and clear_lead
            and (repeats >= CONFIDENT_REPEATS or not kinds.isdisjoint(_STAND_ALONE))
        )
    )
    disagreement = bool(exceptions) or len({vote.value for vote in timeline}) > 1
    contested = not confident and disagreement
    agree = f"{round(strength * 100)}% agree"
    if source == "user":
        evidence = _taught_by(winning, me)
    elif corrections:
        evidence = _corrective_evidence(
            [vote for vote in timeline if vote.kind == "correction"], value, agree, "correction"
        )
    elif denials:
        evidence = _corrective_evidence(
            [vote for vote in timeline if vote.kind == "denial"], value, agree, "denial"
        )
    elif "evidence" in kinds:
        sources = sorted(
            {vote.detail.split(":", 1)[0] for vote in winning if vote.kind == "evidence"}
        )
        evidence = f"{', '.join(sources)[:60] or 'project config'} · {agree}"
    elif CONSENSUS in kinds:
        evidence = f"{consensus_counts(winning)} · {agree}"
    else:
        count = sum(1 for vote in winning if vote.kind == "observation")
        evidence = f"{count} observation{'s' if count != 1 else ''} of the code · {agree}"

    if exceptions:
        evidence += f" · {_plural(len(exceptions), 'exception')}"
    team = all(vote.origin.startswith(TEAM_ORIGIN) for vote in winning)
    details = [vote.detail for vote in sorted(winning, key=lambda v: v.created_at) if vote.detail]
    detail = "; ".join(dict.fromkeys(details[-3:]))
    return Rule(
        key=row.key,
        scope=row.scope,
        value=value,
        category=row.category,
        statement=latest[value].statement,
        language=row.language,
        detail=detail[:500],
        source=source,
        support=support,
        against=against,
        corrections=corrections + denials,
        confident=confident,
        pinned=row.pinned,
        active=row.active,
        id=row.id,
        created_at=row.created_at,
        updated_at=row.updated_at,
        evidence=evidence,
        team=team,
        contested=contested,
        opposition=_opposition(row.votes, value, exceptions) if contested else "",
        weighed_strength=strength,
        exceptions=tuple(
            vote.origin[len(EXCEPTION_ORIGIN) :]
            for vote in exceptions
            if vote.origin.startswith(EXCEPTION_ORIGIN)
        ),
    )


def _opposition(votes: Sequence[VoteRow], value: str, exceptions: Sequence[VoteRow]) -> str:
    """The other side of a contested rule in counts: ``2 corrections for single · 1 exception``.

    Only the user's own evidence against the winner is named (corrections, denials,
    "not here"): what the code happened to look like is not a side the user took.
    """
    events: dict[str, dict[str, set[tuple[str, str]]]] = {}
    for vote in votes:
        if vote.value != value and vote.kind in _CORRECTIVE:
            events.setdefault(vote.value, {}).setdefault(vote.kind, set()).add(_event(vote))
    parts = [
        f"{_plural(len(found), kind)} for {other}"
        for other, by_kind in sorted(
            events.items(), key=lambda item: -sum(map(len, item[1].values()))
        )
        for kind, found in sorted(by_kind.items())
    ]
    if exceptions:
        parts.append(_plural(len(exceptions), "exception"))
    return " · ".join(parts)


def _taught_by(votes: Sequence[VoteRow], me: str) -> str:
    """``taught by you``, or by the teammates who said it (when ``me`` is known)."""
    others = sorted({vote.voter for vote in votes if vote.kind == "user" and vote.voter} - {me, ""})
    if not me or not others or any(v.kind == "user" and v.voter in (me, "") for v in votes):
        return "taught by you"
    return f"taught by {', '.join(others[:3])}"


def export_meta_key(target: Path) -> str:
    """Brain meta key remembering the digest of the rules file we last wrote at ``target``."""
    return f"rules-export:{target.resolve()}"


def text_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def consensus_counts(votes: Sequence[VoteRow]) -> str:
    """The counts of the latest overwhelming observation: ``482 of 485 strings in 24 files``."""
    latest = max((vote for vote in votes if vote.kind == CONSENSUS), key=lambda v: v.created_at)
    counts, _, _ = latest.detail.partition(" files ")
    return f"{counts} files" if counts != latest.detail else latest.detail[:80]


def applies_to(rule: Rule, language: str | None) -> bool:
    """A rule with no language applies everywhere; otherwise only to its language."""
    return rule.language is None or language is None or rule.language == language


def rule_line(rule: Rule) -> str:
    where = f"{rule.language}; " if rule.language else ""
    team = "team rule from the repository; " if rule.team else ""
    return f"- {rule.statement} ({team}{where}{rule.evidence})"


RULES_HEADER = "House rules (counted from this user's own corrections and settings; follow them):"
TEAM_HEADER = (
    "Team rules (read from the repository's committed house-rules.md, not said by this user; "
    "the project's stated conventions, to follow unless the user says otherwise):"
)


def render_rules(rules: Sequence[Rule], max_tokens: int) -> str:
    """The rules block of a playbook, whole entries only, within its own budget.

    The user's own rules come first under a heading that says whose they are; rules
    that only a repository's file stands behind sit under their own heading, so an
    assistant never mistakes a cloned repository's text for the user's wishes.
    """
    if not rules or max_tokens <= 0:
        return ""
    ordered = sorted(rules, key=lambda rule: (rule.team, not rule.pinned, -rule.support, rule.id))
    blocks: list[list[str]] = []
    used = 0
    for rule in ordered:
        header = TEAM_HEADER if rule.team else RULES_HEADER
        line = rule_line(rule)
        cost = estimate_tokens(line) + (
            estimate_tokens(header) if not blocks or blocks[-1][0] != header else 0
        )
        if used + cost > max_tokens:
            continue  # a shorter rule further down may still fit
        if not blocks or blocks[-1][0] != header:
            blocks.append([header])
        blocks[-1].append(line)
        used += cost
    return "\n\n".join("\n".join(block) for block in blocks)


_CATEGORY_TITLES = {
    "style": "Style",
    "workflow": "Workflow",
    "preference": "Preferences",
    "avoid": "Avoid",
}
_MARKER = re.compile(
    r"<!--\s*comodor:\s*(?P<key>[^=\s]+)=(?P<value>\S*)(?:\s+lang=(?P<lang>\S+))?\s*-->"
)


def export_markdown(rules: Sequence[Rule], project: str = "") -> str:
    """House rules as Markdown, grouped by category, each with its evidence.

    The format is meant to be committed: a reviewer can judge each rule by its
    evidence, and :func:`parse_markdown` reads it back as a teammate's rules.
    """
    lines = ["# House rules", ""]
    if project:
        lines += [f"Learned by Comodor for {project}.", ""]
    lines += [
        "Each rule shows the evidence behind it and how much of that evidence agrees.",
        "",
    ]
    for category, title in _CATEGORY_TITLES.items():
        chosen = [rule for rule in rules if rule.category == category]
        if not chosen:
            continue
        lines += [f"## {title}", ""]
        for rule in sorted(chosen, key=lambda r: (r.language or "", r.key)):
            where = f"{rule.language} · " if rule.language else ""
            marker = f"<!-- comodor: {rule.key}={rule.value}"
            marker += f" lang={rule.language} -->" if rule.language else " -->"
            lines.append(f"- {rule.statement} — *{where}{rule.evidence}* {marker}")
        lines.append("")
    if len(lines) <= 5:
        lines += ["No confident house rules yet.", ""]
    return "\n".join(lines)


def parse_markdown(text: str) -> list[tuple[str, str, str | None, str, str]]:
    """Read an exported rules file back: ``(key, value, language, category, statement)``."""
    category = "preference"
    titles = {title.lower(): name for name, title in _CATEGORY_TITLES.items()}
    found: list[tuple[str, str, str | None, str, str]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("## "):
            category = titles.get(stripped[3:].strip().lower(), "preference")
            continue
        if not stripped.startswith("- "):
            continue
        marker = _MARKER.search(stripped)
        if marker is None:
            continue
        statement = stripped[2:].split(" — ", 1)[0].strip()
        if statement:
            found.append((marker["key"], marker["value"], marker["lang"], category, statement))
    return found
