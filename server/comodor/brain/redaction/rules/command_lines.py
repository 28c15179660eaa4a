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
* ``-u user,password`` (lftp);
* the ``-a`` of a command naming its auth scheme (``-A bearer -a X``, ``--auth-type=digest -a
  u:X``) or of an HTTP client defaulting to basic (``http -a u:X``);
* a flag named for a key, password or credentials given a literal: ``--key <uuid or random
  draw>``, ``-pw X``, ``--dest-creds u:X``, ``--creds u:X``, an option ``login=u:X``; a short
  ``-P`` on a command whose name says passphrase (``gpg-preset-passphrase -P X``);
* ``cat`` of a file named for a key, secret or token (or a ``.psk``), and the base64 or hex
  lines it printed;
* a password fed as a here-string or a one-line here-doc (``chpasswd <<< 'u:X'``, ``cat <<EOF |
  podman login --password-stdin``), and where a syntax takes only a password: an askpass
  script's ``Password*) echo X``, ``user U using X``, ``.logon host/user,X``, ``PRAGMA key``.

A literal of random letters alone (``CWPkdhknvPkJCkWt``, cases flipping at every other
letter) counts as a drawn key too, wherever a literal credential is asked for.

A value counts only when it is a literal shaped like a chosen password or a machine-made
token: ``-p 8080:80``, ``-p /tmp``, ``-p "$PW"`` are left alone.
"""

from __future__ import annotations

import re
from typing import Final

from ..base import ASSIGNMENT, WORD, Rule, group, has_entropy, shannon_entropy
from ..values import chosen, is_reference, is_template, random_letters, typed_on
from .net import PICKED, shape
from .placement import password_shaped, token_shaped

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
    return (
        password_shaped(value)
        or token_shaped(value)
        or random_letters(value)
        or typed_on(value)
        or _GROUPED_LETTERS.fullmatch(value) is not None
    )


# An app password as providers issue them: four groups of four letters drawn at random
# (``qjiu-afol-aaqa-yyaf``, ``abcd efgh ijkl mnop`` where a blank is allowed).
_GROUPED_LETTERS: Final = re.compile(r"[a-z]{4}(?:-[a-z]{4}){3}|[a-z]{4}(?: [a-z]{4}){3}")


def _command_before(m: re.Match[str], text: str, reach: int = 200) -> str:
    """The command line up to the match (bounded, so a huge line costs nothing extra)."""
    start = max(0, m.start() - reach)
    line_start = text.rfind("\n", start, m.start()) + 1
    return text[max(start, line_start) : m.start()]


def _rest_of_command(text: str, start: int, reach: int = 400) -> str:
    line = text[start : start + reach].partition("\n")[0]
    return re.split(r"[|;&]", line, maxsplit=1)[0]


# --- a short -p/-P after a user ------------------------------------------------------------------

_SHORT_P_RE: Final = re.compile(r"[ \t]-(?P<flag>[pPwW])(?:[ \t]+|(?=[\"']))" + _VALUE)
_USER_NAMED: Final = re.compile(
    r"(?:^|[ \t])(?:-u|-U|--user(?:name)?|-user(?:name)?|-l)(?:[ \t]+|=)[^\s-]|[ \t]login[ \t]"
)


_NAMES_PASSPHRASE: Final = re.compile(r"pass(?:phrase|word|wd)", re.IGNORECASE)


# A ``publish`` subcommand's ``-p`` is the publisher's access token (``vsce publish -p X``,
# ``ovsx publish -p X``); to other tools it is a package or a path (``cargo publish -p
# crate``), so only a machine-made token or a UUID counts there.
_PUBLISHES: Final = re.compile(r"[ \t](?:un)?publish(?:[ \t]|$)")


def _classify_short_p(m: re.Match[str], text: str) -> str | None:
    before = _command_before(m, text)
    if m.group("flag") == "p" and _PUBLISHES.search(before):
        value = _unquote(group(m, text, "secret") or "")
        if token_shaped(value) or _UUID.fullmatch(value):
            return "token"
    if not _USER_NAMED.search(before) and not _NAMES_PASSPHRASE.search(before):
        return None  # gpg-preset-passphrase --preset -P X: the command says what -P takes
    value = group(m, text, "secret") or ""
    if m.group("flag") in "wW" and not _picked_for_w(value, before):
        return None  # psql -w: "never prompt", a flag that takes no value
    return "password" if literal_credential(value) else None


# A host flag, beside the user's: a database client's command line (``vsql -h H -U u -w X``).
_HOST_NAMED: Final = re.compile(r"(?:^|[ \t])(?:-h|-H|-S|--host(?:name)?)(?:[ \t]+|=)[^\s-]")


def _picked_for_w(value: str, before: str) -> bool:
    """Whether ``-w``/``-W`` takes *value* as a password: a client given a host and a user.

    ``-w`` is a password flag to some database clients (``vsql``, ``ldapsearch``'s ``-w``)
    and a switch to others (``psql -w``: never prompt), so the value must have a credential's
    shape of its own, and the command name a host as well as a user.
    """
    inner = _unquote(value)
    return bool(_HOST_NAMED.search(before)) and (shape(inner) >= PICKED or token_shaped(inner))


# --- -storepass X, -passwd X, -setcookie X -------------------------------------------------------

_DASH_PASS_RE: Final = re.compile(
    r"(?P<kw>pass(?:wd|word|phrase)?|cookie|token|secret)[ \t]+" + _VALUE
)
_OPAQUE_VALUE: Final = re.compile(r"[A-Za-z0-9+/=_~.-]{8,256}")


def _classify_dash_pass(m: re.Match[str], text: str) -> str | None:
    start = m.start()
    limit = max(0, start - 24)
    while start > limit and text[start - 1].isalpha():
        start -= 1
    if start < 1 or text[start - 1] != "-" or (start >= 2 and text[start - 2] not in " \t\n"):
        return None  # not a single-dash flag ("--password" has its own rule)
    value = group(m, text, "secret") or ""
    if _unquote(value).lower().startswith("pass:"):
        return None  # openssl -passin pass:X has its own rule
    if literal_credential(value):
        return "password" if m.group("kw").startswith("pass") else m.group("kw")
    if m.group("kw").startswith("pass"):
        return None
    # -setcookie HSGYYZMFUQRUYPEHDHXO (an Erlang node's cookie: 20 capitals), -token X: after
    # a flag naming a cookie or token any opaque word is one, not only a password-shaped one.
    inner = _unquote(value)
    if not _OPAQUE_VALUE.fullmatch(inner) or is_reference(inner) or "." in inner.strip("."):
        return None  # a file name (-token token.txt), a path, a variable
    return m.group("kw") if any(c.isdigit() for c in inner) or inner.isupper() else None


# --- echo X | cmd --password-stdin ---------------------------------------------------------------

# The format a printf is given before the value (``printf '%s' X``) is not the value.
_PRINTF_FORMAT: Final = r"(?:(?:'%s[^'\n%]{0,4}'|\"%s[^\"\n%]{0,6}\")[ \t]+)?"
_PIPED_RE: Final = re.compile(
    r"(?:echo|printf)[ \t]+(?:-[ne]{1,2}[ \t]+)*"
    + _PRINTF_FORMAT
    + _VALUE
    + r"[ \t]*\|(?P<rest>[^\n]{1,240})"
)
_READS_PASSWORD: Final = re.compile(
    r"stdin|chpasswd|passwd|sudo[ \t]+-s\b|--password-fd|--passphrase-fd|login|vault|cryptsetup"
    r"|secrets?[ \t]+(?:create|put|set|add)"
)


def _classify_piped(m: re.Match[str], text: str) -> str | None:
    if not _READS_PASSWORD.search(m.group("rest").lower()):
        return None
    return "password" if _fed_credential(group(m, text, "secret") or "") else None


def _fed_credential(value: str) -> bool:
    """Whether a value fed to a command's input is a literal password (or ``user:password``)."""
    value = _unquote(value)
    user, colon, password = value.partition(":")
    if colon and user and literal_credential(password):
        return True  # echo 'user:pw' | chpasswd
    return literal_credential(value)


# --- cmd <<< X, cmd <<EOF / X / EOF: a password fed as a here-string or a one-line here-doc ------

_HERE_STRING_RE: Final = re.compile(r"<<<[ \t]*" + _VALUE)
_HERE_DOC_RE: Final = re.compile(
    r"<<-?[ \t]*[\"']?(?P<tag>[A-Za-z_][A-Za-z0-9_]{0,20})[\"']?(?P<rest>[^\n]{0,240})\r?\n"
    r"(?P<secret>[^\s]{4,256})\r?\n[ \t]*(?P=tag)\b"
)


def _classify_here_string(m: re.Match[str], text: str) -> str | None:
    """``chpasswd <<< 'u:X'``, ``docker login --password-stdin <<< X``."""
    line = _command_before(m, text) + _rest_of_command(text, m.end())
    if not _READS_PASSWORD.search(line.lower()):
        return None
    return "password" if _fed_credential(group(m, text, "secret") or "") else None


def _here_string_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    start, end = m.span("secret")
    if text[start] in "\"'":
        return [(start + 1, end - 1)]
    return [(start, end)]


def _classify_here_doc(m: re.Match[str], text: str) -> str | None:
    """``cat <<'EOF' | podman login --password-stdin`` and the one line of its body."""
    line = _command_before(m, text) + m.group("rest")
    if not _READS_PASSWORD.search(line.lower()):
        return None
    return "password" if _fed_credential(m.group("secret")) else None


def _piped_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    return [m.span("secret")] if _classify_piped(m, text) else []


# --- add_user u X, set_password u X ---------------------------------------------------------------

_ADD_USER_RE: Final = re.compile(
    r"(?:add_user|add-user|adduser|useradd|user[ \t]add|user[ \t]create|create_user|create-user"
    r"|createuser|change_password|change-password|set_password|set-password|htpasswd"
    r"|createcredential|create-credential|modifycredential|modify-credential"
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


# --- -u user,password -----------------------------------------------------------------------------

_USER_COMMA_RE: Final = re.compile(r"-u[ \t]+[\"']?[^\s,:\"'@]{1,64},(?P<secret>[^\s\"']{1,256})")


def _classify_user_comma(m: re.Match[str], text: str) -> str | None:
    if m.start() > 0 and not text[m.start() - 1].isspace():
        return None
    return "password" if literal_credential(group(m, text, "secret") or "") else None


# --- /user:u /pass:X, /u:u /p:X, net use <share> X /user:u -------------------------------------

_WINDOWS_PASS_RE: Final = re.compile(
    r"[ \t]/(?:(?P<flag>p|pw|pwd|pass|passwd|password)[:=]|(?P<spaced>rp|pwd|pass|password)[ \t]+)"
    r"(?P<secret>\"[^\"\n]{1,256}\"|[^\s\"]{1,256})"
)
_WINDOWS_USER: Final = re.compile(r"[ \t]/(?:u|user|username)[:=]", re.IGNORECASE)


def _classify_windows_pass(m: re.Match[str], text: str) -> str | None:
    """A Windows-style password switch (cmdkey ``/pass:``, xfreerdp ``/p:``)."""
    value = _unquote(group(m, text, "secret") or "")
    if not value or is_reference(value):
        return None
    if m.group("spaced") is not None:
        # schtasks /ru svc /rp X: a switch then a blank, so only a password-shaped word.
        return "password" if literal_credential(value) else None
    if m.group("flag") == "p":
        # msbuild's /p:Name=Value is a property; /p: is a password only beside /u:.
        line = _command_before(m, text) + _rest_of_command(text, m.end())
        if "=" in value or not _WINDOWS_USER.search(line):
            return None
    return "password"


def _windows_pass_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    start, end = m.span("secret")
    if text[start] == '"':
        return [(start + 1, end - 1)]
    return [(start, end)]


_WINDOWS_USER_RE: Final = re.compile(
    r"[ \t]/(?:u|user)[:=][^\s/]{1,128}|net[ \t]+user[ \t]+[^\s/]{1,64}[ \t]"
)


def _positional_password_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    r"""A password-shaped bare word among the arguments of a command with ``/user:``.

    ``net use Z: \\fs01\share Harbor26x0OlDYM /user:ACME\jdoe``: Windows commands take the
    password as a positional word beside the user switch. Switches, paths, drive letters and
    the user itself are not it; nor is anything not shaped like a chosen password.
    """
    line_start = max(text.rfind("\n", max(0, m.start() - 300), m.start()) + 1, m.start() - 300)
    line_end = text.find("\n", m.end(), m.end() + 300)
    line_end = min(len(text), m.end() + 300) if line_end < 0 else line_end
    spans: list[tuple[int, int]] = []
    for word in _WORD_RE.finditer(text, line_start, line_end):
        value = word.group()
        if (
            value[0] in "/-+\"'\\"
            or "\\" in value
            or value.endswith(":")
            or m.start() <= word.start() < m.end()
        ):
            continue
        if password_shaped(value) and not is_reference(value):
            spans.append(word.span())
    return spans


# --- addauth digest user:X, auth user:X ----------------------------------------------------------

_AUTH_PAIR_RE: Final = re.compile(
    r"(?:addauth|auth|login)[ \t]+(?:[a-z0-9-]{2,16}[ \t]+)?[\"']?[^\s:\"'/@]{1,64}:"
    r"(?P<secret>[^\s\"']{1,256})"
)


def _classify_auth_pair(m: re.Match[str], text: str) -> str | None:
    """An auth command given ``user:password`` (ZooKeeper's ``addauth digest u:p``)."""
    value = group(m, text, "secret") or ""
    if literal_credential(value) or (chosen(value) and not is_reference(value)):
        return "password"  # Lantern66D..u#kHz: dots that make no host name here
    return None


# AUTH X, AUTH user X at a prompt (Redis, and other line protocols): the last word.
_AUTH_COMMAND_RE: Final = re.compile(
    r"auth[ \t]+(?:[a-z0-9_-]{1,32}[ \t]+)?(?P<secret>[^\s\"']{6,256})[ \t]*(?=\r?\n|$)"
)


def _classify_auth_command(m: re.Match[str], text: str) -> str | None:
    before = _command_before(m, text)
    if before.strip() and not before.rstrip().endswith((">", "$", "#", ":")):
        return None  # the command starts its line or follows a prompt ("127.0.0.1:6379>")
    return "password" if literal_credential(group(m, text, "secret") or "") else None


# --- -A bearer -a X, http -a user:X: a credential after an auth scheme's flag ------------------

# A command naming its auth scheme (``-A bearer``, ``--auth-type=digest``) gives the credential
# with ``-a``; HTTPie and xh default to basic, so ``http -a user:X`` is one too. Case-sensitive:
# ``-A`` is the scheme, ``-a`` the credential.
_SCHEME_AUTH_RE: Final = re.compile(r"[ \t]-a(?:[ \t]+|=)" + _VALUE)
_AUTH_SCHEME: Final = re.compile(
    r"(?:^|[ \t])(?:-A[ \t]*|--auth-type[ \t=]+)[\"']?(?:bearer|basic|digest|jwt|token|ntlm)"
    r"(?=[\s\"']|$)",
    re.IGNORECASE,
)
_HTTP_CLIENT: Final = re.compile(
    r"[ \t]*(?:[$#>%][ \t]+)?(?:sudo[ \t]+)?(?:https?|xhs?|httpie)(?=[ \t]|$)", re.IGNORECASE
)
_FILE_NAME: Final = re.compile(r"\.[a-z]{2,4}$")
_HEX_KEY: Final = re.compile(r"[0-9a-fA-F]{24,}")


def _scheme_auth_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    command = re.split(r"[|;&]", _command_before(m, text, 300))[-1]
    if not (_AUTH_SCHEME.search(command) or _HTTP_CLIENT.match(command)):
        return []
    pair = _pair_secret(m, text)
    if pair is not None:
        return [pair]  # -a user:X
    value = _unquote(group(m, text, "secret") or "")
    if ":" in value or "/" in value or is_reference(value) or _FILE_NAME.search(value):
        return []
    if not _AUTH_SCHEME.search(command):
        return []
    drawn = token_shaped(value) or _HEX_KEY.fullmatch(value) or literal_credential(value)
    return [m.span("secret")] if drawn else []  # -A bearer -a X: the token itself


# --- a password's answer: Password*) echo X, user U using X, .logon host/user,X, PRAGMA key = X --

# The branch of an askpass script (or an expect-like case) that answers a password prompt.
_PROMPT_ANSWER_RE: Final = re.compile(
    r"pass(?:word|phrase)?[^\s)]{0,16}\)[ \t]*(?:echo|printf)[ \t]+(?:-[ne]{1,2}[ \t]+)*"
    + _PRINTF_FORMAT
    + _VALUE
)
# A statement that names a user and then gives its password after a keyword (DB2 ``connect to
# D user U using X``), or as ``host/user,X`` (BTEQ's ``.logon``).
_USER_USING_RE: Final = re.compile(r"user[ \t]+[^\s;]{1,64}[ \t]+using[ \t]+" + _VALUE)
_LOGON_RE: Final = re.compile(
    r"\.logon[ \t]+(?:[^\s/,;]{1,128}/)?[^\s/,;]{1,64},(?P<secret>[^\s;\"']{1,256})"
)
# SQLCipher's key statements: the passphrase of the database.
_PRAGMA_KEY_RE: Final = re.compile(r"pragma[ \t]+(?:re)?key[ \t]*=[ \t]*" + _VALUE)


def _classify_answer(m: re.Match[str], text: str) -> str | None:
    """A literal where a command's syntax takes only a password (see the patterns above)."""
    return "password" if literal_credential(group(m, text, "secret") or "") else None


def _answer_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    return _here_string_spans(m, text)


# --- echo <base64> | base64 -d > release.p12 -----------------------------------------------------

_DECODED_TO_FILE_RE: Final = re.compile(
    r"(?:echo|printf)[ \t]+(?:-[ne]{1,2}[ \t]+)*"
    r"(?P<secret>\"[A-Za-z0-9+/=\s\\]{32,65536}\"|'[A-Za-z0-9+/=\s\\]{32,65536}'"
    r"|[A-Za-z0-9+/=]{32,65536})"
    r"[ \t]*\|[ \t]*base64[ \t]+(?:-d|-D|--decode)\b[^\n|>]{0,80}>[ \t]*(?P<file>[^\s;|&]+)"
)
_KEY_FILE: Final = re.compile(
    r"(?i)\.(?:p12|pfx|jks|keystore|bks|key|pem|gpg|pgp|asc|kdbx|ppk|der|mobileprovision|snk)$"
    r"|key|secret|cred|token|passw|auth|keystore|id_[a-z0-9]+$"
)


def _classify_decoded_to_file(m: re.Match[str], text: str) -> str | None:
    """A literal base64 decoded into a key or keystore file: the file's secret, inline."""
    return "private-key" if _KEY_FILE.search(m.group("file")) else None


def _decoded_to_file_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    start, end = m.span("secret")
    if text[start] in "\"'":
        return [(start + 1, end - 1)]
    return [(start, end)]


# --- ConvertTo-SecureString "X" -AsPlainText, SecretStr("X"), SecretValue.unsafePlainText("X") ---

_SECURE_STRING_RE: Final = re.compile(
    r"(?:securestring|secretstr|secretstring|secretbytes|unsafeplaintext)"
    r"[ \t]*(?:\([ \t]*|[ \t]+(?:-string[ \t]+)?)"
    r"(?P<q>[\"'])(?P<secret>[^\"'\n]{4,256})(?P=q)"
)


def _classify_secure_string(m: re.Match[str], text: str) -> str | None:
    """A literal made into a secret by a call or cmdlet that exists to hold secrets."""
    value = group(m, text, "secret") or ""
    if is_reference(value) or is_template(value) or value.strip() != value:
        return None
    return "password"


# --- --key X, --dest-creds u:X, -pw X, login=u:X ------------------------------------------------

_CREDENTIAL_FLAG_RE: Final = re.compile(
    r"--(?:[a-z0-9]+-)*(?P<kw>key|pw|creds|login)(?:[ \t]+|=)" + _VALUE
)
_UUID: Final = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_SHORT_PW_RE: Final = re.compile(r"[ \t]-pw(?:[ \t]+|=)" + _VALUE)
_LOGIN_PAIR_RE: Final = re.compile(r"login=" + _VALUE)


def _pair_secret(m: re.Match[str], text: str) -> tuple[int, int] | None:
    """Where the password of a ``user:password`` value is, if it is a literal one."""
    start, end = m.span("secret")
    value = text[start:end]
    if value[:1] in "\"'":
        start, end = start + 1, end - 1
        value = value[1:-1]
    user, colon, password = value.partition(":")
    if not colon or not user or "/" in password:
        return None  # --login=https://..., a path
    if not (literal_credential(password) or chosen(password)):
        return None  # a host:port, a variable
    return start + len(user) + 1, end


def _credential_flag_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    value = _unquote(group(m, text, "secret") or "")
    kw = m.group("kw")
    if kw == "key":
        # --key <uuid or random draw>: a record or access key. A file name, a path, a
        # word are what most --key flags take.
        if "/" in value or "." in value or is_reference(value):
            return []
        drawn = token_shaped(value) or random_letters(value) or _UUID.fullmatch(value)
        return [m.span("secret")] if drawn else []
    pair = _pair_secret(m, text)
    if pair is not None:
        return [pair]
    if kw == "pw" and literal_credential(value):
        return [m.span("secret")]
    return []


def _classify_credential_flag(m: re.Match[str], text: str) -> str | None:
    if not _credential_flag_spans(m, text):
        return None
    return "token" if m.group("kw") == "key" else "password"


def _classify_short_pw(m: re.Match[str], text: str) -> str | None:
    """``plink -pw X``, ``pscp -pw X``: a flag that can only be a password."""
    return "password" if literal_credential(group(m, text, "secret") or "") else None


def _login_pair_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """``cache_peer ... login=user:X``: an option giving a user and its password."""
    pair = _pair_secret(m, text)
    return [] if pair is None else [pair]


# --- cat <key file> followed by its base64 body --------------------------------------------------

_CAT_KEY_FILE_RE: Final = re.compile(r"cat[ \t]+(?P<path>[^\s|;&<>]{1,256})[ \t]*\r?\n")
_KEY_FILE_NAME: Final = re.compile(r"key|secret|token|\.psk$")
# A pre-shared key printed in hex (TLS-PSK files): 128 bits or more.
_HEX_BODY: Final = re.compile(r"[0-9a-fA-F]{32,}")
_BASE64_LINE: Final = re.compile(r"[A-Za-z0-9+/=_-]{16,256}\r?")


def _cat_key_file_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """``cat /etc/mongo/keyfile`` and the key it printed, line after line of base64."""
    name = m.group("path").rstrip("'\"").rsplit("/", 1)[-1].lower()
    if not _KEY_FILE_NAME.search(name) or name.endswith((".pub", ".py", ".ts", ".js", ".md")):
        return []
    start = position = m.end()
    lines: list[str] = []
    while len(lines) < 200:
        end = text.find("\n", position, position + 260)
        end = min(len(text), position + 260) if end < 0 else end
        if not _BASE64_LINE.fullmatch(text, position, end):
            break
        lines.append(text[position:end].rstrip("\r"))
        position = end + 1
    body = "".join(lines)
    drawn = (
        token_shaped(body)
        or (has_entropy(body) and shannon_entropy(body) >= 4.5)
        or (_HEX_BODY.fullmatch(body) is not None and shannon_entropy(body) >= 3.0)
    )
    if len(body) < 20 or not drawn:
        return []
    return [(start, start + sum(len(line) + 1 for line in lines) - 1)]


COMMAND_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "password",
        ASSIGNMENT,
        _HERE_STRING_RE,
        _classify_here_string,
        spans=_here_string_spans,
    ),
    Rule("password", ASSIGNMENT, _HERE_DOC_RE, _classify_here_doc),
    *(
        Rule(
            "password",
            ASSIGNMENT,
            pattern,
            _classify_answer,
            WORD,
            on_lowercase=True,
            spans=_answer_spans,
        )
        for pattern in (_PROMPT_ANSWER_RE, _USER_USING_RE, _LOGON_RE, _PRAGMA_KEY_RE)
    ),
    Rule(
        "password",
        ASSIGNMENT,
        _CREDENTIAL_FLAG_RE,
        _classify_credential_flag,
        on_lowercase=True,
        spans=_credential_flag_spans,
    ),
    Rule("password", ASSIGNMENT, _SHORT_PW_RE, _classify_short_pw),
    Rule("auth", ASSIGNMENT, _SCHEME_AUTH_RE, spans=_scheme_auth_spans),
    Rule(
        "password",
        ASSIGNMENT,
        _LOGIN_PAIR_RE,
        not_after=WORD + ".",
        on_lowercase=True,
        spans=_login_pair_spans,
    ),
    Rule(
        "private-key",
        ASSIGNMENT,
        _CAT_KEY_FILE_RE,
        not_after=WORD + "-",
        spans=_cat_key_file_spans,
    ),
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
        not_after=WORD + ".",
        on_lowercase=True,
        spans=_positional_spans,
    ),
    Rule(
        "token",
        ASSIGNMENT,
        _CONFIG_SET_RE,
        not_after=WORD,  # mix hex.config api_key X: a tool's own config task
        on_lowercase=True,
        spans=_config_spans,
    ),
    Rule(
        "secret",
        ASSIGNMENT,
        _SECRET_SET_RE,
        not_after=WORD + ".",
        on_lowercase=True,
        spans=_secret_set_spans,
    ),
    Rule("password", ASSIGNMENT, _USER_COMMA_RE, _classify_user_comma),
    Rule(
        "password",
        ASSIGNMENT,
        _WINDOWS_PASS_RE,
        _classify_windows_pass,
        on_lowercase=True,
        spans=_windows_pass_spans,
    ),
    Rule(
        "password",
        ASSIGNMENT,
        _WINDOWS_USER_RE,
        on_lowercase=True,
        spans=_positional_password_spans,
    ),
    Rule("password", ASSIGNMENT, _AUTH_PAIR_RE, _classify_auth_pair, WORD, on_lowercase=True),
    Rule("password", ASSIGNMENT, _AUTH_COMMAND_RE, _classify_auth_command, WORD, on_lowercase=True),
    Rule(
        "private-key",
        ASSIGNMENT,
        _DECODED_TO_FILE_RE,
        _classify_decoded_to_file,
        WORD,
        spans=_decoded_to_file_spans,
    ),
    Rule(
        "password",
        ASSIGNMENT,
        _SECURE_STRING_RE,
        _classify_secure_string,
        on_lowercase=True,
    ),
)
