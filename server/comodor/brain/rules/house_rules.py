"""House rules: counting votes into rules, the in-memory rule cache, teaching and denials.

Every source of a rule speaks in :class:`~comodor.brain.models.Vote`s: a
correction, a config file, a count over the code, a denial, the user saying so.
:meth:`HouseRules.record_votes` stores them and refreshes the cache; how votes
become a rule is :func:`comodor.brain.rules.judgement.summarize`.

The cache (:attr:`HouseRules.rules`, an immutable tuple swapped whole) is what
hover, diagnostics and the playbook read, on any thread, without touching
SQLite. Every change of it is announced once as
:class:`~comodor.brain.events.RulesChanged`; rules that *became* confident are
also announced as :class:`~comodor.brain.events.RulesLearned`.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable

import attrs

from ..events import RuleForgotten, RulesChanged, RulesLearned
from ..models import MAX_STATEMENT_CHARS, Rule, Vote
from ..recall.text import terms
from ..redaction.redactor import redact
from ..shared import Shared
from ..store import VoteRow
from . import judgement as rules_module
from . import signals

MAX_DETAIL_CHARS = 500


@attrs.frozen
class Dimension:
    """A catalogued convention a taught statement names: its key, value and category."""

    key: str
    value: str
    category: str


class HouseRules:
    """The rules of one project (and the global scope), cached in memory."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.rules: tuple[Rule, ...] = ()
        """Every rule with a winning value, newest summary; replaced whole, never mutated."""
        self.refresh()

    # -- the cache ---------------------------------------------------------- #

    def refresh(self, touched: Collection[int] | None = None) -> bool:
        """Reload the cache from the brain; return whether anything changed.

        With *touched* (the rules a write of this process just changed), only those are
        read and summarized again: a vote changes its own rule and no other, and reloading
        every rule after each vote made the 800th rule taught cost 40 ms (a session's cost
        grew with the square of its rules). Without, everything is reloaded: what other
        processes wrote can be anywhere. Either way the cache is ordered by id.
        """
        shared = self.shared
        if touched is not None and not touched:
            return False
        ids = None if touched is None else sorted(touched)
        rows = shared.store.rules(shared.scopes, ids)
        fresh = [
            rule
            for rule in (rules_module.summarize(row, shared.store.voter) for row in rows)
            if rule.value
        ]
        with shared.lock:
            if touched is not None:
                fresh += [rule for rule in self.rules if rule.id not in touched]
            summarized = tuple(sorted(fresh, key=lambda rule: rule.id))
            if summarized == self.rules:
                return False
            self.rules = summarized
            shared.invalidate()
        shared.bus.emit(RulesChanged(summarized))
        return True

    def get(self, rule_id: int) -> Rule | None:
        return next((rule for rule in self.rules if rule.id == rule_id), None)

    def confident(self) -> list[Rule]:
        """Confident, active rules of every language: what exports and mirrors show.

        Unlike :meth:`active` this ignores ``learning.rules``: turning rules off for
        the playbook must not erase a committed file's contents.
        """
        return [rule for rule in self.rules if rule.confident and rule.active]

    def active(self, language: str | None = None) -> list[Rule]:
        """Confident, active rules that apply to ``language`` — from memory, no I/O."""
        return self._applying(language, contested=False)

    def contested(self, language: str | None = None) -> list[Rule]:
        """Active rules whose evidence disagrees, for ``language``: shown, never enforced."""
        return self._applying(language, contested=True)

    def _applying(self, language: str | None, *, contested: bool) -> list[Rule]:
        settings = self.shared.settings
        if not settings.enabled or not settings.rules:
            return []
        return [
            rule
            for rule in self.rules
            if rule.active
            and (rule.contested if contested else rule.confident)
            and rules_module.applies_to(rule, language)
        ]

    def markdown(self) -> str:
        """The confident house rules in the committed export format."""
        return rules_module.export_markdown(self.confident(), project=self.shared.project_scope)

    # -- votes ---------------------------------------------------------------- #

    def record_votes(
        self,
        votes: Iterable[Vote],
        origin: str,
        *,
        replace: bool = False,
        scope: str | None = None,
        announce: bool = True,
    ) -> list[Rule]:
        """Store evidence for rule dimensions; return the rules that became confident.

        ``origin`` identifies the evidence (``save:12``, ``scan``, ``denial:3``):
        one origin votes at most once per value. With ``replace``, the origin's
        earlier votes are dropped first (a project re-scan replaces, never adds).
        """
        shared = self.shared
        scope = scope or shared.write_scope
        before = {rule.id: rule for rule in self.rules}
        now = time.time()
        prepared = [
            (
                vote.key,
                scope,
                vote.language,
                vote.category,
                VoteRow(
                    value=vote.value,
                    statement=redact(vote.statement)[:MAX_STATEMENT_CHARS],
                    kind=vote.kind,
                    weight=float(vote.weight),
                    origin=origin,
                    detail=redact(vote.detail)[:MAX_DETAIL_CHARS],
                    created_at=now,
                ),
            )
            for vote in votes
        ]
        if not prepared and not replace:
            return []
        touched = shared.store.add_votes(
            prepared, replace_origin=origin if replace else None, replace_scope=scope
        )
        # A replacement drops the origin's votes wherever they were, which a team database
        # does not list among the touched rules: reload them all then (a project re-scan).
        self.refresh(None if replace else set(touched))
        newly: list[Rule] = []
        for rule in self.rules:
            if rule.id not in touched or not rule.confident:
                continue
            old = before.get(rule.id)
            if old is None or not old.confident or old.value != rule.value:
                newly.append(rule)
        if newly and announce and shared.settings.announce:
            shared.bus.emit(RulesLearned(tuple(newly)))
        return newly

    # -- what the user says ---------------------------------------------------- #

    def teach(self, statement: str, dimension: Dimension | None = None) -> Rule:
        """A rule the user states outright: confident at once, applies to every language.

        ``dimension`` is the catalogued convention the statement names, when the host
        recognised one ("Use single quotes for strings." is ``quotes.style = single``):
        the rule then has that key and value, so it is checked and counted like a
        learned one. The user's own words stay its statement.
        """
        clean = " ".join(redact(statement).split())  # redact first: rules need the line breaks
        if dimension is not None:
            key, value, category = dimension.key, dimension.value, dimension.category
        else:
            key = "user." + ("-".join(terms(clean)[:6]) or "rule")[:60]
            value, category = "yes", "preference"
        vote = Vote(
            key=key,
            value=value,
            statement=clean,
            category=category,
            language=None,
            kind="user",
            weight=3.0,
            detail="you told me directly",
        )
        self.record_votes([vote], origin="user", announce=False)  # announced below, as taught
        scope = self.shared.write_scope
        rule = next(
            r for r in self.rules if r.key == key and r.scope == scope and r.language is None
        )
        self.shared.bus.emit(RulesLearned((rule,), taught=True))
        return rule

    def add_exception(self, rule_id: int, place: str, detail: str = "") -> Rule | None:
        """The user said the rule does not apply at ``place`` ("Not here"): a vote against it.

        ``place`` is an opaque key the host chose for the spot (it identifies the vote,
        so saying it twice about one place counts once). Returns the rule as it is now,
        or None when there is no such rule.
        """
        rule = self.get(rule_id)
        if rule is None:
            return None
        vote = Vote(
            key=rule.key,
            value=f"not:{rule.value}",
            statement=rule.statement,
            category=rule.category,
            language=rule.language,
            kind=rules_module.EXCEPTION,
            weight=rules_module.EXCEPTION_WEIGHT,
            detail=detail,
        )
        origin = rules_module.EXCEPTION_ORIGIN + place[:200]
        self.record_votes([vote], origin=origin, scope=rule.scope, announce=False)
        return self.get(rule_id)

    def forget(self, rule_id: int) -> bool:
        removed = self.shared.store.delete_rule(rule_id)
        if removed:
            self.refresh()
            self.shared.bus.emit(RuleForgotten(rule_id))
        return removed

    def set_flags(
        self, rule_id: int, *, pinned: bool | None = None, active: bool | None = None
    ) -> bool:
        changed = self.shared.store.set_rule_flags(rule_id, pinned=pinned, active=active)
        if changed:
            self.refresh()
        return changed

    def on_denied(self, tool: str, subject: str, reason: str = "denied") -> list[Rule]:
        """A refused permission: a confident ``avoid`` rule ("ask first") for what was refused."""
        shared = self.shared
        if reason.strip().lower() in signals.NOT_DENIALS:
            return []  # a timeout or a cancellation says nothing about the user's wishes
        if not shared.settings.enabled or not shared.settings.corrections:
            return []
        clean = redact(subject)
        key = signals.denial_key(tool, clean)
        signal_id = shared.store.add_signal(
            "denial", shared.project_scope, f"{tool}: {clean[:500]}"
        )
        vote = Vote(
            key=key.key,
            value="ask",
            category="avoid",
            language=None,
            kind="denial",
            statement=key.statement,
            detail=f"you denied {tool} `{key.denied}`",
        )
        self.record_votes([vote], origin=f"denial:{signal_id}")
        return [rule for rule in self.rules if rule.key == key.key]
