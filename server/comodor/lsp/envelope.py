r"""Check a decoded JSON value is a JSON-RPC message pygls can take, with sane values.

pygls assumes every body is a well-formed JSON-RPC object: a batch array, a
``"jsonrpc": "1.0"``, an ``id`` of ``1e400`` or an object without ``method``
make it log and drop the message, so the client waits forever. Python's
``json`` also accepts what no other JSON reader does (``NaN``, ``Infinity``)
and what no UTF-8 writer can store (a lone surrogate ``"\ud800"``), and those
values only blow up later, deep in SQLite or a file write, as an internal error.

This module decides before pygls sees anything: :func:`rejection` says which
JSON-RPC error a malformed envelope gets (JSON-RPC 2.0 §5: id null when the id
itself is unusable); :func:`bad_value` names the first bad value in a request,
so it is answered with InvalidParams naming the field; :func:`sanitised`
repairs notifications and responses, which cannot be answered and must not be
dropped (a lost ``didChange`` would desynchronise the document).
"""

from __future__ import annotations

import math
import re
from typing import Any

import attrs
from lsprotocol import types

from ..protocol import json_type, lone_surrogate

_SURROGATES = re.compile("[\ud800-\udfff]")
"""Only used to repair a string already known to hold one (see :func:`lone_surrogate`)."""

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")

INVALID_REQUEST = int(types.ErrorCodes.InvalidRequest)
INVALID_PARAMS = int(types.ErrorCodes.InvalidParams)
PARSE_ERROR = int(types.ErrorCodes.ParseError)
SERVER_NOT_INITIALIZED = int(types.ErrorCodes.ServerNotInitialized)

MessageId = int | str


@attrs.frozen
class Rejection:
    """An error response to send instead of handling a message."""

    code: int
    message: str
    id: MessageId | None
    """Whom to answer; ``None`` is sent as ``"id": null``."""
    answer: bool = True
    """False for a notification: there is nobody to answer, only a log line."""


def usable_id(value: object) -> bool:
    """Whether ``value`` can be echoed back as a response id (LSP: integer or string)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def rejection(value: object) -> Rejection | None:
    """The error a decoded body gets when it is not a JSON-RPC 2.0 message, else None."""
    if not isinstance(value, dict):
        kind = "an array (LSP has no batches)" if isinstance(value, list) else json_type(value)
        return Rejection(INVALID_REQUEST, f"a message must be a JSON object, got {kind}", None)
    has_id = "id" in value
    message_id = value.get("id")
    method = value.get("method")
    is_response = "method" not in value and ("result" in value or "error" in value)
    if has_id and not usable_id(message_id) and not (is_response and message_id is None):
        return Rejection(
            INVALID_REQUEST,
            f"id must be an integer or a string, got {json_type(message_id)}",
            None,
        )
    reply_to = message_id if usable_id(message_id) else None
    answer = has_id and "method" in value
    if value.get("jsonrpc") != "2.0":
        return Rejection(INVALID_REQUEST, 'jsonrpc must be "2.0"', reply_to, answer)
    if "method" in value and not isinstance(method, str):
        return Rejection(
            INVALID_REQUEST, f"method must be a string, got {json_type(method)}", reply_to, answer
        )
    if "method" not in value and not is_response:
        return Rejection(
            INVALID_REQUEST,
            "a message needs a method (request or notification) or a result or an error (response)",
            reply_to,
            has_id,
        )
    params = value.get("params")
    if "method" in value and params is not None and not isinstance(params, (dict, list)):
        return Rejection(
            INVALID_REQUEST,
            f"params must be an object or an array, got {json_type(params)}",
            reply_to,
            answer,
        )
    return None


def bad_value(message: dict[str, Any]) -> tuple[str, str] | None:
    """The first value no handler should see, as ``(path, problem)``; None when all are sane.

    A command's argument is left to :func:`comodor.protocol.structure`, which names the
    field the way every door (LSP, MCP, CLI) does and ignores unknown fields.
    """
    params = message.get("params")
    if message.get("method") == types.WORKSPACE_EXECUTE_COMMAND and isinstance(params, dict):
        params = {key: item for key, item in params.items() if key != "arguments"}
    return _first_bad(params, "params")


def sanitised(message: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A copy with lone surrogates as U+FFFD and non-finite numbers as null, and what changed.

    U+FFFD has the same length as a surrogate in UTF-16, so document positions
    sent later still point where the client meant.
    """
    changed: list[str] = []
    repaired = _repair(message, "", changed)
    return repaired, changed


def _problem(value: object) -> str | None:
    if isinstance(value, str):
        found = lone_surrogate(value)
        if found is not None:
            return f"contains a lone surrogate (U+{ord(found):04X}), which is not valid Unicode"
    elif isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number, got {value!r} (NaN, Infinity or out of range)"
    return None


def _first_bad(value: object, path: str) -> tuple[str, str] | None:
    pending: list[tuple[object, str]] = [(value, path)]  # depth first, in document order
    while pending:
        item, where = pending.pop()
        if isinstance(item, dict):
            children: list[tuple[object, str]] = []
            for key, child in item.items():
                child_path = _join(where, key)
                if lone_surrogate(key) is not None:
                    return child_path, "this field name contains a lone surrogate"
                children.append((child, child_path))
            pending.extend(reversed(children))
        elif isinstance(item, list):
            pending.extend(
                (item[index], f"{where}[{index}]") for index in range(len(item) - 1, -1, -1)
            )
        else:
            problem = _problem(item)
            if problem is not None:
                return where, problem
    return None


def _repair(value: object, path: str, changed: list[str]) -> Any:
    if isinstance(value, dict):
        repaired: dict[str, Any] = {}
        for key, child in value.items():
            fixed_key = _repaired_text(key)
            repaired[fixed_key] = _repair(child, _join(path, fixed_key), changed)
            if fixed_key != key:
                changed.append(_join(path, fixed_key))
        return repaired
    if isinstance(value, list):
        return [_repair(child, f"{path}[{index}]", changed) for index, child in enumerate(value)]
    if _problem(value) is None:
        return value
    changed.append(path)
    return _repaired_text(value) if isinstance(value, str) else None


def _repaired_text(text: str) -> str:
    if lone_surrogate(text) is None:
        return text
    return _SURROGATES.sub("\ufffd", text)


def _join(path: str, key: str) -> str:
    if _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}" if path else key
    escaped = key.encode("ascii", "backslashreplace").decode().replace('"', '\\"')
    return f'{path}["{escaped}"]'
