"""The last line, continued: credentials a tool prints, and labels in scripts other than Latin.

Two places the secret-word net (:mod:`.net`) cannot read, because the word and the value are
not a name and its value in any syntax:

* **what a tool prints when it makes a credential** -- a message that says one was generated,
  reset or made temporary and ends with it after a colon (``A temporary password is generated
  for root@localhost: X``; ``Password for the [elastic] user successfully reset.`` then ``New
  value: X``), or a shell command naming a password, a secret, a key or a random draw with its
  output alone on the next line (``$ argocd admin initial-password`` then ``X``, ``$ openssl
  rand -base64 32`` then ``X``). A generated password may hold any symbol (``cgYcbd>yubO!``),
  so the value is read to the end of its line;
* **a label in Japanese, Chinese, Korean or Russian** (``パスワード：X``, ``密码: X``,
  ``пароль: X``) with an ASCII or a full-width colon. These needles are not ASCII, so the
  engine looks for them with ``str.find``, which answers at once on an ASCII text;
* **what a command that reveals a stored secret prints** on the line after it (``security
  find-generic-password -w``, ``aws ssm get-parameter --with-decryption``, ``pass show``).
"""

from __future__ import annotations

import re
from typing import Final

from ..base import ENTROPY, MARKER_PREFIX, Rule, line_start
from .net import KIND, PICKED, PLAIN, shape

# A word saying a credential was made, then the rest of its line: either the line ends ``: X``,
# or the next line is ``X`` alone or ``label: X``. Read on the lowercased text; the value is
# one token. Anchored on those words, rarer in code than the secret words themselves (anchored
# on ``key`` and ``token`` the rule cost a 5,000-line correction 0.17 ms).
_PRINTED_RE: Final = re.compile(
    r"(?:generated|temporary|initial|reset|rand|one-time)[^\n]{0,120}?"
    r"(?::[ \t]+(?P<inline>[^\s\"'`{}$]{8,128})[ \t]*\r?$"
    r"|\r?\n(?:[^\n:]{1,40}:[ \t]+)?(?P<next>[^\s\"'`{}$]{8,128})[ \t]*\r?$)",
    re.MULTILINE,
)
# What says the credential was just made, in the message that prints it.
# Whole words: ``resetTokenState`` and ``Initializer`` are code's names.
_MADE: Final = re.compile(
    r"(?<![a-z])(?:(?:auto)?generated|temporary|initial|reset|random|one-time)(?![a-z])",
    re.IGNORECASE,
)
# What the message or the command must name: a credential.
_CREDENTIAL: Final = re.compile(r"pass|pwd|secret|token|key|cred", re.IGNORECASE)
# A random draw a command prints (``openssl rand``, ``pwgen``): a credential by its use.
_DRAW_COMMAND: Final = re.compile(r"(?<![a-z])rand(?![a-z])")
# Symbols a generated password holds; ``_``, ``.``, ``,``, ``;`` and brackets are code's.
_PASSWORD_SYMBOLS: Final = frozenset("!#%^&*@~+?=<>-")
# What a shell's prompt ends with (``$``, ``%``, ``#``, ``>``): a value printed without a final
# line break has the next prompt right after it (``Riverbank.gecko.8406Iep$``).
_PROMPT_ENDS: Final = "$%#>"
# A shell prompt before a command (``$ ``, ``# ``, ``> ``, ``PS C:\\> ``), bash's and zsh's
# with the user and host (``jane@k3s-1:~$ ``, ``[jane@box ~]$ ``): that one is ``who``, the
# text a value printed without a line break has glued after it.
_PROMPT: Final = re.compile(
    rf"[ \t]*(?:(?P<who>[\w.-]{{1,32}}@[\w.-]{{1,64}}(?::[^\s$#]{{0,200}})?[$#%]"
    rf"|\[[\w.-]{{1,32}}@[^\]\n]{{1,80}}\][$#])"
    rf"|[{re.escape(_PROMPT_ENDS)}]|PS [^>\n]{{0,80}}>)[ \t]+\S"
)
_CLASSES: Final = (str.islower, str.isupper, str.isdigit)


