"""JSON Schemas for the protocol, generated from the attrs classes in :mod:`comodor.protocol`.

``schemas/`` is written by ``comodor-lsp schemas --write`` and checked by the test
suite (the files must equal what this module generates), so the classes stay the
single source of truth and the TypeScript client can be held to the same files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import protocol
from ..brain.events import MemoryEvent
from ..commands import COMMANDS
from .jsonschema import object_schema

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
                "source": {"type": "string"},
            },
            "required": ["action"],
            "additionalProperties": True,
        },
    )
    files["notifications/comodor-draft.json"] = _document(
        "comodor/draft", object_schema(protocol.DraftParams, params=True)
    )
    files["notifications/comodor-assistantEdit.json"] = _document(
        "comodor/assistantEdit", object_schema(protocol.AssistantEditParams, params=True)
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
