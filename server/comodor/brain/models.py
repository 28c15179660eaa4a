"""The brain's records: lessons, house rules, skills, episodes and messages.

Plain attrs classes with no storage or protocol code. The store maps them to
SQLite rows; the language server maps them to the protocol's camelCase objects.
"""

from __future__ import annotations

import math
import time

import attrs

LESSON_KINDS = ("preference", "fact", "heuristic", "pitfall", "env")
RULE_CATEGORIES = ("style", "workflow", "preference", "avoid")
RULE_SOURCES = ("user", "correction", "evidence", "observation")
MESSAGE_ROLES = ("user", "assistant", "tool")

# Text limits: the protocol validates input against these, the schemas publish them,
# and the brain truncates its own derived texts to them. One place, so they agree.
MAX_TEACH_CHARS = 2000
"""A taught lesson (``trigger: guidance``)."""
MAX_STATEMENT_CHARS = 300
"""A house rule is one imperative sentence."""
MAX_TRIGGER_CHARS = 300
MAX_GUIDANCE_CHARS = 600
"""A reflected lesson's guidance: one or two sentences."""
MAX_QUERY_CHARS = 20_000
"""A request, goal or search text."""
MAX_NOTE_CHARS = 2000
MAX_MESSAGES = 2000
"""Messages of one task's transcript."""
MAX_TOOL_CHARS = 200

PRIOR_WEIGHT = 2.0
"""How many outcomes the initial confidence is worth.

Trust is a smoothed success rate: ``(confidence * PRIOR_WEIGHT + wins) /
(PRIOR_WEIGHT + wins + losses)``. With a small prior weight, a run of losses
drives trust towards zero quickly (50 losses: 0.03), which the original engine
could not do.
"""

SECONDS_PER_DAY = 86_400.0


@attrs.define
class Lesson:
    """Something learned that may help a future task, recalled by relevance and trust."""

    kind: str
    scope: str
    trigger: str
    """When it applies, e.g. "running the tests"."""
    guidance: str
    """What to do, one or two imperative sentences."""
    confidence: float = 0.6
    """The prior, before any outcome was observed (0..1)."""
    pinned: bool = False
    source: str = "user"
    id: int = 0
    uses: int = 0
    wins: int = 0
    losses: int = 0
    created_at: float = attrs.field(factory=time.time)
    updated_at: float = attrs.field(factory=time.time)
    last_used: float = 0.0
    last_success: float = 0.0
    """When it last shared a win; decay runs from here, not from the last use."""

    @property
    def text(self) -> str:
        return f"{self.trigger}: {self.guidance}"

    def trust(self) -> float:
        """Smoothed success rate; see :data:`PRIOR_WEIGHT`."""
        return (self.confidence * PRIOR_WEIGHT + self.wins) / (
            PRIOR_WEIGHT + self.wins + self.losses
        )

    def decay_anchor(self) -> float:
        return max(self.last_success, self.created_at)

    def effective_confidence(self, half_life_days: float, now: float | None = None) -> float:
        """Trust discounted by time since the last success; pinned lessons are always 1.0."""
        if self.pinned:
            return 1.0
        now = time.time() if now is None else now
        age_days = max(0.0, now - self.decay_anchor()) / SECONDS_PER_DAY
        return self.trust() * math.pow(0.5, age_days / half_life_days)


@attrs.define
class Rule:
    """A house rule: one dimension (``key``) whose winning ``value`` the votes decide."""

    key: str
    scope: str
    value: str
    category: str
    statement: str
    language: str | None = None
    detail: str = ""
    source: str = "observation"
    support: float = 0.0
    """Weighted votes for the winning value."""
    against: float = 0.0
    """Weighted votes for every other value of the same key."""
    corrections: int = 0
    """How many distinct corrections (saves) voted for the winning value."""
    confident: bool = False
    pinned: bool = False
    active: bool = True
    id: int = 0
    created_at: float = attrs.field(factory=time.time)
    updated_at: float = attrs.field(factory=time.time)

    evidence: str = ""
    """The evidence in the few words hover and exports show: ``3 corrections · 100% agree``."""
    team: bool = False
    """Only a teammate's committed ``house-rules.md`` stands behind it (untrusted text)."""
    contested: bool = False
    """The user's corrections disagree and no value leads clearly enough to be confident.

    A contested rule is shown (hover, ``comodor.rules``) but never enforced: no
    diagnostic, no playbook line. The rule itself is stated in
    :mod:`comodor.brain.rules.judgement`.
    """
    opposition: str = ""
    """For a contested rule, the evidence against its value: ``2 corrections for single``."""
    weighed_strength: float | None = None
    """Agreement with recent corrections weighing more (what confidence is judged on).

    ``support`` and ``against`` stay plain totals, so a user who changed their mind
    sees "3 for, 5 against" and still a confident rule; None means the plain share.
    """
    exceptions: tuple[str, ...] = ()
    """Places where the user said "not here" (opaque keys the host made; see ``add_exception``)."""

    @property
    def strength(self) -> float:
        """Agreement: the weighed share when the votes were weighed, else the plain share."""
        if self.weighed_strength is not None:
            return self.weighed_strength
        total = self.support + self.against
        return self.support / total if total > 0 else 0.0