def _made_shape(value: str, code: re.Pattern[str]) -> bool:
    """A generated credential: a draw's shape, or letters or digits with a password's symbol.

    Not a path, a URL, a format or a placeholder (``/usr/bin/pass``, ``%s``, ``<token>``), nor
    what *code* finds.
    """
    if value.startswith(("/", "<", "~", ".")) or "://" in value or "%" in value:
        return False
    if shape(value) >= PICKED:
        return True
    kinds = sum(any(test(c) for c in value) for test in _CLASSES)
    return kinds >= 2 and any(c in _PASSWORD_SYMBOLS for c in value) and not code.search(value)


def _drawn_letters(value: str) -> bool:
    """Both cases, not in a name's camel case (``jCiakNDCfZYC``, not ``resetTokenState``)."""
    cased = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return cased and value.isalnum() and _CAMEL.fullmatch(value) is None


_CAMEL: Final = re.compile(r"[A-Za-z][a-z]+(?:[A-Z][a-z]+)*[0-9]*")
# Calls, statements and lists: ``createIdentifier(nameStr);``, ``resetTokenState,``.
_CODE: Final = re.compile(r"[()\[\];,]|=>|->|\.[a-z]")
# After a message that says a credential was made, only a call is surely code (a generated
# password may hold ``;``: ``!80v7qqCj;mn``).
_CALL: Final = re.compile(r"[()\[\]]|=>|->")


def _in_marker(text: str, position: int) -> bool:
    """Whether *position* is inside a marker (``[REDACTED:random-token]`` says "random")."""
    opened = text.rfind("[", max(0, position - 40), position)
    return opened >= 0 and text.startswith(MARKER_PREFIX, opened)


def _printed_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    if _in_marker(text, m.start()):
        return []
    begin = line_start(text, m.start(), 400)
    said = text[begin : m.start("inline") if m.group("inline") else m.start("next")]
    which = "inline" if m.group("inline") else "next"
    value = text[m.start(which) : m.end(which)]
    if not (_CREDENTIAL.search(said) or _DRAW_COMMAND.search(said)):
        return []
    if _MADE.search(said):
        # The message says a credential was made: letters alone will do (``jCiakNDCfZYC``).
        made = _made_shape(value, _CALL) or _drawn_letters(value)
        return [m.span(which)] if made else []
    if not _made_shape(value, _CODE):
        return []
    labelled = text.rfind(":", m.start(which) - 2, m.start(which)) >= 0
    if which == "next" and not labelled and ":" not in value and _PROMPT.match(text, begin):
        # $ openssl rand -base64 32, then its output alone (a ``user:secret`` line under a
        # file's name is the file's own rules')
        return [m.span(which)]
    return []


# Password labels in other scripts, with an ASCII or a full-width colon or an equals sign. No
# more than eight: the engine looks for each with ``str.find`` (with more, 0.7 ms a correction
# for a regex over the whole text).
_FOREIGN_LABEL_RE: Final = re.compile(
    r"(?:パスワード|密码|密碼|口令|비밀번호|пароль|Пароль)"
    r"[ \t]*(?:[:=：]|は)[ \t]*(?P<secret>[^\s\"'`<>、。，（）()]{4,128})"
)


def _foreign_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    value = m.group("secret")
    return [m.span("secret")] if shape(value) >= PLAIN or _made_shape(value, _CALL) else []


