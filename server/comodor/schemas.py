"""JSON Schemas for the protocol, generated from the attrs classes in :mod:`comodor.protocol`.

``schemas/`` is written by ``comodor-lsp schemas --write`` and checked by the test
suite (the files must equal what this module generates), so the classes stay the
single source of truth and the TypeScript client can be held to the same files.
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

import attrs

from . import protocol
from .brain.events import MemoryEvent
from .commands import COMMANDS

DRAFT = "http://json-schema.org/draft-07/schema#"


def memory_actions() -> list[str]:
    """Every ``comodor/memory`` action: one per memory event class of the brain."""
    found: list[str] = []
    pending: list[type[MemoryEvent]] = [MemoryEvent]
    while pending:
        cls = pending.pop(0)
        if cls.action and cls.action not in found:
            found.append(cls.action)
        pending.extend(cls.__subclasses__())
    return found


def _type_schema(kind: Any, *, params: bool) -> dict[str, Any]:
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        members = [arg for arg in typing.get_args(kind) if arg is not type(None)]
        inner = _type_schema(members[0], params=params)
        return {"anyOf": [inner, {"type": "null"}]}
    if origin is list:
        (item,) = typing.get_args(kind)
        return {"type": "array", "items": _type_schema(item, params=params)}
    if kind is str:
        return {"type": "string"}
    if kind is bool:
        return {"type": "boolean"}
    if kind is int:
        return {"type": "integer"}
    if kind is float:
        return {"type": "number"}
    if attrs.has(kind):
        return object_schema(kind, params=params)
    raise TypeError(f"no schema for {kind!r}")


def object_schema(cls: type[Any], *, params: bool) -> dict[str, Any]:
    """Schema of one attrs class: camelCase properties; params tolerate unknown fields."""
    hints = typing.get_type_hints(cls)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in attrs.fields(cls):
        name = protocol.camel(field.name)
        schema = _type_schema(hints[field.name], params=params)
        schema.update(field.metadata.get(protocol.SCHEMA, {}))
        factory = isinstance(field.default, attrs.Factory)  # type: ignore[arg-type]
        if field.default is not attrs.NOTHING and not factory:
            schema["default"] = field.default
        properties[name] = schema
        if field.default is attrs.NOTHING:
            required.append(name)
    result: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": params,
    }
    if required:
        result["required"] = required
    return result


def _document(title: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": DRAFT, "title": title, **body}


def generate() -> dict[str, dict[str, Any]]:
    """Every schema file, by path relative to ``schemas/``."""
    files: dict[str, dict[str, Any]] = {}
    for name, command in COMMANDS.items():
        files[f"commands/{name}.params.json"] = _document(
            f"{name} params", object_schema(command.params, params=True)
        )
        files[f"commands/{name}.result.json"] = _document(
            f"{name} result", object_schema(command.result, params=False)
        )
    lesson = object_schema(protocol.LessonObject, params=False)
    rule = object_schema(protocol.RuleObject, params=False)
    files["notifications/comodor-memory.json"] = _document(
        "comodor/memory",
        {
            "type": "object",
            "properties": {
                "action": {"enum": memory_actions()},
                "items": {"type": "array", "items": {"anyOf": [lesson, rule]}},
                "rules": {"type": "array", "items": rule},
                "uri": {"type": "string"},
                "ruleKeys": {"type": "array", "items": {"type": "string"}},
                "id": {"type": "integer"},
                "taskId": {"type": "integer"},
                "taught": {"type": "boolean"},
            },
            "required": ["action"],
            "additionalProperties": True,
        },
    )
    files["notifications/comodor-draft.json"] = _document(
        "comodor/draft", object_schema(protocol.DraftParams, params=True)
    )
    return files


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=False) + "\n"


def write(root: Path) -> list[Path]:
    written = []
    for relative, schema in generate().items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(schema), encoding="utf-8")
        written.append(target)
    return written
