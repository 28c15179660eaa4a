"""The wire protocol's types: one attrs class per command's params and result.

This module is the single source of truth for the shapes in
``shared/spec/protocol.md``: the language server, the MCP server and the CLI
all structure incoming arguments with :func:`structure` and turn results into
JSON with :func:`unstructure`; ``schemas/`` is generated from these classes
(:mod:`comodor.schemas`), and the TypeScript client follows those schemas.

Field names are snake_case here and camelCase on the wire. Structuring is
strict: a string is not an int, ``true`` is not ``1``; unknown fields are
ignored; a problem raises :class:`~comodor.brain.errors.InvalidInput` naming the
field as the client spelled it (``messages[0].isError``).
"""

from __future__ import annotations

import math
import re
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from comodor.brain.errors import InvalidInput

T = TypeVar("T")


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


# -- objects ------------------------------------------------------------------ #


@attrs.frozen
class LessonObject:
    """A lesson as clients see it; ``confidence`` is the effective one (trust × decay)."""

    id: int
    kind: str
    scope: str
    trigger: str
    guidance: str
    confidence: float
    uses: int
    wins: int
    losses: int
    pinned: bool
    source: str
    created_at: float
    updated_at: float
    last_used: float


@attrs.frozen
class RuleObject:
    """A house rule as clients see it."""

    id: int
    key: str
    value: str
    category: str
    statement: str
    detail: str
    scope: str
    language: str | None
    support: float
    against: float
    strength: float
    confident: bool
    pinned: bool
    active: bool
    source: str
    created_at: float
    updated_at: float
    evidence: str
    """Added to the spec's fields: the evidence in words, e.g. ``3 corrections · 100% agree``."""


@attrs.frozen
class SeriesObject:
    key: str
    label: str
    values: list[float]
    change: float
    improving: bool | None
    sparkline: str


@attrs.frozen
class MessageParams:
    """One message of a finished task's transcript."""

    role: str
    name: str | None = None
    content: str | None = None
    is_error: bool = False


# -- params --------------------------------------------------------------------- #


@attrs.frozen
class NoParams:
    """Commands that take no fields (an empty object, or no argument at all)."""


@attrs.frozen
class TeachParams:
    text: str
    kind: str = "preference"
    pinned: bool = True


@attrs.frozen
class TeachRuleParams:
    statement: str


@attrs.frozen
class IdParams:
    id: int


@attrs.frozen
class PinParams:
    id: int
    pinned: bool = True


@attrs.frozen
class SetRuleParams:
    id: int
    pinned: bool | None = None
    active: bool | None = None


@attrs.frozen
class LessonsParams:
    query: str = ""
    limit: int = 20


@attrs.frozen
class RulesParams:
    include_unconfident: bool = True


@attrs.frozen
class PlaybookParams:
    query: str
    max_tokens: int | None = None
    uri: str | None = None
    """Added to the spec: with no ``query``, the language server answers for what was
    prefetched while this document was being edited."""


@attrs.frozen
class BeginTaskParams:
    goal: str


@attrs.frozen
class EndTaskParams:
    task_id: int
    success: bool
    stopped: str = "done"
    steps: int | None = None
    elapsed: float | None = None
    approvals: int | None = None
    tokens: int | None = None
    messages: list[MessageParams] = attrs.field(factory=list)


@attrs.frozen
class FeedbackParams:
    good: bool
    note: str = ""
    task_id: int | None = None


@attrs.frozen
class DeniedParams:
    tool: str
    subject: str
    reason: str = "denied"
    """Added to the spec: ``timeout`` or ``cancelled`` are not denials and teach nothing."""


@attrs.frozen
class AgentEditParams:
    uri: str
    text: str | None = None


@attrs.frozen
class UndoParams:
    uris: list[str]


@attrs.frozen
class ExportRulesParams:
    path: str | None = None


# -- results -------------------------------------------------------------------- #


@attrs.frozen
class LessonResult:
    lesson: LessonObject


@attrs.frozen
class RuleResult:
    rule: RuleObject


@attrs.frozen
class RemovedResult:
    removed: bool


@attrs.frozen
class OkResult:
    ok: bool


@attrs.frozen
class LessonsResult:
    lessons: list[LessonObject]


@attrs.frozen
class RulesResult:
    rules: list[RuleObject]


@attrs.frozen
class PlaybookResult:
    text: str
    lessons: list[LessonObject]
    rules: list[RuleObject]
    prefetched: bool
    tokens: int


@attrs.frozen
class BeginTaskResult:
    task_id: int
    text: str
    lessons: list[LessonObject]
    rules: list[RuleObject]
    prefetched: bool


@attrs.frozen
class EndTaskResult:
    episode_id: int


@attrs.frozen
class FeedbackResult:
    credited: int


@attrs.frozen
class UndoResult:
    undone: int


@attrs.frozen
class PathResult:
    path: str


@attrs.frozen
class ProgressResult:
    episodes: int
    headline: str
    enough_data: bool
    success_rate: float
    early_success_rate: float
    lessons: int
    rules_active: int
    series: list[SeriesObject]


@attrs.frozen
class StatsResult:
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
    """Added to the spec: recalls computed ahead and not yet used."""
    watching: str = "off"
    """Added to the spec: the workspace watcher's state (native, polling, starting, off)."""


