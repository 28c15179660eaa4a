"""A key or a password glued to a one-letter flag on a command line (``-a<hex>``, ``-p<pw>``).

Tools of the getopt age take a flag's value with no blank between: ``ykpersonalize
-a<32 hex digits>`` programs a YubiKey's AES key, ``mysqladmin -uroot -pOrbit33PVKO`` logs in
(in a docker-compose healthcheck's array too). No name stands near the value, and the flag's
letter glued to it hides the value's shape from every other rule. A value with a credential's
shape of its own standing right after a dash and one letter is one: a random draw or 32 hex
digits or more after any letter (``-o`` with a word, ``-I/usr/include`` and ``-DNDEBUG=1``
have none), and a person's pick after ``-p``, the letter of a password.
"""

from __future__ import annotations

import re
from typing import Final

from ..base import ENTROPY, Rule
from .net import PICKED, RANDOM, shape

KIND: Final = "secret-shaped-value"

_GLUED_RE: Final = re.compile(
    r"(?<![\w.-])-(?P<flag>[A-Za-z])(?P<secret>[A-Za-z0-9+/=_.!#%^*~-]{11,200}+)"
    r"(?=[\s\"',\]]|$)"
)
# Where the engine finds one: the dash and the letter, with a lower-case letter and two digits
# within the next 24 characters -- the runs of digits the engine searches around (the value is
# then read whole by :func:`_glued_spans`; a key whose first such pair comes later is missed).
_GLUED_AT_RE: Final = re.compile(
    r"(?<![\w.-])-[A-Za-z](?=[A-Za-z0-9+/=_.!#%^*~-]{0,21}[a-z][0-9]{2})"
)
_KEY_HEX: Final = re.compile(r"[0-9a-fA-F]{32,}")


def _glued_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The value, when it has a credential's shape alone (hex or a draw; a pick after ``-p``)."""
    whole = _GLUED_RE.match(text, m.start())
    if whole is None:
        return []
    value = whole.group("secret")
    found = shape(value)
    if found == RANDOM or _KEY_HEX.fullmatch(value):
        return [whole.span("secret")]
    if whole.group("flag") == "p" and found >= PICKED:
        return [whole.span("secret")]
    return []


GLUED_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        KIND,
        ENTROPY,
        _GLUED_AT_RE,
        spans=_glued_spans,
        # Only around runs of two digits or more after a lower-case letter, the runs the
        # net's typed-password rule searches already (``-pOrbit33``, ``-afa4edb004``): runs
        # of letters of their own cost a correction 0.25 ms, a regex over the text more.
        run_chars="0123456789",
        min_run=2,
        run_lead=24,
        run_after="abcdefghijklmnopqrstuvwxyz",
    ),
)
