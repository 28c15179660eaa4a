"""Turn a finished task into the short text a model reflects on.

Reflection runs on the user's own (often small, local) model, so the prompt
must be cheap and focused: what was asked, how it ended, which tools failed
and how, what the user said and corrected. Successful tool output and long
assistant prose carry little signal and are trimmed hard. Everything passes an
injected redactor before it leaves the process, and each piece is redacted
*before* it is cut so a secret can never survive as a half-token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from ..brain.models import EpisodeSummary, Message

__all__ = [
    "DEFAULT_MAX_CHARS",
    "SYSTEM_PROMPT",
    "EpisodeSummary",
    "Message",
    "Redactor",
    "build_messages",
    "build_transcript",
]

Redactor = Callable[[str], str]
Role = Literal["user", "assistant", "tool"]

DEFAULT_MAX_CHARS = 6_000
_USER_MAX = 500
_ASSISTANT_MAX = 160
_ERROR_MAX = 400
_CORRECTION_MAX = 600
_GOAL_MAX = 500
# Raw text is pre-cut to this window (head and tail) before redaction so a huge
# tool output cannot make redaction slow. The window is far larger than any
# final snippet, so a secret split by the pre-cut never reaches the output.
_PRECUT = 8_000
_OMIT = "\n[… {n} characters omitted …]\n"


SYSTEM_PROMPT = """\
You review a finished task of an AI coding assistant in one software project and \
write down what would help the assistant do future tasks in THIS project better.

Reply with strict JSON only, no prose and no code fences, in exactly this shape:
{"lessons": [{"kind": "preference|fact|heuristic|pitfall|env", "trigger": "...", \
"guidance": "...", "confidence": 0.0}], "skill": null}

Kinds:
- preference: how the user wants things done (style, tools, conventions).
- fact: a stable fact about this project (layout, commands, names).
- heuristic: an approach that worked and is worth repeating.
- pitfall: a mistake that was made or nearly made, and how to avoid it.
- env: something about the environment (OS, paths, installed tools, versions).

Rules:
- At most 4 lessons. Fewer is better; an empty list is a fine answer.
- Only lessons that will help future tasks in this project; nothing that is \
specific to this one task, obvious, or generic advice.
- "trigger" says when the lesson applies (e.g. "when running the tests"); \
"guidance" is one or two imperative sentences (e.g. "Run pytest with -q from \
the repo root.").
- User corrections are the strongest evidence; repeated tool errors come next.
- "confidence" is between 0 and 1: how sure you are that the lesson is right \
and will matter again.
- Never include secrets, tokens, passwords or personal data.
- "skill" is null unless the task revealed a reusable multi-step procedure; \
then {"name": "...", "description": "...", "steps": ["...", "..."]} with 2 to \
12 short imperative steps.
"""


def build_messages(
    summary: EpisodeSummary, redact: Redactor, *, max_chars: int = DEFAULT_MAX_CHARS
) -> list[dict[str, str]]:
    """Build the chat messages for one reflection call (system prompt + transcript)."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": build_transcript(summary, redact, max_chars=max_chars)},
    ]


def build_transcript(
    summary: EpisodeSummary, redact: Redactor, *, max_chars: int = DEFAULT_MAX_CHARS
) -> str:
    """Compact, redacted, length-capped text describing ``summary``."""

    def clip(text: str | None, limit: int) -> str:
        # Redact before flattening: .env lines, YAML blocks and PEM bodies are told apart by
        # their line breaks.
        return _cut(_flatten(redact(_precut(text or ""))), limit)

    lines: list[str] = [f"Goal: {clip(summary.goal, _GOAL_MAX) or '(not stated)'}"]
    outcome = "succeeded" if summary.success else "failed"
    stopped = clip(summary.stopped, 120)
    lines.append(
        f"Outcome: {outcome} after {summary.steps} steps"
        + (f" (stopped: {stopped})" if stopped else "")
    )
    if summary.rule_keys:
        keys = ", ".join(clip(k, 80) for k in summary.rule_keys[:20])
        lines.append(f"Lessons already applied during the task (do not repeat them): {keys}")

    if summary.corrections:
        lines.append("")
        lines.append("User corrections:")
        for text in _unique(clip(c, _CORRECTION_MAX) for c in summary.corrections):
            lines.append(f"- {text}")

    timeline = _timeline(summary.messages, clip)
    if timeline:
        lines.append("")
        lines.append("Timeline:")
        lines.extend(timeline)

    text = redact("\n".join(lines))
    return _cap(text, max(200, max_chars))


def _timeline(messages: Sequence[Message], clip: Callable[[str | None, int], str]) -> list[str]:
    """One line per event; runs of identical tool events and repeated errors collapse."""
    out: list[str] = []
    seen_errors: set[tuple[str, str]] = set()
    last_key: tuple[str, ...] | None = None
    repeats = 0

    def flush() -> None:
        if repeats > 1:
            out[-1] += f" (×{repeats})"

    for msg in messages:
        key: tuple[str, ...]
        if msg.role == "tool":
            name = clip(msg.name, 60) or "tool"
            if msg.is_error:
                error = clip(msg.content, _ERROR_MAX) or "(no message)"
                if (name, error) in seen_errors:
                    line, key = f"[tool {name}] ERROR (same as before)", ("err-again", name, error)
                else:
                    seen_errors.add((name, error))
                    line, key = f"[tool {name}] ERROR: {error}", ("err", name, error)
            else:
                line, key = f"[tool {name}] ok", ("ok", name)
        elif msg.role == "user":
            text = clip(msg.content, _USER_MAX)
            if not text:
                continue
            line, key = f"[user] {text}", ("user", text)
        else:
            # Assistant prose is mostly narration; its opening says what it tried.
            text = _head(clip(msg.content, _PRECUT), _ASSISTANT_MAX)
            if not text:
                continue
            line, key = f"[assistant] {text}", ("assistant", text)
        if key == last_key:
            repeats += 1
            continue
        flush()
        out.append(line)
        last_key, repeats = key, 1
    flush()
    return out


def _flatten(text: str) -> str:
    return " ".join(text.split())


def _head(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _precut(text: str) -> str:
    if len(text) <= 2 * _PRECUT:
        return text
    return text[:_PRECUT] + " … " + text[-_PRECUT:]


def _cut(text: str, limit: int) -> str:
    """Keep head and tail of one snippet (errors end with the useful part)."""
    if len(text) <= limit:
        return text
    head = (limit - 3) * 2 // 3
    tail = limit - 3 - head
    return text[:head] + " … " + text[-tail:] if tail > 0 else text[:limit]


def _cap(text: str, max_chars: int) -> str:
    """Hard cap for the whole transcript, keeping the start and the end."""
    if len(text) <= max_chars:
        return text
    marker_len = len(_OMIT.format(n=len(text)))
    room = max_chars - marker_len
    head = room * 3 // 5
    tail = room - head
    omitted = len(text) - head - tail
    return text[:head] + _OMIT.format(n=omitted) + text[len(text) - tail :]


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item and item not in seen:
            seen.add(item)
            out.append(item)
    return out