@attrs.define
class Skill:
    """A reusable procedure learned from a successful task, recalled and credited like a lesson."""

    name: str
    description: str
    steps: list[str]
    scope: str
    source: str = ""
    id: int = 0
    uses: int = 0
    wins: int = 0
    losses: int = 0
    created_at: float = attrs.field(factory=time.time)

    @property
    def success_rate(self) -> float:
        """Smoothed so a new skill starts at 0.5 rather than at 0 or 1."""
        return (self.wins + 1.0) / (self.wins + self.losses + 2.0)


@attrs.frozen
class Message:
    """One message of a finished task's transcript."""

    role: str
    name: str | None = None
    content: str | None = None
    is_error: bool = False


@attrs.define
class Episode:
    """One task from ``beginTask`` to ``endTask``: what was recalled and how it went."""

    goal: str
    scope: str
    session_id: str = ""
    id: int = 0
    success: bool = False
    stopped: str = ""
    """``done``, ``cancelled``, ``error``…; empty while the task is still open."""
    steps: int = 0
    elapsed: float = 0.0
    approvals: int = 0
    tokens: int = 0
    corrections: int = 0
    undos: int = 0
    retries: int = 0
    tools_used: list[str] = attrs.field(factory=list)
    error_kind: str = ""
    rules_active: int = 0
    recalled: list[int] = attrs.field(factory=list)
    """Lesson ids recalled into this task; they share its outcome."""
    skills: list[int] = attrs.field(factory=list)
    started_at: float = attrs.field(factory=time.time)
    ended_at: float = 0.0
    holdout: bool = False
    """Run without memory (no lessons, no rules), to measure what memory changes."""

    @property
    def open(self) -> bool:
        return self.ended_at == 0.0


AGENT_WRITE_SOURCES = (
    "disk",
    "command",
    "chat-edit",
    "inline-completion",
    "next-edit",
    "extension",
)
"""Where an agent write came from: the watcher saw a file change (``disk``), an agent said
so (``command``: ``comodor.agentEdit``), or the editor reported an assistant's edit inside
it (the other four: ``comodor/assistantEdit``'s ``source`` without its extension id)."""


IN_EDITOR_SOURCES = frozenset(AGENT_WRITE_SOURCES[2:])
"""Sources of edits made inside the editor: they own only their ranges, and only while
the server that heard of them still follows the document."""


def write_source(source: str) -> str:
    """The counted kind of an edit's ``source`` (``chat-edit:vendor.ext`` is ``chat-edit``)."""
    kind = source.split(":", 1)[0]
    return kind if kind in AGENT_WRITE_SOURCES else "extension"


@attrs.frozen
class Stats:
    """Counts for one project, as ``comodor.stats`` reports them."""

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
    agent_writes_by_source: dict[str, int] = attrs.field(factory=dict)
    """Protocol v1.2: ``agent_writes`` split by :data:`AGENT_WRITE_SOURCES` (all present)."""


@attrs.frozen
class Vote:
    """One piece of evidence for one value of a rule dimension.

    Every source of house rules speaks in votes: a user's correction, a fact in
    a config file, a count over the project's code, a denial, the user saying so.
    """

    key: str
    value: str
    statement: str
    category: str
    language: str | None
    kind: str
    """``correction``, ``evidence``, ``observation``, ``denial``, ``user`` or ``exception``."""
    weight: float = 1.0
    detail: str = ""


@attrs.frozen
class ProposedLesson:
    """A lesson proposed by reflection; the engine decides whether to keep or merge it."""

    kind: str
    trigger: str
    guidance: str
    confidence: float = 0.6


@attrs.frozen
class EpisodeSummary:
    """What reflection gets to read about a finished task."""

    goal: str
    success: bool
    stopped: str = ""
    steps: int = 0
    messages: tuple[Message, ...] = ()
    corrections: tuple[str, ...] = ()
    """Short descriptions or redacted diffs of the user's corrections."""
    rule_keys: tuple[str, ...] = ()
