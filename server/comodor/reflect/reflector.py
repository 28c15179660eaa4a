"""Glue: transcript → model call → parsed reflection, as one callable.

The worker takes any ``Callable[[EpisodeSummary], Reflection]``; this class is
the production one, keeping the three steps (and the injected redactor) in one
place so the engine does not have to know about prompts or parsing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from .parse import ParseResult, Reflection, parse_reflection
from .transcript import DEFAULT_MAX_CHARS, EpisodeSummary, build_messages

__all__ = ["CompletionGateway", "Reflector"]

_LOG = logging.getLogger(__name__)


class CompletionGateway(Protocol):
    """What the reflector needs from a gateway (``ChatGateway`` fits)."""

    def complete(
        self, messages: Sequence[Mapping[str, str]], *, json_mode: bool = False
    ) -> str: ...

    def cancel(self) -> None: ...


class Reflector:
    """``Reflector(gateway, redact).reflect(summary) -> Reflection``.

    Gateway failures propagate as ``ReflectError`` (the worker logs them);
    an unusable reply is not an error, just an empty ``Reflection``.
    """

    def __init__(
        self,
        gateway: CompletionGateway,
        redact: Callable[[str], str],
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        json_mode: bool = False,
        log: logging.Logger | None = None,
    ) -> None:
        self._gateway = gateway
        self._redact = redact
        self._max_chars = max_chars
        self._json_mode = json_mode
        self._log = log or _LOG
        #: Why the last reply was (partly) unusable, or "" — for doctor/debug.
        self.last_reason = ""

    def reflect(self, summary: EpisodeSummary) -> Reflection:
        """Ask the model about one finished task and return what it proposes."""
        return self.reflect_detailed(summary).reflection

    def reflect_detailed(self, summary: EpisodeSummary) -> ParseResult:
        """Like :meth:`reflect` but also returns the parser's note."""
        messages = build_messages(summary, self._redact, max_chars=self._max_chars)
        reply = self._gateway.complete(messages, json_mode=self._json_mode)
        result = parse_reflection(reply, self._redact)
        self.last_reason = result.reason
        if result.reason:
            level = logging.INFO if result.reflection.empty else logging.DEBUG
            self._log.log(level, "reflection reply: %s", result.reason)
        return result

    def cancel(self) -> None:
        """Abort the in-flight model call (pass as the worker's ``on_stop``)."""
        self._gateway.cancel()
