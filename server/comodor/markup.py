"""Text from other people, made safe to show: plain text in, plain text out.

A teammate's committed ``house-rules.md`` is read back as team rules, and the
rules then appear in places that render Markdown (hover in VS Code renders links,
and ``command:`` links run commands) or that an assistant treats as instructions
(the playbook, ``AGENTS.md``). A repository is untrusted, so its rules are data:
:func:`plain_text` strips every piece of markup that could act (links, images,
HTML, autolinks, URIs of any scheme), and :func:`escape_markdown` makes whatever
is left render as the characters it is, wherever we show rule text as Markdown.
"""

from __future__ import annotations

import re

__all__ = ["MAX_RULE_CHARS", "escape_markdown", "plain_text"]

MAX_RULE_CHARS = 300
"""A house rule is one imperative sentence; anything longer is not a rule."""

_IMAGE = re.compile(r"!\[([^\]\n]{0,300})\]\([^)\n]{0,2000}\)")
_LINK = re.compile(r"\[([^\]\n]{0,300})\]\s?[(\[][^)\]\n]{0,2000}[)\]]")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]\n]{1,300}\]:\s*\S+.*$", re.MULTILINE)
_AUTOLINK = re.compile(r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^>\s]{0,2000}>")
_TAG = re.compile(r"</?[A-Za-z][^>\n]{0,500}>|<!--.*?-->", re.DOTALL)
_URI = re.compile(
    r"\b(?:[A-Za-z][A-Za-z0-9+.-]{1,31}://\S+|(?:command|javascript|data|vscode|file):\S+)",
    re.IGNORECASE,
)
_ENTITY = re.compile(r"&#?[A-Za-z0-9]{1,10};")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
_MARKDOWN_ACTIVE = re.compile(r"([\\\[\]<>])")
"""What can make Markdown act: link and image brackets, HTML and autolink angles, escapes."""


def plain_text(text: str, limit: int = MAX_RULE_CHARS) -> str:
    """``text`` with links, images, HTML and URIs removed, on one line, at most ``limit``.

    A link keeps its words and loses its target (``[docs](command:x)`` → ``docs``);
    a bare URI is replaced by ``(link removed)`` so the sentence still reads.
    Bidirectional-override and control characters go too: they can make a line
    display differently from what it says.
    """
    text = _CONTROL.sub(" ", text)
    text = _REFERENCE.sub(" ", text)
    for _ in range(3):  # nested forms like [![x](a)](b) unwrap one level per pass
        text = _IMAGE.sub(r"\1", text)
        text = _LINK.sub(r"\1", text)
    text = _AUTOLINK.sub("(link removed)", text)
    text = _TAG.sub(" ", text)
    text = _URI.sub("(link removed)", text)
    text = _ENTITY.sub(" ", text)
    text = " ".join(text.replace("<", " ").replace(">", " ").split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def escape_markdown(text: str) -> str:
    """``text`` for a Markdown renderer: nothing in it can become a link, image or HTML.

    Only the characters that open those are escaped, so text stays readable in
    editors that show hover Markdown raw (Neovim 0.7). Code spans
    (`` `git push --force` ``) stay code spans: the catalogue's own statements use
    them, and inside one nothing renders as a link anyway.
    """
    parts = re.split(r"(`[^`\n]*`)", text)
    return "".join(
        part
        if part.startswith("`") and part.endswith("`") and len(part) > 1
        else _MARKDOWN_ACTIVE.sub(r"\\\1", part)
        for part in parts
    )
