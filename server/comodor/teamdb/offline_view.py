"""What a team brain answers with while its database is unreachable.

Two layers, both in memory:

* the **mirror**: the team rows this process last read (lessons with their recall
  terms, rules with their votes, skills). Every read that reaches the database
  refreshes it. Building the recall index reads no lesson text (index rows, or the
  team snapshot), so the mirror holds the lessons this server actually read —
  recall's winners, lists, searches — not a copy of all 200,000: that is what a
  server can show of a lesson's text while the database is away;
* the **overlay**: what is queued in the outbox and not yet sent — lessons taught,
  votes cast, pins, flags and deletions — folded over the mirror, so a user who
  teaches a rule during an outage sees it at once (under a pending id).

Hover, diagnostics and the playbook's ranking never needed the database (the rule
cache and the recall index are in memory); with this, neither do the rules list,
search, or the texts of the lessons this server has read. A server *started* during
an outage has no mirror: it shows the local file and its own queued writes until the
database is back.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from ..brain.models import Lesson, Skill
from ..brain.recall.text import terms as text_terms
from ..brain.recall.text import trigger_prefix
from ..brain.store.outbox import Entry, pending_id
from ..brain.store.rows import RuleRow, VoteRow


def lesson_from_args(args: dict[str, Any], lesson_id: int = 0) -> Lesson:
    values = dict(args)
    if lesson_id:
        values["id"] = lesson_id
    return Lesson(**values)


def index_row(lesson: Lesson, terms: str) -> tuple[Any, ...]:
    return (
        lesson.id,
        lesson.scope,
        terms,
        lesson.confidence,
        lesson.wins,
        lesson.losses,
        lesson.created_at,
        lesson.last_success,
        int(lesson.pinned),
        trigger_prefix(lesson.trigger, terms.split()),
    )


def dimensions(votes: Iterable[Sequence[Any]]) -> list[tuple[str, str, str]]:
    """The distinct ``(key, scope, language)`` an ``add_votes`` entry votes on, in order."""
    return list(dict.fromkeys((v[0], v[1], v[2] or "") for v in votes))


@attrs.define
class Overlay:
    """Queued writes folded into rows: lessons, votes, flags, deletions."""

    lessons: dict[int, tuple[Lesson, str]] = attrs.Factory(dict)
    deleted_lessons: set[int] = attrs.Factory(set)
    pinned: dict[int, bool] = attrs.Factory(dict)
    votes: list[tuple[int, tuple[str, str, str], str, VoteRow]] = attrs.Factory(list)
    """(pending rule id if new, dimension, category, vote)"""
    replaced: list[tuple[str, str]] = attrs.Factory(list)
    """(origin, scope) whose earlier votes of ours a queued re-scan replaces"""
    rule_flags: dict[int, dict[str, bool]] = attrs.Factory(dict)
    deleted_rules: set[int] = attrs.Factory(set)


def fold(entries: Sequence[Entry], voter: str) -> Overlay:
    """The overlay of the queued ``entries`` (oldest first)."""
    overlay = Overlay()
    for entry in entries:
        args = entry.args
        if entry.name == "add_lesson":
            lesson = lesson_from_args(args["lesson"], pending_id(entry.seq))
            overlay.lessons[lesson.id] = (lesson, args["terms"])
        elif entry.name == "delete_lesson":
            overlay.deleted_lessons.add(args["lesson_id"])
        elif entry.name == "delete_lessons":
            overlay.deleted_lessons.update(args["ids"])
        elif entry.name == "set_pinned":
            overlay.pinned[args["lesson_id"]] = args["pinned"]
        elif entry.name == "add_votes":
            if args.get("replace_origin") is not None:
                overlay.replaced.append((args["replace_origin"], args["replace_scope"]))
            ids = {dim: pending_id(entry.seq, k) for k, dim in enumerate(dimensions(args["votes"]))}
            for key, scope, language, category, vote in args["votes"]:
                dim = (key, scope, language or "")
                row = VoteRow(**{**vote, "voter": voter})
                overlay.votes.append((ids[dim], dim, category, row))
        elif entry.name == "set_rule_flags":
            flags = {k: args[k] for k in ("pinned", "active") if args.get(k) is not None}
            overlay.rule_flags.setdefault(args["rule_id"], {}).update(flags)
        elif entry.name == "delete_rule":
            overlay.deleted_rules.add(args["rule_id"])
    return overlay


class Mirror:
    """The last-known team rows, refreshed by every read that reached the database."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.lessons: dict[int, tuple[Lesson, str]] = {}
        self.rules: dict[int, RuleRow] = {}
        self.skills: dict[int, Skill] = {}
        self._skill_scopes: frozenset[str] = frozenset()
        """Scopes whose skills were read since the last change announced on the database."""

    # -- refreshing ------------------------------------------------------------ #

    def put_lessons(self, found: Iterable[tuple[Lesson, str | None]]) -> None:
        with self._lock:
            for lesson, terms in found:
                known = self.lessons.get(lesson.id)
                kept = terms if terms is not None else (known[1] if known else None)
                if kept is None:
                    kept = " ".join(text_terms(lesson.text))
                self.lessons[lesson.id] = (lesson, kept)

    def forget_lessons(self, ids: Iterable[int]) -> None:
        with self._lock:
            for lesson_id in ids:
                self.lessons.pop(lesson_id, None)

    def put_rules(self, rows: Sequence[RuleRow], scopes: Sequence[str] | None) -> None:
        with self._lock:
            if scopes is not None:
                wanted = set(scopes)
                for rule_id in [i for i, r in self.rules.items() if r.scope in wanted]:
                    del self.rules[rule_id]
            for row in rows:
                self.rules[row.id] = row

    def put_skills(self, skills: Sequence[Skill], scopes: Sequence[str]) -> None:
        with self._lock:
            self._skill_scopes = frozenset(scopes)
            wanted = set(scopes)
            for skill_id in [i for i, s in self.skills.items() if s.scope in wanted]:
                del self.skills[skill_id]
            for skill in skills:
                self.skills[skill.id] = skill

    def skills_fresh(self, scopes: Sequence[str]) -> bool:
        """Whether the skills of ``scopes`` were read after the last change anyone made."""
        with self._lock:
            return set(scopes) <= self._skill_scopes

    def stale(self) -> None:
        """A change was committed (by anyone): skills are read again next time."""
        with self._lock:
            self._skill_scopes = frozenset()

    def known_lessons(self, ids: Iterable[int]) -> dict[int, Lesson]:
        with self._lock:
            return {i: self.lessons[i][0] for i in ids if i in self.lessons}

    # -- answering with the overlay folded in -------------------------------------- #

    def lesson_view(self, overlay: Overlay) -> dict[int, tuple[Lesson, str]]:
        with self._lock:
            view = dict(self.lessons)
        view.update(overlay.lessons)
        for lesson_id in overlay.deleted_lessons:
            view.pop(lesson_id, None)
        for lesson_id, pinned in overlay.pinned.items():
            if lesson_id in view:
                lesson, terms = view[lesson_id]
                view[lesson_id] = (attrs.evolve(lesson, pinned=pinned), terms)
        return view

    def rule_view(self, overlay: Overlay, voter: str) -> dict[int, RuleRow]:
        with self._lock:
            view = dict(self.rules)
        for origin, scope in overlay.replaced:
            for rule_id, row in list(view.items()):
                if row.scope == scope:
                    kept = tuple(
                        v for v in row.votes if not (v.origin == origin and v.voter == voter)
                    )
                    view[rule_id] = attrs.evolve(row, votes=kept)
        by_dim = {(r.key, r.scope, r.language or ""): r.id for r in view.values()}
        for pending, dim, category, vote in overlay.votes:
            known = by_dim.get(dim)
            if known is not None:
                rule_id = known
            else:
                key, scope, language = dim
                row = RuleRow(
                    pending, key, scope, language or None, category, False, True,
                    vote.created_at, vote.created_at, (),
                )  # fmt: skip
                view[pending] = row
                by_dim[dim] = rule_id = pending
            row = view[rule_id]
            others = tuple(
                v
                for v in row.votes
                if (v.voter, v.origin, v.value) != (vote.voter, vote.origin, vote.value)
            )
            view[rule_id] = attrs.evolve(row, votes=(*others, vote))
        for rule_id, flags in overlay.rule_flags.items():
            if rule_id in view:
                current = view[rule_id]
                view[rule_id] = attrs.evolve(
                    current,
                    pinned=flags.get("pinned", current.pinned),
                    active=flags.get("active", current.active),
                )
        for rule_id in overlay.deleted_rules:
            view.pop(rule_id, None)
        return view

    def skill_list(self, scopes: Sequence[str]) -> list[Skill]:
        wanted = set(scopes)
        with self._lock:
            return sorted(
                (s for s in self.skills.values() if s.scope in wanted), key=lambda s: s.id
            )
