r"""LSP base-protocol framing: bytes in, JSON values or named problems out.

A language server that loses its place in the byte stream is worse than one
that crashes: it keeps running and never answers again. pygls's reader wants
exactly ``Content-Length: N\r\n``, trusts ``N`` blindly (``read(N)`` allocates
before a single body byte has arrived) and, after one bad frame, waits for a
header it will never recognise. This decoder is sans-IO (``feed`` bytes, get
events) so it can be tested without a process, and it is forgiving where the
spec is loose and strict where trust matters:

- header names in any case, ``\r\n`` or bare ``\n`` line ends, extra headers
  (``Content-Type``…) ignored;
- ``Content-Length`` must be ASCII digits and at most :data:`MAX_BODY_BYTES`,
  checked before anything is allocated; a bad one is reported and its frame
  skipped;
- after garbage it resynchronises on the next ``Content-Length`` header, even
  one glued to the end of a garbage line (the usual shape when a previous
  length was too short);
- a body that cannot be what it claims (not UTF-8, not JSON, nested deeper than
  :data:`MAX_NESTING_DEPTH`) is reported, and its bytes are read again as
  headers: if the length was too long, it swallowed the start of the next
  message, which is then found.

Two facts make resynchronisation safe. A valid JSON text can never start a
line with a bare word, so a ``content-length:`` at the start of a line of a body
that has not finished arriving means the body was cut short and a new message
began. And only a body that failed to parse is rescanned, so a good message is
never taken apart. What cannot be recovered is a header glued to the end of a
body that has not finished arriving (no line feed before it): inside a body,
``Content-Length:`` may be text in a string.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

MAX_BODY_BYTES = 64 * 1024 * 1024
"""The largest message body accepted (64 MiB): far above any real LSP message (a
whole large file in ``didOpen``), far below what would exhaust memory."""

MAX_HEADER_LINE_BYTES = 8 * 1024
"""A header line longer than this is garbage, whatever it says."""

MAX_NESTING_DEPTH = 64
"""Arrays and objects nested deeper than this are refused before anything walks
them recursively (LSP messages nest about ten levels deep)."""

_MARKER = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
"""Where a header block starts: the resynchronisation point."""

_MARKER_AT_LINE_START = re.compile(rb"^[ \t]*content-length[ \t]*:", re.IGNORECASE | re.MULTILINE)
"""A header at the start of a line: impossible inside a JSON text (see the module doc)."""

_MARKER_SPAN = 64
"""Longest marker (with its blanks) that a read could cut in two: rescans overlap by this."""

_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""An HTTP header name (RFC 9110 token)."""


@attrs.frozen
class Message:
    """A body that decoded to a JSON value (not yet checked to be JSON-RPC)."""

    value: Any


@attrs.frozen
class Malformed:
    """Bytes that could not be a message; ``reason`` says why, for the client and the log."""

    reason: str


Event = Message | Malformed


