"""App passwords as providers print them: four groups of four letters with blanks between.

Google, Apple and Fastmail show an app password as ``abcd efgh ijkl mnop``, and users paste it
as shown: ``server.login("me@gmail.com", "abcd efgh ijkl mnop")``,
``EMAIL_HOST_PASSWORD = 'abcd efgh ijkl mnop'``. Every other rule takes a value up to its first
blank, so the four groups read as four words of prose and stayed. Four groups of four
lower-case letters are the app password's whole shape, and prose has it too (``"this will then
fail"``): the value counts only on a line that says password or login (``password``,
``login(``, ``smtp``) and quoted, or bare at the end of the line after a password's name and
an operator (``EMAIL_PASSWORD=abcd efgh ijkl mnop`` in a ``.env`` file).
"""

from __future__ import annotations

import re
from typing import Final

from ..base import ENTROPY, Rule

KIND: Final = "password"

# A word that says the line holds a password (read on the lowercased text, so the engine's
# prefix index finds it), then, further along the line, the four groups: quoted, or bare after
# an operator at the line's end.
_APP_PASSWORD_RE: Final = re.compile(
    r"(?:pass|pwd|login\(|smtp)(?:"
    r"[^\n]{0,120}?(?P<q>[\"'`])(?P<quoted>[a-z]{4}(?: [a-z]{4}){3})(?P=q)"
    r"|(?<=ass|pwd)[\w.-]{0,24}[\"']?[ \t]{0,4}[=:][ \t]{0,4}"
    r"(?P<bare>[a-z]{4}(?: [a-z]{4}){3})[ \t]*\r?$)",
    re.MULTILINE,
)


def _app_password_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The four groups, when the original text has them in lower case as providers print them.

    A line of four capitalised or upper-case words is a title, not an app password.
    """
    which = "quoted" if m.group("quoted") is not None else "bare"
    start, end = m.span(which)
    value = text[start:end]
    if not value.islower() or len(set(value.replace(" ", ""))) < 8:
        return []  # "aaaa bbbb cccc dddd": a placeholder's few letters
    return [(start, end)]


SPACED_RULES: Final[tuple[Rule, ...]] = (
    Rule(KIND, ENTROPY, _APP_PASSWORD_RE, on_lowercase=True, spans=_app_password_spans),
)
