"""The learning engine: what makes an assistant better the more it is used.

The cycle, once per task:

1. **Fold in** what the user did since the last task (corrections, undos), so a
   correction made a minute ago already shapes the request being typed now.
2. **Recall** the lessons and house rules worth spending context on, and render
   them as a playbook under a hard token cap.
3. **Credit**: whatever was recalled shares the task's outcome. A success is a
   win for those lessons, a failure a loss; trust moves accordingly.
4. **Reflect** (optional, in the background): a model reads the finished task
   and proposes lessons; restatements merge into what is already known.
5. **Consolidate**: untrusted and long-unused lessons decay away.

Everything recalled is also *shown* to the user (hover, views, notifications): a
memory you cannot inspect is one you cannot trust.

This module holds no editor, protocol or network code. It is thread-safe: the
language server calls it from worker threads, never from its event loop.
"""

from __future__ import annotations

import hashlib
import logging
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import attrs

from comodor.brain import rules as rules_module
from comodor.brain import signals
from comodor.brain.blobs import BlobStore
from comodor.brain.errors import InvalidInput
from comodor.brain.events import EventBus
from comodor.brain.holdout import withhold_memory
from comodor.brain.index import IndexedLesson, RecallIndex
from comodor.brain.lessons_md import lesson_line
from comodor.brain.models import (
    LESSON_KINDS,
    MESSAGE_ROLES,
    Episode,
    EpisodeSummary,
    Lesson,
    Message,
    ProposedLesson,
    Rule,
    Skill,
    Vote,
)
from comodor.brain.progress import Progress, analyse
from comodor.brain.redact import redact
from comodor.brain.store import BrainStore, VoteRow
from comodor.brain.text import estimate_tokens, same_meaning, terms, words
from comodor.settings import LearningSettings

log = logging.getLogger(__name__)

PLAYBOOK_HEADER = (
    "Learned playbook: what earlier tasks in this project established. Treat these as "
    "strong priors, not orders; if what you observe contradicts one, trust the observation "
    "and say so."
)
MAX_TEACH_CHARS = 2000
MAX_STATEMENT_CHARS = 300
MAX_QUERY_CHARS = 20_000
MAX_NOTE_CHARS = 2000
MAX_MESSAGES = 2000
MERGE_THRESHOLD = 0.55
MERGE_BOOST = 0.08
MERGE_CEILING = 0.98
PREFETCH_SLOTS = 16


