"""Read a model's reflection reply into validated, redacted lessons.

Small local models rarely return exactly the JSON they were asked for: they
wrap it in code fences or prose, prefix ``<think>`` blocks, leave trailing
commas, return a bare list, invent kinds or overflow the limits. This module
accepts all of that, keeps only what fits the schema, and never raises: a
garbage reply becomes an empty :class:`Reflection` plus a reason that the
caller can log.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from typing import Any, Literal, NamedTuple

import attrs

from ..brain.models import ProposedLesson
from ..brain.recall.text import is_vague

__all__ = [
    "KINDS",
    "MAX_LESSONS",
    "ParseResult",
    "ProposedLesson",
    "ProposedSkill",
    "Reflection",
    "parse_reflection",
]

LessonKind = Literal["preference", "fact", "heuristic", "pitfall", "env"]
KINDS: tuple[LessonKind, ...] = ("preference", "fact", "heuristic", "pitfall", "env")
_ALIASES: dict[str, LessonKind] = {
    "tip": "heuristic",
    "practice": "heuristic",
    "best_practice": "heuristic",
    "approach": "heuristic",
    "strategy": "heuristic",
    "gotcha": "pitfall",
    "mistake": "pitfall",
    "warning": "pitfall",
    "error": "pitfall",
    "convention": "preference",
    "style": "preference",
    "user_preference": "preference",
    "knowledge": "fact",
    "project_fact": "fact",
    "environment": "env",
    "setup": "env",
    "tooling": "env",
}

MAX_LESSONS = 4
TRIGGER_MAX = 300
GUIDANCE_MAX = 600
SKILL_NAME_MAX = 80
SKILL_DESCRIPTION_MAX = 300
STEP_MAX = 200
MAX_STEPS = 12
MIN_STEPS = 2
CONFIDENCE_MIN = 0.05
CONFIDENCE_MAX = 0.95
CONFIDENCE_DEFAULT = 0.6
_INPUT_MAX = 60_000
_MAX_CANDIDATES = 40

Redactor = Callable[[str], str]


@attrs.frozen
class ProposedSkill:
    """A reusable multi-step procedure the model noticed."""

    name: str
    description: str
    steps: tuple[str, ...]


@attrs.frozen
class Reflection:
    """Everything usable from one reflection reply."""

    lessons: tuple[ProposedLesson, ...] = ()
    skill: ProposedSkill | None = None

    @property
    def empty(self) -> bool:
        """True when there is nothing to learn from this reply."""
        return not self.lessons and self.skill is None


class ParseResult(NamedTuple):
    """The reflection plus a human-readable note on what was dropped, or ``""``."""

    reflection: Reflection
    reason: str


def parse_reflection(text: object, redact: Redactor) -> ParseResult:
    """Parse a reply; never raises (except for interpreter-level exits)."""
    try:
        return _parse(text, redact)
    except Exception as exc:  # the contract is "never raise"; report instead
        return ParseResult(Reflection(), f"could not parse the reply ({type(exc).__name__})")


def _parse(text: object, redact: Redactor) -> ParseResult:
    if not isinstance(text, str):
        return ParseResult(Reflection(), f"the reply is not text ({type(text).__name__})")
    if not text.strip():
        return ParseResult(Reflection(), "the reply is empty")
    data = _find_json(text[:_INPUT_MAX])
    if data is None:
        return ParseResult(Reflection(), "no JSON object found in the reply")
    notes: list[str] = []
    raw_lessons: Any
    raw_skill: Any = None
    if isinstance(data, list):
        raw_lessons = data
    elif isinstance(data, dict):
        if "lessons" in data or "skill" in data:
            raw_lessons = data.get("lessons") or []
            raw_skill = data.get("skill")
        elif _lesson_text(data):
            raw_lessons = [data]  # a single lesson object on its own
        else:
            return ParseResult(Reflection(), "the reply JSON has no 'lessons' or 'skill'")
    else:
        return ParseResult(Reflection(), "the reply JSON is not an object or a list")
    if not isinstance(raw_lessons, list):
        notes.append("'lessons' is not a list")
        raw_lessons = []
    lessons = _lessons(raw_lessons, redact, notes)
    skill = _skill(raw_skill, redact, notes) if raw_skill is not None else None
    reflection = Reflection(lessons=lessons, skill=skill)
    if reflection.empty and not notes:
        notes.append("the reply proposes nothing")
    return ParseResult(reflection, "; ".join(notes))


# -- finding the JSON --------------------------------------------------------

_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)```", re.DOTALL)


def _find_json(text: str) -> Any:
    """First candidate that looks like a reflection, else first that parsed."""
    text = _THINK.sub("", text)
    fallback: Any = None
    for candidate in _candidates(text):
        value = _loads(candidate)
        if value is None:
            continue
        if _looks_right(value):
            return value
        if fallback is None and isinstance(value, dict | list):
            fallback = value
    return fallback


def _candidates(text: str) -> Iterator[str]:
    stripped = text.strip()
    yield stripped
    for match in _FENCE.finditer(text):
        yield match.group(1).strip()
    yield from _balanced(text)


def _balanced(text: str) -> Iterator[str]:
    """Balanced ``{...}`` / ``[...]`` spans, string-aware, in order of their start."""
    tried = 0
    start = _next_open(text, 0)
    while start != -1 and tried < _MAX_CANDIDATES:
        tried += 1
        end = _match_close(text, start)
        if end != -1:
            yield text[start : end + 1]
        start = _next_open(text, start + 1)


def _next_open(text: str, pos: int) -> int:
    brace, bracket = text.find("{", pos), text.find("[", pos)
    if brace == -1:
        return bracket
    if bracket == -1:
        return brace
    return min(brace, bracket)


_OUTSIDE = re.compile(r'["{}\[\]]')
_INSIDE = re.compile(r'["\\]')
_MAX_DEPTH = 64  # a reflection is 4 levels deep; deeper spans are not worth scanning


def _match_close(text: str, start: int) -> int:
    """Index of the bracket closing the one at ``start``, or -1.

    Jumps between significant characters with regexes so long prose or long
    strings cost one C-level search, and gives up on absurd nesting.
    """
    depth = 0
    pos = start
    while True:
        found = _OUTSIDE.search(text, pos)
        if found is None:
            return -1
        ch = found.group()
        pos = found.end()
        if ch == '"':
            while True:  # skip the string body, honouring backslash escapes
                inner = _INSIDE.search(text, pos)
                if inner is None:
                    return -1
                pos = inner.end()
                if inner.group() == '"':
                    break
                pos += 1  # skip the escaped character
        elif ch in "{[":
            depth += 1
            if depth > _MAX_DEPTH:
                return -1
        else:
            depth -= 1
            if depth == 0:
                return pos - 1


def _loads(candidate: str) -> Any:
    if not candidate or candidate[0] not in "{[":
        return None
    try:
        return json.loads(candidate)
    except (ValueError, RecursionError):
        pass
    if not _TRAILING_COMMA.search(candidate):
        return None
    try:
        return json.loads(_strip_trailing_commas(candidate))
    except (ValueError, RecursionError):
        return None


_TRAILING_COMMA = re.compile(r",\s*[}\]]")


def _strip_trailing_commas(text: str) -> str:
    """Drop commas that directly precede ``}`` or ``]`` (outside strings)."""
    out: list[str] = []
    in_string = False
    escaped = False
    pending_comma = -1
    for ch in text:
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch in "}]" and pending_comma != -1:
            del out[pending_comma]
        if not ch.isspace():
            pending_comma = -1
        if ch == '"':
            in_string = True
        elif ch == ",":
            pending_comma = len(out)
        out.append(ch)
    return "".join(out)


def _looks_right(value: Any) -> bool:
    if isinstance(value, dict):
        return "lessons" in value or "skill" in value or bool(_lesson_text(value))
    if isinstance(value, list):
        return bool(value) and all(isinstance(item, dict) for item in value)
    return False


# -- validation --------------------------------------------------------------


def _lessons(raw: list[Any], redact: Redactor, notes: list[str]) -> tuple[ProposedLesson, ...]:
    kept: list[ProposedLesson] = []
    index: dict[str, int] = {}
    dropped = 0
    for position, item in enumerate(raw, start=1):
        if not isinstance(item, dict):
            notes.append(f"lesson {position} is not an object")
            continue
        kind = _kind(item.get("kind", item.get("type")))
        if kind is None:
            notes.append(f"lesson {position} has an unknown kind {_show(item.get('kind'))}")
            continue
        guidance = _clean(_lesson_text(item), redact, GUIDANCE_MAX)
        if not guidance:
            notes.append(f"lesson {position} has no guidance")
            continue
        if is_vague(guidance):
            notes.append(f"lesson {position} is too vague to act on ({_show(guidance)})")
            continue
        trigger = _clean(item.get("trigger", item.get("when")), redact, TRIGGER_MAX)
        lesson = ProposedLesson(
            kind=kind,
            trigger=trigger or "generally",
            guidance=guidance,
            confidence=_confidence(item.get("confidence")),
        )
        key = _dedupe_key(guidance)
        if key in index:
            earlier = kept[index[key]]
            if lesson.confidence > earlier.confidence:
                kept[index[key]] = attrs.evolve(earlier, confidence=lesson.confidence)
            notes.append(f"lesson {position} repeats an earlier one")
            continue
        if len(kept) >= MAX_LESSONS:
            dropped += 1
            continue
        index[key] = len(kept)
        kept.append(lesson)
    if dropped:
        notes.append(f"{dropped} lessons over the limit of {MAX_LESSONS} dropped")
    return tuple(kept)


def _skill(raw: Any, redact: Redactor, notes: list[str]) -> ProposedSkill | None:
    if not isinstance(raw, dict):
        notes.append("the skill is not an object")
        return None
    name = _clean(raw.get("name"), redact, SKILL_NAME_MAX)
    raw_steps = raw.get("steps")
    steps: list[str] = []
    if isinstance(raw_steps, list):
        for step in raw_steps:
            text = _clean(step, redact, STEP_MAX, strip_numbering=True)
            if text:
                steps.append(text)
    if not name or len(steps) < MIN_STEPS:
        notes.append(f"the skill needs a name and at least {MIN_STEPS} steps")
        return None
    if len(steps) > MAX_STEPS:
        notes.append(f"the skill's steps were cut to {MAX_STEPS}")
    description = _clean(raw.get("description"), redact, SKILL_DESCRIPTION_MAX)
    return ProposedSkill(name=name, description=description, steps=tuple(steps[:MAX_STEPS]))


def _lesson_text(item: dict[Any, Any]) -> Any:
    for key in ("guidance", "lesson", "advice"):
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _kind(raw: Any) -> LessonKind | None:
    if not isinstance(raw, str):
        return None
    name = re.sub(r"[\s-]+", "_", raw.strip().lower())
    for candidate in (name, name.removesuffix("s")):
        for kind in KINDS:
            if candidate == kind:
                return kind
        if candidate in _ALIASES:
            return _ALIASES[candidate]
    return None


_NUMBERING = re.compile(r"^(?:\d{1,2}[.)]|[-*•])\s+")


def _clean(raw: Any, redact: Redactor, limit: int, *, strip_numbering: bool = False) -> str:
    """Redact, collapse whitespace, then cap (redacting first so no secret is half-cut)."""
    if not isinstance(raw, str):
        return ""
    text = " ".join(redact(raw).split())
    if strip_numbering:
        text = _NUMBERING.sub("", text)
    text = " ".join(redact(text).split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def _confidence(raw: Any) -> float:
    value: float
    if isinstance(raw, bool) or raw is None:
        return CONFIDENCE_DEFAULT
    if isinstance(raw, int | float):
        value = float(raw)
    elif isinstance(raw, str):
        try:
            value = float(raw.strip().rstrip("%"))
        except ValueError:
            return CONFIDENCE_DEFAULT
    else:
        return CONFIDENCE_DEFAULT
    if math.isnan(value):
        return CONFIDENCE_DEFAULT
    if 1.0 < value <= 100.0:  # "confidence": 80 means 80 %
        value /= 100.0
    return min(CONFIDENCE_MAX, max(CONFIDENCE_MIN, value))


def _dedupe_key(guidance: str) -> str:
    return re.sub(r"[\W_]+", " ", guidance.casefold()).strip()


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