class FrameDecoder:
    """Turn a byte stream into :class:`Message` and :class:`Malformed` events.

    Feed it whatever ``read`` returned; it keeps at most one header line, or one
    body of at most :data:`MAX_BODY_BYTES`, buffered. One problem is reported per
    run of garbage, not one per line, so a stream of junk cannot flood the client
    with errors; every body that fails to decode gets its own report.
    """

    def __init__(self, max_body_bytes: int = MAX_BODY_BYTES) -> None:
        self.max_body_bytes = max_body_bytes
        self._buffer = bytearray()
        self._body_length: int | None = None
        """Set while a body is being read: how many bytes it has."""
        self._body_scanned = 0
        """How much of the partial body was searched for a new header already."""
        self._block_length: int | None = None
        """The ``Content-Length`` of the header block being read."""
        self._block_started = False
        """Whether the current header block has at least one header."""
        self._block_broken = False
        """The current header block is unusable (already reported); skip it."""
        self._skipping = False
        """Inside a run of garbage that was already reported."""
        self.rescanned = 0
        """Bytes of failed bodies read again so far (for diagnostics and tests)."""
        self._rescan_budget = 0
        """Bytes of failed bodies that may still be read again: earned one per byte
        received, so a hostile stream of nested headers costs linear time, not
        quadratic (each failed body hiding the next one)."""

    def feed(self, data: bytes) -> list[Event]:
        """Take the next bytes of the stream; return the events they complete."""
        self._buffer += data
        self._rescan_budget = min(self._rescan_budget + len(data), 2 * self.max_body_bytes)
        events: list[Event] = []
        while self._step(events):
            pass
        return events

    def finish(self) -> list[Event]:
        """The stream ended: report a message that was cut off, if any."""
        events: list[Event] = []
        if self._body_length is not None:
            events.append(
                Malformed(
                    f"the stream ended {len(self._buffer)} bytes into a body of "
                    f"{self._body_length} bytes"
                )
            )
        elif self._buffer.strip() and not self._skipping:
            events.append(Malformed("the stream ended inside a header"))
        self._buffer.clear()
        self._body_length = None
        return events

    # -- the state machine ---------------------------------------------------- #

    def _step(self, events: list[Event]) -> bool:
        """Make one step of progress; return whether another step may make more."""
        if self._body_length is not None:
            return self._step_body(events)
        newline = self._buffer.find(b"\n")
        if newline < 0:
            if len(self._buffer) > MAX_HEADER_LINE_BYTES:
                self._drop_overlong_line(events)
                return True
            return False
        line = bytes(self._buffer[:newline])
        del self._buffer[: newline + 1]
        if line.endswith(b"\r"):
            line = line[:-1]
        self._header_line(line, events)
        return True

    def _step_body(self, events: list[Event]) -> bool:
        length = self._body_length
        assert length is not None
        end = min(length, len(self._buffer))
        cut = _MARKER_AT_LINE_START.search(self._buffer, self._body_scanned, end)
        if cut is not None:  # found the same way whether the body came whole or in pieces
            events.append(
                Malformed(
                    f"the body was cut short: a new header began {cut.start()} bytes into "
                    f"a body of {length} bytes"
                )
            )
            del self._buffer[: cut.start()]
            self._body_length = None
            return True
        if len(self._buffer) >= length:
            body = bytes(self._buffer[:length])
            del self._buffer[:length]
            self._body_length = None
            self._body(body, events)
            return True
        self._body_scanned = max(0, len(self._buffer) - _MARKER_SPAN)
        return False

    def _body(self, body: bytes, events: list[Event]) -> None:
        try:
            events.append(Message(parse_body(body)))
        except BodyError as error:
            events.append(Malformed(str(error)))
            self._skipping = True  # what follows a wrong length is the same mistake
            if error.resync:
                # Not JSON, so maybe not a body at all (a wrong or stray length) but the
                # start of the next message: read it again as headers. Each round consumes
                # a header block, so this ends; the budget keeps the total linear. Past
                # the budget only the tail is reread: where a length too long hid the
                # next message.
                again = min(len(body), self._rescan_budget)
                self._rescan_budget -= again
                self.rescanned += again
                if again:
                    self._buffer[:0] = body[len(body) - again :]

    def _header_line(self, line: bytes, events: list[Event]) -> None:
        if not line.strip():
            self._end_of_headers(events)
            return
        markers = list(_MARKER.finditer(line))
        if markers:
            start, end = markers[-1].start(), markers[-1].end()
            if line[:start].strip():
                self._garbage(events, f"unexpected bytes before a header: {line[:start][:40]!r}")
            elif self._block_length is not None or self._block_broken:
                self._garbage(events, "a header block without an empty line after it")
            self._block_started = True
            self._content_length(line[end:].strip(), events)
            return
        name, colon, _ = line.partition(b":")
        trusted = not self._skipping or self._block_length is not None
        if colon and _TOKEN.fullmatch(name.strip()) and trusted:
            self._block_started = True  # Content-Type or any other header: tolerated
            return
        if len(line) > MAX_HEADER_LINE_BYTES:
            self._garbage(events, f"a header line longer than {MAX_HEADER_LINE_BYTES} bytes")
        else:
            self._garbage(events, f"unexpected bytes where a header was expected: {line[:40]!r}")

    def _content_length(self, value: bytes, events: list[Event]) -> None:
        text = value.decode("ascii", "backslashreplace")
        if not value.isdigit():  # bytes.isdigit: ASCII digits only
            problem = "is negative" if value.startswith(b"-") else "is not a number"
            self._broken_block(events, f"Content-Length {text[:40]!r} {problem}")
        elif len(value) > 15 or int(value) > self.max_body_bytes:
            self._broken_block(
                events,
                f"Content-Length {text[:40]} is over the limit of {self.max_body_bytes} bytes",
            )
        else:
            self._block_length = int(value)

    def _end_of_headers(self, events: list[Event]) -> None:
        if self._block_length is not None:
            self._body_length = self._block_length
            self._body_scanned = 0
            self._skipping = False
        elif self._block_started and not self._block_broken and not self._skipping:
            events.append(Malformed("a header block without Content-Length"))
            self._skipping = True
        # else: a stray blank line between messages, or the end of a broken block
        self._reset_block()

    def _broken_block(self, events: list[Event], reason: str) -> None:
        events.append(Malformed(f"{reason}; skipping to the next message"))
        self._skipping = True
        self._block_length = None
        self._block_broken = True

    def _garbage(self, events: list[Event], reason: str) -> None:
        if not self._skipping:
            events.append(Malformed(f"{reason}; skipping to the next message"))
            self._skipping = True
        self._reset_block()

    def _reset_block(self) -> None:
        self._block_length = None
        self._block_started = False
        self._block_broken = False

    def _drop_overlong_line(self, events: list[Event]) -> None:
        """A header line with no end in sight: keep only where a header may start."""
        self._garbage(events, f"a header line longer than {MAX_HEADER_LINE_BYTES} bytes")
        markers = list(_MARKER.finditer(self._buffer))
        if markers and markers[-1].start() > 0:
            del self._buffer[: markers[-1].start()]
        else:
            del self._buffer[:-_MARKER_SPAN]