class VoteLike(Protocol):
    """Evidence for one value of a rule dimension (see ``comodor.capture.votes.Vote``)."""

    @property
    def key(self) -> str: ...
    @property
    def value(self) -> str: ...
    @property
    def statement(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def language(self) -> str | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def weight(self) -> float: ...
    @property
    def detail(self) -> str: ...


class Reflector(Protocol):
    """Background reflection: the engine hands over finished tasks, results come back.

    Implementations run their own worker and call
    :meth:`LearningEngine.absorb_reflection` with what the model proposed.
    """

    def submit(self, episode_id: int, summary: EpisodeSummary) -> None: ...
    def wait_idle(self, timeout: float) -> bool: ...
    def stop(self, timeout: float) -> None: ...


@attrs.frozen
class Recall:
    """What recall found for one query."""

    query: str
    lessons: tuple[Lesson, ...]
    skills: tuple[Skill, ...]


@attrs.frozen
class Playbook:
    """The rendered block an assistant gets, and what it was made of."""

    text: str
    lessons: tuple[Lesson, ...]
    rules: tuple[Rule, ...]
    skills: tuple[Skill, ...]
    tokens: int
    prefetched: bool


@attrs.frozen
class Task:
    """A begun task: its id and the playbook recalled for it."""

    id: int
    playbook: Playbook
    holdout: bool = False
    """Begun without memory (``learning.holdoutRate``): the playbook is empty."""


@attrs.frozen
class Stats:
    lessons: int
    rules: int
    confident_rules: int
    episodes: int
    agent_writes: int
    corrections: int
    undos: int
    scope: str
    brain_path: str
    prefetch_ready: int = 0
    """Requests whose recall is already computed (drafts and documents being edited)."""


def _require_text(field: str, value: object, *, max_chars: int, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected a string, got {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise InvalidInput(field, "must not be empty")
    if len(value) > max_chars:
        raise InvalidInput(field, f"is {len(value)} characters; at most {max_chars} are allowed")
    return value


def _require_int(field: str, value: object, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(field, f"expected an integer, got {type(value).__name__}")
    if value < minimum:
        raise InvalidInput(field, f"must be at least {minimum}")
    return value


def _require_bool(field: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(field, f"expected true or false, got {type(value).__name__}")
    return value


def export_meta_key(target: Path) -> str:
    """Brain meta key remembering the digest of the rules file we last wrote at ``target``."""
    return f"rules-export:{target.resolve()}"


def text_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _fts_query(text: str) -> str:
    """An FTS5 OR-query of the content words of ``text`` (quoted, so nothing is syntax)."""
    chosen = [w for w in dict.fromkeys(words(text)) if len(w) > 2 and w.isalnum()][:24]
    return " OR ".join(f'"{word}"' for word in chosen)


class LearningEngine:
    """Owns one brain for one project: recall, credit, rules, reflection, consolidation."""

    def __init__(
        self,
        store: BrainStore,
        project_scope: str,
        settings: LearningSettings | None = None,
        *,
        bus: EventBus | None = None,
        session_id: str = "",
    ) -> None:
        self.store = store
        self.project_scope = project_scope
        self.settings = settings or LearningSettings()
        self.bus = bus or EventBus()
        self.session_id = session_id or f"s{int(time.time())}"
        self.blobs = BlobStore(store.path.parent / "blobs")
        self.reflector: Reflector | None = None
        self.capture_hook: Callable[[], None] | None = None
        """Called by :meth:`before_turn` to fold in corrections the capture layer saw."""
        self.project_scanner: Callable[[], None] | None = None
        self._lock = threading.RLock()
        self._index = RecallIndex(self.settings.half_life_days)
        self._index_rev = -1
        self._rules: tuple[Rule, ...] = ()
        self._prefetched: OrderedDict[str, Recall] = OrderedDict()
        self._generation = 0
        """Bumped on every change that can alter recall; prefetched results check it."""
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._rule_watchers: list[Callable[[], None]] = []
        self.refresh_rules()

    @classmethod
    def open(
        cls,
        brain_path: Path | str,
        project_scope: str,
        settings: LearningSettings | None = None,
        **kwargs: Any,
    ) -> LearningEngine:
        return cls(BrainStore(brain_path), project_scope, settings, **kwargs)

    # -- scopes and settings ---------------------------------------------- #

    @property
    def scopes(self) -> list[str]:
        """The buckets of memory that apply to this project."""
        return ["global", self.project_scope]

    @property
    def write_scope(self) -> str:
        return self.project_scope if self.settings.share_scope == "project" else "global"

    @property
    def notices(self) -> list[str]:
        return self.store.notices

    def configure(self, settings: LearningSettings) -> None:
        with self._lock:
            self.settings = settings
            if self._index_rev >= 0:
                self._index.set_half_life(settings.half_life_days)
            self._invalidate()

    def _invalidate(self) -> None:
        self._generation += 1
        self._prefetched.clear()

    # -- the recall index --------------------------------------------------- #

    @staticmethod
    def _indexed(row: Sequence[Any]) -> IndexedLesson:
        lesson_id, scope, term_text, confidence, wins, losses, created, last_success, pinned = row
        trust = (confidence * 2.0 + wins) / (2.0 + wins + losses)
        return IndexedLesson(
            lesson_id,
            sys.intern(scope),
            tuple(sys.intern(term) for term in term_text.split()),  # shared, not 750k copies
            trust,
            max(created, last_success),
            bool(pinned),
        )

    def warm(self) -> None:
        """Build the recall index now (the server calls this off its event loop at start)."""
        with self._lock:
            self._sync_index()

    def _sync_index(self) -> None:
        """Catch the index up with every lesson change, whoever made it."""
        if self._index_rev < 0:
            head = self.store.lesson_log_head()
            rows = self.store.iter_index_rows()
            self._index.rebuild((self._indexed(row) for row in rows), self.settings.half_life_days)
            self._index_rev = head
            return
        head, changed = self.store.lesson_log_since(self._index_rev)
        if not changed:
            return
        present = {row[0]: row for row in self.store.index_rows(changed)}
        for lesson_id in changed:
            row = present.get(lesson_id)
            if row is None:
                self._index.remove(lesson_id)
            else:
                self._index.upsert(self._indexed(row))
        self._index_rev = head
        self._invalidate()

    def _changed(self) -> None:
        """After our own write: fold it into the index and drop stale prefetches."""
        with self._lock:
            if self._index_rev >= 0:
                self._sync_index()
            self._invalidate()

    # -- rules ------------------------------------------------------------ #

    def refresh_rules(self) -> tuple[Rule, ...]:
        """Reload the rule cache from the brain (after writes, or another process's)."""
        rows = self.store.rules(self.scopes)
        summarized = tuple(
            rule for rule in (rules_module.summarize(row) for row in rows) if rule.value
        )
        with self._lock:
            changed = summarized != self._rules
            self._rules = summarized
            if not changed:
                return summarized  # nothing to tell; keep prefetched recalls usable
            self._invalidate()
            watchers = list(self._rule_watchers)
        for watcher in watchers:
            try:
                watcher()
            except Exception:  # a host's listener must never break learning
                log.exception("rule watcher failed")
        return summarized

    def watch_rules(self, watcher: Callable[[], None]) -> Callable[[], None]:
        """Call ``watcher`` (on the writing thread) whenever the rule cache changes.

        Unlike the ``rule`` memory event, which announces only rules that *became*
        confident, this fires for every change: a rule disabled, forgotten, turned
        to another value, or losing its confidence. Mirrors of the rules (the
        managed block in ``AGENTS.md``) need exactly that. Watchers must be quick.
        """
        with self._lock:
            self._rule_watchers.append(watcher)

        def unwatch() -> None:
            with self._lock:
                if watcher in self._rule_watchers:
                    self._rule_watchers.remove(watcher)

        return unwatch

    def all_rules(self) -> list[Rule]:
        return list(self._rules)

    def confident_rules(self) -> list[Rule]:
        """Confident, active rules of every language: what exports and mirrors show.

        Unlike :meth:`active_rules` this ignores ``learning.rules``: turning rules off
        for the playbook must not erase a committed file's contents.
        """
        return [rule for rule in self._rules if rule.confident and rule.active]

    def rules_markdown(self) -> str:
        """The confident house rules in the committed export format."""
        return rules_module.export_markdown(self.confident_rules(), project=self.project_scope)

    def active_rules(self, language: str | None = None) -> list[Rule]:
        """Confident, active rules that apply to ``language`` — from memory, no I/O."""
        if not self.settings.enabled or not self.settings.rules:
            return []
        return [
            rule
            for rule in self._rules
            if rule.confident and rule.active and rules_module.applies_to(rule, language)
        ]

    def get_rule(self, rule_id: int) -> Rule | None:
        return next((rule for rule in self._rules if rule.id == rule_id), None)

    def record_votes(
        self,
        votes: Iterable[VoteLike],
        origin: str,
        *,
        replace: bool = False,
        scope: str | None = None,
    ) -> list[Rule]:
        """Store evidence for rule dimensions; return the rules that became confident.

        ``origin`` identifies the evidence (``save:12``, ``scan``, ``denial:3``):
        one origin votes at most once per value. With ``replace``, the origin's
        earlier votes are dropped first (a project re-scan replaces, never adds).
        """
        scope = scope or self.write_scope
        before = {rule.id: rule for rule in self._rules}
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
                    detail=redact(vote.detail)[:500],
                    created_at=now,
                ),
            )
            for vote in votes
        ]
        if not prepared and not replace:
            return []
        touched = self.store.add_votes(
            prepared, replace_origin=origin if replace else None, replace_scope=scope
        )
        current = self.refresh_rules()
        newly: list[Rule] = []
        for rule in current:
            if rule.id not in touched or not rule.confident:
                continue
            old = before.get(rule.id)
            if old is None or not old.confident or old.value != rule.value:
                newly.append(rule)
        if newly and self.settings.announce:
            self.bus.emit("rule", items=newly)
        return newly

    def teach_rule(self, statement: str) -> Rule:
        """A rule the user states outright: confident at once, applies to every language."""
        statement = _require_text("statement", statement, max_chars=MAX_STATEMENT_CHARS)
        clean = redact(" ".join(statement.split()))
        key = "user." + ("-".join(terms(clean)[:6]) or "rule")[:60]
        vote = Vote(
            key=key,
            value="yes",
            statement=clean,
            category="preference",
            language=None,
            kind="user",
            weight=3.0,
            detail="you told me directly",
        )
        newly = self.record_votes([vote], origin="user")
        rule = next(r for r in self._rules if r.key == key and r.scope == self.write_scope)
        already_announced = self.settings.announce and any(r.id == rule.id for r in newly)
        if not already_announced:  # once per teach, not twice when it just became confident
            self.bus.emit("rule", items=[rule])
        return rule

    def forget_rule(self, rule_id: int) -> bool:
        rule_id = _require_int("id", rule_id)
        removed = self.store.delete_rule(rule_id)
        if removed:
            self.refresh_rules()
            self.bus.emit("forgotRule", id=rule_id)
        return removed

    def set_rule(
        self, rule_id: int, *, pinned: bool | None = None, active: bool | None = None
    ) -> bool:
        rule_id = _require_int("id", rule_id)
        if pinned is not None:
            _require_bool("pinned", pinned)
        if active is not None:
            _require_bool("active", active)
        changed = self.store.set_rule_flags(rule_id, pinned=pinned, active=active)
        if changed:
            self.refresh_rules()
        return changed

    def export_rules(self, target: Path) -> Path:
        """Write the confident rules as Markdown a team can read, review and commit."""
        text = self.rules_markdown()
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.tmp")
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(target)
        self.store.set_meta(export_meta_key(target), text_digest(text.encode("utf-8")))
        return target

    # -- recall ----------------------------------------------------------- #

    def recall(self, query: str) -> list[Lesson]:
        return list(self._recall(query).lessons)

    def _recall(self, query: str) -> Recall:
        """Pinned lessons first (capped), then the best by relevance × trust."""
        if not self.settings.enabled or not query.strip():
            return Recall(query, (), ())
        settings = self.settings
        query_terms = terms(query)
        now = time.time()
        with self._lock:
            self._sync_index()
            pinned_cap = max(1, settings.top_k // 2)
            pinned = self._index.pinned(self.scopes, query_terms, pinned_cap)
            ranked = self._index.search(
                query_terms,
                self.scopes,
                limit=settings.top_k - len(pinned),
                now=now,
                min_confidence=settings.min_confidence,
            )
        ids = [hit.id for hit in pinned] + [hit.id for hit in ranked]
        lessons = tuple(self.store.get_lessons(ids))
        return Recall(query, lessons, tuple(self.recall_skills(query)))

    def recall_skills(self, query: str, limit: int = 2) -> list[Skill]:
        """Learned procedures that fit the query and have mostly worked."""
        if not self.settings.enabled or not query.strip():
            return []
        wanted = set(terms(query))
        scored: list[tuple[float, Skill]] = []
        for skill in self.store.skills(self.scopes):
            if skill.success_rate < 0.4:
                continue
            have = set(terms(f"{skill.name} {skill.description}"))
            if not have:
                continue
            shared = len(wanted & have) / max(1, min(len(wanted), len(have)))
            if shared >= 0.34:
                scored.append((shared * skill.success_rate, skill))
        scored.sort(key=lambda pair: pair[0], reverse=True)
        return [skill for _, skill in scored[:limit]]

    def search(self, query: str = "", limit: int = 20) -> list[Lesson]:
        """Lessons for the user to browse: full-text search, or the newest when empty."""
        query = _require_text("query", query, max_chars=MAX_QUERY_CHARS, allow_empty=True)
        limit = _require_int("limit", limit, minimum=1)
        limit = min(limit, 1000)
        if not query.strip():
            return self.store.lessons(self.scopes, limit=limit)
        match = _fts_query(query)
        if not match:
            return []
        return [lesson for lesson, _ in self.store.search_lessons(match, self.scopes, limit)]

    # -- prefetch ------------------------------------------------------- #

    @staticmethod
    def _prefetch_key(query: str) -> str:
        return query.strip()

    def prefetch(self, query: str) -> None:
        """Recall ahead of time for a request the user is still typing."""
        if not self.settings.enabled or not self.settings.prefetch or not query.strip():
            return
        if len(query) > MAX_QUERY_CHARS:
            return
        generation = self._generation
        result = self._recall(query)
        with self._lock:
            if generation != self._generation:
                return  # the brain changed while we computed; the result may be stale
            key = self._prefetch_key(query)
            self._prefetched[key] = result
            self._prefetched.move_to_end(key)
            while len(self._prefetched) > PREFETCH_SLOTS:
                self._prefetched.popitem(last=False)

    def take_prefetched(self, query: str) -> Recall | None:
        """The prefetched recall for this exact (whitespace-trimmed) query, if still fresh."""
        with self._lock:
            return self._prefetched.pop(self._prefetch_key(query), None)

    # -- playbook ------------------------------------------------------- #

    def render_playbook(
        self,
        lessons: Sequence[Lesson],
        skills: Sequence[Skill] = (),
        rules: Sequence[Rule] = (),
        max_tokens: int | None = None,
    ) -> tuple[str, list[Lesson], list[Skill]]:
        """The playbook text, and the lessons and skills that made it in whole.

        House rules come first under their own budget: they are counted facts about
        how this user works, cheaper and more reliable than prose, and must survive
        a budget that truncates everything else. Then lessons (pinned first), then
        skills, each entry whole or not at all.
        """
        settings = self.settings
        blocks: list[str] = []
        rules_block = rules_module.render_rules(rules, settings.rules_tokens)
        if rules_block:
            blocks.append(rules_block)
        budget = max_tokens if max_tokens is not None else settings.max_playbook_tokens
        lines = [PLAYBOOK_HEADER]
        used = estimate_tokens(PLAYBOOK_HEADER)
        shown: list[Lesson] = []
        shown_skills: list[Skill] = []
        ordered = sorted(lessons, key=lambda lesson: not lesson.pinned)
        for lesson in ordered:
            entry = lesson_line(lesson, settings.half_life_days)
            cost = estimate_tokens(entry)
            if used + cost > budget:
                continue
            lines.append(entry)
            shown.append(lesson)
            used += cost
        for skill in skills:
            entry = (
                f"- (skill: {skill.name}, {skill.success_rate:.0%} success) "
                f"{skill.description} Steps: {'; '.join(skill.steps[:6])}"
            )
            cost = estimate_tokens(entry)
            if used + cost > budget:
                continue
            lines.append(entry)
            shown_skills.append(skill)
            used += cost
        if len(lines) > 1:
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks), shown, shown_skills

    def playbook(
        self, query: str, max_tokens: int | None = None, language: str | None = None
    ) -> Playbook:
        """Recall for ``query`` and render it; answers from a prefetch when there is one."""
        query = _require_text("query", query, max_chars=MAX_QUERY_CHARS, allow_empty=True)
        if max_tokens is not None:
            max_tokens = _require_int("maxTokens", max_tokens, minimum=1)
        recall = self.take_prefetched(query)
        prefetched = recall is not None
        if recall is None:
            recall = self._recall(query)
        rules = self.active_rules(language)
        text, lessons, skills = self.render_playbook(
            recall.lessons, recall.skills, rules, max_tokens
        )
        return Playbook(
            text=text,
            lessons=tuple(lessons),
            rules=tuple(rules),
            skills=tuple(skills),
            tokens=estimate_tokens(text) if text else 0,
            prefetched=prefetched,
        )

    # -- tasks and credit --------------------------------------------------- #

    def before_turn(self, user_text: str = "") -> None:
        """Fold in what the user did since the previous turn, before recalling."""
        if not self.settings.enabled or not self.settings.corrections:
            return
        if self.capture_hook is not None:
            try:
                self.capture_hook()
            except Exception:
                log.exception("folding in captured corrections failed")

    def begin_task(self, goal: str) -> Task:
        """Start a task: fold in corrections, recall, and remember what was recalled."""
        goal = _require_text("goal", goal, max_chars=MAX_QUERY_CHARS)
        self.before_turn(goal)
        playbook = self.playbook(goal)
        episode = self.store.open_episode(
            Episode(
                goal=redact(goal)[:1000],
                scope=self.project_scope,
                session_id=self.session_id,
                recalled=[lesson.id for lesson in playbook.lessons],
                skills=[skill.id for skill in playbook.skills],
                rules_active=len(playbook.rules),
            )
        )
        holdout = withhold_memory(episode.id, self.settings.holdout_rate)
        if holdout:
            self.store.mark_holdout(episode.id)
            playbook = attrs.evolve(playbook, text="", lessons=(), rules=(), skills=(), tokens=0)
        self.store.mark_used([lesson.id for lesson in playbook.lessons])
        if playbook.lessons or playbook.rules:
            self.bus.emit(
                "recalled",
                items=list(playbook.lessons),
                rules=list(playbook.rules),
                taskId=episode.id,
                query=redact(goal)[:200],
            )
        return Task(episode.id, playbook, holdout)

    def end_task(
        self,
        task_id: int,
        success: bool,
        stopped: str = "done",
        steps: int | None = None,
        elapsed: float | None = None,
        approvals: int | None = None,
        tokens: int | None = None,
        messages: Sequence[Message] = (),
    ) -> int:
        """Close a task: record the episode, credit what was recalled, maybe reflect.

        The metrics count only this task's own messages. ``stopped == "cancelled"``
        credits nothing and is left out of progress.
        """
        task_id = _require_int("taskId", task_id, minimum=1)
        success = _require_bool("success", success)
        stopped = _require_text("stopped", stopped, max_chars=40)
        for field, value in (("steps", steps), ("approvals", approvals), ("tokens", tokens)):
            if value is not None:
                _require_int(field, value)
        if elapsed is not None and (
            isinstance(elapsed, bool) or not isinstance(elapsed, (int, float)) or elapsed < 0
        ):
            raise InvalidInput("elapsed", "expected a non-negative number of seconds")
        if len(messages) > MAX_MESSAGES:
            raise InvalidInput("messages", f"at most {MAX_MESSAGES} messages are accepted")
        for position, message in enumerate(messages):
            if message.role not in MESSAGE_ROLES:
                raise InvalidInput(
                    f"messages[{position}].role", f"must be one of {', '.join(MESSAGE_ROLES)}"
                )
        episode = self.store.get_episode(task_id)
        if episode is None or episode.scope != self.project_scope:
            raise InvalidInput("taskId", f"no task {task_id} in this project")
        if not episode.open:
            raise InvalidInput("taskId", f"task {task_id} has already ended")

        errors = signals.tool_errors(messages)
        episode.success = success
        episode.stopped = stopped
        episode.steps = (
            steps if steps is not None else sum(1 for message in messages if message.role == "tool")
        )
        episode.elapsed = (
            float(elapsed) if elapsed is not None else max(0.0, time.time() - episode.started_at)
        )
        episode.approvals = approvals or 0
        episode.tokens = tokens or 0
        episode.retries = len(errors)
        episode.tools_used = sorted({m.name for m in messages if m.role == "tool" and m.name})
        episode.error_kind = redact(errors[-1].name or "")[:80] if errors else ""
        episode.ended_at = time.time()
        self.store.close_episode(episode)

        if stopped != "cancelled":
            # Coarse on purpose: attributing a multi-step outcome to single lessons is
            # not solvable here, and over many tasks the coarse signal separates the
            # useful lessons from the useless ones.
            self.store.credit(episode.recalled, won=success)
            self.store.credit_skills(episode.skills, won=success)
            self._changed()
            if self.settings.corrections:
                self._record_pitfalls(messages, episode.id)
            if self.reflector is not None:
                summary = EpisodeSummary(
                    goal=episode.goal,
                    success=success,
                    stopped=stopped,
                    steps=episode.steps,
                    messages=tuple(messages),
                    corrections=tuple(self.store.episode_signals(episode.id, "correction")[-5:]),
                )
                self.reflector.submit(episode.id, summary)
        return episode.id

    def _record_pitfalls(self, messages: Sequence[Message], episode_id: int) -> list[Rule]:
        found = signals.find_pitfalls(messages)
        votes = [
            Vote(
                key=pitfall.key,
                value="avoid",
                statement=pitfall.statement,
                category="workflow",
                language=None,
                kind="evidence",
                detail=f"failed {pitfall.count} times in task {episode_id}",
            )
            for pitfall in found
        ]
        return self.record_votes(votes, origin=f"episode:{episode_id}") if votes else []

    def record_outcome(self, task_id: int, **outcome: Any) -> int:
        """Alias of :meth:`end_task`, the name the original engine used."""
        return self.end_task(task_id, **outcome)

    def feedback(self, good: bool, note: str = "", task_id: int | None = None) -> int:
        """Explicit "this helped" / "this didn't": credit what that task recalled."""
        good = _require_bool("good", good)
        note = _require_text("note", note, max_chars=MAX_NOTE_CHARS, allow_empty=True)
        if task_id is not None:
            task_id = _require_int("taskId", task_id, minimum=1)
            episode = self.store.get_episode(task_id)
            if episode is None or episode.scope != self.project_scope:
                raise InvalidInput("taskId", f"no task {task_id} in this project")
        else:
            episode = self.store.last_episode(self.project_scope, ended=True)
        if episode is None:
            return 0
        clean_note = redact(note)
        self.store.credit(episode.recalled, won=good)
        self.store.credit_skills(episode.skills, won=good)
        self.store.add_feedback("episode", episode.id, 1.0 if good else -1.0, clean_note)
        for lesson_id in episode.recalled:
            self.store.add_feedback("lesson", lesson_id, 1.0 if good else -1.0, clean_note)
        self._changed()
        self.bus.emit("feedback", good=good, count=len(episode.recalled), taskId=episode.id)
        return len(episode.recalled)

    # -- denials, corrections and undos ----------------------------------- #

    def on_denied(self, tool: str, subject: str, reason: str = "denied") -> list[Rule]:
        """A refused permission, counted towards an ``avoid`` rule for that command."""
        tool = _require_text("tool", tool, max_chars=200)
        subject = _require_text("subject", subject, max_chars=MAX_QUERY_CHARS)
        if reason.strip().lower() in signals.NOT_DENIALS:
            return []  # a timeout or a cancellation says nothing about the user's wishes
        if not self.settings.enabled or not self.settings.corrections:
            return []
        key = signals.denial_key(tool, redact(subject))
        signal_id = self.store.add_signal(
            "denial", self.project_scope, f"{tool}: {redact(subject)[:500]}"
        )
        vote = Vote(
            key=key.key,
            value="ask",
            category="avoid",
            language=None,
            kind="denial",
            statement=f"Do not run `{key.subject}` without asking first.",
            detail=f"you denied {tool} `{key.subject}`",
        )
        self.record_votes([vote], origin=f"denial:{signal_id}")
        return [rule for rule in self._rules if rule.key == key.key]

    def record_agent_write(
        self,
        path: str,
        before: str | None,
        after: str,
        *,
        task_id: int | None = None,
        created: bool | None = None,
    ) -> int:
        """Checkpoint an agent's write: the text before (None if unknown or new) and after."""
        before_hash = self.blobs.put(before) if before is not None else ""
        after_hash = self.blobs.put(after)
        if task_id is None:
            last = self.store.last_episode(self.project_scope, ended=False)
            task_id = last.id if last is not None and last.open else None
        created = before is None if created is None else created
        return self.store.add_agent_write(
            self.project_scope, path, before_hash, after_hash, created, task_id
        )

    def record_correction(
        self,
        path: str,
        votes: Sequence[VoteLike],
        diff: str,
        episode_id: int | None,
        *,
        rule_keys: Sequence[str] = (),
    ) -> list[Rule]:
        """One user correction of an agent's write: count it and vote for what it teaches."""
        signal_id = self.store.add_signal(
            "correction",
            self.project_scope,
            redact(diff)[:20_000],
            path=path,
            episode_id=episode_id,
        )
        if episode_id is not None:
            self.store.bump_episode(episode_id, "corrections")
        newly: list[Rule] = []
        if votes and self.settings.rules:
            newly = self.record_votes(votes, origin=f"save:{signal_id}")
        self.bus.emit(
            "correction", path=path, ruleKeys=list(rule_keys or [vote.key for vote in votes])
        )
        return newly

    def record_undo(self, path: str, episode_id: int | None) -> None:
        """The user threw an agent's write away: a loss for what that task recalled."""
        self.store.add_signal("undo", self.project_scope, "", path=path, episode_id=episode_id)
        if episode_id is not None:
            self.store.bump_episode(episode_id, "undos")
            episode = self.store.get_episode(episode_id)
            if episode is not None and episode.recalled:
                self.store.credit(episode.recalled, won=False)
                self._changed()
        self.bus.emit("undo", path=path)

    def on_undo(self, paths: Sequence[str]) -> int:
        """Mark the last agent write of each file as undone (files are not touched)."""
        undone = 0
        for path in paths:
            write = self.store.last_agent_write(self.project_scope, path)
            if write is None or write.status == "undone":
                continue
            self.store.update_agent_write(write.id, status="undone")
            self.record_undo(path, write.episode_id)
            undone += 1
        return undone

    def bootstrap_project(self) -> bool:
        """Read the project's existing conventions once, in the background."""
        if not self.settings.enabled or not self.settings.rules or self.project_scanner is None:
            return False
        scanner = self.project_scanner

        def work() -> None:
            try:
                scanner()
            except Exception:
                if not self._closed:  # a scan cut short by shutdown is not an error
                    log.exception("project scan failed")

        thread = threading.Thread(target=work, daemon=True, name="comodor-scan")
        thread.start()
        self._threads.append(thread)
        return True

    # -- teaching, forgetting, pinning ---------------------------------- #

    def teach(self, text: str, kind: str = "preference", pinned: bool = True) -> Lesson:
        """Record something the user said directly: pinned and trusted by default.

        An explicit instruction is far better evidence than anything inferred.
        ``"trigger: guidance"``; without a colon the trigger is ``generally``.
        """
        text = _require_text("text", text, max_chars=MAX_TEACH_CHARS)
        if kind not in LESSON_KINDS:
            raise InvalidInput("kind", f"must be one of {', '.join(LESSON_KINDS)}")
        pinned = _require_bool("pinned", pinned)
        clean = redact(text)
        trigger, colon, guidance = clean.partition(":")
        if not colon or not guidance.strip() or not trigger.strip():
            trigger, guidance = "generally", clean
        lesson = Lesson(
            kind=kind,
            scope=self.write_scope,
            trigger=" ".join(trigger.split())[:300],
            guidance=guidance.strip()[:MAX_TEACH_CHARS],
            confidence=0.9,
            pinned=pinned,
            source="user",
        )
        stored = self.store.add_lesson(lesson, " ".join(terms(lesson.text)))
        self._changed()
        self.bus.emit("taught", items=[stored])
        return stored

    def forget(self, lesson_id: int) -> bool:
        lesson_id = _require_int("id", lesson_id)
        removed = self.store.delete_lesson(lesson_id)
        if removed:
            self._changed()
            self.bus.emit("forgot", id=lesson_id)
        return removed

    def pin(self, lesson_id: int, pinned: bool = True) -> bool:
        lesson_id = _require_int("id", lesson_id)
        pinned = _require_bool("pinned", pinned)
        changed = self.store.set_pinned(lesson_id, pinned)
        if changed:
            self._changed()
        return changed

    # -- reflection ------------------------------------------------------- #

    def absorb(self, proposals: Sequence[ProposedLesson], source: str) -> tuple[list[Lesson], int]:
        """Store proposed lessons, merging restatements into what is already known.

        Seeing the same thing twice is evidence, not a duplicate: a restatement
        raises the existing lesson's confidence, and when it says more (a superset
        of the words) its wording replaces the old. A statement with the opposite
        polarity never merges (see :func:`comodor.brain.text.same_meaning`).
        """
        stored: list[Lesson] = []
        merged = 0
        for proposal in proposals:
            if proposal.kind not in LESSON_KINDS:
                continue
            trigger = redact(proposal.trigger.strip() or "generally")[:300]
            guidance = redact(proposal.guidance.strip())[:600]
            if not guidance:
                continue
            text = f"{trigger}: {guidance}"
            existing = self.find_similar(text)
            if existing is not None:
                self.store.reinforce(existing.id, MERGE_BOOST, MERGE_CEILING)
                new_terms, old_terms = set(terms(text)), set(terms(existing.text))
                if new_terms > old_terms:
                    self.store.update_lesson_text(
                        existing.id, trigger, guidance, " ".join(terms(text))
                    )
                merged += 1
                continue
            lesson = Lesson(
                kind=proposal.kind,
                scope=self.write_scope,
                trigger=trigger,
                guidance=guidance,
                confidence=min(0.95, max(0.05, float(proposal.confidence))),
                source=source,
            )
            stored.append(self.store.add_lesson(lesson, " ".join(terms(text))))
        if stored or merged:
            self._changed()
        return stored, merged

    def find_similar(self, text: str) -> Lesson | None:
        """An existing lesson in scope that says the same thing, if any."""
        match = _fts_query(text)
        if not match:
            return None
        for lesson, _ in self.store.search_lessons(match, self.scopes, limit=20):
            if same_meaning(lesson.text, text, MERGE_THRESHOLD):
                return lesson
        return None

    def absorb_reflection(
        self, episode_id: int, lessons: Sequence[ProposedLesson], skill: Skill | None = None
    ) -> tuple[list[Lesson], int]:
        """What a reflector calls with a model's proposals for one episode."""
        with self._lock:
            stored, merged = self.absorb(lessons, source=f"episode:{episode_id}")
        if skill is not None and len(skill.steps) >= 2:
            skill.scope = self.write_scope
            skill.source = f"episode:{episode_id}"
            self.store.add_skill(skill)
        if stored or merged or skill is not None:
            self.bus.emit(
                "learned",
                items=stored,
                merged=merged,
                skill=skill.name if skill else "",
                taskId=episode_id,
            )
        return stored, merged

    def wait_for_reflection(self, timeout: float = 30.0) -> bool:
        """Block until background work settles (tests, and a clean exit)."""
        deadline = time.monotonic() + timeout
        for thread in list(self._threads):
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        self._threads = [thread for thread in self._threads if thread.is_alive()]
        if self.reflector is not None:
            return self.reflector.wait_idle(max(0.0, deadline - time.monotonic()))
        return not self._threads

    # -- upkeep and reporting ------------------------------------------- #

    def consolidate(self) -> int:
        """Forget lessons whose trust has decayed below the minimum (never pinned ones)."""
        settings = self.settings
        now = time.time()
        doomed = [
            lesson.id
            for lesson in self.store.lessons(self.scopes)
            if not lesson.pinned
            and lesson.effective_confidence(settings.half_life_days, now) < settings.min_confidence
        ]
        removed = self.store.delete_lessons(doomed)
        self.store.prune_lesson_log()
        if removed:
            self._changed()
        return removed

    def count_lessons(self) -> int:
        """Lessons in this project's scopes: from the warm index, else from SQLite."""
        with self._lock:
            if self._index_rev >= 0:
                self._sync_index()
                return self._index.count(self.scopes)
        return self.store.count_lessons(self.scopes)

    def prune_checkpoints(
        self, max_age_days: float = 30.0, max_bytes: int = 200_000_000
    ) -> tuple[int, int]:
        """Drop old checkpoints and the blobs nothing refers to any more.

        A checkpoint only matters while a correction or an undo can still refer
        to it; a month is far beyond any correction window. Blobs of live
        checkpoints are kept whatever their size (see ``BlobStore.prune``).
        Returns (checkpoints removed, blobs removed).
        """
        horizon = max(max_age_days * 86_400.0, self.settings.correction_window_minutes * 60.0 * 2)
        writes = self.store.prune_agent_writes(time.time() - horizon)
        blobs = self.blobs.prune(self.store.referenced_hashes(), max_bytes=max_bytes)
        return writes, blobs

    def stats(self) -> Stats:
        rules = self._rules
        return Stats(
            lessons=self.count_lessons(),
            rules=len(rules),
            confident_rules=sum(1 for rule in rules if rule.confident and rule.active),
            episodes=self.store.count_episodes(self.project_scope),
            agent_writes=self.store.count_agent_writes(self.project_scope),
            corrections=self.store.count_signals(self.project_scope, "correction"),
            undos=self.store.count_signals(self.project_scope, "undo"),
            scope=self.project_scope,
            brain_path=str(self.store.path),
            prefetch_ready=len(self._prefetched),
        )

    def progress(self) -> Progress:
        return analyse(
            self.store.episodes(self.project_scope),
            lessons=self.count_lessons(),
            rules_active=len(self.active_rules()),
        )

    def close(self) -> None:
        """Stop background work and close the brain. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self.reflector is not None:
            self.reflector.stop(0.5)
        for thread in self._threads:
            thread.join(timeout=0.5)
        self.store.close()
