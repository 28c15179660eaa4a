"""Secrets on command lines, found by the shape of the command rather than by its tool.

The catalogue knew the password flags of a dozen tools one by one (``mysql -pX``, ``sshpass
-p``, ``redis-cli -a``); each new tool was a new leak. These rules know how command lines
carry a password whatever the tool:

* a short ``-p``/``-P`` flag on a command that also names a user (``-u``, ``-U``, ``--user``,
  a ``login`` subcommand): ``sqlcmd -U sa -P X``, ``conan remote login r u -p X``;
* a single-dash flag whose name says password (``keytool -storepass X``, ``x11vnc -passwd X``);
* a literal piped into a command that reads its password from stdin (``echo X | openconnect
  --passwd-on-stdin``, ``| docker login --password-stdin``, ``| chpasswd``);
* the positional password of a subcommand that adds a user or sets a password
  (``rabbitmqctl add_user u X``, ``htpasswd -b f u X``);
* the value of a ``config set`` whose key names a credential (``poetry config
  http-basic.repo u X``, ``npm config set //reg/:_authToken X``);
* the values given to a ``secret set`` (``gh secret set N --body X``, ``fly secrets set N=X``);
* ``-u user,password`` (lftp).

A value counts only when it is a literal shaped like a chosen password or a machine-made
token: ``-p 8080:80``, ``-p /tmp``, ``-p "$PW"`` are left alone.
"""

from __future__ import annotations

import re
from typing import Final

from .base import ASSIGNMENT, WORD, Rule, group
from .placement import password_shaped, token_shaped
from .values import is_reference

_VALUE: Final = r"(?P<secret>\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"'`|;&<>]{1,256})"
_WORD_RE: Final = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|[^\s\"']+")


def _inside_quotes(word: re.Match[str]) -> tuple[int, int]:
    """A command-line word's span without the quotes around it, if it has them."""
    begin, end = word.span()
    if word.group()[0] in "\"'":
        return begin + 1, end - 1
    return begin, end


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def literal_credential(value: str) -> bool:
    """A literal (not a variable) shaped like a chosen password or a machine-made token."""
    value = _unquote(value)
    if not value or is_reference(value):
        return False
    return password_shaped(value) or token_shaped(value)


def _command_before(m: re.Match[str], text: str, reach: int = 200) -> str:
    """The command line up to the match (bounded, so a huge line costs nothing extra)."""
    start = max(0, m.start() - reach)
    line_start = text.rfind("\n", start, m.start()) + 1
    return text[max(start, line_start) : m.start()]


def _rest_of_command(text: str, start: int, reach: int = 400) -> str:
    line = text[start : start + reach].partition("\n")[0]
    return re.split(r"[|;&]", line, maxsplit=1)[0]


# --- a short -p/-P after a user ------------------------------------------------------------------

_SHORT_P_RE: Final = re.compile(r"[ \t]-[pP](?:[ \t]+|(?=[\"']))" + _VALUE)
_USER_NAMED: Final = re.compile(
    r"(?:^|[ \t])(?:-u|-U|--user(?:name)?|-user(?:name)?|-l)(?:[ \t]+|=)[^\s-]|[ \t]login[ \t]"
)


def _classify_short_p(m: re.Match[str], text: str) -> str | None:
    if not _USER_NAMED.search(_command_before(m, text)):
        return None
    return "password" if literal_credential(group(m, text, "secret") or "") else None


# --- -storepass X, -passwd X --------------------------------------------------------------------

_DASH_PASS_RE: Final = re.compile(r"pass(?:wd|word|phrase)?[ \t]+" + _VALUE)


def _classify_dash_pass(m: re.Match[str], text: str) -> str | None:
    start = m.start()
    limit = max(0, start - 24)
    while start > limit and text[start - 1].isalpha():
        start -= 1
    if start < 2 or text[start - 1] != "-" or text[start - 2] not in " \t":
        return None  # not a single-dash flag ("--password" has its own rule)
    value = group(m, text, "secret") or ""
    if _unquote(value).lower().startswith("pass:"):
        return None  # openssl -passin pass:X has its own rule
    return "password" if literal_credential(value) else None


# --- echo X | cmd --password-stdin ---------------------------------------------------------------

_PIPED_RE: Final = re.compile(
    r"(?:echo|printf)[ \t]+(?:-[ne]{1,2}[ \t]+)*" + _VALUE + r"[ \t]*\|(?P<rest>[^\n]{1,240})"
)
_READS_PASSWORD: Final = re.compile(
    r"stdin|chpasswd|passwd|sudo[ \t]+-s\b|--password-fd|--passphrase-fd|login|vault|cryptsetup"
)


def _classify_piped(m: re.Match[str], text: str) -> str | None:
    if not _READS_PASSWORD.search(m.group("rest").lower()):
        return None
    value = _unquote(group(m, text, "secret") or "")
    user, colon, password = value.partition(":")
    if colon and user and literal_credential(password):
        return "password"  # echo 'user:pw' | chpasswd
    return "password" if literal_credential(value) else None


def _piped_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    return [m.span("secret")] if _classify_piped(m, text) else []


# --- add_user u X, set_password u X ---------------------------------------------------------------