# -- bodies ------------------------------------------------------------------- #


class BodyError(ValueError):
    """A body that is not a JSON text we are willing to handle."""

    def __init__(self, reason: str, *, resync: bool = True) -> None:
        super().__init__(reason)
        self.resync = resync
        """Whether the body may hide the start of the next message (it was not JSON)."""


def parse_body(body: bytes) -> Any:
    """Decode one message body: strict UTF-8, JSON, at most :data:`MAX_NESTING_DEPTH` deep.

    ``NaN`` and ``Infinity`` are let through as floats on purpose: they are a bad
    *value* in an otherwise readable message, which the receiving side answers
    with InvalidParams naming the field, not a parse error.
    """
    if not body.strip():
        raise BodyError("the body is empty")
    if body.startswith(b"\xef\xbb\xbf"):
        body = body[3:]
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BodyError(
            f"the body is not valid UTF-8 (byte 0x{body[error.start]:02x} at offset {error.start})"
        ) from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise BodyError(
            f"the body is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})"
        ) from None
    except RecursionError:
        raise BodyError(f"the body is nested deeper than {MAX_NESTING_DEPTH} levels") from None
    if nesting_depth(value) > MAX_NESTING_DEPTH:
        raise BodyError(f"the body is nested deeper than {MAX_NESTING_DEPTH} levels", resync=False)
    return value


def nesting_depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (a scalar is 0), without recursion."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_NESTING_DEPTH:
            return depth
        pending.extend((child, depth + 1) for child in children)
    return deepest