# A command that prints a stored secret in the clear: a keychain's ``-w``, a parameter store
# asked to decrypt, a secrets manager's value, a password manager's ``show``/``read``/``get``.
# Its output is the line after it. Anchored on the words that ask for the clear value, rarer
# in code than any secret word; case-sensitive (flags are lower case), so the engine checks a
# needle's place before the regex runs, and none starts as common code does (``pass show``
# would be tried at every ``pass``, ``versions access`` at every ``version``).
_REVEALED_RE: Final = re.compile(
    r"(?:-(?:generic|internet)-password|--with-decryption|get-secret-value|--reveal"
    r"|--show-secrets?|--plaintext|op://|bw get password|-field[= ]password|--decrypt"
    r"|pass show|\{\.data\.)"
    r"[^\n]{0,200}\r?\n(?P<next>[^\n]{1,400})"
)
# The fields of a printed row (``--output text`` is tab-separated).
_FIELD: Final = re.compile(r"[^\s\"'`]{8,200}")


# The fields a command was asked to print, in order (``op item get X --fields
# label=username,label=password``): its output is their values, comma-separated.
_FIELDS_ASKED: Final = re.compile(r"--fields[= ][\"']?(?P<fields>[^\s\"']{1,200})")
_SECRET_FIELD: Final = re.compile(r"pass|secret|token|credential|key|pin|otp", re.IGNORECASE)


def _asked_field_spans(fields: str, line: str, start: int) -> list[tuple[int, int]]:
    """The values printed for the fields asked for that name a secret (``label=password``)."""
    names = [name.rpartition("=")[2] for name in fields.split(",")]
    values = line.split(",")
    if len(values) != len(names):
        return []
    spans: list[tuple[int, int]] = []
    at = start
    for name, value in zip(names, values, strict=True):
        stripped = value.strip()
        if _SECRET_FIELD.search(name) and len(stripped) >= 4 and " " not in stripped:
            begin = at + value.index(stripped)
            spans.append((begin, begin + len(stripped)))
        at += len(value) + 1
    return spans


def _printed_shape(value: str) -> bool:
    """Whether a value a revealing command printed alone on its line has a credential's shape."""
    return shape(value) >= PLAIN or _made_shape(value, _CALL)


def _revealed_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The secret a revealing command printed: its line alone, or the fields of its row.

    A line alone is taken with any credential's shape (``J1kPkSunfl0w3r9357-``); in a row
    (``PARAMETER  arn:...  SecureString  X  3``) only a picked or drawn field is, not the
    ARN, the date or the type beside it.
    """
    command_start = line_start(text, m.start(), 400)
    prompt = _PROMPT.match(text, command_start)
    if prompt is None:
        return []  # the words in code or prose, not a command that was run
    start, end = m.span("next")
    line = text[start:end].rstrip("\r")
    stripped = line.strip()
    who = prompt.group("who")
    if who and stripped.endswith(who) and len(stripped) > len(who):
        # Printed with no line break: the next prompt, the same as before the command, runs
        # on after the value (``Mariposa.8940yCjane@k3s-1:~$``).
        line = line[: line.rindex(who)]
        stripped = line.strip()
    if not stripped or _PROMPT.match(line):
        return []
    asked = _FIELDS_ASKED.search(text, command_start, start)
    if asked is not None and "," in stripped:
        return _asked_field_spans(asked.group("fields"), line, start)
    if len(stripped.split()) == 1:
        at = start + line.index(stripped)
        if _printed_shape(stripped):
            return [(at, at + len(stripped))]
        if stripped[-1] in _PROMPT_ENDS and _printed_shape(stripped[:-1]):
            return [(at, at + len(stripped) - 1)]  # the next prompt's "$" ran on after it
        return []
    return [
        f.span()
        for f in _FIELD.finditer(text, start, start + len(line))
        if shape(f.group()) >= PICKED and ":" not in f.group()
    ]


PRINTED_RULES: Final[tuple[Rule, ...]] = (
    Rule(KIND, ENTROPY, _PRINTED_RE, on_lowercase=True, spans=_printed_spans),
    Rule(KIND, ENTROPY, _FOREIGN_LABEL_RE, spans=_foreign_spans),
    Rule("password", ENTROPY, _REVEALED_RE, spans=_revealed_spans),
)
"""Run with the net (:data:`comodor.brain.redaction.LAST_LINE`)."""
