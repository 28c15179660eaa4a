"""JSON Schema of a protocol class: what ``schemas/`` publishes and MCP tools declare.

One function for every consumer, so the files under ``schemas/``, the MCP tools'
input and output schemas and the VS Code tool manifest describe a class the same
way: camelCase properties, field-declared limits (:mod:`comodor.protocol.fields`),
defaults, and params that tolerate unknown fields (the protocol allows additions).
"""

from __future__ import annotations

import types
import typing
from typing import Any

import attrs

from .fields import SCHEMA, camel


def _type_schema(kind: Any, *, params: bool) -> dict[str, Any]:
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        members = [arg for arg in typing.get_args(kind) if arg is not type(None)]
        inner = _type_schema(members[0], params=params)
        return {"anyOf": [inner, {"type": "null"}]}
    if origin is dict:
        return {"type": "object"}
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
        name = camel(field.name)
        schema = _type_schema(hints[field.name], params=params)
        schema.update(field.metadata.get(SCHEMA, {}))
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
