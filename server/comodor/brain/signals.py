"""Reading signals out of what happened: denials and repeated tool failures.

Both become house rules through votes, like corrections do, so the same
counting and the same confidence rules apply everywhere.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections import Counter
from collections.abc import Sequence

import attrs

from comodor.brain.models import Message
from comodor.brain.redact import cut, redact
from comodor.brain.redaction.base import MARKER_RE

SHELL_TOOLS = frozenset(
    {
        "run_shell",
        "shell",
        "bash",
        "sh",
        "terminal",
        "run_in_terminal",
        "execute_command",
        "run_command",
        "exec",
        "command",
    }
)
_PREFIXES = frozenset({"sudo", "env", "time", "nohup", "nice", "command", "exec", "xargs"})
NOT_DENIALS = frozenset({"timeout", "timed_out", "timedout", "cancelled", "canceled", "error"})


@attrs.frozen
class DenialKey:
    """What a denial is about: a rule key and the words a statement can quote."""

    key: str
    subject: str


def _slug(text: str, limit: int = 60) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit] or "x"


def denial_key(tool: str, subject: str) -> DenialKey:
    """Key a denial on the command and its subcommand, never on the bare program.

    Denying ``git push --force origin main`` must not forbid ``git status``: the
    key is ``git push --force`` (program, subcommand, flags), never ``git``.
    """
    tool_name = tool.strip() or "tool"
    if tool_name.lower() in SHELL_TOOLS:
        try:
            parts = shlex.split(subject, comments=False, posix=True)
        except ValueError:
            parts = subject.split()
        while parts and (parts[0] in _PREFIXES or re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", parts[0])):
            parts = parts[1:]
        if parts:
            program = parts[0].rsplit("/", 1)[-1]
            rest = parts[1:]
            words = [program]
            subcommand = next((part for part in rest if not part.startswith("-")), None)
            flags = [part.split("=", 1)[0] for part in rest if part.startswith("-")][:3]
            if subcommand is not None and re.fullmatch(r"[a-z][a-z0-9:_-]*", subcommand):
                words.append(subcommand)
            words.extend(flags)
            if len(words) == 1 and rest:
                words.append(rest[0][:40])
            command = " ".join(words)
            return DenialKey(f"denied.shell.{_slug(command)}", command)
    subject_words = " ".join(subject.split())[:80]
    return DenialKey(f"denied.{_slug(tool_name, 30)}.{_slug(subject_words)}", subject_words)


def _normalise_piece(text: str) -> str:
    text = re.sub(r"(['\"]).*?\1", "<str>", text)
    text = re.sub(r"(/[\w.@-]+)+/?", "<path>", text)
    text = re.sub(r"0x[0-9a-fA-F]+|\b[0-9a-f]{7,40}\b", "<hex>", text)
    text = re.sub(r"\d+(\.\d+)?", "<n>", text)
    return text.lower()


def normalise_error(text: str) -> str:
    """An error message without the parts that differ between two runs of the same failure.

    The text is redacted *first*: lower-casing and replacing digits would turn a secret into
    fragments no rule recognises any more (``github_pat_<n>...``, ``akia...``), and those
    would reach rule statements and instruction files. The markers redaction leaves are kept
    exactly as they are, so the normalised text still says what was removed.
    """
    redacted = redact(text)
    first = next((line.strip() for line in redacted.splitlines() if line.strip()), "")
    pieces = MARKER_RE.split(first)
    markers = MARKER_RE.findall(first)
    normalised = _normalise_piece(pieces[0])
    for marker, piece in zip(markers, pieces[1:], strict=True):
        normalised += marker + _normalise_piece(piece)
    return cut(" ".join(normalised.split()), 160)


@attrs.frozen
class Pitfall:
    """A tool that failed at least twice with the same normalised error in one task."""

    tool: str
    error: str
    count: int

    @property
    def key(self) -> str:
        digest = hashlib.sha1(self.error.encode("utf-8")).hexdigest()[:8]
        return f"pitfall.{_slug(self.tool, 40)}.{digest}"

    @property
    def statement(self) -> str:
        return (
            f'`{self.tool}` keeps failing with "{cut(self.error, 100)}"; fix the cause '
            "before calling it again."
        )


def tool_errors(messages: Sequence[Message]) -> list[Message]:
    return [message for message in messages if message.role == "tool" and message.is_error]


def find_pitfalls(messages: Sequence[Message]) -> list[Pitfall]:
    counts: Counter[tuple[str, str]] = Counter()
    for message in tool_errors(messages):
        error = normalise_error(message.content or "")
        counts[(message.name or "tool", error)] += 1
    return [Pitfall(tool, error, count) for (tool, error), count in counts.items() if count >= 2]