@attrs.frozen
class ConsolidateResult:
    removed: int


@attrs.frozen
class DraftParams:
    """``comodor/draft``: the user is typing a request."""

    text: str


# -- conversion ----------------------------------------------------------------- #

_JSON_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _strict(kind: type[Any]) -> Any:
    def hook(value: object, _: object) -> object:
        if kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            if ok:
                try:
                    return _sane(float(value))  # type: ignore[arg-type]
                except OverflowError:  # an integer beyond any float
                    raise ValueError("expected a finite number, got a huge integer") from None
        elif kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, kind)
        if not ok:
            raise TypeError(f"expected {_JSON_NAMES[kind]}, got {_json_type(value)}")
        return _sane(value)

    return hook


_INT64 = 2**63


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in ``text`` (``json`` pairs valid ones), or None.

    ``isascii`` is O(1) and UTF-8 encoding stops at the first surrogate, both
    far faster than a regular expression over a multi-megabyte document.
    """
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return text[error.start]
    return None


def _sane(value: Any) -> Any:
    r"""Refuse values JSON can carry but nothing downstream can store or compute with.

    Python's ``json`` reads ``"\ud800"`` as a lone surrogate (no UTF-8 encoder
    writes it), ``NaN``/``Infinity``/``1e400`` as non-finite floats, and integers of
    any size (SQLite stores 64 bits). Each would otherwise fail deep in a write as an
    internal error instead of a clear InvalidParams naming the field.
    """
    if isinstance(value, str):
        found = lone_surrogate(value)
        if found is not None:
            code = f"U+{ord(found):04X}"
            raise ValueError(f"contains a lone surrogate ({code}), which is not valid Unicode")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"expected a finite number, got {value!r}")
    elif isinstance(value, int) and not -_INT64 <= value < _INT64:
        raise ValueError("is out of range (more than 64 bits)")
    return value


def _list_hook(value: object, kind: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected an array, got {_json_type(value)}")
    (item_type,) = kind.__args__
    items = []
    errors: list[Exception] = []
    for position, item in enumerate(value):
        try:
            items.append(converter.structure(item, item_type))
        except Exception as error:
            error.__notes__ = [f"@ index {position}"]
            errors.append(error)
    if errors:
        raise cattrs.IterableValidationError("invalid items", errors, kind)
    return items


def _renames(cls: type[Any]) -> dict[str, Any]:
    return {a.name: override(rename=camel(a.name)) for a in attrs.fields(cls)}


def _class_hook_factory(cls: type[Any]) -> Any:
    base = make_dict_structure_fn(cls, converter, **_renames(cls))

    def hook(value: object, kind: Any) -> Any:
        if not isinstance(value, dict):
            raise TypeError(f"expected an object, got {_json_type(value)}")
        return base(value, kind)

    return hook


converter = cattrs.Converter(detailed_validation=True, forbid_extra_keys=False)
for _kind in (str, int, float, bool):
    converter.register_structure_hook(_kind, _strict(_kind))
converter.register_structure_hook_func(
    lambda kind: getattr(kind, "__origin__", None) is list, _list_hook
)
converter.register_structure_hook_factory(attrs.has, _class_hook_factory)
converter.register_unstructure_hook_factory(
    attrs.has,
    lambda cls: make_dict_unstructure_fn(cls, converter, **_renames(cls)),
)

_INDEX = re.compile(r"\[(\d+)\]")


def _first_problem(error: BaseException, path: str) -> tuple[str, str]:
    """Walk a cattrs error tree to the first leaf: (camelCase field path, problem)."""
    if isinstance(error, cattrs.ClassValidationError):
        for child in error.exceptions:
            note = next((n for n in getattr(child, "__notes__", []) if "attribute" in n), "")
            name = getattr(note, "name", None)
            if name is None:
                match = re.search(r"attribute '?(\w+)'?", str(note))
                name = match.group(1) if match else ""
            sub = f"{path}.{camel(name)}" if path and name else camel(name) or path
            return _first_problem(child, sub)
    if isinstance(error, cattrs.IterableValidationError):
        for child in error.exceptions:
            note = next((str(n) for n in getattr(child, "__notes__", []) if "index" in n), "")
            match = re.search(r"index (\d+)", note)
            sub = f"{path}[{match.group(1)}]" if match else path
            return _first_problem(child, sub)
    if isinstance(error, KeyError):
        return path, "is required"
    return path, str(error) or type(error).__name__


def structure(raw: object, cls: type[T]) -> T:
    """Build ``cls`` from a client's JSON value, or raise :class:`InvalidInput`."""
    if raw is None and not attrs.fields(cls):  # type: ignore[arg-type]
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidInput("argument", f"expected one JSON object, got {_json_type(raw)}")
    try:
        return converter.structure(raw, cls)
    except cattrs.BaseValidationError as error:
        field, problem = _first_problem(error, "")
        raise InvalidInput(field or "argument", problem) from None
    except (TypeError, ValueError) as error:
        raise InvalidInput("argument", str(error)) from None


def unstructure(value: object) -> Any:
    """A result as plain JSON-ready data with camelCase keys."""
    return converter.unstructure(value)
