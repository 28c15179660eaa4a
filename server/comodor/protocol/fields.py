"""Validated fields: one declaration gives the check, the error message and the schema.

A params class declares each field once (``attrs.field(**text(max_chars=2000))``);
the attrs validator checks it when a client's JSON is structured, raising
:class:`~comodor.brain.errors.InvalidInput` that names the field as the client
spelled it, and ``comodor.protocol.schema_export`` publishes the same limits from the field's
metadata. So the wire format has exactly one validator.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs

from ..brain.errors import InvalidInput

SCHEMA = "comodor.schema"
"""Field metadata key: JSON Schema keywords for this field (``minLength``, ``enum``…)."""


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _check_text(min_chars: int, max_chars: int) -> Any:
    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        del instance
        if value is None:
            return
        field = camel(attribute.name)
        if not isinstance(value, str):
            raise InvalidInput(field, f"expected a string, got {type(value).__name__}")
        if min_chars and not value.strip():
            raise InvalidInput(field, "must not be empty")
        if len(value) > max_chars:
            raise InvalidInput(
                field, f"is {len(value)} characters; at most {max_chars} are allowed"
            )

    return check


def text(*, max_chars: int, min_chars: int = 1) -> dict[str, Any]:
    """A string field: at most ``max_chars``; with ``min_chars`` it must not be blank."""
    schema: dict[str, Any] = {"maxLength": max_chars}
    if min_chars:
        schema["minLength"] = min_chars
    return {"validator": _check_text(min_chars, max_chars), "metadata": {SCHEMA: schema}}


def integer(*, minimum: int) -> dict[str, Any]:
    """An integer field of at least ``minimum`` (``None`` passes when it is the default)."""

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        del instance
        if value is not None and value < minimum:  # type: ignore[operator]
            raise InvalidInput(camel(attribute.name), f"must be at least {minimum}")

    return {"validator": check, "metadata": {SCHEMA: {"minimum": minimum}}}


def number(*, minimum: float) -> dict[str, Any]:
    """A finite number of at least ``minimum`` (``None`` passes when it is the default)."""

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        del instance
        if value is None:
            return
        field = camel(attribute.name)
        if not math.isfinite(value) or value < minimum:  # type: ignore[arg-type,operator]
            raise InvalidInput(field, f"must be a finite number of at least {minimum}")

    return {"validator": check, "metadata": {SCHEMA: {"minimum": minimum}}}


def choice(values: Sequence[str]) -> dict[str, Any]:
    """A string that must be one of ``values``."""

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        del instance
        if value not in values:
            raise InvalidInput(camel(attribute.name), f"must be one of {', '.join(values)}")

    return {"validator": check, "metadata": {SCHEMA: {"enum": list(values)}}}


def items(*, max_items: int) -> dict[str, Any]:
    """A list of at most ``max_items``."""

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        del instance
        if len(value) > max_items:  # type: ignore[arg-type]
            raise InvalidInput(camel(attribute.name), f"at most {max_items} items are accepted")

    return {"validator": check, "metadata": {SCHEMA: {"maxItems": max_items}}}


def enum_only(values: Sequence[str | None]) -> Any:
    """Metadata for a result field that is always one of ``values`` (published, not checked)."""
    return {SCHEMA: {"enum": list(values)}}