_ADD_USER_RE: Final = re.compile(
    r"(?:add_user|add-user|adduser|useradd|user[ \t]add|user[ \t]create|create_user|create-user"
    r"|createuser|change_password|change-password|set_password|set-password|htpasswd"
    r"|mosquitto_passwd)[ \t]+(?P<args>[^\n|;&]{1,300})"
)


def _positional_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    start = m.start("args")
    words = list(_WORD_RE.finditer(text, start, m.end("args")))
    spans: list[tuple[int, int]] = []
    seen_user = False
    for word in words:
        value = word.group()
        if value.startswith("-"):
            continue
        if not seen_user:
            seen_user = True  # the user (or htpasswd's file) comes first
            continue
        if literal_credential(value):
            spans.append(_inside_quotes(word))
    return spans


def _classify_positional(m: re.Match[str], text: str) -> str | None:
    return "password" if _positional_spans(m, text) else None


# --- config set <credential key> X ---------------------------------------------------------------

_CONFIG_SET_RE: Final = re.compile(
    r"config[ \t][ \t]*(?:(?:set|add|--global|--local|--user|--project|-g)[ \t]+)*"
    r"(?P<key>[^\s=\"']{2,200})(?:[ \t]+|=)(?P<args>[^\n|;&]{1,400})"
)
_CREDENTIAL_PARTS: Final = re.compile(
    r"token|authtoken|password|passwd|pass|secret|apikey|key|auth|basic|credentials?|pat"
)


def _config_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    parts = [p for p in re.split(r"[._:/-]+", m.group("key").lower()) if p]
    if not any(_CREDENTIAL_PARTS.fullmatch(p) or p.endswith(("token", "key")) for p in parts):
        return []
    spans: list[tuple[int, int]] = []
    for word in _WORD_RE.finditer(text, m.start("args"), m.end("args")):
        value = word.group()
        if value.startswith("-"):
            break  # the options after the value
        if literal_credential(value):
            spans.append(_inside_quotes(word))
    return spans


def _classify_config(m: re.Match[str], text: str) -> str | None:
    return "token" if _config_spans(m, text) else None


# --- secret set N --body X / secrets set N=X ------------------------------------------------------

_SECRET_SET_RE: Final = re.compile(
    r"secrets?[ \t]+(?:set|put|add|create|import)[ \t]+(?P<args>[^\n|;&]{1,400})"
)
_VALUE_FLAGS: Final = frozenset({"--body", "-b", "--value", "--data", "-v"})


def _secret_set_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    words = list(_WORD_RE.finditer(text, m.start("args"), m.end("args")))
    for i, word in enumerate(words):
        value = word.group()
        begin, end = word.span()
        flag, eq, _ = value.partition("=")
        if flag.lower() in _VALUE_FLAGS:
            target = (begin + len(flag) + 1, end) if eq else None
            if target is None and i + 1 < len(words):
                target = words[i + 1].span()
        elif eq and flag and not flag.startswith("-") and flag.replace("_", "").isalnum():
            target = (begin + len(flag) + 1, end)  # NAME=value
        else:
            continue
        if target is None:
            continue
        raw = text[target[0] : target[1]]
        inner = _unquote(raw)
        if len(inner) < 4 or is_reference(inner):
            continue
        if raw != inner:
            target = (target[0] + 1, target[1] - 1)
        spans.append(target)
    return spans


def _classify_secret_set(m: re.Match[str], text: str) -> str | None:
    return "secret" if _secret_set_spans(m, text) else None


# --- -u user,password -----------------------------------------------------------------------------

_USER_COMMA_RE: Final = re.compile(r"-u[ \t]+[\"']?[^\s,:\"'@]{1,64},(?P<secret>[^\s\"']{1,256})")


def _classify_user_comma(m: re.Match[str], text: str) -> str | None:
    if m.start() > 0 and not text[m.start() - 1].isspace():
        return None
    return "password" if literal_credential(group(m, text, "secret") or "") else None


COMMAND_RULES: Final[tuple[Rule, ...]] = (
    Rule("password", ASSIGNMENT, _SHORT_P_RE, _classify_short_p),
    Rule("password", ASSIGNMENT, _DASH_PASS_RE, _classify_dash_pass, on_lowercase=True),
    Rule(
        "password",
        ASSIGNMENT,
        _PIPED_RE,
        _classify_piped,
        WORD,
        on_lowercase=True,
        spans=_piped_spans,
    ),
    Rule(
        "password",
        ASSIGNMENT,
        _ADD_USER_RE,
        _classify_positional,
        WORD + ".",
        on_lowercase=True,
        spans=_positional_spans,
    ),
    Rule(
        "token",
        ASSIGNMENT,
        _CONFIG_SET_RE,
        _classify_config,
        WORD,  # mix hex.config api_key X: a tool's own config task
        on_lowercase=True,
        spans=_config_spans,
    ),
    Rule(
        "secret",
        ASSIGNMENT,
        _SECRET_SET_RE,
        _classify_secret_set,
        WORD + ".",
        on_lowercase=True,
        spans=_secret_set_spans,
    ),
    Rule("password", ASSIGNMENT, _USER_COMMA_RE, _classify_user_comma),
)
