"""The edge: client JSON into params, brain records and events into client JSON.

Structuring is strict: a string is not an int, ``true`` is not ``1``; unknown
fields are ignored; a problem raises :class:`~comodor.brain.errors.InvalidInput`
naming the field as the client spelled it (``messages[0].isError``), before
anything is written. Unstructuring turns snake_case into camelCase.

The brain speaks Python (records, typed events); :class:`Wire` is the one place
that turns them into the protocol's objects and the ``comodor/memory``
notification. Hosts call it; nothing else converts.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from ..brain.errors import InvalidInput
from ..brain.events import MemoryEvent
from ..brain.models import Lesson, Rule
from .fields import camel
from .results import LessonObject, RuleObject

T = TypeVar("T")

_JSON_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}


def json_type(value: object) -> str:
    """How JSON would call ``value``'s type, for error messages."""
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
            raise TypeError(f"expected {_JSON_NAMES[kind]}, got {json_type(value)}")
        return _sane(value)

    return hook


def _list_hook(value: object, kind: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected an array, got {json_type(value)}")
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


def _object_hook(value: object, kind: Any) -> dict[str, Any]:
    """A free-form JSON object (checked by whatever consumes it)."""
    del kind
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {json_type(value)}")
    return value


def _renames(cls: type[Any]) -> dict[str, Any]:
    return {a.name: override(rename=camel(a.name)) for a in attrs.fields(cls)}


def _class_hook_factory(cls: type[Any]) -> Any:
    base = make_dict_structure_fn(cls, converter, **_renames(cls))

    def hook(value: object, kind: Any) -> Any:
        if not isinstance(value, dict):
            raise TypeError(f"expected an object, got {json_type(value)}")
        return base(value, kind)

    return hook


converter = cattrs.Converter(detailed_validation=True, forbid_extra_keys=False)
for _kind in (str, int, float, bool):
    converter.register_structure_hook(_kind, _strict(_kind))
converter.register_structure_hook_func(
    lambda kind: getattr(kind, "__origin__", None) is list, _list_hook
)
converter.register_structure_hook_func(
    lambda kind: getattr(kind, "__origin__", None) is dict, _object_hook
)
converter.register_structure_hook_factory(attrs.has, _class_hook_factory)
converter.register_unstructure_hook_factory(
    attrs.has,
    lambda cls: make_dict_unstructure_fn(cls, converter, **_renames(cls)),
)


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
    if isinstance(error, InvalidInput):  # a field's validator: it knows its own name
        return (f"{path}.{error.field}" if path else error.field), error.problem
    if isinstance(error, KeyError):
        return path, "is required"
    return path, str(error) or type(error).__name__


def structure(raw: object, cls: type[T]) -> T:
    """Build ``cls`` from a client's JSON value, or raise :class:`InvalidInput`."""
    if raw is None and not attrs.fields(cls):  # type: ignore[arg-type]
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidInput("argument", f"expected one JSON object, got {json_type(raw)}")
    try:
        return converter.structure(raw, cls)
    except cattrs.BaseValidationError as error:
        field, problem = _first_problem(error, "")
        raise InvalidInput(field or "argument", problem) from None
    except InvalidInput:
        raise
    except (TypeError, ValueError) as error:
        raise InvalidInput("argument", str(error)) from None


def unstructure(value: object) -> Any:
    """A result as plain JSON-ready data with camelCase keys."""
    return converter.unstructure(value)


def view_of(cls: type[T], record: object, **computed: Any) -> T:
    """The protocol view ``cls`` of a brain ``record``: its fields taken by name.

    ``computed`` supplies the fields whose wire value is not the record's own
    (effective confidence, rounded numbers). A view field the record lacks is a
    programming error, caught by the tests the first time the view is built.
    """
    values = {
        field.name: computed[field.name] if field.name in computed else getattr(record, field.name)
        for field in attrs.fields(cls)  # type: ignore[arg-type]
    }
    return cls(**values)


_EVENT_NAMES = {"path": "uri", "lessons": "items"}
"""Event fields whose wire name is not their camelCase name."""


@attrs.frozen
class Wire:
    """Turns one app's brain records and events into protocol objects.

    Bound to what the conversion needs to know: the half-life (a lesson's
    effective confidence decays with it) and the workspace (events name files
    by workspace-relative path; the wire names them by URI).
    """

    half_life_days: float
    workspace: Path | None

    def lesson(self, lesson: Lesson) -> LessonObject:
        confidence = round(lesson.effective_confidence(self.half_life_days), 4)
        return view_of(LessonObject, lesson, confidence=confidence)

    def lessons(self, lessons: Any) -> list[LessonObject]:
        return [self.lesson(lesson) for lesson in lessons]

    def rule(self, rule: Rule) -> RuleObject:
        return view_of(RuleObject, rule, strength=round(rule.strength, 4))

    def rules(self, rules: Any) -> list[RuleObject]:
        return [self.rule(rule) for rule in rules]

    def uri(self, path: str) -> str:
        """A workspace-relative (or absolute) path as a ``file:`` URI."""
        target = Path(path)
        if not target.is_absolute() and self.workspace is not None:
            target = self.workspace / target
        return target.resolve().as_uri()

    def memory(self, event: MemoryEvent) -> dict[str, Any]:
        """The ``comodor/memory`` params for ``event``: ``{action, items?, …}``."""
        payload: dict[str, Any] = {"action": event.action}
        has_lessons = any(field.name == "lessons" for field in attrs.fields(type(event)))
        for field in attrs.fields(type(event)):
            value = getattr(event, field.name)
            name = _EVENT_NAMES.get(field.name, camel(field.name))
            if field.name == "rules":
                name = "rules" if has_lessons else "items"
                value = self.rules(value)
            elif field.name == "lessons":
                value = self.lessons(value)
            elif field.name == "path":
                value = self.uri(value)
            elif isinstance(value, tuple):
                value = list(value)
            payload[name] = value
        return unstructure(payload)  # type: ignore[no-any-return]
